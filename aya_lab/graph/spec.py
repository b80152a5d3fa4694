"""The graph spec as pydantic models (``extra="forbid"``), and a structural checker with located errors.

The format follows kenkenpa: a ``stategraph`` has a ``flow_parameter`` (``name``, ``state``) and
``flows``; each flow has a ``kind`` (kenkenpa's ``graph_type`` is accepted as an alias) and a
``flow_parameter``; nodes add ``factory_parameter``. A list ``start_key`` is one edge per start, as in
kenkenpa; ``wait_for: all`` makes it a join. ``compat`` (top level) selects kenkenpa's permissive reading. Conditions are kept as plain data here; their
grammar is checked by :mod:`aya_lab.graph.conditions`.

Why a hand-written structural checker beside pydantic: pydantic's union errors are noisy and carry
discriminator tags in their locations. :func:`check_structure` walks the raw data guided by the
models' own fields (so the two cannot drift apart), reports every unknown key with the closest valid
one, every missing key and every wrong type, with a clean path. Only data that passed it is handed to
pydantic.
"""

from __future__ import annotations

import hashlib
import json
import types as pytypes
import typing
from collections.abc import Mapping
from os import PathLike
from typing import Annotated, Any, Literal, Union

from langgraph.graph import END, START
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, WithJsonSchema

from aya_lab.graph.errors import PathPart, Problems, did_you_mean

__all__ = [
    "GraphSpec",
    "NodeSpec",
    "EdgeSpec",
    "ConditionalEdgeSpec",
    "ConditionalEntryPointSpec",
    "StateFieldSpec",
    "FLOW_KINDS",
    "check_structure",
]

_CONDITION_MARK = {"$comment": "aya_lab:condition"}  # replaced by CONDITION_REF in json_schema()
Condition = Annotated[dict[str, Any], WithJsonSchema(_CONDITION_MARK)]
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
    factory_parameter: dict[str, Any] = {}


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

    def to_dict(self) -> dict[str, Any]:
        """The resolved spec as plain JSON-able data (defaults left out): ``load_spec`` round-trips it."""
        return self.model_dump(mode="json", exclude_defaults=True)

    @property
    def hash(self) -> str:
        return content_hash(self)

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


Source = str | PathLike[str] | Mapping[str, Any] | GraphSpec
"""What the loaders accept: a YAML/JSON file path, spec data, or a loaded :class:`GraphSpec`."""

SPECIAL: dict[str, str] = {"START": START, "END": END, START: START, END: END}
"""kenkenpa's names for LangGraph's entry and exit, mapped to LangGraph's own."""

NODE_KINDS = ("node", "stategraph")


def key_list(key: Any) -> list[Any]:
    """A ``start_key``/``end_key`` as a list (a single key becomes a one-item list)."""
    return list(key) if isinstance(key, list) else [key]


def flow_parameter(flow: Any) -> dict[str, Any]:
    """A raw flow's ``flow_parameter`` dict (empty when missing or malformed)."""
    fp = flow.get("flow_parameter") if isinstance(flow, dict) else None
    return fp if isinstance(fp, dict) else {}


def content_hash(spec: GraphSpec) -> str:
    """Stable content hash (sha256, 16 hex chars) of a spec's canonical JSON."""
    canonical = json.dumps(spec.to_dict(), sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:16]


# -- structural checking ------------------------------------------------------------------------------
def _describe(annotation: Any) -> str:
    origin = typing.get_origin(annotation)
    if origin is Annotated:
        return _describe(typing.get_args(annotation)[0])
    if origin in (Union, pytypes.UnionType):
        return " or ".join(_describe(a) for a in typing.get_args(annotation))
    if origin is list:
        item = typing.get_args(annotation)[0]
        plural = {str: "strings"}.get(item, "mappings" if item is not Any else "values")
        return f"a list of {plural}"
    if origin is dict:
        return "a mapping"
    if origin is Literal:
        return " or ".join(repr(a) for a in typing.get_args(annotation))
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return "a mapping"
    if annotation is type(None):
        return "null"
    return {str: "a string", int: "an integer", bool: "true/false"}.get(annotation, str(annotation))


def _is_flow_union(annotation: Any) -> bool:
    if typing.get_origin(annotation) is not Annotated:
        return False
    return any(getattr(m, "discriminator", None) == "kind" for m in typing.get_args(annotation)[1:])


def check_value(value: Any, annotation: Any, path: list[PathPart], problems: Problems) -> None:
    """Check ``value`` against a (simple) annotation; add located problems."""
    if annotation is Any:
        return
    if isinstance(annotation, typing.ForwardRef) or isinstance(annotation, str):
        annotation = GraphSpec
    origin = typing.get_origin(annotation)
    if _is_flow_union(annotation):
        check_flow(value, path, problems)
    elif origin is Annotated:
        check_value(value, typing.get_args(annotation)[0], path, problems)
    elif isinstance(annotation, type) and issubclass(annotation, BaseModel):
        check_model(value, annotation, path, problems)
    elif origin in (Union, pytypes.UnionType):
        _check_union(value, annotation, path, problems)
    elif origin is list:
        if not isinstance(value, list):
            problems.add(path, f"expected {_describe(annotation)}, got {_type_name(value)}")
            return
        (item,) = typing.get_args(annotation)
        for i, v in enumerate(value):
            check_value(v, item, [*path, i], problems)
    elif origin is dict:
        _check_mapping(value, annotation, path, problems)
    else:
        _check_scalar(value, annotation, path, problems)


