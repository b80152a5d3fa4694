"""Thin wrappers around sacrebleu: corpus scores with bootstrap CIs and signatures, and paired tests.

No metric code of our own: every number comes from ``sacrebleu.metrics`` (BLEU, chrF, chrF++) or
``sacrebleu.significance.PairedTest`` (paired bootstrap ``bs`` and approximate randomisation ``ar``).
What this module adds:

- the BLEU tokenizer is chosen by target language (``zh`` for Chinese, ``char`` for Japanese, Korean,
  Thai, Khmer, Lao — the mecab tokenizers need extras we do not install), and BLEU is flagged
  ``reliable=False`` for scripts written without spaces, where chrF is the headline;
- the confidence interval is the percentile bootstrap interval of sacrebleu's own resamples (the
  2.5% and 97.5% order statistics sacrebleu's ``estimate_ci`` reads), not its printed mean ± half
  the range, which can leave the metric's range for a score near 0;
- one deliberate departure in the paired tests: sacrebleu counts resampled differences *strictly
  greater* than the observed one, so a system identical to the baseline gets the smallest possible
  p-value. When a system's outputs equal the baseline's segment for segment there is nothing to test,
  and we report p = 1.0.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass

from sacrebleu.metrics import BLEU, CHRF
from sacrebleu.metrics.base import Metric
from sacrebleu.significance import _bootstrap_resample

from aya_lab.languages import get_language

__all__ = [
    "METRICS",
    "MetricScore",
    "make_metrics",
    "bleu_tokenizer",
    "bleu_reliable",
    "score_corpus",
    "bootstrap_corpus_score",
    "paired_tests",
    "percentile_bounds",
]

METRICS = ("BLEU", "chrF", "chrF++")


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


def paired_tests(
    baseline: list[str],
    systems: dict[str, list[str]],
    references: list[str],
    tgt: str | None = None,
    *,
    n_bootstrap: int = 1000,
    n_ar: int = 10000,
    tokenize: str | None = None,
) -> dict[tuple[str, str], dict[str, float]]:
    """p-values of each system against ``baseline`` on the same segments.

    Returns ``{(system, metric): {"p_bootstrap": p, "p_ar": p}}`` for metric in :data:`METRICS`.
    Seeded by ``SACREBLEU_SEED`` (sacrebleu's default 12345), so results are repeatable.
    """
    from sacrebleu.significance import PairedTest

    _check(baseline, references)
    out: dict[tuple[str, str], dict[str, float]] = {}
    to_test = {}
    for name, hyps in systems.items():
        _check(hyps, references)
        if list(hyps) == list(baseline):
            for metric in METRICS:
                out[(name, metric)] = {"p_bootstrap": 1.0, "p_ar": 1.0}
        else:
            to_test[name] = hyps
    if not to_test:
        return out
    named = [("__baseline__", list(baseline))] + [(k, list(v)) for k, v in to_test.items()]
    # PairedTest logs every step at INFO through sacrebleu's logger; keep it quiet.
    log = logging.getLogger("sacrebleu")
    level = log.level
    log.setLevel(logging.WARNING)
    try:
        for test_type, n_samples, key in (("bs", n_bootstrap, "p_bootstrap"), ("ar", n_ar, "p_ar")):
            metrics = make_metrics(tgt, tokenize=tokenize)
            named_systems: list[tuple[str, Sequence[str]]] = list(named)
            test = PairedTest(named_systems, metrics, [list(references)], test_type=test_type, n_samples=n_samples)
            _, scores = test()
            systems_col = scores["System"]
            # columns follow the order of ``metrics`` but carry sacrebleu's names (chrF2, chrF2++)
            columns = [k for k in scores if k != "System"]
            for metric_name, column in zip(METRICS, columns, strict=True):
                for sys_name, result in zip(systems_col[1:], scores[column][1:]):
                    assert isinstance(sys_name, str) and not isinstance(result, str) and result.p_value is not None
                    out.setdefault((sys_name, metric_name), {})[key] = float(result.p_value)
    finally:
        log.setLevel(level)
    return out
