"""Versioned JSON records read into pydantic models: every failure is one line naming the file, the field (or
the line of the JSON) and the command that writes the record again.

Used by the calibration records (:mod:`aya_lab.agents.calibration`, :mod:`aya_lab.rag.margins`); each module
keeps its own cache and error class.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ValidationError

__all__ = ["read_record"]

M = TypeVar("M", bound=BaseModel)


def _located(path: Path, exc: ValidationError, fix: str) -> str:
    """The first validation error as ``FILE: FIELD: MESSAGE; rerun `FIX` ...`` (a model-level error whose message
    starts ``FIELD: `` is located at that field)."""
    err = exc.errors()[0]
    loc = ".".join(str(p) for p in err["loc"]) or "<file>"
    msg = err["msg"].removeprefix("Value error, ")
    if ": " in msg and loc == "<file>":
        loc, msg = msg.split(": ", 1)
    return f"{path}: {loc}: {msg}; rerun `{fix}` to measure it again"


def read_record(path: Path, model: type[M], fix: str, error: Callable[[str], Exception]) -> M:
    """The JSON object at ``path`` validated as ``model``; an unreadable file, text that is not JSON or a field
    ``model`` refuses raises ``error`` with one line naming the file, where, and ``fix`` (the command to rerun)."""
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise error(f"{path}: <file>: cannot be read ({exc}); rerun `{fix}`") from None
    except json.JSONDecodeError as exc:
        raise error(f"{path}: line {exc.lineno}: not JSON ({exc.msg}); rerun `{fix}`") from None
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        raise error(_located(path, exc, fix)) from None
