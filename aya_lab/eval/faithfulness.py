"""Calibrating and measuring the faithfulness gate on the labelled set of ``data/faithfulness``.

:func:`evaluate_faithfulness` scores every pair of the set (:mod:`aya_lab.agents.faithfulness`), picks
each language's threshold on the **calibration** split (:func:`calibrate`: the
:data:`~aya_lab.agents.faithfulness.WITHHELD_QUANTILE` quantile of the scores of honest translations to
or from the language, for languages with at least :data:`MIN_HONEST` of them), and reports on the other
split (:func:`report`) the precision and recall of the "unfaithful" class — an output withheld — and the
share of honest translations withheld, overall, per kind and per language, each with a percentile
bootstrap 95% CI. The resampled units are source sentences (every pair made from one sentence goes in
or out together: they share words, names and length). Per kind, only the rate that kind has is shown:
recall for an unfaithful kind, the withheld share for honest translations.

``aya-lab eval faithfulness`` runs it (:mod:`aya_lab.eval.faithfulness_cli`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from aya_lab.agents.faithfulness import (
    WITHHELD_QUANTILE,
    RealOutputFloor,
    faithfulness_scores,
    threshold_for,
)
from aya_lab.errors import InputError
from aya_lab.eval.faithfulness_data import FaithPair, FaithSet, load_faithfulness_set
from aya_lab.eval.stats import cluster_bootstrap_counts, cluster_labels, percentile_ci

__all__ = ["MIN_HONEST", "FaithfulnessReport", "calibrate", "evaluate_faithfulness", "report"]

MIN_HONEST = 10
"""A language gets its own threshold only with at least this many honest calibration pairs."""
_COLUMNS = ["group", "value", "n_unfaithful", "n_faithful", "precision", "precision_low", "precision_high"]
_COLUMNS += ["recall", "recall_low", "recall_high", "withheld", "withheld_low", "withheld_high"]


def calibrate(pairs: Sequence[FaithPair], scores: np.ndarray, quantile: float = WITHHELD_QUANTILE) -> dict[str, float]:
    """Per language, the ``quantile`` of the scores of the honest pairs that have it on either side
    (languages with fewer than :data:`MIN_HONEST` such pairs get none), rounded to three decimals."""
    by_lang: dict[str, list[float]] = {}
    for pair, score in zip(pairs, scores):
        if not pair.unfaithful:
            for lang in dict.fromkeys((pair.src, pair.tgt)):
                by_lang.setdefault(lang, []).append(float(score))
    return {
        lang: round(float(np.quantile(values, quantile)), 3)
        for lang, values in by_lang.items()
        if len(values) >= MIN_HONEST
    }


def _rates(stats: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Precision, recall and withheld share from summed (tp, fp, fn, tn) columns (NaN where undefined)."""
    tp, fp, fn, tn = stats[..., 0], stats[..., 1], stats[..., 2], stats[..., 3]
    with np.errstate(invalid="ignore", divide="ignore"):
        return tp / (tp + fp), tp / (tp + fn), fp / (fp + tn)


def _row(group: str, value: str, units: np.ndarray, cells: np.ndarray, counts: np.ndarray | None) -> dict:
    """One table row: the rates of ``cells`` ((n, 4) one-hot tp/fp/fn/tn) with CIs over ``units``."""
    n_units = int(units.max()) + 1 if len(units) else 0
    per_unit = np.zeros((n_units, 4))
    np.add.at(per_unit, units, cells)
    point = _rates(per_unit.sum(axis=0))
    row = {
        "group": group,
        "value": value,
        "n_unfaithful": int(cells[:, [0, 2]].sum()),
        "n_faithful": int(cells[:, [1, 3]].sum()),
    }
    boots = _rates(counts[:, :n_units] @ per_unit) if counts is not None and n_units else None
    for k, name in enumerate(("precision", "recall", "withheld")):
        row[name] = float(point[k])
        low, high = percentile_ci(boots[k]) if boots is not None else (float("nan"), float("nan"))
        row[f"{name}_low"], row[f"{name}_high"] = low, high
    return row


