"""How a translation evaluation runs: :class:`EvalConfig`, the options of
:func:`~aya_lab.eval.translation.evaluate.evaluate_translation` as one frozen, validated value.

The evaluator takes *what* to evaluate as arguments (systems, dataset, pairs) and *how* as a config:
which segments, how the systems are called, how the scores are tested, and how the run is watched
and resumed. Every option can also be passed to the evaluator as a keyword (``n=6, docs=3``); those
override the config's fields (:meth:`EvalConfig.with_options`), and a misspelt one is a one-line
``TypeError`` that names it and the options there are.

A bad value fails when the config is made, before any data is loaded or any model called, with a
one-line ``ValueError`` naming the option, its allowed values and what was given.

The options that shape the numbers are recorded in the results' ``meta`` under their own names
(:meth:`EvalConfig.as_meta`); ``progress`` and ``checkpoint`` only change how a run is watched and
resumed, so they are left out and two runs that differ only there compare equal.
"""

from __future__ import annotations

import dataclasses
import difflib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from aya_lab.datasets.parallel import MAX_CONTEXT_WINDOW
from aya_lab.errors import InputError

__all__ = ["RESAMPLE", "EvalConfig"]

RESAMPLE = ("auto", "segment")
"""The resampling units: ``auto`` (documents where the set has document ids, else segments) or ``segment``."""

RUN_ONLY = ("progress", "checkpoint")
"""Options that change how a run is watched and resumed, not its results (left out of ``meta``)."""


@dataclass(frozen=True, kw_only=True)
class EvalConfig:
    """The options of a translation evaluation (every one has a default).

    Segments: ``n`` takes the first ``n`` segments of each pair (all when ``None``); ``docs`` takes
    those ``n`` from that many documents spread over the set where it has document ids
    (:func:`~aya_lab.datasets.parallel.select_segments`); ``split`` names the split (the set's
    default when ``None``); ``verify`` checks the files against the set's checksums.

    Calling the systems: ``chunk_size`` segments per ``translate`` call; ``context_window``
    preceding segments of the same document go with each one (capped at
    :data:`~aya_lab.datasets.parallel.MAX_CONTEXT_WINDOW`).

    Scoring: ``baseline`` names the system the others are tested against (default: the first);
    ``n_bootstrap`` resamples for the confidence intervals and the paired bootstrap test (``0`` or
    ``1``: none), ``n_ar`` for approximate randomisation (``0``: no AR test, its p-value is NaN);
    ``resample`` is ``"auto"`` (whole documents where the set has document ids, segments elsewhere)
    or ``"segment"`` (always segments: sacrebleu's own test, for comparison); ``langid`` checks the
    output language; ``faithfulness`` adds the hallucination rate (the share of outputs the room's
    faithfulness gate would withhold, :mod:`~aya_lab.eval.translation.hallucination`; it runs the
    multilingual encoder over every source and output).

    Watching and resuming: ``progress`` shows one tqdm bar for the whole sweep, in segments, its
    postfix counting generation-cache hits and fresh generations (``None``: only when stderr is a
    terminal; ``TQDM_DISABLE`` silences it; the counts also land in ``meta["generations"]``);
    ``checkpoint`` is a JSONL file of finished chunks that lets a killed run resume.
    """

    n: int | None = None
    docs: int | None = None
    split: str | None = None
    verify: bool = False
    chunk_size: int = 64
    context_window: int = MAX_CONTEXT_WINDOW
    baseline: str | None = None
    n_bootstrap: int = 1000
    n_ar: int = 10000
    resample: str = "auto"
    langid: bool = True
    faithfulness: bool = True
    progress: bool | None = None
    checkpoint: str | Path | None = None

    def __post_init__(self) -> None:
        if self.resample not in RESAMPLE:
            raise InputError(f"resample must be one of {', '.join(RESAMPLE)}, got {self.resample!r}")
        if self.n is not None and self.n <= 0:
            raise InputError(f"n must be a positive number of segments, got {self.n}")
        if self.docs is not None and self.docs < 1:
            raise InputError(f"docs must be a positive number of documents, got {self.docs}")
        if self.chunk_size <= 0:
            raise InputError(f"chunk_size must be positive, got {self.chunk_size}")
        if self.context_window < 0:
            raise InputError(f"context_window must be >= 0 (0: no context), got {self.context_window}")
        for name in ("n_bootstrap", "n_ar"):
            if getattr(self, name) < 0:
                raise InputError(f"{name} must be >= 0 (0: no resampling), got {getattr(self, name)}")

    @classmethod
    def options(cls) -> list[str]:
        """The option names, in declaration order."""
        return [f.name for f in dataclasses.fields(cls)]

    def with_options(self, **overrides: object) -> EvalConfig:
        """This config with ``overrides`` replacing its fields (validated again).

        An unknown name is a ``TypeError`` naming it, the closest option and every option.
        """
        known = self.options()
        for name in overrides:
            if name not in known:
                close = difflib.get_close_matches(name, known, n=1)
                hint = f" (did you mean {close[0]!r}?)" if close else ""
                raise TypeError(f"unknown evaluation option {name!r}{hint}; options: {', '.join(known)}")
        return dataclasses.replace(self, **cast("dict[str, Any]", overrides)) if overrides else self

    def as_meta(self) -> dict[str, object]:
        """The options that shape the results, by name (``progress`` and ``checkpoint`` left out)."""
        return {name: getattr(self, name) for name in self.options() if name not in RUN_ONLY}
