"""The structural check of raw spec data, guided by the pydantic models of :mod:`aya_lab.graph.spec`.

Why a hand-written structural checker beside pydantic: pydantic's union errors are noisy and carry
discriminator tags in their locations. :func:`check_structure` walks the raw data guided by the
models' own fields (so the two cannot drift apart), reports every unknown key with the closest valid
one (for the first :data:`~aya_lab.graph.errors.MAX_SHOWN_PROBLEMS` of a mapping: 20,000 unknown keys
cost no more than the names), every missing key and every wrong type, with a clean path. A top level
that is not a mapping is named by its type only, never echoed (a link to another file must not print
its first line).
"""

from __future__ import annotations

import types as pytypes
import typing
from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel

from aya_lab.graph.errors import MAX_SHOWN_PROBLEMS, PathPart, Problems, did_you_mean
from aya_lab.graph.spec import FLOW_KINDS, GraphSpec

__all__ = ["check_flow", "check_model", "check_structure", "check_value"]


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


def check_value(value: object, annotation: object, path: list[PathPart], problems: Problems) -> None:
    """Check ``value`` against a (simple) annotation; add located problems (``Any`` and ``object`` take anything)."""
    if annotation is Any or annotation is object:
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


def _kind_of(value: Any) -> str:
    """``value``'s type in words, never its content: ``a string``, ``a list``, ``empty``."""
    if value is None:
        return "null"
    return {str: "a string", list: "a list", int: "a number", float: "a number", bool: "true/false"}.get(
        type(value), f"a {type(value).__name__}"
    )


def check_model(data: object, model: type[BaseModel], path: list[PathPart], problems: Problems) -> None:
    """Unknown keys (with the closest valid key), missing keys and field types of ``model``."""
    if not isinstance(data, dict):
        problems.add(path, f"expected a mapping with keys {sorted(model.model_fields)}, got {_type_name(data)}")
        return
    fields = model.model_fields
    unknown = [key for key in data if key not in fields]
    for n, key in enumerate(unknown):  # hints for the keys a SpecError shows; 20,000 keys stay cheap
        costly = n < MAX_SHOWN_PROBLEMS and not problems.busy
        hint = (did_you_mean(key, fields) if costly else "") or f" (valid keys: {', '.join(fields)})"
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
    unknown = [k for k in data if isinstance(k, str) and k not in fields][:MAX_SHOWN_PROBLEMS]
    return any(did_you_mean(k, fields) == f" (did you mean {name!r}?)" for k in unknown)


def check_flow(data: object, path: list[PathPart], problems: Problems) -> None:
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


def check_structure(data: object, problems: Problems) -> None:
    """Check a (non-overlay) spec's shape; the top level must be a ``stategraph``."""
    if not isinstance(data, dict):  # its type, never its value: a link to a file that is no spec echoes nothing
        problems.add([], f"expected a mapping with a 'kind' key, got {_kind_of(data)}")
        return
    kind = data.get("kind")
    if isinstance(kind, str) and kind != "stategraph" and kind in FLOW_KINDS:
        problems.add(["kind"], f"the top level must be kind 'stategraph', got {data.get('kind')!r}")
        return
    check_flow(data, [], problems)
