"""Hallucination rate: the share of a system's outputs the room's faithfulness gate would withhold.

Each output is scored against its source with the translation guard's reference-free faithfulness score
(:mod:`aya_lab.agents.faithfulness`: cross-lingual similarity under multilingual-e5-small) and counts as
a hallucination when the score is below the pair's calibrated threshold; an empty output counts too
(nothing was translated). The rate's 95% CI is a percentile bootstrap over the same units as the
metrics' (:mod:`~.resampling`: whole documents where the set has document ids, else segments, with
sacrebleu's seed), so a document's correlated segments are drawn together.

What it does not count: an output that copies its source scores 1.0 and is no hallucination here (the
``echo_*`` shares count it); a translation with a wrong number or a dropped clause mostly passes (the
score does not check facts).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from aya_lab.agents.faithfulness import faithfulness_scores, threshold_for
from aya_lab.eval.resampling import Units, cluster_bootstrap_counts, percentile_ci, sacrebleu_seed

__all__ = ["HALLUCINATION_METRIC", "hallucination_flags", "hallucination_rate"]

HALLUCINATION_METRIC = "hallucination_rate"
"""The metric name of the rate in the results table."""


def hallucination_flags(sources: Sequence[str], outputs: Sequence[str], src: str, tgt: str) -> np.ndarray:
    """Per output, whether the faithfulness gate would withhold it (empty outputs: ``True``)."""
    if len(sources) != len(outputs):
        raise ValueError(f"{len(outputs)} outputs but {len(sources)} sources")
    flags = np.array([not o.strip() for o in outputs], dtype=bool)
    todo = [i for i, o in enumerate(outputs) if o.strip()]
    if todo:
        scores = faithfulness_scores([sources[i] for i in todo], [outputs[i] for i in todo])
        flags[todo] = scores < threshold_for(src, tgt)
    return flags


def hallucination_rate(
    sources: Sequence[str], outputs: Sequence[str], src: str, tgt: str, units: Units, n_bootstrap: int = 1000
) -> tuple[float, float, float]:
    """``(rate, ci_low, ci_high)`` of :func:`hallucination_flags` (0..1; NaN for no outputs; CI NaN
    without bootstrap), resampling ``units``."""
    flags = hallucination_flags(sources, outputs, src, tgt).astype(float)
    nan = float("nan")
    if not flags.size:
        return nan, nan, nan
    rate = float(flags.mean())
    if n_bootstrap <= 1 or units.n_units == 0:
        return rate, nan, nan
    hits, sizes = np.zeros(units.n_units), np.zeros(units.n_units)
    np.add.at(hits, units.index, flags)
    np.add.at(sizes, units.index, 1.0)
    counts = cluster_bootstrap_counts(units.n_units, n_bootstrap, sacrebleu_seed()).astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        boot = (counts @ hits) / (counts @ sizes)
    low, high = percentile_ci(boot)
    return rate, low, high
