"""Two questions the routing tables leave open: who decided, and is one path really better?

- :func:`decided_by` splits a router's accuracy by who made each decision: the model (its answer
  named a tool) or the keyword fallback (it named none, so the keyword rules chose). A router whose
  accuracy is mostly the fallback's is a keyword router; this says so with numbers: per group, the
  share of requests each decided and the accuracy on those, each with a percentile bootstrap 95% CI
  (resampled within the group; an empty group has NaN accuracy, not 0).
- :func:`paired_accuracy` tests two ways of routing the same requests (two paths, two prompts, two
  routers) against each other: the paired bootstrap of the accuracy difference (``b - a``, its 95% CI
  and p-value) and McNemar's exact test on the discordant requests (``only_a``: right only in ``a``,
  ``only_b``: right only in ``b``), from :mod:`aya_lab.eval.stats`. ``significant`` needs both tests
  at p < :data:`~aya_lab.eval.stats.ALPHA`, as every other routing and translation table does. A claim
  that one path is "best" needs this, not two overlapping intervals.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from aya_lab.errors import InputError
from aya_lab.eval.stats import bootstrap_ci, bootstrap_indices, paired_binary

__all__ = ["DECIDERS", "decided_by", "paired_accuracy"]

DECIDERS = ("model", "keyword fallback")
"""The values of :func:`decided_by`'s ``decided_by`` column (beside ``all``)."""


def decided_by(
    examples: pd.DataFrame,
    keys: Sequence[str],
    *,
    correct: str = "correct",
    fallback: str = "fallback",
    n_bootstrap: int = 1000,
    seed: int = 0,
) -> pd.DataFrame:
    """Per group of ``keys``: rows ``all``, ``model`` and ``keyword fallback`` with ``n``, ``share`` (of the
    group's requests) and ``accuracy`` with ``ci_low``/``ci_high``. ``correct`` and ``fallback`` name 0/1
    columns (a ``routing`` report's items have ``correct``/``fallback``; a ``sequences`` report's
    ``sequence_accuracy``/``fallback_rate``)."""
    missing = [c for c in (*keys, correct, fallback) if c not in examples.columns]
    if missing:
        raise InputError(f"decided_by: no column {missing[0]!r}; the examples have {', '.join(examples.columns)}")
    rows = []
    for group, frame in examples.groupby(list(keys), sort=False):
        values = frame[correct].to_numpy(dtype=float)
        by_fallback = frame[fallback].to_numpy(dtype=float) > 0
        for name, mask in (("all", np.ones(len(frame), bool)), (DECIDERS[0], ~by_fallback), (DECIDERS[1], by_fallback)):
            chosen = values[mask]
            low, high = bootstrap_ci(chosen, n_bootstrap, seed)
            mean = float(chosen.mean()) if chosen.size else float("nan")
            key = dict(zip(keys, group if isinstance(group, tuple) else (group,), strict=True))
            rows.append({**key, "decided_by": name, "n": int(mask.sum()), "share": float(mask.mean()),
                         "accuracy": mean, "ci_low": low, "ci_high": high})  # fmt: skip
    return pd.DataFrame(rows, columns=[*keys, "decided_by", "n", "share", "accuracy", "ci_low", "ci_high"])


def paired_accuracy(a: pd.Series, b: pd.Series, *, n_bootstrap: int = 1000, seed: int = 0) -> dict[str, float]:
    """``b`` against ``a``: two 0/1 correctness series indexed by request id, over the same requests.

    Returns ``n``, ``mean_a``, ``mean_b``, ``diff`` (b - a) with ``ci_low``/``ci_high`` and ``p_bootstrap``,
    ``only_a``, ``only_b``, ``p_mcnemar`` and ``significant``. Different request ids raise
    :class:`~aya_lab.errors.InputError` (a paired test of unpaired results would mean nothing)."""
    if set(a.index) != set(b.index) or a.index.has_duplicates or b.index.has_duplicates or a.empty:
        raise InputError(
            f"paired_accuracy: the two results must cover the same requests, once each; got {len(a)} and {len(b)} "
            "rows that differ (select the same requests from both)"
        )
    x, y = a.to_numpy(dtype=float), b.reindex(a.index).to_numpy(dtype=float)
    test = paired_binary(x, y, bootstrap_indices(len(x), n_bootstrap, seed))
    return {
        "n": len(x),
        "mean_a": float(x.mean()),
        "mean_b": float(y.mean()),
        "diff": test["diff"],
        "ci_low": test["ci_low"],
        "ci_high": test["ci_high"],
        "p_bootstrap": test["p_value"],
        "only_a": test["only_a"],
        "only_b": test["only_b"],
        "p_mcnemar": test["p_mcnemar"],
        "significant": test["significant"],
    }
