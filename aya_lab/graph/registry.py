"""Registries: the names a graph spec may use, mapped to Python objects.

A spec never contains code; it names things. Four tables hold what the names mean:

- ``types``: state field types (``"list"``, ``"str"``, ...), pre-registered with Python's builtins;
- ``reducers`` (:data:`Reducer`): ``(left, right) -> merged`` functions for ``Annotated`` state fields;
- ``node_factories`` (:data:`NodeFactory`): ``factory(*, factory_parameter, flow_parameter) -> node``
  (a function, or a class whose instances are callable), each optionally with a **parameters model** (below);
- ``evaluation_functions`` (:data:`EvaluationFunction`): ``fn(state, config, **args) -> value``, for conditions.

Names follow thinc's registry style, with a version: ``"aya_supervisor.v1"``. A new behaviour
gets a new version (``.v2``) instead of silently changing what an existing spec means. Plain names
(kenkenpa's ``"agent_node_factory"``) work too.

A node factory may declare its ``factory_parameter`` as a pydantic model
(``add_node_factory(name, factory, parameters=Model)``, best with ``extra="forbid"``). Then every
check of a spec (``load_spec``, ``aya-lab graph validate``) validates each such node's
``factory_parameter`` with ``Model.model_validate`` and reports each pydantic error as a located
problem (``flows[3].factory_parameter.summarizer: Input should be 'two_call' or 'one_call'``), and
building calls the factory with the validated **model instance** as ``factory_parameter``. A factory
registered without a model gets the spec's ``factory_parameter`` as a plain ``dict``, as before.

Registering a different object under a taken name raises :class:`RegistryError` unless
``replace=True``; re-registering the same object is a no-op (so module reloads are harmless).

Other packages plug their registry in one way: a ``module:attr`` reference
(:func:`load_registry_ref`), which the ``aya-lab graph`` CLI takes as ``--registry`` (default: the
Aya room's names, ``aya_lab.room.names:aya_names``). Nothing registers itself on import.
"""

from __future__ import annotations

import importlib
import inspect
import operator
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Never, cast

from pydantic import BaseModel

from aya_lab.errors import AyaLabError
from aya_lab.graph.errors import RegistryError, did_you_mean
from aya_lab.graph.spec import SpecData

if TYPE_CHECKING:
    from langgraph.graph.message import Messages

__all__ = [
    "Registry",
    "default_registry",
    "registry_from_refs",
    "load_registry_ref",
    "append_list",
    "merge_dict",
    "LazyFactory",
    "ReducerError",
    "const_update",
    "length",
]

Reducer = Callable[[Never, Never], object]  # any two-argument callable: LangGraph gives it a field's values
NodeFactory = Callable[..., object]
EvaluationFunction = Callable[..., object]
_TABLES = ("types", "reducers", "node_factories", "evaluation_functions")
_SINGULAR = {
    "types": "type",
    "reducers": "reducer",
    "node_factories": "node factory",
    "evaluation_functions": "evaluation function",
}


def _check_binds(kind: str, name: str, obj: Any, *args: Any, partial: bool = False, **kwargs: Any) -> None:
    """Raise RegistryError when ``obj`` cannot be called as ``obj(*args, **kwargs)`` (``partial``:
    other required keyword arguments are allowed; a spec supplies them as ``args``)."""
    if not callable(obj):
        raise RegistryError(f"{_SINGULAR[kind]} {name!r} must be callable, got {type(obj).__name__}")
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):  # builtins without a signature: trust them
        return
    try:
        (sig.bind_partial if partial else sig.bind)(*args, **kwargs)
    except TypeError as exc:
        raise RegistryError(f"{_SINGULAR[kind]} {name!r} has signature {sig}: {exc}") from None


