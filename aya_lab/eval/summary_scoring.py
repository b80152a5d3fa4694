"""Scoring rules of the summarizer evaluation, one function per rule, independent of any model.

- message count: :func:`count_exact` (an unparseable count is wrong) and :func:`count_parsed`;
- window: :func:`last_n_correct`;
- action items: :func:`match_action_items` (owners compared through
  :func:`~aya_lab.datasets.project.normalize_owner`, tasks by sacrebleu chrF or content-word
  Jaccard), :func:`prf` and its micro-averaged, resampled form;
- floors (:class:`SummaryFloor`, variants scored by the same code as the summarizers): ``copy-transcript``
  (the transcript's English text joined: a chrF against a prose reference rewards copying) and ``lead-N``
  (the first ``N`` messages, the news-summary lead baseline). A floor reads no request and extracts no
  action items (count unparsed, so count exact match and parse rate are 0; action-item recall 0).
  ``extractive`` is the room's reply when a model's draft is withheld (:mod:`aya_lab.agents.digest`), no
  model: the window read by rule (:func:`~aya_lab.agents.summarizer.parse_count`), who said what in it,
  and the rule's action items; not run by default (``--variants two_call extractive``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from sacrebleu.metrics import CHRF

from aya_lab.agents.digest import rule_action_items, who_said_what
from aya_lab.agents.summarizer import SummaryResult, parse_count
from aya_lab.datasets.project import ActionItem, normalize_owner
from aya_lab.errors import InputError
from aya_lab.eval.configs import SUMMARY_FLOORS
from aya_lab.eval.resampling import bootstrap_indices, holm_column, paired_bootstrap
from aya_lab.messages import ChatMessage

__all__ = [
    "TASK_CHRF",
    "TASK_JACCARD",
    "task_words",
    "task_similarity",
    "match_action_items",
    "prf",
    "count_exact",
    "count_parsed",
    "last_n_correct",
    "micro_prf",
    "micro_prf_boot",
    "summary_paired_table",
    "SUMMARY_PAIRED_COLUMNS",
    "SUMMARY_FLOORS",
    "SummaryFloor",
    "is_summary_floor",
]

TASK_CHRF = 50.0
TASK_JACCARD = 0.5
SUMMARY_PAIRED_COLUMNS = [
    "baseline",
    "system",
    "metric",
    "score_baseline",
    "score_system",
    "delta",
    "ci_low",
    "ci_high",
    "p",
    "p_holm",
    "significant",
    "n",
]

# English stop words (a compact list; content words are what is left of the alphanumeric tokens).
_STOP = frozenset(
    """
