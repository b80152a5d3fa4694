"""Floors for the routing and summary metrics: what a score means next to a system that does no work.

- **Routing, majority class** (:func:`majority_label`): every request gets the set's most frequent
  gold label (ties: the alphabetically first). Its accuracy is that label's share, overall and per
  language, with the same bootstrap as the routers'. It is an in-sample floor (the label is read from the
  scored set's gold), so it is, if anything, slightly generous.
- **Summaries** (:class:`SummaryFloor`, variant names ``copy-transcript`` and ``lead-N``): the summary is
  the transcript's messages (their English text, as the summarizers see them) joined by spaces — all of
  them (``copy-transcript``: a chrF against a prose reference rewards copying) or the first ``N``
  (``lead-N``, the news-summary lead baseline). A floor reads no request and extracts no action items:
  its count is unparsed (``None``, so count exact match and parse rate are 0) and its action-item
  recall is 0. The floors are for the summary-text metrics; they are scored by the same code as the
  summarizers (:func:`~aya_lab.eval.summarization.evaluate_summarizers`, where they are variants).
- **Summaries, extractive** (variant ``extractive``): the room's reply when a model's draft is withheld
  (:mod:`aya_lab.agents.digest`), no model: the window is the request's count read by rule
  (:func:`~aya_lab.agents.summarizer.parse_count`), the summary is who said what in it, and the action items
  are the rule's. Not run by default; name it (``--variants two_call extractive``).

The retrieval floors (random and BM25) live beside the retrieval metrics:
:mod:`aya_lab.eval.retrieval_floors`. The translation floors are systems:
:mod:`aya_lab.eval.translation.systems` (``copy``, ``other-sentence``).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from aya_lab.agents.digest import rule_action_items, who_said_what
from aya_lab.agents.summarizer import SummaryResult, parse_count
from aya_lab.errors import InputError
from aya_lab.eval.names import SUMMARY_FLOORS
from aya_lab.messages import ChatMessage

__all__ = ["MAJORITY", "SUMMARY_FLOORS", "SummaryFloor", "is_summary_floor", "majority_label"]

MAJORITY = "majority-class"
"""The routing floor's name in the ``prompt`` column of routing results."""


_LEAD = re.compile(r"^lead-(\d+)$")


def majority_label(labels: Sequence[str]) -> str:
    """The most frequent label (ties: the alphabetically first); raises on an empty list."""
    if not labels:
        raise InputError("the majority-class floor needs at least one labelled example")
    counts = Counter(labels)
    return min(counts, key=lambda label: (-counts[label], label))


def is_summary_floor(variant: str) -> bool:
    """Whether ``variant`` names a model-free summarizer: ``copy-transcript``, ``lead-N`` (N >= 1), ``extractive``."""
    m = _LEAD.match(variant)
    return variant in ("copy-transcript", "extractive") or (m is not None and int(m.group(1)) >= 1)


class SummaryFloor:
    """A model-free "summarizer": ``copy-transcript`` or ``lead-N`` (see the module docstring)."""

    def __init__(self, variant: str) -> None:
        if not is_summary_floor(variant):
            raise InputError(
                f"unknown summary floor {variant!r}; use copy-transcript, lead-N (e.g. lead-3) or extractive"
            )
        self.variant = variant
        m = _LEAD.match(variant)
        self.n = int(m.group(1)) if m else None
        self.fingerprint = f"floor:{variant}"

    def summarize(self, request: str, history: Sequence[ChatMessage]) -> SummaryResult:
        """The floor's summary of ``history`` (only ``extractive`` reads ``request``)."""
        if self.variant == "extractive":
            count = parse_count(request)
            window = list(history)[-count:] if count else list(history)
            summary = "\n".join(who_said_what(window))
            items = rule_action_items(window)
            return SummaryResult(summary, summary, items, count, [m.id for m in window], notes=["extractive: no model"])
        messages = list(history) if self.n is None else list(history)[: self.n]
        text = " ".join(m.text_in("eng") for m in messages)
        return SummaryResult(
            text=text,
            summary=text,
            action_items=[],
            count_requested=None,
            message_ids=[m.id for m in messages],
            notes=[f"floor {self.variant}: no model"],
        )
