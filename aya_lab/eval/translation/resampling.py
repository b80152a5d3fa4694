"""Bootstrap CIs and paired tests that resample whole documents where a set has document ids.

Segments of one document share a topic, terms and a translator, so they are not independent draws:
a segment-level bootstrap makes intervals too narrow and p-values too small. Where the dataset has
document ids (NTREX-128, FLORES v1, the workplace set), :func:`analyse_group` resamples **documents**
(a cluster bootstrap; paired approximate randomisation swaps whole documents); elsewhere it resamples
segments. MAFAND is one of the elsewhere: its segments come from news articles, but the released text
files carry no document ids, so it cannot be resampled by document (its rows say ``resample_unit``
``segment``). Either way the corpus-level metrics (BLEU, chrF, chrF++) are recomputed by sacrebleu from
the resampled units' summed sufficient statistics (``metric._compute_score_from_stats``), exactly as
sacrebleu's own bootstrap does for segments.

With segments as units the draws are sacrebleu's own (``default_rng(SACREBLEU_SEED)``, the same
``choice``/``integers`` calls), so CIs and p-values equal those of
:func:`aya_lab.eval.metrics.score_corpus` and :func:`aya_lab.eval.metrics.paired_tests`; the tests
check this. What this module adds beyond sacrebleu: documents as units, and the 95% CI of the paired
difference (system minus baseline), which the forest plot draws.

One departure for documents: sacrebleu counts resampled statistics *strictly greater* than the
observed one. Approximate randomisation over ``k`` documents has only ``2**k`` assignments, two of
which (the observed one and its mirror) tie the observed difference exactly, so with few documents
the strict count gives p ~ 1/(trials+1) however small ``k`` is. With documents as units both tests
count ties (``>=``), which makes the smallest reachable p about ``2 / 2**k``: honest about how little
a handful of documents can show. Segments keep sacrebleu's convention, so its numbers reproduce.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from aya_lab.errors import InputError
from aya_lab.eval.metrics import METRICS, MetricScore, bleu_reliable, make_metrics, percentile_bounds
from aya_lab.eval.stats import cluster_bootstrap_counts, cluster_labels
from aya_lab.settings import settings

__all__ = ["Units", "units_for", "analyse_group", "sacrebleu_seed"]


@dataclass(frozen=True)
class Units:
    """What is resampled: ``kind`` ("document" or "segment"), each segment's unit index, the unit count."""

    kind: str
    index: np.ndarray
    n_units: int


def units_for(doc_ids: Sequence[object] | None, n: int) -> Units:
    """Documents as units when ``doc_ids`` has a usable id for every segment, else segments.

    ``None``, or ids that are all empty/NaN (a results file without documents), mean segments.
    """
    if doc_ids is not None:
        ids = ["" if x is None or (isinstance(x, float) and x != x) else str(x) for x in doc_ids]
        if any(ids):
            index = cluster_labels(ids, n)
            return Units("document", index, int(index.max()) + 1 if n else 0)
    return Units("segment", np.arange(n), n)


def sacrebleu_seed() -> int | None:
    """sacrebleu's seed: ``SACREBLEU_SEED`` (default 12345; ``none`` draws from the OS)."""
    return settings().sacrebleu_seed


def _unit_stats(metric, hyps: list[str], refs: list[str], units: Units) -> np.ndarray:
    seg = np.asarray(metric._extract_corpus_statistics(hyps, [refs]), dtype=np.float64)
    out = np.zeros((units.n_units, seg.shape[1]))
    np.add.at(out, units.index, seg)
    return out


def _scores(metric, stats: np.ndarray) -> np.ndarray:
    return np.array([float(metric._compute_score_from_stats(row).score) for row in stats])


@dataclass
class _Prepared:
    score: float
    units: np.ndarray  # (n_units, k) summed statistics
    boot: np.ndarray  # bootstrap scores (empty without bootstrap)


def _prepare(hyps_by_system, refs, tgt, units, counts, tokenize, wanted) -> tuple[dict, dict]:
    metrics = {k: v for k, v in make_metrics(tgt, tokenize=tokenize).items() if k in wanted}
    prepared: dict[tuple[str, str], _Prepared] = {}
    for name, hyps in hyps_by_system.items():
        if len(hyps) != len(refs):
            raise ValueError(f"system {name!r}: {len(hyps)} hypotheses but {len(refs)} references")
        for metric_name, metric in metrics.items():
            u = _unit_stats(metric, list(hyps), list(refs), units)
            score = float(metric.corpus_score(list(hyps), [list(refs)]).score)
            boot = _scores(metric, counts @ u.astype(np.float32)) if counts is not None else np.zeros(0)
            prepared[(name, metric_name)] = _Prepared(score, u, boot)
    return metrics, prepared


