"""Resampling statistics shared by the evaluations: seeded bootstrap CIs, paired bootstrap, McNemar.

Metric scores themselves come from sacrebleu (translation) or from each evaluation's own rules; this
module only resamples items. Every function is seeded, so a notebook re-run gives the same intervals.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

__all__ = ["ALPHA", "bootstrap_indices", "percentile_ci", "bootstrap_ci", "paired_bootstrap", "mcnemar_exact"]

ALPHA = 0.05
"""The significance level of every test the evaluators report."""


def bootstrap_indices(n: int, n_bootstrap: int = 1000, seed: int = 0) -> np.ndarray:
    """An ``(n_bootstrap, n)`` array of resampled item indices (seeded, with replacement)."""
    rng = np.random.default_rng(seed)
    return rng.integers(0, n, size=(n_bootstrap, n)) if n else np.zeros((n_bootstrap, 0), dtype=int)


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
