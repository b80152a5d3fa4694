"""The graph spec as pydantic models (``extra="forbid"``), and a structural checker with located errors.

The format follows kenkenpa: a ``stategraph`` has a ``flow_parameter`` (``name``, ``state``) and
``flows``; each flow has a ``kind`` (kenkenpa's ``graph_type`` is accepted as an alias) and a
``flow_parameter``; nodes add ``factory_parameter``. A list ``start_key`` is one edge per start, as in
kenkenpa; ``wait_for: all`` makes it a join. ``compat`` (top level) selects kenkenpa's permissive reading. Conditions are kept as plain data here; their
grammar is checked by :mod:`aya_lab.graph.conditions`.

The structural checker that walks raw data guided by these models' fields is
:mod:`aya_lab.graph.structure`; only data that passed it is handed to pydantic.
"""

from __future__ import annotations

from collections.abc import Mapping
from os import PathLike
from typing import Annotated, Literal, TypeVar, Union

from langgraph.constants import END, START
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, WithJsonSchema

from aya_lab.graph.errors import did_you_mean

__all__ = [
    "GraphSpec",
    "NodeSpec",
    "EdgeSpec",
    "ConditionalEdgeSpec",
    "ConditionalEntryPointSpec",
    "StateFieldSpec",
    "FLOW_KINDS",
    "CONDITION_MARK",
    "SpecData",
]

SpecData = dict[str, object]
"""A mapping of spec data, as YAML or JSON parsed it or a caller's dict gave it: string keys (a key that is
not a string is one of the problems the structural check, :mod:`~aya_lab.graph.structure`, reports) and
values of no promised type until that check passed, so code reads them with ``isinstance``. Data that may
not even be a mapping (a file's content before the check) is typed ``object``."""

CONDITION_MARK = {"$comment": "aya_lab:condition"}  # replaced by CONDITION_REF in json_schema()
Condition = Annotated[SpecData, WithJsonSchema(CONDITION_MARK)]
Key = str | list[str]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class StateFieldSpec(_Model):
    """One state field: ``Annotated[types[type], reducers[reducer]]`` (no reducer: last value wins)."""

    field_name: str
    type: str
    reducer: str | None = None
    description: str | None = None


class StateGraphParameter(_Model):
    name: str
    state: list[StateFieldSpec] = []
    description: str | None = None


class NodeParameter(_Model):
    name: str
    factory: str


class NodeSpec(_Model):
    """A node built by ``factory(factory_parameter=..., flow_parameter=...)``."""

    kind: Literal["node"]
    flow_parameter: NodeParameter
    factory_parameter: SpecData = {}


class EdgeParameter(_Model):
    start_key: Key
    end_key: Key
    wait_for: Literal["all"] | None = Field(
        None,
        description="With a list start_key: 'all' makes the edge a join (end_key runs once every start ran). "
        "Without it, as in kenkenpa, each start gets its own edge (end_key runs after whichever ran).",
    )


class EdgeSpec(_Model):
    """``start_key -> end_key``; one side may be a list. A list of starts is one edge per start
    (kenkenpa's meaning) unless ``wait_for: all`` makes it a join that waits for every start."""

    kind: Literal["edge"]
    flow_parameter: EdgeParameter


class ConditionalEdgeParameter(_Model):
    start_key: str
    conditions: list[Condition]
    path_map: list[str] | dict[str, str] | None = None


class ConditionalEdgeSpec(_Model):
    """After ``start_key``, go to the result of every true condition (or the default)."""

    kind: Literal["configurable_conditional_edge"]
    flow_parameter: ConditionalEdgeParameter


class ConditionalEntryPointParameter(_Model):
    conditions: list[Condition]
    path_map: list[str] | dict[str, str] | None = None


class ConditionalEntryPointSpec(_Model):
    """Like a conditional edge, from ``START``."""

    kind: Literal["configurable_conditional_entry_point"]
    flow_parameter: ConditionalEntryPointParameter