class Registry:
    """Four name -> object tables; see the module docstring.

    ``Registry(types=..., reducers=..., node_factories=..., evaluation_functions=...)`` starts from
    the built-in types (never the built-in reducers; use :func:`default_registry` for those).
    """

    def __init__(
        self,
        types: Mapping[str, object] | None = None,
        reducers: Mapping[str, Reducer] | None = None,
        node_factories: Mapping[str, NodeFactory] | None = None,
        evaluation_functions: Mapping[str, EvaluationFunction] | None = None,
    ) -> None:
        self.types: dict[str, object] = dict(BUILTIN_TYPES)
        self.reducers: dict[str, Reducer] = {}
        self.node_factories: dict[str, NodeFactory] = {}
        self.evaluation_functions: dict[str, EvaluationFunction] = {}
        self.parameter_models: dict[str, type[BaseModel]] = {}
        """Node factory name -> the pydantic model of its ``factory_parameter`` (factories that declare one)."""
        for name, obj in (types or {}).items():
            self.add_type(name, obj, replace=True)
        for name, obj in (reducers or {}).items():
            self.add_reducer(name, obj)
        for name, obj in (node_factories or {}).items():
            self.add_node_factory(name, obj)
        for name, obj in (evaluation_functions or {}).items():
            self.add_evaluation_function(name, obj)

    # -- registration ------------------------------------------------------------------------------
    def _add(self, table: str, name: str, obj: Any, replace: bool) -> Any:
        if not isinstance(name, str) or not name:
            raise RegistryError(f"a {_SINGULAR[table]} name must be a non-empty string, got {name!r}")
        current = getattr(self, table)
        if name in current and current[name] is not obj and not replace:
            raise RegistryError(
                f"{_SINGULAR[table]} {name!r} is already registered to {current[name]!r}; "
                "register the new one under a new version (e.g. '.v2') or pass replace=True"
            )
        current[name] = obj
        return obj

    def _maybe_decorator(self, adder: Callable[..., Any], name: str, obj: Any, replace: bool) -> Any:
        if obj is None:  # used as a decorator: @reg.add_node_factory("x.v1")
            return lambda fn: adder(name, fn, replace=replace)
        return adder(name, obj, replace=replace)

    def add_type(self, name: str, type_: object = None, *, replace: bool = False) -> object:
        """Register a state field type (any annotation: a class, ``typing.Any``, a TypedDict...)."""
        if type_ is None:
            return lambda t: self._add("types", name, t, replace)
        return self._add("types", name, type_, replace)

    def add_reducer(self, name: str, fn: Reducer | None = None, *, replace: bool = False) -> Callable[..., object]:
        """Register a reducer ``(left, right) -> merged``."""

        def add(n: str, f: Any, replace: bool) -> Any:
            _check_binds("reducers", n, f, None, None)
            return self._add("reducers", n, f, replace)

        return self._maybe_decorator(add, name, fn, replace)

    def add_node_factory(
        self,
        name: str,
        factory: NodeFactory | None = None,
        *,
        replace: bool = False,
        parameters: type[BaseModel] | None = None,
    ) -> Callable[..., object]:
        """Register ``factory(*, factory_parameter, flow_parameter) -> node`` (function or class); also a
        decorator (``@reg.add_node_factory("x.v1", parameters=XParameters)``).

        ``parameters``: the pydantic model of the node's ``factory_parameter``. With one, specs are
        checked against it (located errors) and the factory receives ``factory_parameter`` as a validated
        instance of the model; without one it receives the spec's ``dict`` (see the module docstring).
        Re-registering the same factory with a different model is a clash (``replace=True`` replaces both).
        """
        if parameters is not None and not (isinstance(parameters, type) and issubclass(parameters, BaseModel)):
            raise RegistryError(
                f"node factory {name!r}: parameters must be a pydantic BaseModel subclass, got {parameters!r}"
            )

        def add(n: str, f: Any, replace: bool) -> Any:
            _check_binds("node_factories", n, f, factory_parameter={}, flow_parameter={})
            declared = self.parameter_models.get(n)
            if self.node_factories.get(n) is f and declared is not parameters and not replace:
                raise RegistryError(
                    f"node factory {n!r} is already registered with parameters {declared!r}, not {parameters!r}; "
                    "register the new one under a new version (e.g. '.v2') or pass replace=True"
                )
            self._add("node_factories", n, f, replace)
            if parameters is None:
                self.parameter_models.pop(n, None)
            else:
                self.parameter_models[n] = parameters
            return f

        return self._maybe_decorator(add, name, factory, replace)

    def add_evaluation_function(
        self, name: str, fn: EvaluationFunction | None = None, *, replace: bool = False
    ) -> Callable[..., object]:
        """Register ``fn(state, config, **args) -> value`` for conditions and results."""

        def add(n: str, f: Any, replace: bool) -> Any:
            _check_binds("evaluation_functions", n, f, {}, {}, partial=True)
            return self._add("evaluation_functions", n, f, replace)

        return self._maybe_decorator(add, name, fn, replace)

    # -- lookup ------------------------------------------------------------------------------------
    def names(self, table: str) -> list[str]:
        """Sorted registered names of one table (``"types"``, ``"reducers"``, ...)."""
        return sorted(getattr(self, table))

    def has(self, table: str, name: object) -> bool:
        return isinstance(name, str) and name in getattr(self, table)

    def get(self, table: str, name: str) -> object:
        """The object registered as ``name``; KeyError with a suggestion otherwise."""
        current = getattr(self, table)
        if name not in current:
            raise KeyError(f"unknown {_SINGULAR[table]} {name!r}{did_you_mean(name, current)}")
        return current[name]

    def node_parameters(self, name: str) -> type[BaseModel] | None:
        """The parameters model node factory ``name`` declares, or None (it takes a plain dict);
        KeyError with a suggestion when no factory is registered as ``name``."""
        self.get("node_factories", name)
        return self.parameter_models.get(name)

    # -- combination -------------------------------------------------------------------------------
    def copy(self) -> Registry:
        """An independent registry with the same entries."""
        new = Registry.__new__(Registry)
        for table in _TABLES:
            setattr(new, table, dict(getattr(self, table)))
        new.parameter_models = dict(self.parameter_models)
        return new

    def update(self, other: Registry) -> Registry:
        """Add every entry of ``other`` to this registry (``other`` wins on a clash); returns self."""
        for table in _TABLES:
            getattr(self, table).update(getattr(other, table))
        for name in other.node_factories:  # a factory comes with its model (or its lack of one)
            self.parameter_models.pop(name, None)
        self.parameter_models.update(other.parameter_models)
        return self

    def merge(self, *others: Registry) -> Registry:
        """A new registry: this one updated by each of ``others`` in turn (later ones win)."""
        new = self.copy()
        for other in others:
            new.update(other)
        return new

    def describe(self) -> dict[str, list[str]]:
        """``{table: [names]}``, e.g. for ``aya-lab graph validate`` diagnostics."""
        return {table: self.names(table) for table in _TABLES}

    def __repr__(self) -> str:
        sizes = ", ".join(f"{t}={len(getattr(self, t))}" for t in _TABLES)
        return f"Registry({sizes})"