def _check_union(value: Any, annotation: Any, path: list[PathPart], problems: Problems) -> None:
    trials = []
    for member in typing.get_args(annotation):
        sub = Problems()
        check_value(value, member, path, sub)
        if not sub:
            return
        trials.append((member, sub))
    # Report the member whose container type matched (a mapping for a model, a list for a list).
    for member, sub in trials:
        m_origin = typing.get_origin(member) or member
        if (m_origin is list and isinstance(value, list)) or (
            isinstance(value, dict)
            and (m_origin is dict or (isinstance(member, type) and issubclass(member, BaseModel)))
        ):
            problems.items.extend(sub.items)
            return
    problems.add(path, f"expected {_describe(annotation)}, got {_type_name(value)}")


def _check_mapping(value: Any, annotation: Any, path: list[PathPart], problems: Problems) -> None:
    if not isinstance(value, dict):
        problems.add(path, f"expected a mapping, got {_type_name(value)}")
        return
    _, val_t = typing.get_args(annotation)
    for k, v in value.items():
        if not isinstance(k, str):
            problems.add([*path, str(k)], f"keys must be strings, got {_type_name(k)}")
        else:
            check_value(v, val_t, [*path, k], problems)


def _check_scalar(value: Any, annotation: Any, path: list[PathPart], problems: Problems) -> None:
    if typing.get_origin(annotation) is Literal:
        allowed = typing.get_args(annotation)
        if value not in allowed:
            problems.add(path, f"expected {_describe(annotation)}, got {value!r}{did_you_mean(value, allowed)}")
    elif annotation is type(None):
        if value is not None:
            problems.add(path, f"expected null, got {_type_name(value)}")
    elif annotation in (str, int, bool, float):
        ok = isinstance(value, annotation) and not (annotation is int and isinstance(value, bool))
        if not ok:
            problems.add(path, f"expected {_describe(annotation)}, got {_type_name(value)}")
    else:
        raise TypeError(f"check_value: unsupported annotation {annotation!r}")  # pragma: no cover


def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, bool):
        return f"{value!r}"
    return f"{type(value).__name__} {value!r}"[:80]


def check_model(data: Any, model: type[BaseModel], path: list[PathPart], problems: Problems) -> None:
    """Unknown keys (with the closest valid key), missing keys and field types of ``model``."""
    if not isinstance(data, dict):
        problems.add(path, f"expected a mapping with keys {sorted(model.model_fields)}, got {_type_name(data)}")
        return
    fields = model.model_fields
    for key in data:
        if key not in fields:
            hint = did_you_mean(key, fields) or f" (valid keys: {', '.join(fields)})"
            problems.add([*path, str(key)], f"unknown key{hint}")
    for name, info in fields.items():
        if name in data:
            check_value(
                data[name],
                info.annotation if not info.metadata else Annotated[info.annotation, *info.metadata],
                [*path, name],
                problems,
            )
        elif info.is_required() and not _has_misspelling(name, data, fields):
            problems.add([*path, name], "missing required key")


def _has_misspelling(name: str, data: dict[str, Any], fields: Any) -> bool:
    """True when an unknown key in ``data`` is a likely misspelling of ``name`` (reported once)."""
    unknown = [k for k in data if isinstance(k, str) and k not in fields]
    return any(did_you_mean(k, fields) == f" (did you mean {name!r}?)" for k in unknown)


def check_flow(data: Any, path: list[PathPart], problems: Problems) -> None:
    """Dispatch on ``kind`` and check the flow against its model."""
    if not isinstance(data, dict):
        problems.add(path, f"expected a mapping with a 'kind' key, got {_type_name(data)}")
        return
    kind = data.get("kind")
    if kind is None:
        problems.add([*path, "kind"], f"missing required key (one of: {', '.join(FLOW_KINDS)})")
        return
    if not isinstance(kind, str) or kind not in FLOW_KINDS:
        hint = did_you_mean(kind, FLOW_KINDS) or f" (one of: {', '.join(FLOW_KINDS)})"
        problems.add([*path, "kind"], f"unknown kind {kind!r}{hint}")
        return
    check_model(data, FLOW_KINDS[kind], path, problems)


def check_structure(data: Any, problems: Problems) -> None:
    """Check a (non-overlay) spec's shape; the top level must be a ``stategraph``."""
    kind = data.get("kind") if isinstance(data, dict) else None
    if isinstance(kind, str) and kind != "stategraph" and kind in FLOW_KINDS:
        problems.add(["kind"], f"the top level must be kind 'stategraph', got {data.get('kind')!r}")
        return
    check_flow(data, [], problems)
