"""Paired differences against one system, per language pair, and the forest plot that shows them.

:func:`paired_deltas` recomputes, from a result's saved segment outputs, every other system's
difference in one metric against a named system (a floor such as ``copy`` or ``other-sentence``, or
the baseline) with the 95% CI of the paired bootstrap of that difference. Documents are resampled
where the outputs carry document ids (:mod:`~.resampling`), so the interval is the one the result's
own tests used when the named system is the baseline. :func:`forest_plot` draws those differences:
one row per pair, one marker per system, a vertical line at 0 — a row whose interval lies right of
the line is a pair where the system beats the named one.
"""

from __future__ import annotations

import pandas as pd

from aya_lab.errors import InputError
from aya_lab.eval.resampling import analyse_group, units_for

__all__ = ["DELTA_COLUMNS", "paired_deltas", "forest_plot"]

DELTA_COLUMNS = [
    "system",
    "against",
    "dataset_id",
    "pair",
    "hop",
    "metric",
    "delta",
    "ci_low",
    "ci_high",
    "p_bootstrap",
    "resample_unit",
    "n_units",
    "n",
]


def _group_rows(grp: pd.DataFrame, against: str, metric: str, hop: str, n_bootstrap: int) -> list[dict]:
    base = grp[grp["system"] == against].sort_values("idx")
    if base.empty:
        return []
    refs = list(base["reference"])
    hyps = {against: list(base["hypothesis"])}
    for system, sub in grp[grp["system"] != against].groupby("system", sort=False):
        sub = sub.sort_values("idx")
        if list(sub["reference"]) == refs:
            hyps[str(system)] = list(sub["hypothesis"])
    if len(hyps) < 2:
        return []
    units = units_for(list(base["doc_id"]) if "doc_id" in base.columns else None, len(refs))
    tgt = "eng" if hop == "src-pivot" else str(base["tgt"].iloc[0])
    _, tests = analyse_group(
        hyps, refs, tgt, units, baseline=against, n_bootstrap=n_bootstrap, n_ar=0, metrics=(metric,)
    )
    did, pair = str(base["dataset_id"].iloc[0]), str(base["pair"].iloc[0])
    return [
        {
            "system": system,
            "against": against,
            "dataset_id": did,
            "pair": pair,
            "hop": hop,
            "metric": metric,
            "delta": tests[(system, metric)]["delta"],
            "ci_low": tests[(system, metric)]["delta_low"],
            "ci_high": tests[(system, metric)]["delta_high"],
            "p_bootstrap": tests[(system, metric)]["p_bootstrap"],
            "resample_unit": units.kind,
            "n_units": units.n_units,
            "n": len(refs),
        }
        for system in hyps
        if system != against
    ]


def paired_deltas(
    outputs: pd.DataFrame, *, against: str, metric: str = "chrF", hop: str = "e2e", n_bootstrap: int = 1000
) -> pd.DataFrame:
    """Per pair, ``metric`` of every other system minus that of ``against``, with a 95% paired-bootstrap CI.

    ``outputs`` is a translation report's ``items`` (segments with their pair, hop, document id). Returns
    :data:`DELTA_COLUMNS` rows in the outputs' pair order; ``p_bootstrap`` is unadjusted (the result
    table's ``p_holm`` is the corrected one for the baseline). Raises ValueError naming the systems
    when ``against`` did not run, or when there are no saved outputs.
    """
    if outputs is None or outputs.empty:
        raise InputError("this result has no saved segment outputs; re-run the evaluation to compare systems")
    systems = list(dict.fromkeys(outputs["system"]))
    if against not in systems:
        raise InputError(f"no system {against!r} in this result; it has: {', '.join(systems)}")
    sub = outputs[outputs["hop"] == hop]
    if sub.empty:
        raise InputError(f"no outputs for hop {hop!r}; hops here: {', '.join(dict.fromkeys(outputs['hop']))}")
    rows: list[dict] = []
    for _, grp in sub.groupby(["dataset_id", "pair"], sort=False):
        rows += _group_rows(grp, against, metric, hop, n_bootstrap)
    return pd.DataFrame(rows, columns=DELTA_COLUMNS)


def _labels(deltas: pd.DataFrame) -> list[tuple[str, str]]:
    """``(dataset_id, label)`` per row of the plot: the pair, with the dataset where a pair repeats."""
    keys = list(dict.fromkeys(zip(deltas["dataset_id"], deltas["pair"])))
    pairs = [p for _, p in keys]
    return [(did, p if pairs.count(p) == 1 else f"{p} ({did.split(':')[0]})") for did, p in keys]


def forest_plot(deltas: pd.DataFrame, *, ax=None, title: str | None = None):
    """A forest plot of :func:`paired_deltas` rows: Δ with its 95% CI per pair and system, a line at 0.

    Pairs run top to bottom in their order; systems are offset within a row and named in the legend.
    Returns the matplotlib Axes (one error-bar container per system).
    """
    import matplotlib.pyplot as plt
    import numpy as np

    if deltas.empty:
        raise InputError("nothing to plot: no system shares segments with the one compared against")
    rows = _labels(deltas)
    systems = list(dict.fromkeys(deltas["system"]))
    if ax is None:
        _, ax = plt.subplots(figsize=(7, 1.0 + 0.45 * len(rows) * max(1, len(systems)) ** 0.5))
    step = 0.6 / max(1, len(systems))
    position = {did: i for i, (did, _) in enumerate(rows)}
    for j, system in enumerate(systems):
        sub = deltas[deltas["system"] == system]
        y = np.array([position[d] for d in sub["dataset_id"]]) + (j - (len(systems) - 1) / 2) * step
        x = sub["delta"].to_numpy(dtype=float)
        low = np.clip(np.nan_to_num(x - sub["ci_low"].to_numpy(dtype=float)), 0, None)
        high = np.clip(np.nan_to_num(sub["ci_high"].to_numpy(dtype=float) - x), 0, None)
        ax.errorbar(x, y, xerr=np.vstack([low, high]), fmt="o", capsize=3, label=system)
    ax.axvline(0.0, color="grey", linestyle="--", linewidth=1)
    ax.set_yticks(range(len(rows)), [label for _, label in rows])
    ax.set_ylim(len(rows) - 0.5, -0.5)  # first pair on top
    metric, against = deltas["metric"].iloc[0], deltas["against"].iloc[0]
    units = "+".join(dict.fromkeys(deltas["resample_unit"]))
    ax.set_xlabel(f"Δ {metric} against {against} (95% CI, paired bootstrap over {units}s)")
    ax.set_title(title or f"Δ {metric} against {against}")
    ax.legend(fontsize="small")
    return ax
