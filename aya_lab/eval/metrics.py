"""sacrebleu's metrics as every evaluation uses them: BLEU, chrF and chrF++ (:data:`METRICS`,
:func:`make_metrics`), corpus scores with bootstrap CIs and signatures (:func:`score_corpus`,
:func:`bootstrap_corpus_score`), and the score of summed statistics (:func:`scores_from_stats`), which the
resampling (:mod:`aya_lab.eval.resampling`) reads for every resample. Statistics and formulas are
sacrebleu's. What this adds:

- the BLEU tokenizer is chosen by target language (``zh`` for Chinese, ``char`` for Japanese, Korean,
  Thai, Khmer, Lao — the mecab tokenizers need extras we do not install), and BLEU is flagged
  ``reliable=False`` for scripts written without spaces, where chrF is the headline;
- the confidence interval is the percentile bootstrap interval of sacrebleu's own resamples (the
  2.5% and 97.5% order statistics sacrebleu's ``estimate_ci`` reads), not its printed mean ± half
  the range, which can leave the metric's range for a score near 0;
- the scores of many rows of summed statistics at once: chrF rows by sacrebleu's ``_compute_f_score``
  applied to all rows in numpy, its operations in its order on the rows' own dtype, so every score is
  sacrebleu's bit for bit (tested); BLEU rows with corpus BLEU's settings by its formula, precisions in numpy and
  the rest in Python floats, without building a score object per row (bit for bit too); other rows by sacrebleu,
  row by row.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import cast

import numpy as np
from sacrebleu.metrics import BLEU, CHRF
from sacrebleu.metrics.base import Metric
from sacrebleu.significance import _bootstrap_resample

from aya_lab.languages import get_language
from aya_lab.memo import LRUMemo

__all__ = [
    "METRICS",
    "MetricScore",
    "bleu_reliable",
    "bleu_tokenizer",
    "bootstrap_corpus_score",
    "make_metrics",
    "percentile_bounds",
    "score_corpus",
    "scores_from_stats",
    "segment_statistics",
]

METRICS = ("BLEU", "chrF", "chrF++")
SEGMENT_MEMO = 200_000
"""How many (metric, hypothesis, reference) segment statistics a process keeps (about 100 MB at most): the
pooled analysis and a notebook's later runs score the same segments again."""
_SegmentKey = tuple[tuple[object, ...], str, str]
"""A segment's statistics key: the metric's settings, the hypothesis, the reference."""
_SEGMENTS: LRUMemo[_SegmentKey, list[int]] = LRUMemo(SEGMENT_MEMO)


def bleu_tokenizer(tgt: str | None) -> str:
    """sacrebleu tokenizer for BLEU into ``tgt`` (``13a`` unless the language table says otherwise)."""
    if tgt is None:
        return "13a"
    return get_language(tgt).sacrebleu_tokenizer


def bleu_reliable(tgt: str | None) -> bool:
    """False where BLEU's word n-grams mean little: scripts without spaces, short of a proper segmenter."""
    if tgt is None:
        return True
    lang = get_language(tgt)
    return lang.spaced or lang.sacrebleu_tokenizer == "zh"


def make_metrics(tgt: str | None = None, *, tokenize: str | None = None) -> dict[str, Metric]:
    """Fresh sacrebleu metric objects for one target language: BLEU, chrF, chrF++ (``word_order=2``)."""
    return {
        "BLEU": BLEU(tokenize=tokenize or bleu_tokenizer(tgt)),
        "chrF": CHRF(),
        "chrF++": CHRF(word_order=2),
    }


@dataclass(frozen=True)
class MetricScore:
    """One corpus-level score with its sacrebleu signature and percentile bootstrap 95% CI (NaN without)."""

    metric: str
    score: float
    ci_low: float
    ci_high: float
    signature: str
    reliable: bool = True


def _check(hyps, refs) -> None:
    if len(hyps) != len(refs):
        raise ValueError(f"{len(hyps)} hypotheses but {len(refs)} references; they must be aligned")
    if not hyps:
        raise ValueError("cannot score an empty corpus")


