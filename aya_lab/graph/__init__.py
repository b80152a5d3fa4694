"""Graph as data: LangGraph ``StateGraph``s built from validated YAML/JSON specs (seed: kenkenpa).

::

    from aya_lab.graph import default_registry, load_spec, build_graph, spec_hash

    reg = default_registry()                      # built-in types and generic reducers
    reg.add_node_factory("echo.v1", make_echo)    # factory(*, factory_parameter, flow_parameter); parameters=Model
    spec = load_spec("graph.yaml", registry=reg)  # SpecError lists every located problem
    app = build_graph(spec, reg).compile()
    spec_hash(spec)                               # identity of the resolved spec

Modules: :mod:`~aya_lab.graph.spec` (pydantic models, structural check), :mod:`~.conditions`
(the condition language), :mod:`~.registry`, :mod:`~.overlay` (variant specs), :mod:`~.compat`
(kenkenpa's compatibility mode), :mod:`~.check`, :mod:`~.joins` (joins that can starve, loops that
never end), :mod:`~.reader` (hostile files: size, depth and alias limits, confined bases),
:mod:`~.load`, :mod:`~.build`, :mod:`~.kenkenpa` (kenkenpa's ``StateGraphBuilder`` API), :mod:`~.schema`,
:mod:`~.errors`, :mod:`~.structure` (the structural check), :mod:`~.parameters` (factories' parameter
models), :mod:`~.show` (a spec as plain text), :mod:`~.cli` (``aya-lab graph ...``, also
``python -m aya_lab.graph ...``).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from aya_lab.graph.check import check_spec
from aya_lab.graph.errors import ConditionError, Problem, RegistryError, SpecError, SpecFileError, SpecWarning
from aya_lab.graph.load import load_spec, read_spec_data, spec_hash
from aya_lab.graph.registry import (
    Registry,
    default_registry,
    load_registry_ref,
    registry_from_refs,
)
from aya_lab.graph.schema import json_schema
from aya_lab.graph.spec import (
    ConditionalEdgeSpec,
    ConditionalEntryPointSpec,
    EdgeSpec,
    GraphSpec,
    NodeSpec,
    StateFieldSpec,
)

if TYPE_CHECKING:
    from aya_lab.graph.build import build_graph, draw, to_spec
    from aya_lab.graph.kenkenpa import StateGraphBuilder

_BUILD = ("build_graph", "draw", "to_spec")
"""Imported from :mod:`~.build` on first use (PEP 562): building needs LangGraph's graph module, which
costs a second to import; reading and checking a spec does not."""

__all__ = [
    "StateGraphBuilder",
    "Registry",
    "default_registry",
    "registry_from_refs",
    "load_registry_ref",
    "load_spec",
    "read_spec_data",
    "check_spec",
    "build_graph",
    "spec_hash",
    "to_spec",
    "draw",
    "json_schema",
    "GraphSpec",
    "NodeSpec",
    "EdgeSpec",
    "ConditionalEdgeSpec",
    "ConditionalEntryPointSpec",
    "StateFieldSpec",
    "SpecError",
    "SpecFileError",
    "SpecWarning",
    "Problem",
    "RegistryError",
    "ConditionError",
]


def __getattr__(name: str) -> object:
    if name in _BUILD:
        return getattr(importlib.import_module("aya_lab.graph.build"), name)
    if name == "StateGraphBuilder":  # builds graphs too: LangGraph's graph module on first use
        return importlib.import_module("aya_lab.graph.kenkenpa").StateGraphBuilder
    raise AttributeError(f"module 'aya_lab.graph' has no attribute {name!r}")
