"""Progress bars for model-backed evaluations: tqdm on stderr, never in a notebook's outputs.

:func:`progress_bar` is a context manager yielding a tqdm bar (or ``None`` when off) that the caller
updates itself. :func:`sweep_progress` is one bar for a whole translation sweep, counted in segments,
whose postfix says where outputs came from (generation-cache hits, fresh generations, chunks resumed
from a checkpoint). :func:`generation_progress` counts the model generations made inside its block (as
the generation recorder sees them) for evaluators that batch their calls internally; a background
thread moves the bar, so the evaluator needs no hook.

``enabled=None`` means "only when stderr is a terminal"; ``TQDM_DISABLE=1`` (the ``tqdm_disable``
setting, which :func:`aya_lab.notebook.setup_notebook` sets) silences every bar, so recorded notebooks
stay clean.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager

from tqdm.auto import tqdm

from aya_lab.models.base import GenerationRecord, record_generations
from aya_lab.settings import settings

__all__ = ["progress_enabled", "progress_bar", "generation_progress", "SweepCounter", "sweep_progress"]


def progress_enabled(enabled: bool | None) -> bool:
    """``enabled``, or (for ``None``) whether stderr is a terminal; always off under ``TQDM_DISABLE``.

    The setting is looked up on every call: tqdm itself reads ``TQDM_DISABLE`` once, when it is
    imported, which is before a notebook's setup turns the setting on.
    """
    if settings().tqdm_disable:
        return False
    if enabled is None:
        return bool(getattr(sys.stderr, "isatty", lambda: False)())
    return bool(enabled)


@contextmanager
def progress_bar(
    total: int | None, desc: str, *, unit: str = "it", enabled: bool | None = None
) -> Iterator[tqdm | None]:
    """A tqdm bar on stderr for the ``with`` block, or ``None`` when progress is off."""
    if not progress_enabled(enabled):
        yield None
        return
    bar = tqdm(total=total, desc=desc, unit=unit, file=sys.stderr)
    try:
        yield bar
    finally:
        bar.close()


class SweepCounter:
    """Segments done in a sweep and where their outputs came from; moves its bar (if any) as it counts.

    ``cache_hits``/``generated`` count model generations (as :func:`record_generations` sees them,
    by ``GenerationResult.cached``); ``resumed`` counts segments whose chunk came from a checkpoint.
    """

    def __init__(self, bar: tqdm | None = None) -> None:
        self.bar = bar
        self.segments = 0
        self.cache_hits = 0
        self.generated = 0
        self.resumed = 0

    def add(self, segments: int, records: Iterable[GenerationRecord] = (), *, resumed: bool = False) -> None:
        """Count a finished chunk of ``segments`` and the generations it made (or that it was resumed)."""
        self.segments += segments
        self.resumed += segments if resumed else 0
        for record in records:
            if record.result.cached:
                self.cache_hits += 1
            else:
                self.generated += 1
        if self.bar is not None:
            self.bar.set_postfix(self.postfix(), refresh=False)
            self.bar.update(segments)

    def postfix(self) -> dict[str, int]:
        """What the bar shows after the counts: ``cache_hits``, ``generated`` (and ``resumed`` when any)."""
        out = {"cache_hits": self.cache_hits, "generated": self.generated}
        return {**out, "resumed": self.resumed} if self.resumed else out

    def as_dict(self) -> dict[str, int]:
        return {"segments": self.segments, **self.postfix(), "resumed": self.resumed}


@contextmanager
def sweep_progress(total: int, desc: str = "translating", *, enabled: bool | None = None) -> Iterator[SweepCounter]:
    """One bar for a whole sweep: ``total`` segments (every system x pair x hop); yields a :class:`SweepCounter`
    that counts even when the bar is off. ``tqdm.auto``: a text bar in a terminal, a widget in JupyterLab."""
    with progress_bar(total, desc, unit="seg", enabled=enabled) as bar:
        yield SweepCounter(bar)


@contextmanager
def generation_progress(
    total: int | None, desc: str, *, enabled: bool | None = None, interval: float = 0.5
) -> Iterator[list]:
    """Count the model generations made inside the block on a tqdm bar (polled every ``interval`` s).

    Yields the list of generation records (as :func:`~aya_lab.models.base.record_generations` does),
    so a caller may also read the cost. Cached generations count too: a replayed run finishes at once.
    """
    with record_generations() as records, progress_bar(total, desc, unit="gen", enabled=enabled) as bar:
        if bar is None:
            yield records
            return
        stop = threading.Event()

        def poll() -> None:
            while not stop.wait(interval):
                bar.update(len(records) - bar.n)

        thread = threading.Thread(target=poll, name="aya-eval-progress", daemon=True)
        thread.start()
        try:
            yield records
        finally:
            stop.set()
            thread.join()
            bar.update(len(records) - bar.n)
