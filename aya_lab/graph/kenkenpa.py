"""kenkenpa's Python API over this package's loader: ``from aya_lab.graph.kenkenpa import StateGraphBuilder``.

kenkenpa (github.com/onihei0910/kenkenpa) builds a LangGraph ``StateGraph`` from a settings dict::

    stategraph_builder = StateGraphBuilder(graph_settings)
    stategraph_builder.add_reducer("add_messages", add_messages)
    stategraph_builder.add_node_factory("agent_node_factory", gen_agent)
    stategraph_builder.add_evaluete_function("is_tool_message_function", is_tool_message)
    stategraph = stategraph_builder.gen_stategraph()     # uncompiled; compile it as usual

This class keeps that surface — the constructor's keywords (``config_schema``, ``node_factorys``,
``evaluete_functions``, ``reducers``, ``types``), the ``add_*`` methods with kenkenpa's spelling, the
attributes kenkenpa's own tests read (``graph_settings``, ``config_schema``, ``node_factorys``,
``evaluete_functions``, ``statebuilder.reducer_list`` / ``.type_list``) — and builds through
:func:`~aya_lab.graph.load.load_spec` and :func:`~aya_lab.graph.build.build_graph`, so a bad spec raises
one located :class:`~aya_lab.graph.errors.SpecError`. It reads specs as kenkenpa does (``compat=
"kenkenpa"``, each leniency a located :class:`~aya_lab.graph.errors.SpecWarning`); ``compat="strict"``
refuses them instead.

Simplified: the structure is checked in the constructor (as kenkenpa's pydantic models do), names when
the graph is generated (registrations come after the constructor); kenkenpa's internal modules
(``kenkenpa.models``, ``kenkenpa.edges``, ``kenkenpa.state``) have no counterpart.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping

from langgraph.graph import StateGraph

from aya_lab.graph.build import build_graph
from aya_lab.graph.errors import SpecWarning
from aya_lab.graph.load import load_spec
from aya_lab.graph.registry import EvaluationFunction, NodeFactory, Reducer, Registry, default_registry
from aya_lab.graph.spec import SpecData

__all__ = ["StateGraphBuilder"]


class _StateTables:
    """kenkenpa's ``StateBuilder`` as its tests see it: the types and reducers registered by the user."""

    def __init__(self, types: Mapping[str, object] | None, reducers: Mapping[str, Reducer] | None) -> None:
        self.type_list: dict[str, object] = dict(types or {})
        self.reducer_list: dict[str, Reducer] = dict(reducers or {})

    def add_type(self, name: str, type_: object) -> None:
        self.type_list[name] = type_

    def add_reducer(self, name: str, function: Reducer) -> None:
        self.reducer_list[name] = function


class StateGraphBuilder:
    """kenkenpa's builder (see the module docstring). ``registry`` (default: :func:`default_registry`)
    supplies names beside the ones registered here; a name registered here wins, as in kenkenpa."""

    def __init__(
        self,
        graph_settings: SpecData,
        config_schema: type[object] | None = None,
        node_factorys: Mapping[str, NodeFactory] | None = None,
        evaluete_functions: Mapping[str, EvaluationFunction] | None = None,
        reducers: Mapping[str, Reducer] | None = None,
        types: Mapping[str, object] | None = None,
        *,
        compat: str = "kenkenpa",
        registry: Registry | None = None,
    ) -> None:
        with warnings.catch_warnings():  # the warnings are emitted once, by gen_stategraph()
            warnings.simplefilter("ignore", SpecWarning)
            load_spec(graph_settings, check_registry=False, compat=compat)
        self.graph_settings = graph_settings
        self.config_schema = config_schema
        self.node_factorys: dict[str, NodeFactory] = dict(node_factorys or {})
        self.evaluete_functions: dict[str, EvaluationFunction] = dict(evaluete_functions or {})
        self.statebuilder = _StateTables(types, reducers)
        self.stategraph: StateGraph | None = None
        self.compat = compat
        self._base = registry if registry is not None else default_registry()

    # -- kenkenpa's registration methods (its spelling) ---------------------------------------------------
    def add_node_factory(self, name: str, function: NodeFactory) -> None:
        """Register ``function(factory_parameter, flow_parameter) -> node`` (a function or a class)."""
        self.node_factorys[name] = function

    def add_evaluete_function(self, name: str, function: EvaluationFunction) -> None:
        """Register ``function(state, config, **kwargs)`` for conditions (kenkenpa's spelling)."""
        self.evaluete_functions[name] = function

    add_evaluate_function = add_evaluete_function

    def add_reducer(self, name: str, function: Reducer) -> None:
        """Register a reducer ``(left, right) -> merged``."""
        self.statebuilder.add_reducer(name, function)

    def add_type(self, name: str, type_: object) -> None:
        """Register a state field type."""
        self.statebuilder.add_type(name, type_)

    # -- building ------------------------------------------------------------------------------------------
    @property
    def registry(self) -> Registry:
        """The registry the spec is built with: the base registry plus everything registered here."""
        reg = self._base.copy()
        for name, type_ in self.statebuilder.type_list.items():
            reg.add_type(name, type_, replace=True)
        for name, fn in self.statebuilder.reducer_list.items():
            reg.add_reducer(name, fn, replace=True)
        for name, factory in self.node_factorys.items():
            reg.add_node_factory(name, factory, replace=True)
        for name, fn in self.evaluete_functions.items():
            reg.add_evaluation_function(name, fn, replace=True)
        return reg

    def gen_stategraph(self) -> StateGraph:
        """The uncompiled ``StateGraph`` (``config_schema`` is LangGraph's ``context_schema``)."""
        reg = self.registry
        spec = load_spec(self.graph_settings, reg, compat=self.compat)
        self.stategraph = build_graph(spec, reg, context_schema=self.config_schema)
        return self.stategraph