a about above after again against all am an and any are as at be because been before being below
between both but by can could did do does doing down during each few for from further had has have
having he her here hers herself him himself his how i if in into is it its itself just let me more most
my myself no nor not now of off on once only or other our ours ourselves out over own please same she
should so some such than that the their theirs them themselves then there these they this those through
to too under until up very was we were what when where which while who whom why will with would you
your yours yourself yourselves ll s t d m re ve
""".split()
)


def task_words(text: str) -> set[str]:
    """Lowercased alphanumeric tokens minus English stop words: the words :func:`task_similarity`'s Jaccard
    compares (a list of its own: not the citation rule's :data:`~aya_lab.agents.citations.STOPWORDS`)."""
    return {w for w in re.findall(r"[^\W_]+", text.lower()) if w not in _STOP}


def task_similarity(predicted: str, gold: str) -> tuple[float, float]:
    """``(chrF, jaccard)``: sacrebleu sentence chrF (prediction as hypothesis) and content-word Jaccard."""
    chrf = float(CHRF().sentence_score(predicted, [gold]).score)
    a, b = task_words(predicted), task_words(gold)
    jaccard = len(a & b) / len(a | b) if (a | b) else 0.0
    return chrf, jaccard


def _pair(item: Any) -> tuple[str, str]:
    if isinstance(item, tuple | list):
        return str(item[0]), str(item[1])
    return str(item.owner), str(item.task)


OwnedTask = tuple[str, str] | ActionItem
"""An action item: an ``(owner, task)`` tuple or an object with ``owner`` and ``task``."""


def match_action_items(predicted: Sequence[OwnedTask], gold: Sequence[OwnedTask]) -> list[tuple[int, int, float]]:
    """One-to-one matches ``(pred_index, gold_index, score)``, greedily by best score.

    A pair is a candidate when the owners are equal after :func:`~aya_lab.datasets.project.normalize_owner`
    (case, surrounding quotes and punctuation ignored; a group owner — all, everyone, team — matches
    any group owner, not a person) and the tasks match: chrF >= 50 or content-word Jaccard >= 0.5. The
    score ranking candidates is ``max(chrF/100, jaccard)``. Items are ``(owner, task)`` tuples or
    objects with ``owner`` and ``task``.
    """
    preds, golds = [_pair(p) for p in predicted], [_pair(g) for g in gold]
    candidates = []
    for i, (po, pt) in enumerate(preds):
        for j, (go, gt) in enumerate(golds):
            if normalize_owner(po) != normalize_owner(go):
                continue
            chrf, jac = task_similarity(pt, gt)
            if chrf >= TASK_CHRF or jac >= TASK_JACCARD:
                candidates.append((max(chrf / 100.0, jac), i, j))
    candidates.sort(key=lambda c: (-c[0], c[1], c[2]))
    used_p, used_g, out = set(), set(), []
    for score, i, j in candidates:
        if i not in used_p and j not in used_g:
            used_p.add(i)
            used_g.add(j)
            out.append((i, j, score))
    return out


def prf(tp: int, n_pred: int, n_gold: int) -> tuple[float, float, float]:
    """Precision, recall, F1; both lists empty is (1, 1, 1), any other undefined ratio is 0."""
    if n_pred == 0 and n_gold == 0:
        return 1.0, 1.0, 1.0
    p = tp / n_pred if n_pred else 0.0
    r = tp / n_gold if n_gold else 0.0
    f = 2 * p * r / (p + r) if p + r else 0.0
    return p, r, f


def count_exact(count_requested: int | None, gold_count: int) -> bool:
    """The parsed count equals the gold one; an unparseable count (``None``) is wrong.

    The room falls back to "all messages" when it cannot read a count, but the metric does not give
    that fallback credit: a variant that never writes a count would otherwise score on every chat
    whose gold is "all". :func:`count_parsed` reports how often a count was read at all.
    """
    return count_requested is not None and count_requested == gold_count


def count_parsed(count_requested: int | None) -> bool:
    """A count was read from the summarizer's output (``None`` means it could not be)."""
    return count_requested is not None


def last_n_correct(message_ids: Sequence[str], all_ids: Sequence[str], gold_count: int) -> bool:
    """The summarized ids are exactly the last ``gold_count`` of ``all_ids`` (all of them when 0)."""
    expected = list(all_ids) if gold_count == 0 else list(all_ids)[-gold_count:]
    return list(message_ids) == expected


def micro_prf(tp: np.ndarray, n_pred: np.ndarray, n_gold: np.ndarray) -> tuple[float, float, float]:
    return prf(int(tp.sum()), int(n_pred.sum()), int(n_gold.sum()))


def micro_prf_boot(tp, n_pred, n_gold, idx) -> np.ndarray:
    tps, ps, gs = tp[idx].sum(axis=1), n_pred[idx].sum(axis=1), n_gold[idx].sum(axis=1)
    rows = [micro_prf(np.array([t]), np.array([p]), np.array([g])) for t, p, g in zip(tps, ps, gs)]
    return np.array(rows).reshape(len(rows), 3)  # (resamples, P/R/F1): no resamples, no rows


def summary_paired_table(
    per: pd.DataFrame, variants: list[str], idx: np.ndarray, metrics: Sequence[str]
) -> pd.DataFrame:
    """Paired bootstrap of each system against the first over ``per`` (transcript x system rows): the
    report's ``paired`` table (``delta`` = system minus baseline, ``p`` the bootstrap p-value, ``p_holm``
    over the systems per metric).

    A metric with n/a (NaN) items is tested on the transcripts where both variants have a value.
    """
    rows = []
    base = variants[0]
    a = per[per["system"] == base].set_index("transcript_id")
    for v in variants[1:]:
        b = per[per["system"] == v].set_index("transcript_id").loc[a.index]
        for metric in metrics:
            x, y = a[metric].to_numpy(dtype=float), b[metric].to_numpy(dtype=float)
            known = ~(np.isnan(x) | np.isnan(y))
            if not known.any():
                continue
            sub_idx = idx if known.all() else bootstrap_indices(int(known.sum()), idx.shape[0], seed=0)
            x, y = x[known], y[known]
            test = paired_bootstrap(x, y, sub_idx)
            rows.append(
                {
                    "baseline": base,
                    "system": v,
                    "metric": metric,
                    "score_baseline": float(x.mean()),
                    "score_system": float(y.mean()),
                    "delta": test["diff"],
                    "ci_low": test["ci_low"],
                    "ci_high": test["ci_high"],
                    "p": test["p_value"],
                    "n": len(x),
                }
            )
    return holm_column(
        pd.DataFrame(rows, columns=[c for c in SUMMARY_PAIRED_COLUMNS if c not in ("p_holm", "significant")])
    )


_LEAD = re.compile(r"^lead-(\d+)$")


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