BUILTIN_TYPES: dict[str, Any] = {
    "int": int,
    "float": float,
    "complex": complex,
    "str": str,
    "list": list,
    "tuple": tuple,
    "dict": dict,
    "set": set,
    "frozenset": frozenset,
    "bool": bool,
    "any": Any,
}


class ReducerError(AyaLabError, TypeError):
    """A node returned an update of a type its field's reducer does not take (a bug in the node)."""


def append_list(left: object, right: object) -> list[object]:
    """Reducer ``"append_list.v1"`` (the seed's messages reducer): a list (or tuple) update is appended
    to the current list; a **string** update is ignored on purpose, so a node can pass through without
    changing history; any other update (a dict, ``None``, a number) is a bug and raises
    :class:`ReducerError`, as LangGraph's own reducers do."""
    current = list(left) if isinstance(left, (list, tuple)) else []
    if isinstance(right, (list, tuple)):
        return current + list(right)
    if isinstance(right, str):
        return current
    raise ReducerError(
        f"append_list.v1 got a {type(right).__name__} update ({right!r:.60}): return a list to append, "
        "or a string to pass through without changing the field"
    )


def merge_dict(left: object, right: object) -> dict[object, object]:
    """Reducer ``"merge_dict.v1"``: shallow-merge a mapping update into the current dict (a later value
    wins); any other update raises :class:`ReducerError`."""
    current = dict(left) if isinstance(left, Mapping) else {}
    if not isinstance(right, Mapping):
        raise ReducerError(f"merge_dict.v1 got a {type(right).__name__} update ({right!r:.60}): return a dict to merge")
    current.update(right)
    return current