Flow = Annotated[
    Union["GraphSpec", NodeSpec, EdgeSpec, ConditionalEdgeSpec, ConditionalEntryPointSpec],
    Field(discriminator="kind"),
]


class GraphSpec(_Model):
    """A ``stategraph``: the top-level spec, or (nested in ``flows``) a subgraph node."""

    kind: Literal["stategraph"]
    compat: Literal["strict", "kenkenpa"] | None = Field(
        None,
        description="Top level only. 'kenkenpa' accepts what kenkenpa accepts (unknown keys, a missing or "
        "repeated default, unknown state fields, null factory_parameter, START in a list) with warnings.",
    )
    flow_parameter: StateGraphParameter
    flows: list[Flow] = []
    _source: str | None = PrivateAttr(default=None)
    _lineage: tuple[str, ...] = PrivateAttr(default=())
    _mode: str | None = PrivateAttr(default=None)  # the compat= given to load_spec (not part of the data)
    _warnings: tuple[str, ...] = PrivateAttr(default=())

    @property
    def compat_mode(self) -> str:
        """How the spec is read: the ``compat=`` given to load_spec, else its own ``compat`` key, else strict."""
        return self._mode or self.compat or "strict"

    @property
    def warnings(self) -> tuple[str, ...]:
        """What compatibility mode accepted while loading, one located line each."""
        return self._warnings

    @property
    def name(self) -> str:
        return self.flow_parameter.name

    @property
    def source(self) -> str | None:
        """The file the spec was loaded from (the overlay's file for a variant), if any."""
        return self._source

    @property
    def lineage(self) -> tuple[str, ...]:
        """Files this spec was resolved from, base first (one entry per overlay level)."""
        return self._lineage

    def __eq__(self, other: object) -> bool:
        """Specs are equal when their content is (where they were loaded from does not matter)."""
        return isinstance(other, GraphSpec) and self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]  # mutable, like any pydantic model

    def to_dict(self) -> SpecData:
        """The resolved spec as plain JSON-able data (defaults left out): ``load_spec`` round-trips it."""
        return self.model_dump(mode="json", exclude_defaults=True)

    def nodes(self) -> list[NodeSpec | GraphSpec]:
        """Node and subgraph flows, in order."""
        return [f for f in self.flows if isinstance(f, (NodeSpec, GraphSpec))]

    def node(self, name: str) -> NodeSpec | GraphSpec:
        for f in self.nodes():
            if f.flow_parameter.name == name:
                return f
        raise KeyError(f"no node {name!r} in graph {self.name!r}{did_you_mean(name, self.node_names())}")

    def node_names(self) -> list[str]:
        return [f.flow_parameter.name for f in self.nodes()]


GraphSpec.model_rebuild()

FLOW_KINDS: dict[str, type[_Model]] = {
    "stategraph": GraphSpec,
    "node": NodeSpec,
    "edge": EdgeSpec,
    "configurable_conditional_edge": ConditionalEdgeSpec,
    "configurable_conditional_entry_point": ConditionalEntryPointSpec,
}


SpecSource = str | PathLike[str] | Mapping[str, object] | GraphSpec
"""What the loaders accept: a YAML/JSON file path, spec data, or a loaded :class:`GraphSpec`."""

SPECIAL: dict[str, str] = {"START": START, "END": END, START: START, END: END}
"""kenkenpa's names for LangGraph's entry and exit, mapped to LangGraph's own."""

NODE_KINDS = ("node", "stategraph")
_T = TypeVar("_T")


def key_list(key: _T | list[_T]) -> list[_T]:
    """A ``start_key``/``end_key`` as a list (a single key becomes a one-item list)."""
    return list(key) if isinstance(key, list) else [key]


def flow_parameter(flow: object) -> SpecData:
    """A raw flow's ``flow_parameter`` dict (empty when missing or malformed)."""
    fp = flow.get("flow_parameter") if isinstance(flow, dict) else None
    return fp if isinstance(fp, dict) else {}
