"""Sentence chrF for many pairs that share texts: what the translation guard's few-shot example check, the
evaluation's echo check and :func:`aya_lab.langid.echo_share` compute for every output against a pool sentence or
its source.

Contract
--------
* :class:`SentenceChrF` scores a pair exactly as ``sacrebleu.metrics.CHRF().sentence_score(hyp, [ref]).score``
  (bit for bit, tested): each text's character n-grams are extracted once and kept (the last :data:`NGRAM_MEMO`
  texts), then sacrebleu's own match statistics and F-score are applied; a pair's score is kept too (the last
  :data:`SCORE_MEMO` pairs: an evaluation checks the same outputs against the same pool again, per system and
  per table). Thread-safe.
* :func:`shared_chrf` is one process-wide instance, which the guard's echo and few-shot example checks, the
  evaluation's echo check and :func:`aya_lab.langid.echo_share` use: the pool sentences are extracted once per process.
* :func:`chrf_bound` is an upper bound of that score from the two lengths alone: a check scores chrF only where
  the bound reaches its threshold (the same verdicts, fewer scores; :meth:`SentenceChrF.reaches`).
* sacrebleu is imported when an instance is made, not with this module (the guard's other checks need none).
"""

from __future__ import annotations

import functools
from typing import Any

from aya_lab.memo import LRUMemo

__all__ = ["NGRAM_MEMO", "SCORE_MEMO", "SentenceChrF", "chrf_bound", "shared_chrf"]

NGRAM_MEMO = 20_000
"""How many texts' n-grams an instance keeps (pool sentences stay: they are read at every check)."""
SCORE_MEMO = 200_000
"""How many pairs' scores an instance keeps (a pair holds references to its two texts and one float)."""


class SentenceChrF:
    """sacrebleu's sentence chrF (``CHRF()``'s settings) with each text's n-grams extracted once; see the module
    docstring."""

    def __init__(self) -> None:
        from sacrebleu.metrics import CHRF  # heavy; only where a chrF is computed
        from sacrebleu.metrics.helpers import extract_all_char_ngrams

        self.metric = CHRF()
        self._extract = extract_all_char_ngrams
        self._ngrams: LRUMemo[str, list[Any]] = LRUMemo(NGRAM_MEMO)
        self._scores: LRUMemo[tuple[str, str], float] = LRUMemo(SCORE_MEMO)

    def _of(self, text: str) -> list[Any]:
        chrf = self.metric
        return self._ngrams.get(
            text, lambda: self._extract(chrf._preprocess_segment(text), chrf.char_order, chrf.whitespace)
        )

    def score(self, hypothesis: str, reference: str) -> float:
        """The sentence chrF of ``hypothesis`` against ``reference`` (0..100)."""
        return self._scores.get((hypothesis, reference), lambda: self._score(hypothesis, reference))

    def _score(self, hypothesis: str, reference: str) -> float:
        stats: list[int] = []
        for hyp, ref in zip(self._of(hypothesis), self._of(reference)):
            stats.extend(self.metric._get_match_statistics(hyp, ref))
        return float(self.metric._compute_f_score(stats))

    def bound(self, hypothesis: str, reference: str) -> float:
        """:func:`chrf_bound` under this instance's settings."""
        return chrf_bound(hypothesis, reference, self.metric.char_order, self.metric.beta)

    def reaches(self, hypothesis: str, reference: str, threshold: float) -> bool:
        """Whether the sentence chrF is at least ``threshold``, scored only where :meth:`bound` reaches it."""
        return self.bound(hypothesis, reference) >= threshold and self.score(hypothesis, reference) >= threshold


@functools.cache
def shared_chrf() -> SentenceChrF:
    """The process-wide :class:`SentenceChrF`."""
    return SentenceChrF()


def chrf_bound(hypothesis: str, reference: str, order: int, beta: float) -> float:
    """An upper bound of sacrebleu's sentence chrF (character order ``order``, no word n-grams, whitespace
    removed, effective-order averaging) from the two lengths alone: an order's precision is at most the
    reference's n-grams over the hypothesis's, its recall the reverse, and the F-score grows with both."""
    h, r = len("".join(hypothesis.split())), len("".join(reference.split()))
    counts = [(h - n + 1, r - n + 1) for n in range(1, order + 1) if h - n + 1 > 0 and r - n + 1 > 0]
    if not counts:
        return 0.0
    precision = sum(min(1.0, rn / hn) for hn, rn in counts) / len(counts)
    recall = sum(min(1.0, hn / rn) for hn, rn in counts) / len(counts)
    factor = beta**2
    return 100 * (1 + factor) * precision * recall / (factor * precision + recall) + 1e-9