def add_messages(left: Messages, right: Messages) -> Messages:
    """Reducer ``"add_messages"``: LangGraph's ``add_messages``, imported on first use (LangGraph's
    graph module costs a second to import, which validating a spec does not need)."""
    from langgraph.graph.message import add_messages as merge

    return merge(left, right)


def _builtin_reducers() -> dict[str, Reducer]:
    return {
        "operator.add": operator.add,
        "append_list.v1": append_list,
        "merge_dict.v1": merge_dict,
        "add_messages": add_messages,
    }


def const_update(*, factory_parameter: SpecData, flow_parameter: dict[str, str]) -> Callable[[object], SpecData]:
    """Node factory ``"const_update.v1"``: a node that returns ``factory_parameter["update"]``
    (default ``{}``) every time; handy for sketches, tests and pass-through steps."""
    update = dict(cast("SpecData", factory_parameter.get("update") or {}))

    def node(state: Any) -> dict[str, Any]:
        return dict(update)

    node.__name__ = str(flow_parameter.get("name", "const_update"))
    return node


def length(state: object, config: object, *, field: str) -> int:
    """Evaluation function ``"len.v1"``: ``len(state[field])`` (0 when missing or None)."""
    value = state.get(field) if isinstance(state, Mapping) else getattr(state, field, None)
    return 0 if value is None else len(value)


def default_registry() -> Registry:
    """A fresh registry with the built-in types, generic reducers (``"operator.add"``,
    ``"append_list.v1"``, ``"merge_dict.v1"``, ``"add_messages"``), the node factory
    ``"const_update.v1"`` and the evaluation function ``"len.v1"``; extend it freely."""
    return Registry(
        reducers=_builtin_reducers(),
        node_factories={"const_update.v1": const_update},
        evaluation_functions={"len.v1": length},
    )


class LazyFactory:
    """A node factory named by a ``module:attr`` reference and imported on its first call: a registry can
    hold (and a spec be validated against) the names of factories whose code pulls in heavy
    dependencies without importing them. Building a node imports the module. Its parameters model, if
    any, is given to :meth:`Registry.add_node_factory` beside it (the model should live in a light
    module, so that checking a spec imports no heavy dependency); ``factory_parameter`` is passed on
    as received (the model instance when a model is declared)."""

    def __init__(self, ref: str) -> None:
        module, sep, attr = ref.partition(":")
        if not sep or not module or not attr:
            raise RegistryError(f"factory reference {ref!r} is not MODULE:ATTR; e.g. aya_lab.room.nodes:ingest")
        self.ref = ref

    def __call__(self, *, factory_parameter: object, flow_parameter: dict[str, str]) -> object:
        module, _, attr = self.ref.partition(":")
        factory = getattr(importlib.import_module(module), attr)
        return factory(factory_parameter=factory_parameter, flow_parameter=flow_parameter)

    def __repr__(self) -> str:
        return f"LazyFactory({self.ref!r})"


# -- discovery: one mechanism, a ``module:attr`` reference ---------------------------------------------
def load_registry_ref(ref: str) -> Registry:
    """``"package.module:attr"`` -> the Registry it names (``attr`` is a Registry or a zero-argument
    callable returning one). Raises :class:`RegistryError` naming the reference and the fix."""
    module_name, sep, attr = ref.partition(":")
    if not sep or not module_name or not attr:
        raise RegistryError(f"registry reference {ref!r} is not MODULE:ATTR; e.g. aya_lab.room.nodes:aya_registry")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise RegistryError(
            f"registry reference {ref!r}: cannot import {module_name!r} ({exc}); check the module path"
        ) from None
    if not hasattr(module, attr):
        raise RegistryError(
            f"registry reference {ref!r}: {module_name} has no {attr!r}{did_you_mean(attr, dir(module))}"
        )
    obj = getattr(module, attr)
    reg = obj() if callable(obj) and not isinstance(obj, Registry) else obj
    if not isinstance(reg, Registry):
        raise RegistryError(f"{ref!r} gave {type(reg).__name__}, not a Registry")
    return reg


def registry_from_refs(refs: list[str] | tuple[str, ...], base: Registry | None = None) -> Registry:
    """``base`` (default: :func:`default_registry`) merged with the registry each ``module:attr`` names."""
    reg = (base or default_registry()).copy()
    for ref in refs:
        reg.update(load_registry_ref(ref))
    return reg