def report(
    pairs: Sequence[FaithPair],
    scores: np.ndarray,
    thresholds: dict[str, float] | None = None,
    *,
    n_bootstrap: int = 1000,
    seed: int = 0,
    floor: RealOutputFloor | None = None,
) -> pd.DataFrame:
    """The gate's precision/recall (of "unfaithful") and withheld share of honest pairs, with 95% CIs:
    one row overall, one per kind, one per language (pairs with it on either side). ``thresholds``: per
    language (default: the committed calibration, :func:`~aya_lab.agents.faithfulness.faithful_thresholds`); ``floor``: a
    translator's real-output floor (``None``, the default: the written-pair thresholds alone)."""
    limits = np.array([threshold_for(p.src, p.tgt, thresholds, floor) for p in pairs])
    withheld = np.asarray(scores) < limits
    bad = np.array([p.unfaithful for p in pairs])
    cells = np.stack([withheld & bad, withheld & ~bad, ~withheld & bad, ~withheld & ~bad], axis=1).astype(float)
    units = cluster_labels([p.origin or p.id for p in pairs], len(pairs))
    n_units = int(units.max()) + 1 if len(pairs) else 0
    counts = cluster_bootstrap_counts(n_units, n_bootstrap, seed).astype(float) if n_bootstrap > 1 else None
    rows = [_row("all", "all", units, cells, counts)]
    for group, key in (("kind", lambda p: p.kind), ("language", None)):
        values = sorted({key(p) for p in pairs}) if key else sorted({x for p in pairs for x in (p.src, p.tgt)})
        for value in values:
            sel = np.array([(key(p) == value) if key else value in (p.src, p.tgt) for p in pairs])
            sub_units = cluster_labels(list(units[sel]), int(sel.sum()))
            sub_counts = (
                cluster_bootstrap_counts(int(sub_units.max()) + 1, n_bootstrap, seed)
                if counts is not None and sel.any()
                else None
            )
            rows.append(
                _row(group, value, sub_units, cells[sel], None if sub_counts is None else sub_counts.astype(float))
            )
    table = pd.DataFrame(rows, columns=_COLUMNS)
    kind_rows = table["group"] == "kind"
    honest = kind_rows & (table["value"] == "faithful")
    table.loc[kind_rows, ["precision", "precision_low", "precision_high"]] = np.nan
    table.loc[honest, ["recall", "recall_low", "recall_high"]] = np.nan
    return table


@dataclass
class FaithfulnessReport:
    """What :func:`evaluate_faithfulness` found: the thresholds picked on the calibration split, the
    table of the reported split, and every pair's score (``scores``: pairs of ``data.pairs`` in order)."""

    thresholds: dict[str, float]
    table: pd.DataFrame
    data: FaithSet
    scores: np.ndarray
    split: str


def evaluate_faithfulness(
    path: str | Path | None = None,
    split: str = "holdout",
    *,
    n_bootstrap: int = 1000,
    thresholds: dict[str, float] | None = None,
    floor: RealOutputFloor | None = None,
) -> FaithfulnessReport:
    """Score the set at ``path``, calibrate on its calibration split (unless ``thresholds`` are given)
    and report on ``split`` (``holdout``, or ``calibration`` to see the fit itself) with ``floor`` applied."""
    data = load_faithfulness_set(path)
    if not data.pairs:
        raise InputError(
            f"{data.path}: no pairs to score (external sets missing: {data.skipped}); set AYA_LAB_DATA_DIR"
        )
    scores = faithfulness_scores([p.source for p in data.pairs], [p.output for p in data.pairs])
    cal = [i for i, p in enumerate(data.pairs) if p.split == "calibration"]
    picked = thresholds or calibrate([data.pairs[i] for i in cal], scores[cal])
    chosen = [i for i, p in enumerate(data.pairs) if p.split == split]
    if not chosen:
        raise InputError(f'{data.path}: no pairs in the {split} split; label some pairs "split": "{split}"')
    table = report([data.pairs[i] for i in chosen], scores[chosen], picked, n_bootstrap=n_bootstrap, floor=floor)
    return FaithfulnessReport(picked, table, data, scores, split)
