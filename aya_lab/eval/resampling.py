"""Scores and their uncertainty for every evaluation: sacrebleu's metrics, bootstrap CIs, paired bootstrap and
randomisation tests, McNemar, resampling units (segments, documents, any block of items) and the one
multiple-comparison policy (Holm).

Units. Items of one document (or one transcript, one source passage) share a topic and an author, so
they are not independent draws: resampling single items makes intervals too narrow and p-values too
small. :func:`units_for` makes documents the units where a set has document ids, segments elsewhere;
:func:`cluster_labels` turns any labels into block indices. :func:`cluster_bootstrap_counts` says how
often each unit is drawn per resample: sum per-unit sufficient statistics weighted by a row and you have
that resample's corpus statistics.

Corpus metrics. :func:`analyse_group` recomputes BLEU, chrF and chrF++ (sacrebleu's, :mod:`aya_lab.eval.metrics`) from the
resampled units' summed statistics, as sacrebleu's own bootstrap does for segments; with segments as units
the draws are sacrebleu's own (``default_rng(SACREBLEU_SEED)``, the same calls), so score CIs and
approximate-randomisation p-values equal sacrebleu's (tested). Beyond sacrebleu: documents as units, and the
95% CI of the paired difference with its bootstrap p-value read off the same resamples
(:func:`percentile_p`; sacrebleu's paired test shifts the resamples to the null and can disagree with the
interval). Approximate randomisation over ``k`` documents has ``2**k`` assignments, two of which tie the
observed difference, so with documents it counts ties (``>=``): the smallest p is about ``2 / 2**k``. Outputs
equal to the baseline's have nothing to test: delta 0, p = 1. Each resample is scored from its summed
statistics by :func:`~aya_lab.eval.metrics.scores_from_stats`.

Rare events. A share observed at 0 (no made-up draft arrived unmarked) has bootstrap resamples that are all 0, so
its percentile interval is [0, 0] and bounds nothing; with one unit holding the event, the resamples rarely hold
it twice and the upper percentile sits near the estimate. :func:`share_ci` gives a share held by fewer than
:data:`RARE` units (or missing from fewer than that) the far bound of Clopper and Pearson's exact interval with
the resampled units as trials when it is wider: 0 of ``n`` units, upper bound ``1 - (0.025)^(1/n)`` (about
3.7/n). With equal units that bounds the share of items too (a unit holds at most all its items).
:func:`bootstrap_ci` and :func:`mean_ci` apply it to means of 0/1 values; the rates of labelled deliveries, the
usefulness shares, the shares of flagged outputs and the gate's precision and recall use it too.

Item means. :func:`bootstrap_ci`, :func:`paired_bootstrap`, :func:`paired_equivalence` (TOST at a margin
stated before the data), :func:`paired_binary` (with McNemar) and :func:`paired_accuracy` resample items with :func:`bootstrap_indices`. Every function is seeded, so a
notebook re-run gives the same numbers.

Several comparisons. :func:`holm_column` adds ``p_holm`` and ``significant`` (``p_holm`` below
:data:`ALPHA`) to a paired table, one family per metric by default: the policy of every report; it
refuses a table whose p-value says significant while its CI holds 0. :func:`family` adjusts a
notebook's whole family of tests (every comparison its conclusions rest on) together.

The metrics themselves (sacrebleu's, the BLEU tokenizer by language, corpus scores with CIs, scores of summed
statistics): :mod:`aya_lab.eval.metrics`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from aya_lab.errors import InputError
from aya_lab.eval.metrics import (
    METRICS,
    MetricScore,
    bleu_reliable,
    make_metrics,
    percentile_bounds,
    scores_from_stats,
    segment_statistics,
)
from aya_lab.settings import settings

__all__ = [
    "BLOCK",
    "FEW_UNITS",
    "ALPHA",
    "Units",
    "analyse_group",
    "bootstrap_ci",
    "bootstrap_indices",
    "cluster_bootstrap_counts",
    "cluster_labels",
    "exact_floor",
    "holm",
    "holm_column",
    "mcnemar_exact",
    "paired_accuracy",
    "paired_binary",
    "paired_bootstrap",
    "paired_equivalence",
    "mean_ci",
    "percentile_ci",
    "RARE",
    "share_ci",
    "percentile_p",
    "family",
    "sacrebleu_seed",
    "units_for",
]

ALPHA = 0.05
"""The significance level of every test the evaluators report."""


# --- draws -------------------------------------------------------------------------------------------


def bootstrap_indices(n: int, n_bootstrap: int = 1000, seed: int = 0) -> np.ndarray:
    """An ``(n_bootstrap, n)`` array of resampled item indices (seeded, with replacement)."""
    rng = np.random.default_rng(seed)
    return rng.integers(0, n, size=(n_bootstrap, n)) if n else np.zeros((n_bootstrap, 0), dtype=int)


def cluster_labels(labels: Sequence[object] | None, n: int) -> np.ndarray:
    """The cluster index (0..k-1, in order of first appearance) of each of ``n`` items.

    ``labels`` are e.g. document ids; ``None`` makes every item its own cluster. Items with equal
    labels form one cluster wherever they stand (documents need not be contiguous).
    """
    if labels is None:
        return np.arange(n)
    if len(labels) != n:
        raise ValueError(f"{len(labels)} cluster labels for {n} items; pass one label (e.g. document id) per item")
    first: dict[object, int] = {}
    return np.array([first.setdefault(x, len(first)) for x in labels], dtype=int)


def cluster_bootstrap_counts(n_units: int, n_bootstrap: int = 1000, seed: int | None = 0) -> np.ndarray:
    """An ``(n_bootstrap, n_units)`` array: how often each unit (segment or document) is drawn per resample.

    Each resample draws ``n_units`` units with replacement from ``numpy.random.default_rng(seed)`` by
    ``rng.choice(n_units, size=(n_bootstrap, n_units))``: the very draw sacrebleu's bootstrap makes, so
    with segments as units (and sacrebleu's seed) the resamples are sacrebleu's own.
    """
    if n_units <= 0:
        return np.zeros((n_bootstrap, 0))
    rng = np.random.default_rng(seed)
    idx = rng.choice(n_units, size=(n_bootstrap, n_units), replace=True)
    flat = (idx + np.arange(n_bootstrap)[:, None] * n_units).ravel()
    return np.bincount(flat, minlength=n_bootstrap * n_units).reshape(n_bootstrap, n_units)


@dataclass(frozen=True)
class Units:
    """What is resampled: ``kind`` ("document", "segment" or a mix), each item's unit index, the unit count."""

    kind: str
    index: np.ndarray
    n_units: int


BLOCK = 5
"""The block length: a set without document ids resamples contiguous blocks of this many segments (news
sentences next to each other share an article), not single segments."""
FEW_UNITS = 20
"""Fewer resampling units than this and a CI is flagged (``few_units``): the bootstrap's intervals are too
narrow with few clusters."""


def units_for(doc_ids: Sequence[object] | None, n: int, block: int = 1) -> Units:
    """Documents as units when ``doc_ids`` has a usable id for every segment; else contiguous blocks of
    ``block`` segments (kind ``block of N``; the last may be shorter) when ``block`` > 1; else segments.

    ``None``, or ids that are all empty/NaN (a results file without documents), mean no documents.
    """
    if doc_ids is not None:
        ids = ["" if x is None or (isinstance(x, float) and x != x) else str(x) for x in doc_ids]
        if any(ids):
            index = cluster_labels(ids, n)
            return Units("document", index, int(index.max()) + 1 if n else 0)
    if block > 1:
        index = np.arange(n) // block
        return Units(f"block of {block}", index, int(index.max()) + 1 if n else 0)
    return Units("segment", np.arange(n), n)


def sacrebleu_seed() -> int | None:
    """sacrebleu's seed: ``SACREBLEU_SEED`` (default 12345; ``none`` draws from the OS)."""
    return settings().sacrebleu_seed


# --- intervals and tests on item means ---------------------------------------------------------------


def percentile_ci(samples: np.ndarray) -> tuple[float, float]:
    """The 2.5th and 97.5th percentiles of bootstrap samples (NaNs ignored; NaN when empty)."""
    if samples.size == 0 or np.all(np.isnan(samples)):
        return float("nan"), float("nan")
    low, high = np.nanpercentile(samples, [2.5, 97.5])
    return float(low), float(high)


RARE = 5
"""Fewer units than this holding an event (or lacking it) and a share's far bound is Clopper and Pearson's."""


def share_ci(low: float, high: float, events: np.ndarray, totals: np.ndarray) -> tuple[float, float]:
    """A share's 95% interval ``(low, high)`` (its bootstrap percentiles), widened where the event is rare in the
    units (see the module docstring). ``events`` and ``totals`` are per unit (units with no total are left out):
    when fewer than :data:`RARE` units hold any event, the upper bound is at least Clopper and Pearson's for
    that many of the units; when fewer than :data:`RARE` units hold anything but events, the lower bound is at
    most theirs for the units that hold only events. NaN bounds (no resamples) stay NaN."""
    used = np.asarray(totals) > 0
    n = int(used.sum())
    if n == 0:
        return low, high
    events, totals = np.asarray(events)[used], np.asarray(totals)[used]
    hit, full = int((events > 0).sum()), int((events >= totals).sum())
    if hit >= RARE and n - full >= RARE:
        return low, high
    from scipy.stats import beta  # about 0.9 s to import: only for a rare event

    if hit < RARE and high == high:
        high = max(high, 1.0 if hit == n else float(beta.ppf(1 - ALPHA / 2, hit + 1, n - hit)))
    if n - full < RARE and low == low:
        low = min(low, 0.0 if full == 0 else float(beta.ppf(ALPHA / 2, full, n - full + 1)))
    return low, high


def mean_ci(values: np.ndarray, boot: np.ndarray) -> tuple[float, float]:
    """The 95% CI of the mean of ``values`` from its resampled means ``boot`` (:func:`percentile_ci`); where the
    known values (NaNs left out) are all 0 or 1, a share, widened by :func:`share_ci` with the values as units."""
    low, high = percentile_ci(boot)
    known = values[~np.isnan(values)]
    if known.size and np.isin(known, (0.0, 1.0)).all():
        return share_ci(low, high, known, np.ones(known.size))
    return low, high


def bootstrap_ci(values: Sequence[float], n_bootstrap: int = 1000, seed: int = 0) -> tuple[float, float]:
    """Percentile bootstrap 95% CI of the mean of ``values`` (seeded; :func:`mean_ci`)."""
    arr = np.asarray(values, dtype=float)
    if arr.size == 0:
        return float("nan"), float("nan")
    return mean_ci(arr, arr[bootstrap_indices(arr.size, n_bootstrap, seed)].mean(axis=1))


def percentile_p(samples: np.ndarray) -> float:
    """Two-sided p-value read off the same bootstrap ``samples`` as :func:`percentile_ci`: the smallest
    ``alpha`` whose ``(1 - alpha)`` percentile interval (numpy's linear rule, as :func:`percentile_ci`)
    excludes 0, floored at ``1 / (B + 1)`` and capped at 1. So with ``B >= 20`` resamples ``p < 0.05``
    exactly when the 95% CI excludes 0: the interval and the test cannot disagree (CI inversion, Efron and Tibshirani 1993,
    sec. 15.4). Samples all equal to 0 give p = 1; NaNs are ignored; no samples give NaN.
    """
    values = np.asarray(samples, dtype=float)
    s = np.sort(values[~np.isnan(values)])
    if s.size == 0:
        return float("nan")
    if s.size == 1:
        return 1.0 if s[0] == 0 else float("nan")
    below, above = _tail_shares(s, 0.0, 0.0)
    return float(min(1.0, max(2 * min(below, above), 1 / (s.size + 1))))


def _tail_shares(s: np.ndarray, low: float, high: float) -> tuple[float, float]:
    """The interpolated shares of sorted ``s`` at or below ``low`` and at or above ``high`` (the percentile
    levels, on numpy's linear rule, where the distribution crosses them)."""
    last = s.size - 1
    return _level_at_zero(s - low) / last, _level_at_zero(high - s[::-1]) / last


def _level_at_zero(s: np.ndarray) -> float:
    """The largest position ``h`` in ``[0, len(s) - 1]`` where the linear interpolation of sorted ``s``
    is at most 0 (0 when even ``s[0]`` is above 0)."""
    if s[0] > 0:
        return 0.0
    j = int(np.searchsorted(s, 0.0, side="right")) - 1  # last index with s[j] <= 0
    if j == s.size - 1:
        return float(j)
    return j + (0.0 - s[j]) / (s[j + 1] - s[j])


def paired_bootstrap(a: Sequence[float], b: Sequence[float], idx: np.ndarray) -> dict[str, float]:
    """Mean difference ``b - a`` over paired items, its percentile 95% CI and a two-sided p-value from
    the same resamples (:func:`percentile_p`: ``p < 0.05`` exactly when the CI excludes 0), floored at
    :func:`exact_floor` of the items that differ: with two items that both differ, every resample agrees and the
    bootstrap alone would say p = 0.001. Identical inputs give diff 0 and p = 1.
    """
    d = np.asarray(b, dtype=float) - np.asarray(a, dtype=float)
    if d.size == 0:
        return {"diff": float("nan"), "ci_low": float("nan"), "ci_high": float("nan"), "p_value": float("nan")}
    boot = d[idx].mean(axis=1)
    low, high = percentile_ci(boot)
    p = max(percentile_p(boot), exact_floor(int(np.count_nonzero(d))))
    return {"diff": float(d.mean()), "ci_low": low, "ci_high": high, "p_value": p}


def exact_floor(differing: int) -> float:
    """The smallest two-sided p-value an exact paired test can give with ``differing`` items that differ:
    ``2 ** (1 - differing)``, when every sign-flip but the observed one and its mirror is less extreme (the
    sign test's and the paired randomisation test's bound; 0.5 for 2 items, 0.0625 for 5, under 0.05 from 6).
    0 items differing: 1."""
    return 1.0 if differing < 1 else min(1.0, 2.0 ** (1 - differing))


def paired_equivalence(
    a: Sequence[float], b: Sequence[float], margin: float, *, n_bootstrap: int = 1000, seed: int = 0
) -> dict[str, float]:
    """Two one-sided tests (TOST) of ``b - a`` (paired items) against an equivalence ``margin`` stated before
    the data, on the seeded resamples every report draws (:func:`bootstrap_indices`): ``p_lower`` for "the difference is at most -margin",
    ``p_upper`` for "at least +margin" (each the share of the bootstrap distribution beyond the bound, read
    as :func:`percentile_p` reads 0), ``p_tost`` their maximum, and ``equivalent`` (``p_tost`` below
    :data:`ALPHA`, which is exactly when the 90% percentile interval ``ci90_low``–``ci90_high`` lies inside
    ``(-margin, +margin)``). A margin that is not positive raises :class:`~aya_lab.errors.InputError`."""
    if not margin > 0:
        raise InputError(f"paired_equivalence: the margin must be positive, got {margin}; state it before the data")
    d = np.asarray(b, dtype=float) - np.asarray(a, dtype=float)
    boot = np.sort(d[bootstrap_indices(d.size, n_bootstrap, seed)].mean(axis=1))
    floor = 1 / (boot.size + 1)
    p_lower, p_upper = (max(share, floor) for share in _tail_shares(boot, -margin, margin))
    low, high = np.percentile(boot, [5.0, 95.0])
    p_tost = min(1.0, max(p_lower, p_upper))
    return {"diff": float(d.mean()), "margin": margin, "ci90_low": float(low), "ci90_high": float(high),
            "p_lower": p_lower, "p_upper": p_upper, "p_tost": p_tost, "equivalent": bool(p_tost < ALPHA)}  # fmt: skip


def mcnemar_exact(b: int, c: int) -> float:
    """Two-sided exact McNemar p-value: ``min(1, 2 * P(X <= min(b, c)))`` for ``X ~ Bin(b + c, 1/2)``."""
    n = b + c
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, k) for k in range(min(b, c) + 1)) / 2**n
    return min(1.0, 2 * tail)


