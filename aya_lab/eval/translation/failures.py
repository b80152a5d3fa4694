"""Failure categories of translation outputs, for error analysis in the notebooks.

Each output goes to the first category that applies, checked with the room's own translation guard
(:class:`aya_lab.agents.guard.TranslationGuard`): ``empty``; ``echo`` (the source back);
``answers the message`` (assistant-speak such as "Sure, here"); ``wrong language`` (lingua does not
identify the target); ``loop`` (one three-word sequence three times or more); ``length``
(output/source length outside the guard's bounds, or a copied few-shot example); ``wrong number`` (the
output states a number its source does not, the guard's ``numbers`` check); ``unfaithful`` (fluent
text the faithfulness gate finds is no translation of the source: similarity under the calibrated
threshold, :mod:`aya_lab.agents.faithfulness`); ``cut off`` (none of these, but the model used all of its
new-token budget). The rest ``passes the checks`` — which does not make it a correct translation.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import pandas as pd

from aya_lab.agents.guard import TranslationGuard

__all__ = ["FAILURE_CATEGORIES", "failure_category", "failure_counts", "loops"]

FAILURE_CATEGORIES = [
    "empty",
    "echo",
    "answers the message",
    "wrong language",
    "loop",
    "length",
    "wrong number",
    "unfaithful",
    "cut off",
    "passes the checks",
]
_GUARD = TranslationGuard()


def loops(text: str) -> bool:
    """Whether one three-word sequence occurs three times or more in ``text`` (case-insensitive)."""
    words = text.lower().split()
    return max(Counter(zip(words, words[1:], words[2:], strict=False)).values(), default=0) >= 3


def failure_category(src: str, tgt: str, source: str, output: str, generated: int = 0, limit: int | None = None) -> str:
    """The first of :data:`FAILURE_CATEGORIES` that ``output`` (a ``src``→``tgt`` translation of
    ``source``, ``generated`` new tokens of at most ``limit``) falls in; ``cut off`` needs ``limit``."""
    failed = {reason.split(":")[0] for reason in _GUARD.check(source, output, src, tgt).reasons}
    for name, hit in (
        ("empty", "empty" in failed),
        ("echo", "echo" in failed),
        ("answers the message", "assistant" in failed),
        ("wrong language", "language" in failed),
        ("loop", loops(output)),
        ("length", bool(failed & {"length", "example"})),
        ("wrong number", "numbers" in failed),
        ("unfaithful", "faithful" in failed),
        ("cut off", limit is not None and generated >= limit),
    ):
        if hit:
            return name
    return "passes the checks"


def failure_counts(outputs: pd.DataFrame, systems: Sequence[str] | None = None) -> pd.DataFrame:
    """Per system (rows, in ``systems`` order), how many of ``outputs`` fall in each category.

    ``outputs`` has the columns of a translation report's ``items`` plus a ``category`` column (from
    :func:`failure_category`); every category is a column, zero where none fell in it.
    """
    if "category" not in outputs.columns:
        raise ValueError("failure_counts: outputs has no 'category' column; add it with failure_category()")
    table = pd.crosstab(outputs["system"], pd.Categorical(outputs["category"], FAILURE_CATEGORIES), dropna=False)
    table.columns.name = None
    return table.reindex(list(systems)) if systems is not None else table
