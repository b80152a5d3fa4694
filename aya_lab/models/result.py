"""What one generation produced (:class:`GenerationResult`), and the recorders that watch generations
(:func:`record_generations` yields :class:`GenerationRecord`s: room traces and cost accounting)."""

from __future__ import annotations

import contextlib
import contextvars
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["GenerationResult", "GenerationRecord", "record_generations", "publish", "usage"]


@dataclass(frozen=True)
class GenerationResult:
    """One model output with its accounting."""

    text: str
    prompt_tokens: int
    completion_tokens: int
    cached: bool = False
    latency_s: float = 0.0
    truncated: bool = False


@dataclass
class GenerationRecord:
    """What a recorder sees of one generation: the exact prompt, the output and its cost."""

    model: str
    fingerprint: str
    prompt: str
    result: GenerationResult
    started_at: float = field(default_factory=time.time)


_RECORDERS: contextvars.ContextVar[tuple[list[GenerationRecord], ...]] = contextvars.ContextVar(
    "aya_lab_recorders", default=()
)


@contextlib.contextmanager
def record_generations() -> Iterator[list[GenerationRecord]]:
    """Collect a :class:`GenerationRecord` for every generation made inside the ``with`` block.

    Recorders nest: an outer recorder also sees what an inner one sees.
    """
    records: list[GenerationRecord] = []
    token = _RECORDERS.set((*_RECORDERS.get(), records))
    try:
        yield records
    finally:
        _RECORDERS.reset(token)


def usage(records: Sequence[GenerationRecord]) -> dict[str, Any]:
    """What ``records`` cost together: ``calls``, ``prompt_tokens``, ``completion_tokens`` and ``latency_s``
    (the recorded model seconds, summed)."""
    return {
        "calls": len(records),
        "prompt_tokens": sum(r.result.prompt_tokens for r in records),
        "completion_tokens": sum(r.result.completion_tokens for r in records),
        "latency_s": sum(r.result.latency_s for r in records),
    }


def publish(record: GenerationRecord) -> None:
    """Hand ``record`` to every active recorder."""
    for records in _RECORDERS.get():
        records.append(record)