def paired_binary(a: Sequence[float], b: Sequence[float], idx: np.ndarray) -> dict[str, float]:
    """Two paired 0/1 outcome series (e.g. correct or not per request), ``b`` against ``a``: the
    :func:`paired_bootstrap` result (``diff``, ``ci_low``, ``ci_high``, ``p_value``), the discordant counts
    ``only_a`` (a right, b wrong) and ``only_b``, :func:`mcnemar_exact`'s ``p_mcnemar``, and ``significant``
    (both p-values below :data:`ALPHA`)."""
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    test = paired_bootstrap(a, b, idx)
    only_a, only_b = int(np.sum((x == 1) & (y == 0))), int(np.sum((x == 0) & (y == 1)))
    p_mc = mcnemar_exact(only_a, only_b)
    return {**test, "only_a": only_a, "only_b": only_b, "p_mcnemar": p_mc,
            "significant": bool(test["p_value"] < ALPHA and p_mc < ALPHA)}  # fmt: skip


def paired_accuracy(a: pd.Series, b: pd.Series, *, n_bootstrap: int = 1000, seed: int = 0) -> dict[str, float]:
    """``b`` against ``a``: two 0/1 correctness series indexed by request id, over the same requests.

    Returns ``n``, ``mean_a``, ``mean_b``, and :func:`paired_binary`'s numbers (``p_value`` named
    ``p_bootstrap``). Different request ids raise :class:`~aya_lab.errors.InputError` (a paired test of
    unpaired results would mean nothing)."""
    if set(a.index) != set(b.index) or a.index.has_duplicates or b.index.has_duplicates or a.empty:
        raise InputError(
            f"paired_accuracy: the two results must cover the same requests, once each; got {len(a)} and {len(b)} "
            "rows that differ (select the same requests from both)"
        )
    x, y = a.to_numpy(dtype=float), b.reindex(a.index).to_numpy(dtype=float)
    test = paired_binary(x, y, bootstrap_indices(len(x), n_bootstrap, seed))
    test["p_bootstrap"] = test.pop("p_value")
    order = ("diff", "ci_low", "ci_high", "p_bootstrap", "only_a", "only_b", "p_mcnemar", "significant")
    return {"n": len(x), "mean_a": float(x.mean()), "mean_b": float(y.mean()), **{k: test[k] for k in order}}