def score_corpus(
    hypotheses: list[str],
    references: list[str],
    tgt: str | None = None,
    *,
    n_bootstrap: int = 1000,
    tokenize: str | None = None,
) -> dict[str, MetricScore]:
    """BLEU, chrF and chrF++ of ``hypotheses`` against one reference stream, each with a 95% CI.

    ``score`` is exactly ``metric.corpus_score(hypotheses, [references]).score``.
    """
    _check(hypotheses, references)
    out: dict[str, MetricScore] = {}
    reliable_bleu = bleu_reliable(tgt) if tokenize is None else True  # callers pooling languages decide
    for name, metric in make_metrics(tgt, tokenize=tokenize).items():
        result = bootstrap_corpus_score(metric, hypotheses, references, n_bootstrap)
        low, high = result.ci_bounds
        out[name] = MetricScore(
            name,
            float(result.score),
            low,
            high,
            str(metric.get_signature()),
            reliable=reliable_bleu if name == "BLEU" else True,
        )
    return out


def bootstrap_corpus_score(metric: Metric, hypotheses, references, n_bootstrap: int):
    """``metric.corpus_score`` with percentile bootstrap bounds stored as ``ci_bounds``.

    The resamples are sacrebleu's own (``_bootstrap_resample``, seeded by ``SACREBLEU_SEED``) and the
    bounds are the order statistics sacrebleu's ``estimate_ci`` reads (index ``n // 40`` from either
    end of the sorted scores). We report those bounds themselves rather than sacrebleu's printed
    "mean ± half-width", which can fall below 0 for a score near 0. Scores are cast to float first:
    sacrebleu 2.6 can mix a Python-float zero with numpy float32 scores, and ``statistics.mean`` then
    raises TypeError.
    """
    result = metric.corpus_score(hypotheses, [references])
    result.ci_bounds = (float("nan"), float("nan"))
    if n_bootstrap <= 1:
        return result
    stats = metric._extract_corpus_statistics(hypotheses, [references])
    metric.n_bootstrap = n_bootstrap  # the signature then reads bs:N, as sacrebleu's own path writes it
    metric.seed, bs_scores = _bootstrap_resample(stats, metric, n_bootstrap)
    for score in bs_scores:
        score.score = float(score.score)
    result.estimate_ci(bs_scores)
    result.ci_bounds = percentile_bounds([s.score for s in bs_scores])
    return result


def segment_statistics(metric: Metric, hypotheses: Sequence[str], references: Sequence[str]) -> list[list[int]]:
    """sacrebleu's statistics of each ``(hypothesis, reference)`` segment under ``metric`` (what its
    ``_extract_corpus_statistics`` returns for one reference stream), remembered per process
    (:data:`SEGMENT_MEMO`): a segment scored before, under the same settings, is not extracted again, and each
    reference is extracted once per call. Leaves ``metric`` evaluated (its ``num_refs`` set, for its signature)."""
    if len(hypotheses) != len(references):
        raise ValueError(f"{len(hypotheses)} hypotheses but {len(references)} references")
    setting = (type(metric).__name__, getattr(metric, "tokenizer_signature", None), getattr(metric, "lowercase", None),
               *(getattr(metric, k, None) for k in ("max_ngram_order", "char_order", "word_order", "whitespace")))  # fmt: skip
    metric.num_refs = 1

    def extract(missing: list[_SegmentKey]) -> list[list[int]]:
        refs = list(dict.fromkeys(r for _, _, r in missing))
        infos = dict(zip(refs, metric._cache_references([refs])))
        return [metric._compute_segment_statistics(metric._preprocess_segment(h), infos[r]) for _, h, r in missing]

    return _SEGMENTS.get_many([(setting, h, r) for h, r in zip(hypotheses, references)], extract)


def percentile_bounds(samples, low: float = 0.0, high: float = 100.0) -> tuple[float, float]:
    """The 95% percentile bounds of bootstrap ``samples`` as sacrebleu picks them, clipped to ``[low, high]``.

    sacrebleu sorts the ``n`` resampled scores and reads indices ``n // 40`` and ``n - n // 40 - 1``.
    Both bounds are resampled scores, so they never leave the metric's range; the clip only guards
    against float noise.
    """
    ordered = sorted(float(x) for x in samples)
    if not ordered:
        return float("nan"), float("nan")
    k = len(ordered) // 40
    return max(low, ordered[k]), min(high, ordered[len(ordered) - k - 1])


