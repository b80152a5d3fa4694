"""Node factories' parameter models: a node's ``factory_parameter`` checked against the pydantic model its
factory declares (:meth:`~aya_lab.graph.registry.Registry.add_node_factory` ``parameters=``).

Each pydantic error becomes one located :class:`~aya_lab.graph.errors.Problem` under the node's
``factory_parameter`` (pydantic's ``loc`` extends the path): a wrong value keeps pydantic's message and
names what was given; an unknown key (``extra="forbid"``) is named with the closest allowed key and
the list of allowed keys; a missing one is named. Nested models are followed for their allowed keys;
other containers (unions, dicts) keep pydantic's message as it is.
"""

from __future__ import annotations

import typing
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ValidationError

from aya_lab.graph.errors import PathPart, Problems, SpecError, did_you_mean

__all__ = ["check_parameters", "validate_parameters", "allowed_keys"]


def allowed_keys(model: type[BaseModel]) -> list[str]:
    """The keys a spec may write for ``model``: each field's alias, else its name."""
    return [field.alias or name for name, field in model.model_fields.items()]


def _model_in(annotation: Any) -> type[BaseModel] | None:
    """The first pydantic model in an annotation (``Sub``, ``Sub | None``, ``list[Sub]``), if any."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in typing.get_args(annotation):
        found = _model_in(arg)
        if found is not None:
            return found
    return None


def _model_at(model: type[BaseModel], loc: Sequence[PathPart]) -> type[BaseModel] | None:
    """The model that holds the key at ``loc`` (``loc`` without that key), following nested models."""
    current: type[BaseModel] | None = model
    for part in loc:
        if current is None:
            return None
        if isinstance(part, int):
            continue  # an item of a list of models: the same model
        fields = {field.alias or name: field for name, field in current.model_fields.items()}
        current = _model_in(fields[part].annotation) if part in fields else None
    return current


def _message(model: type[BaseModel], error: Mapping[str, Any]) -> str:
    loc = list(error["loc"])
    if error["type"] == "extra_forbidden" and loc:
        key, holder = loc[-1], _model_at(model, loc[:-1])
        if holder is None:
            return f"unknown key {key!r}"
        allowed = allowed_keys(holder)
        return f"unknown key {key!r}{did_you_mean(key, allowed)}; allowed keys: {', '.join(allowed) or 'none'}"
    if error["type"] == "missing" and loc:
        return f"required parameter {loc[-1]!r} is missing; add it"
    given = error.get("input")
    shown = repr(given) if len(repr(given)) <= 60 else repr(given)[:57] + "..."
    return f"{error['msg']} (got {shown})"


def check_parameters(
    model: type[BaseModel], value: object, path: Sequence[PathPart], problems: Problems
) -> BaseModel | None:
    """``model.model_validate(value)``, or None with one problem per pydantic error added at ``path``."""
    try:
        return model.model_validate(value)
    except ValidationError as exc:
        for error in exc.errors(include_url=False):
            problems.add([*path, *error["loc"]], _message(model, error))
        return None


def validate_parameters(model: type[BaseModel], value: object, path: Sequence[PathPart]) -> BaseModel:
    """The validated model instance; :class:`SpecError` listing every located problem otherwise."""
    problems = Problems()
    instance = check_parameters(model, value, path, problems)
    if instance is None:
        raise SpecError(problems.items, None)
    return instance
