"""Resampling statistics shared by the evaluations: seeded bootstrap CIs, paired bootstrap, McNemar,
cluster (document-level) resampling and Holm's correction for testing several pairs at once.

Metric scores themselves come from sacrebleu (translation) or from each evaluation's own rules; this
module only resamples items. Every function is seeded, so a notebook re-run gives the same intervals.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

__all__ = [
    "ALPHA",
    "bootstrap_indices",
    "cluster_labels",
    "cluster_bootstrap_counts",
    "cluster_bootstrap_indices",
    "percentile_ci",
    "bootstrap_ci",
    "paired_bootstrap",
    "mcnemar_exact",
    "paired_binary",
    "holm",
]

ALPHA = 0.05
"""The significance level of every test the evaluators report."""


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
    with segments as units (and sacrebleu's seed) the resamples are sacrebleu's own. Summing per-unit
    sufficient statistics weighted by a row gives that resample's corpus statistics.
    """
    if n_units <= 0:
        return np.zeros((n_bootstrap, 0))
    rng = np.random.default_rng(seed)
    idx = rng.choice(n_units, size=(n_bootstrap, n_units), replace=True)
    flat = (idx + np.arange(n_bootstrap)[:, None] * n_units).ravel()
    return np.bincount(flat, minlength=n_bootstrap * n_units).reshape(n_bootstrap, n_units)


def cluster_bootstrap_indices(
    labels: Sequence[object] | None, n: int, n_bootstrap: int = 1000, seed: int | None = 0
) -> list[np.ndarray]:
    """Item indices of each cluster-bootstrap resample: whole clusters (documents) drawn with replacement.

    Resample ``b`` lists, for every cluster drawn, all of that cluster's items (a cluster drawn twice
    appears twice), so its length varies with the sizes of the clusters drawn. Same draws as
    :func:`cluster_bootstrap_counts` with the same seed.
    """
    units = cluster_labels(labels, n)
    n_units = int(units.max()) + 1 if n else 0
    members = [np.flatnonzero(units == u) for u in range(n_units)]
    counts = cluster_bootstrap_counts(n_units, n_bootstrap, seed)
    return [
        np.concatenate([np.tile(members[u], int(c)) for u, c in enumerate(row) if c] or [np.zeros(0, dtype=int)])
        for row in counts
    ]


def percentile_ci(samples: np.ndarray) -> tuple[float, float]:
    """The 2.5th and 97.5th percentiles of bootstrap samples (NaNs ignored; NaN when empty)."""
    if samples.size == 0 or np.all(np.isnan(samples)):
        return float("nan"), float("nan")
    low, high = np.nanpercentile(samples, [2.5, 97.5])
    return float(low), float(high)


def bootstrap_ci(values: Sequence[float], n_bootstrap: int = 1000, seed: int = 0) -> tuple[float, float]:
    """Percentile bootstrap 95% CI of the mean of ``values`` (seeded)."""
    arr = np.asarray(values, dtype=float)
    if arr.size == 0:
        return float("nan"), float("nan")
    return percentile_ci(arr[bootstrap_indices(arr.size, n_bootstrap, seed)].mean(axis=1))


def paired_bootstrap(a: Sequence[float], b: Sequence[float], idx: np.ndarray) -> dict[str, float]:
    """Mean difference ``b - a`` over paired items, its percentile 95% CI and a two-sided p-value.

    The p-value is the share of resampled mean differences at least as far from the observed one as
    the observed one is from 0 (the bootstrap distribution shifted to the null), with +1 smoothing:
    ``(1 + #{|d* - d| >= |d|}) / (B + 1)``. Identical inputs give diff 0 and p = 1.
    """
    d = np.asarray(b, dtype=float) - np.asarray(a, dtype=float)
    if d.size == 0:
        return {"diff": float("nan"), "ci_low": float("nan"), "ci_high": float("nan"), "p_value": float("nan")}
    observed = float(d.mean())
    boot = d[idx].mean(axis=1)
    low, high = percentile_ci(boot)
    extreme = int(np.sum(np.abs(boot - observed) >= abs(observed) - 1e-12))
    return {"diff": observed, "ci_low": low, "ci_high": high, "p_value": (1 + extreme) / (len(boot) + 1)}


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


def holm(pvalues: Sequence[float]) -> np.ndarray:
    """Holm's step-down adjustment of ``pvalues`` (family-wise error control over all of them).

    With ``m`` p-values sorted ascending, ``p_(i)`` (``i`` from 1) becomes
    ``max_{j <= i} min(1, (m - j + 1) * p_(j))``; results come back in the input order. NaNs (no test)
    stay NaN and do not count in ``m``. Reject where the adjusted value is below :data:`ALPHA`. Equals
    ``statsmodels.stats.multitest.multipletests(p, method="holm")[1]``.
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