def scores_from_stats(metric: Metric, stats: np.ndarray) -> np.ndarray:
    """``metric``'s score of each row of summed statistics: chrF rows with every count positive (any corpus-sized
    row) by :func:`_chrf_rows`, BLEU rows smoothed by ``exp``, ``floor`` or none, without effective order (corpus
    BLEU's settings) by :func:`_bleu_rows`, the others by sacrebleu, row by row."""
    out = np.empty(len(stats))
    todo = np.ones(len(stats), dtype=bool)
    if len(stats) and isinstance(metric, CHRF) and not metric.eps_smoothing:
        todo = ~np.all(stats[:, : 3 * metric.order] > 0, axis=1)
        out[~todo] = _chrf_rows(metric, stats[~todo])
    elif len(stats) and isinstance(metric, BLEU) and metric.smooth_method != "add-k" and not metric.effective_order:
        todo[:] = False
        out[:] = _bleu_rows(metric, stats)
    out[todo] = [float(metric._compute_score_from_stats(row).score) for row in stats[todo]]
    return out


def _bleu_rows(metric: BLEU, stats: np.ndarray) -> list[float]:
    """sacrebleu's ``BLEU.compute_bleu`` (smoothing ``exp``, ``floor`` or none; no effective order) on many rows:
    its precisions on the rows' own dtype, in numpy (an order without a match smoothed as it smooths it, every
    order from the first without an n-gram left at 0), its floored logarithms, sum and exponential in Python
    floats, in its order (bit for bit its scores, tested)."""
    order, dtype = metric.max_ngram_order, stats.dtype
    correct, total = stats[:, 2 : 2 + order], stats[:, 2 + order : 2 + 2 * order]
    missing = correct == 0
    with np.errstate(divide="ignore", invalid="ignore"):
        precisions = 100.0 * correct / total
        if metric.smooth_method == "exp":  # the k-th order without a match gets 100 / (2**k * total)
            halving = np.exp2(np.cumsum(missing, axis=1)).astype(dtype)
            precisions = np.where(missing, 100.0 / (halving * total), precisions)
        elif metric.smooth_method == "floor":
            value = cast(float, BLEU.SMOOTH_DEFAULTS["floor"] if metric.smooth_value is None else metric.smooth_value)
            precisions = np.where(missing, 100.0 * value / total, precisions)
        # unsmoothed, an order without a match keeps its precision of 0
    precisions[np.cumsum(total == 0, axis=1) > 0] = 0.0  # sacrebleu stops at the first order without n-grams
    out = []
    rows = zip(stats[:, :2].tolist(), precisions.tolist(), (~missing).any(axis=1).tolist())
    for (sys_len, ref_len), row, matched in rows:
        if not matched:  # no n-gram matches at all: 0 (sacrebleu's early return)
            out.append(0.0)
            continue
        sys_len, ref_len = int(sys_len), int(ref_len)
        bp = (math.exp(1 - ref_len / sys_len) if sys_len > 0 else 0.0) if sys_len < ref_len else 1.0
        out.append(bp * math.exp(sum([math.log(p) if p != 0.0 else -9999999999 for p in row]) / order))
    return out


def _chrf_rows(metric: CHRF, stats: np.ndarray) -> np.ndarray:
    """sacrebleu's ``CHRF._compute_f_score`` (effective-order averaging, no eps smoothing) on rows whose counts
    are all positive: its operations in its order, on the rows' own dtype (bit for bit its scores)."""
    factor, avg_prec, avg_rec = metric.beta**2, 0.0, 0.0
    for i in range(metric.order):
        n_hyp, n_ref, n_match = stats[:, 3 * i], stats[:, 3 * i + 1], stats[:, 3 * i + 2]
        avg_prec, avg_rec = avg_prec + n_match / n_hyp, avg_rec + n_match / n_ref
    avg_prec, avg_rec = avg_prec / metric.order, avg_rec / metric.order
    score = (1 + factor) * avg_prec * avg_rec
    return np.asarray(100 * (score / ((factor * avg_prec) + avg_rec)), dtype=np.float64)