# --- several comparisons -----------------------------------------------------------------------------


def holm(pvalues: Sequence[float]) -> np.ndarray:
    """Holm's step-down adjustment of ``pvalues`` (family-wise error control over all of them).

    With ``m`` p-values sorted ascending, ``p_(i)`` (``i`` from 1) becomes
    ``max_{j <= i} min(1, (m - j + 1) * p_(j))``; results come back in the input order. NaNs (no test)
    stay NaN and do not count in ``m``. Equals ``statsmodels.stats.multitest.multipletests(p,
    method="holm")[1]``.
    """
    p = np.asarray(pvalues, dtype=float)
    out = np.full(p.shape, np.nan)
    ok = np.flatnonzero(~np.isnan(p))
    if ok.size == 0:
        return out
    order = ok[np.argsort(p[ok], kind="stable")]
    m = order.size
    scaled = np.minimum(1.0, (m - np.arange(m)) * p[order])
    out[order] = np.maximum.accumulate(scaled)
    return out


def holm_column(paired: pd.DataFrame, p: str = "p", by: Sequence[str] = ("metric",)) -> pd.DataFrame:
    """``paired`` with ``p_holm`` (Holm over each ``by`` group's rows: one family per metric by default)
    and ``significant`` (``p_holm`` below :data:`ALPHA`); the one multiple-comparison policy of every
    report."""
    out = paired.copy()
    out["p_holm"] = np.nan
    if out.empty or p not in out:
        out["significant"] = False
        return out
    _check_agreement(out, p)
    for _, rows in out.groupby(list(by), sort=False, dropna=False):
        out.loc[rows.index, "p_holm"] = holm(rows[p].to_numpy(dtype=float))
    out["significant"] = out["p_holm"] < ALPHA
    return out


