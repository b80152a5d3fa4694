"""kenkenpa's compatibility mode: what it accepts that strict mode refuses, and how each is read.

Strict (the default) refuses ambiguous specs with a located error; ``compat: kenkenpa`` at a spec's
top level (or ``compat="kenkenpa"`` / ``--compat kenkenpa``) accepts them as kenkenpa 0.2 does, each
with a located :class:`~aya_lab.graph.errors.SpecWarning`:

- unknown keys (``version``, ``author``, ...) in the spec's own structure are dropped;
- ``factory_parameter: null`` is an empty mapping;
- a condition reading a state field the graph does not declare reads ``None``;
- a conditional edge without a default fails at run time only when no condition holds;
- several defaults are all followed when no condition holds;
- ``START`` inside a list ``start_key`` is an edge from ``START``;
- an expression with several operators in one mapping is read by its first operator only (kenkenpa
  evaluates the first and returns), the others ignored;
- a node unreachable from ``START`` is built (it never runs).

kenkenpa's older flow kinds ``static_conditional_edge`` / ``static_conditional_entry_point`` are read as
``configurable_conditional_edge`` / ``..._entry_point`` (renamed, same meaning), like ``graph_type`` as ``kind``.

The pruning here is applied to the resolved data before it is checked; the rest is decided by the
checker (:mod:`~aya_lab.graph.check`, :mod:`~aya_lab.graph.conditions`) from the mode.
"""

from __future__ import annotations

import typing
from typing import Annotated, Any, overload

from pydantic import BaseModel

from aya_lab.errors import InputError
from aya_lab.graph.errors import COMPAT_HINT, PathPart, Problem, Problems
from aya_lab.graph.spec import FLOW_KINDS, GraphSpec, SpecData

__all__ = ["MODES", "resolve_mode", "prune_for_kenkenpa", "explain_strict", "normalize_aliases"]

MODES = ("strict", "kenkenpa")


_KIND_ALIASES = {
    "static_conditional_edge": "configurable_conditional_edge",
    "static_conditional_entry_point": "configurable_conditional_entry_point",
}


@overload
def normalize_aliases(data: SpecData) -> SpecData: ...
@overload
def normalize_aliases(data: object) -> object: ...
def normalize_aliases(data: object) -> object:
    """Accept kenkenpa's ``graph_type`` as ``kind`` and its older ``static_*`` kinds (recursively in
    ``flows``); returns new data."""
    if not isinstance(data, dict):
        return data
    out = dict(data)
    if "graph_type" in out and "kind" not in out:
        out["kind"] = out.pop("graph_type")
    if isinstance(out.get("kind"), str) and out["kind"] in _KIND_ALIASES:
        out["kind"] = _KIND_ALIASES[out["kind"]]
    if isinstance(out.get("flows"), list):
        out["flows"] = [normalize_aliases(f) for f in out["flows"]]
    return out


def resolve_mode(data: object, compat: str | None) -> str:
    """The mode to read ``data`` in: ``compat`` when given, else the spec's ``compat`` key, else strict."""
    if compat is not None and compat not in MODES:
        raise InputError(f"compat={compat!r}: use 'kenkenpa' (kenkenpa's permissive reading) or 'strict'")
    if compat is not None:
        return compat
    own = data.get("compat") if isinstance(data, dict) else None
    return own if own in MODES else "strict"


def prune_for_kenkenpa(data: object, warnings: Problems) -> object:
    """A copy of spec ``data`` without unknown keys and with null ``factory_parameter``s as ``{}``;
    one located warning per change."""
    return _prune(data, GraphSpec, [], warnings)


def _model_of(annotation: Any, value: Any) -> type[BaseModel] | None:
    """The pydantic model a mapping ``value`` is checked against under ``annotation``, if any."""
    if isinstance(annotation, (str, typing.ForwardRef)):
        return GraphSpec
    if typing.get_origin(annotation) is Annotated:
        kind = value.get("kind") if isinstance(value, dict) else None
        flow_model: type[BaseModel] | None = FLOW_KINDS.get(kind) if isinstance(kind, str) else None
        return flow_model or _model_of(typing.get_args(annotation)[0], value)
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for member in typing.get_args(annotation):
        if typing.get_origin(member) is not list and (model := _model_of(member, value)) is not None:
            return model
    return None


def _prune(value: Any, annotation: Any, path: list[PathPart], warnings: Problems) -> Any:
    if isinstance(value, list) and typing.get_origin(annotation) is list:
        (item,) = typing.get_args(annotation)
        return [_prune(v, item, [*path, i], warnings) for i, v in enumerate(value)]
    model = _model_of(annotation, value) if isinstance(value, dict) else None
    if model is None:
        return value
    fields = model.model_fields
    out: dict[str, Any] = {}
    for key, v in value.items():
        if key not in fields:
            warnings.add([*path, str(key)], "unknown key ignored (compat: kenkenpa)")
        elif key == "factory_parameter" and v is None:
            warnings.add([*path, key], "null factory_parameter read as {} (compat: kenkenpa)")
            out[key] = {}
        else:
            out[key] = _prune(v, fields[key].annotation, [*path, key], warnings)
    return out


def explain_strict(problems: Problems) -> None:
    """Add the compatibility-mode hint to structural refusals that kenkenpa would accept."""
    for i, p in enumerate(problems.items):
        null_params = p.path.endswith("factory_parameter") and p.message == "expected a mapping, got null"
        if p.message.startswith("unknown key") or null_params:
            problems.items[i] = Problem(p.path, p.message + COMPAT_HINT)
