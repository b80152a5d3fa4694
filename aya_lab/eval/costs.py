"""Cost tables: what each arm of a comparison spent on the model, one row per arm.

Columns: ``calls`` (LLM calls), ``prompt tokens``, ``generated tokens``, ``model s`` (the generations'
recorded latencies, summed), ``generated tokens/s`` (generated tokens over model seconds; NaN where
nothing was generated, e.g. the copy floor) and ``device``.

The seconds are the ones **recorded** with each generation: the generation cache stores a result's
latency, so a run replayed from the cache reports the time the model took when it was recorded, not
the replay's milliseconds. ``device`` is what the caller says the model runs on (the cache does not
store where a generation was recorded); pass the loaded model's ``device``. A model batches its
prompts and each result carries its share of the batch's time, so the tokens per second are batched
throughput, not single-request speed.

Three sources: a translation :class:`~aya_lab.eval.report.Report`
(:func:`translation_costs`: per system, summed over pairs, end-to-end hop, which for a pivot system
includes its first hop), a ``routing`` report (:func:`routing_costs`: per prompt variant, the request
translations included) and raw :class:`~aya_lab.models.result.GenerationRecord` lists
(:func:`generation_costs`: per model, for evaluations that report no cost of their own).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from aya_lab.eval.report import Report
from aya_lab.models.result import GenerationRecord, usage

__all__ = ["COST_METRICS", "COST_COLUMNS", "cost_table", "translation_costs", "routing_costs", "generation_costs"]

COST_METRICS = {
    "llm_calls": "calls",
    "prompt_tokens": "prompt tokens",
    "completion_tokens": "generated tokens",
    "latency_s": "model s",
}
"""Tidy-result metric name -> cost-table column."""
COST_COLUMNS = [*COST_METRICS.values(), "generated tokens/s", "device"]
_USAGE_COLUMNS = {
    "calls": "calls",
    "prompt_tokens": "prompt tokens",
    "completion_tokens": "generated tokens",
    "latency_s": "model s",
}
""":func:`~aya_lab.models.result.usage` key -> cost-table column."""


def cost_table(df: pd.DataFrame, by: str, *, value: str = "score", device: str | None = None) -> pd.DataFrame:
    """Sum the cost rows of tidy ``df`` (``metric`` in :data:`COST_METRICS`, numbers in ``value``) per ``by``.

    Arms keep their order of appearance; a cost metric an arm lacks counts 0. Raises ``ValueError``
    naming the missing columns or, when ``df`` has no cost rows, the metrics it should carry.
    """
    missing = [c for c in (by, "metric", value) if c not in df.columns]
    if missing:
        raise ValueError(f"cost_table: the frame has no column {missing[0]!r}; pass a tidy results frame")
    sub = df[df["metric"].isin(list(COST_METRICS))]
    if sub.empty:
        raise ValueError(f"cost_table: no cost rows (metric in {', '.join(COST_METRICS)}); re-run the evaluation")
    order = list(dict.fromkeys(df[by]))
    grid = sub.pivot_table(index=by, columns="metric", values=value, aggfunc="sum", sort=False)
    grid = grid.reindex(index=order, columns=list(COST_METRICS)).fillna(0.0)
    return _finish(grid.rename(columns=COST_METRICS), device)


def _finish(out: pd.DataFrame, device: str | None) -> pd.DataFrame:
    for col in ("calls", "prompt tokens", "generated tokens"):
        out[col] = out[col].round().astype(int)
    out["model s"] = out["model s"].astype(float).round(1)
    seconds = out["model s"].to_numpy(dtype=float)
    tokens = out["generated tokens"].to_numpy(dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        out["generated tokens/s"] = np.where(seconds > 0, np.round(tokens / seconds, 1), np.nan)
    out["device"] = device or "-"
    out.columns.name = None
    return out[COST_COLUMNS]


def translation_costs(results: Report, *, device: str | None = None) -> pd.DataFrame:
    """Per system of a translation report: its cost summed over the pairs (end-to-end hop)."""
    df = results.df
    return cost_table(df[(df["hop"] == "e2e") & (df["pair"] != "pooled")], "system", device=device)


def routing_costs(report: Report, *, device: str | None = None) -> pd.DataFrame:
    """Per prompt variant (``system``) of a ``routing`` report: routing plus request translation."""
    df = report.df
    return cost_table(df[df["lang"] == "all"], "system", device=device)


def generation_costs(records: Sequence[GenerationRecord], *, device: str | None = None) -> pd.DataFrame:
    """Per model spec, the cost of ``records`` (from :func:`~aya_lab.models.result.record_generations`)."""
    if not records:
        raise ValueError("generation_costs: no generation records; wrap the evaluation in record_generations()")
    by_model: dict[str, list[GenerationRecord]] = {}
    for r in records:
        by_model.setdefault(r.model, []).append(r)
    rows = {m: {_USAGE_COLUMNS[k]: v for k, v in usage(group).items()} for m, group in by_model.items()}
    out = pd.DataFrame.from_dict(rows, orient="index")
    out.index.name = "model"
    return _finish(out, device)