def _check_agreement(paired: pd.DataFrame, p: str) -> None:
    """Refuse a paired table where ``p`` is below :data:`ALPHA` but the difference's CI holds 0."""
    low, high = ("ci_low", "ci_high") if "ci_low" in paired else ("delta_low", "delta_high")
    if low not in paired:
        return
    wrong = paired[(paired[p] < ALPHA) & (paired[low] <= 0) & (paired[high] >= 0)]
    if not wrong.empty:
        row = wrong.iloc[0]
        raise AssertionError(
            f"p = {row[p]:.4f} but the 95% CI [{row[low]:.4f}, {row[high]:.4f}] holds 0: the p-value and the "
            "interval must come from the same resamples (resampling.percentile_p)"
        )


def family(tests: Mapping[str, pd.DataFrame], p: str = "p") -> pd.DataFrame:
    """A notebook's family of tests, adjusted together: the named paired tables stacked (``test``: the
    table's name), with ``p_family`` (Holm over every row of every table) and ``significant``
    (``p_family`` below :data:`ALPHA`). Each table needs a ``p`` column (translation's ``p`` is
    ``max(p_bootstrap, p_ar)``); its other columns are kept. A notebook states its family once, reads
    its conclusions' significance from this table, and asserts them on it.

    A row resampled from fewer than :data:`FEW_UNITS` units (an ``n_units`` column below it) stays in the
    family, so it costs the other tests what it did, but is never ``significant``: ``few_units`` marks it,
    since a bootstrap over so few clusters gives intervals and p-values too narrow to trust."""
    if not tests:
        raise InputError("family: no tests given; pass {name: paired table} for every test the notebook reads")
    missing = [name for name, table in tests.items() if p not in table]
    if missing:
        raise InputError(f"family: {', '.join(missing)} has no {p!r} column; name the p-value column with p=...")
    out = pd.concat({name: table for name, table in tests.items()}, names=["test", None]).reset_index(0)
    out = out.reset_index(drop=True)
    out["p_family"] = holm(out[p].to_numpy(dtype=float))
    units = out["n_units"] if "n_units" in out else pd.Series(np.nan, index=out.index)
    out["few_units"] = pd.to_numeric(units, errors="coerce").lt(FEW_UNITS)
    out["significant"] = (out["p_family"] < ALPHA) & ~out["few_units"]
    return out


