"""What one generation produced (:class:`GenerationResult`), and the recorders that watch generations
(:func:`record_generations` yields :class:`GenerationRecord`s: room traces and cost accounting).
:func:`usage` is the one place that adds generations' costs up."""

from __future__ import annotations

import contextlib
import contextvars
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Protocol, TypedDict

__all__ = ["Costed", "GenerationResult", "GenerationRecord", "Usage", "record_generations", "publish", "usage"]


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


class Costed(Protocol):
    """What :func:`usage` adds up besides records: a :class:`GenerationResult`, or a trace of one."""

    @property
    def prompt_tokens(self) -> int: ...

    @property
    def completion_tokens(self) -> int: ...

    @property
    def latency_s(self) -> float: ...


class Usage(TypedDict):
    """What generations cost together (:func:`usage`)."""

    calls: int
    prompt_tokens: int
    completion_tokens: int
    latency_s: float


def usage(records: Iterable[GenerationRecord | Costed]) -> Usage:
    """What ``records`` (generation records, results or traces of them) cost together: ``calls``,
    ``prompt_tokens``, ``completion_tokens`` and ``latency_s`` (the recorded model seconds, summed)."""
    results = [r.result if isinstance(r, GenerationRecord) else r for r in records]
    return {
        "calls": len(results),
        "prompt_tokens": sum(r.prompt_tokens for r in results),
        "completion_tokens": sum(r.completion_tokens for r in results),
        "latency_s": sum((r.latency_s for r in results), 0.0),
    }


def publish(record: GenerationRecord) -> None:
    """Hand ``record`` to every active recorder."""
    for records in _RECORDERS.get():
        records.append(record)