def _tests(base: _Prepared, other: _Prepared, metric, pos_sel: np.ndarray | None, ties: bool) -> dict[str, float]:
    diff = abs(base.score - other.score) - (1e-9 if ties else 0.0)  # ties: count >= instead of >
    out = {"delta": other.score - base.score, "p_bootstrap": float("nan"), "p_ar": float("nan")}
    out["delta_low"], out["delta_high"] = float("nan"), float("nan")
    if base.boot.size:
        sample = np.abs(other.boot - base.boot)
        out["p_bootstrap"] = (int(np.sum(sample - sample.mean() > diff)) + 1) / (sample.size + 1)
        out["delta_low"], out["delta_high"] = percentile_bounds(other.boot - base.boot, -100.0, 100.0)
    if pos_sel is not None:
        a = _scores(metric, pos_sel @ base.units + ~pos_sel @ other.units)
        b = _scores(metric, ~pos_sel @ base.units + pos_sel @ other.units)
        out["p_ar"] = (int(np.sum(np.abs(a - b) > diff)) + 1) / (a.size + 1)
    return out


def analyse_group(
    hyps_by_system: Mapping[str, Sequence[str]],
    references: Sequence[str],
    tgt: str | None,
    units: Units,
    *,
    baseline: str | None,
    n_bootstrap: int = 1000,
    n_ar: int = 10000,
    tokenize: str | None = None,
    metrics: Sequence[str] = METRICS,
) -> tuple[dict[str, dict[str, MetricScore]], dict[tuple[str, str], dict[str, float]]]:
    """Scores with 95% CIs for every system, and paired tests of every other system against ``baseline``.

    Returns ``(scores, tests)``: ``scores[system][metric]`` is a :class:`MetricScore` (the percentile
    bootstrap CI over ``units``); ``tests[(system, metric)]`` holds ``delta`` (system minus baseline),
    ``delta_low``/``delta_high`` (95% percentile CI of the paired bootstrap difference), ``p_bootstrap``
    (sacrebleu's paired bootstrap test) and ``p_ar`` (approximate randomisation; NaN when ``n_ar`` is 0).
    ``metrics`` limits the work to some of :data:`~aya_lab.eval.metrics.METRICS`. Every system is
    resampled with the same draws. A system whose outputs equal the baseline's
    segment for segment gets delta 0 and p = 1.0 (nothing to test; see :mod:`aya_lab.eval.metrics`).
    """
    refs = list(references)
    if not refs:
        raise ValueError("cannot score an empty corpus")
    if len(units.index) != len(refs):
        raise ValueError(f"{len(units.index)} unit labels for {len(refs)} segments")
    seed = sacrebleu_seed()
    counts = cluster_bootstrap_counts(units.n_units, n_bootstrap, seed).astype(np.float32) if n_bootstrap > 1 else None
    unknown = [m for m in metrics if m not in METRICS]
    if unknown:
        raise InputError(f"unknown metric(s) {', '.join(unknown)}; choose from {', '.join(METRICS)}")
    metrics_by_name, prepared = _prepare(hyps_by_system, refs, tgt, units, counts, tokenize, list(metrics))
    scores = _score_table(hyps_by_system, metrics_by_name, prepared, tgt, tokenize, n_bootstrap, seed, counts)
    if baseline is None or baseline not in hyps_by_system:
        return scores, {}
    pos_sel = np.random.default_rng(seed).integers(2, size=(n_ar, units.n_units), dtype=bool) if n_ar > 0 else None
    return scores, _paired(hyps_by_system, baseline, metrics_by_name, prepared, pos_sel, units.kind != "segment")


def _score_table(hyps_by_system, metrics_by_name, prepared, tgt, tokenize, n_bootstrap, seed, counts) -> dict:
    reliable = bleu_reliable(tgt) if tokenize is None else True
    scores: dict[str, dict[str, MetricScore]] = {}
    for name in hyps_by_system:
        scores[name] = {}
        for metric_name, metric in metrics_by_name.items():
            p = prepared[(name, metric_name)]
            low, high = percentile_bounds(p.boot) if p.boot.size else (float("nan"), float("nan"))
            metric.n_bootstrap, metric.seed = (n_bootstrap, str(seed).lower()) if counts is not None else (None, None)
            sig = str(metric.get_signature())
            scores[name][metric_name] = MetricScore(
                metric_name, p.score, low, high, sig, reliable=reliable if metric_name == "BLEU" else True
            )
    return scores


def _paired(hyps_by_system, baseline, metrics_by_name, prepared, pos_sel, ties: bool) -> dict:
    tests: dict[tuple[str, str], dict[str, float]] = {}
    base_hyps = list(hyps_by_system[baseline])
    for name, hyps in hyps_by_system.items():
        if name == baseline:
            continue
        same = list(hyps) == base_hyps
        for metric_name, metric in metrics_by_name.items():
            if same:
                tests[(name, metric_name)] = {"delta": 0.0, "delta_low": 0.0, "delta_high": 0.0}
                tests[(name, metric_name)].update(p_bootstrap=1.0, p_ar=1.0)
            else:
                base, other = prepared[(baseline, metric_name)], prepared[(name, metric_name)]
                tests[(name, metric_name)] = _tests(base, other, metric, pos_sel, ties)
    return tests