# --- corpus metrics over units -----------------------------------------------------------------------


@dataclass
class _Prepared:
    score: float
    units: np.ndarray  # (n_units, k) summed statistics
    boot: np.ndarray  # bootstrap scores (empty without bootstrap)


def _prepare(stats: list[list[int]], metric, units: Units, counts: np.ndarray | None) -> _Prepared:
    seg = np.asarray(stats, dtype=np.float64)
    summed = np.zeros((units.n_units, seg.shape[1]))
    np.add.at(summed, units.index, seg)
    score = float(metric._aggregate_and_compute(stats).score)  # what corpus_score computes, without extracting again
    boot = scores_from_stats(metric, counts @ summed.astype(np.float32)) if counts is not None else np.zeros(0)
    return _Prepared(score, summed, boot)


def _test(base: _Prepared, other: _Prepared, metric, pos_sel: np.ndarray | None, ties: bool) -> dict[str, float]:
    diff = abs(base.score - other.score) - (1e-9 if ties else 0.0)  # ties: count >= instead of >
    nan = float("nan")
    out = {"delta": other.score - base.score, "delta_low": nan, "delta_high": nan, "p_bootstrap": nan, "p_ar": nan}
    if base.boot.size:
        deltas = (other.boot - base.boot).astype(np.float64)
        out["delta_low"], out["delta_high"] = percentile_ci(deltas)
        out["p_bootstrap"] = percentile_p(deltas)
    if pos_sel is not None:
        a = scores_from_stats(metric, pos_sel @ base.units + ~pos_sel @ other.units)
        b = scores_from_stats(metric, ~pos_sel @ base.units + pos_sel @ other.units)
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
    (the paired bootstrap, :func:`percentile_p` on the same resamples as the delta's CI) and ``p_ar`` (approximate randomisation; NaN when ``n_ar`` is 0).
    ``metrics`` limits the work to some of :data:`~aya_lab.eval.metrics.METRICS`. Every system is
    resampled with the same draws.
    """
    refs = list(references)
    if not refs:
        raise ValueError("cannot score an empty corpus")
    if len(units.index) != len(refs):
        raise ValueError(f"{len(units.index)} unit labels for {len(refs)} segments")
    unknown = [m for m in metrics if m not in METRICS]
    if unknown:
        raise InputError(f"unknown metric(s) {', '.join(unknown)}; choose from {', '.join(METRICS)}")
    seed = sacrebleu_seed()
    counts = cluster_bootstrap_counts(units.n_units, n_bootstrap, seed).astype(np.float32) if n_bootstrap > 1 else None
    chosen = {k: v for k, v in make_metrics(tgt, tokenize=tokenize).items() if k in metrics}
    for hyps in hyps_by_system.values():
        if len(hyps) != len(refs):
            raise ValueError(f"{len(hyps)} hypotheses but {len(refs)} references")
    every = [h for hyps in hyps_by_system.values() for h in hyps]  # one call per metric: each reference once
    stats = {name: segment_statistics(metric, every, refs * len(hyps_by_system)) for name, metric in chosen.items()}
    prepared = {
        (system, name): _prepare(stats[name][i * len(refs) : (i + 1) * len(refs)], metric, units, counts)
        for i, system in enumerate(hyps_by_system)
        for name, metric in chosen.items()
    }
    reliable = bleu_reliable(tgt) if tokenize is None else True
    scores: dict[str, dict[str, MetricScore]] = {s: {} for s in hyps_by_system}
    for name, metric in chosen.items():
        metric.n_bootstrap, metric.seed = (n_bootstrap, str(seed).lower()) if counts is not None else (None, None)
        sig = str(metric.get_signature())
        for system in hyps_by_system:
            p = prepared[(system, name)]
            low, high = percentile_bounds(p.boot) if p.boot.size else (float("nan"), float("nan"))
            scores[system][name] = MetricScore(name, p.score, low, high, sig, reliable if name == "BLEU" else True)
    if baseline is None or baseline not in hyps_by_system:
        return scores, {}
    pos_sel = np.random.default_rng(seed).integers(2, size=(n_ar, units.n_units), dtype=bool) if n_ar > 0 else None
    return scores, _paired(hyps_by_system, baseline, chosen, prepared, pos_sel, ties=units.kind != "segment")


def _paired(hyps_by_system, baseline: str, chosen: dict, prepared: dict, pos_sel, *, ties: bool) -> dict:
    """Every other system against ``baseline``: identical outputs get delta 0 and p = 1 untested."""
    base_hyps = list(hyps_by_system[baseline])
    tests: dict[tuple[str, str], dict[str, float]] = {}
    for system, hyps in hyps_by_system.items():
        for name, metric in chosen.items():
            if system == baseline:
                continue
            if list(hyps) == base_hyps:
                tests[(system, name)] = dict.fromkeys(("delta", "delta_low", "delta_high"), 0.0)
                tests[(system, name)].update(p_bootstrap=1.0, p_ar=1.0)
            else:
                tests[(system, name)] = _test(
                    prepared[(baseline, name)], prepared[(system, name)], metric, pos_sel, ties
                )
    return tests
