"""Progress bars for model-backed evaluations: tqdm on stderr, never in a notebook's outputs.

:func:`progress_bar` is a context manager yielding a tqdm bar (or ``None`` when off) that the caller
updates itself. :func:`generation_progress` counts the model generations made inside its block (as
the generation recorder sees them) for evaluators that batch their calls internally; a background
thread moves the bar, so the evaluator needs no hook.

``enabled=None`` means "only when stderr is a terminal"; ``TQDM_DISABLE=1`` (which
:func:`aya_lab.notebook.setup_notebook` sets) silences every bar, so recorded notebooks stay clean.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from tqdm.auto import tqdm

from aya_lab.models.base import record_generations

__all__ = ["progress_enabled", "progress_bar", "generation_progress"]


def progress_enabled(enabled: bool | None) -> bool:
    """``enabled``, or (for ``None``) whether stderr is a terminal; always off under ``TQDM_DISABLE``.

    The environment is read on every call: tqdm itself reads ``TQDM_DISABLE`` once, when it is
    imported, which may be before a notebook's setup sets it.
    """
    if os.environ.get("TQDM_DISABLE", "").strip().lower() not in ("", "0", "false"):
        return False
    if enabled is None:
        return bool(getattr(sys.stderr, "isatty", lambda: False)())
    return bool(enabled)


@contextmanager
def progress_bar(total: int | None, desc: str, *, unit: str = "it", enabled: bool | None = None) -> Iterator[Any]:
    """A tqdm bar on stderr for the ``with`` block, or ``None`` when progress is off."""
    if not progress_enabled(enabled):
        yield None
        return
    bar = tqdm(total=total, desc=desc, unit=unit, file=sys.stderr)
    try:
        yield bar
    finally:
        bar.close()


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
