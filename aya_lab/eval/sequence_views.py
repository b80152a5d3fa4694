"""What a ``sequences`` report (:func:`~aya_lab.eval.routing_sequences.evaluate_sequences`) shows beyond
its scores: its table, two routers or two paths paired on the same requests, and the cost per request.

- :func:`sequence_table` — model x router x path rows, sequence and step accuracy per set with CIs (the
  ``sequences`` task's table);
- :func:`routers_paired` — router ``other`` against ``baseline`` per path and set: the paired bootstrap
  of the exact-sequence-accuracy difference (``delta`` = other - baseline, its 95% CI and ``p``) and
  McNemar's exact test (``b``: only the baseline right, ``c``: only the other; ``p_mcnemar``);
- :func:`paths_paired` — each router on path ``other`` against itself on ``baseline``, per set, with the
  same two tests (:func:`~aya_lab.eval.resampling.paired_accuracy`);
- :func:`sequence_costs` — steps, model calls, model seconds, fallback and parse-failure rates per request;
- :func:`decided_by` — a router's accuracy split by who decided: the model (its answer named a tool) or
  the keyword fallback (it named none). A router whose accuracy is mostly the fallback's is a keyword
  router; this says so with numbers, per group, with percentile bootstrap 95% CIs (resampled within the
  group; an empty group has NaN accuracy, not 0). Works on a ``routing`` or a ``sequences`` report's items.
- :func:`sequence_views` — what ``aya-lab eval run sequences`` prints: all of the above that the run has.

Both paired tables end with ``p_holm`` and ``significant`` (Holm over the table's rows of each metric,
:func:`~aya_lab.eval.resampling.holm_column`), the one multiple-comparison policy of every report.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from aya_lab.errors import InputError
from aya_lab.eval.report import Report
from aya_lab.eval.resampling import bootstrap_ci, bootstrap_indices, holm_column, paired_accuracy, paired_binary

__all__ = [
    "DECIDERS",
    "decided_by",
    "SEQUENCE_PAIRED_COLUMNS",
    "PATHS_PAIRED_COLUMNS",
    "paths_paired",
    "router_rows",
    "routers_paired",
    "sequence_costs",
    "sequence_table",
    "sequence_views",
]

SEQUENCE_PAIRED_COLUMNS = [
    *"baseline system model path set metric score_baseline score_system delta ci_low ci_high p".split(),
    *"b c p_mcnemar n".split(),
]
"""The columns of :func:`routers_paired` (and the report's ``paired``) before ``p_holm`` and ``significant``."""
PATHS_PAIRED_COLUMNS = [
    *"system set baseline other metric score_baseline score_other delta ci_low ci_high p".split(),
    *"b c p_mcnemar n".split(),
]
"""The columns of :func:`paths_paired` before ``p_holm`` and ``significant``."""
_METRIC = "sequence_accuracy"

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


def sequence_table(report: Report) -> pd.DataFrame:
    """Model x router x path rows; sequence and step accuracy per set, ``score [low, high]``."""
    df = report.df[report.df["metric"].isin(["sequence_accuracy", "step_accuracy"])]
    df = df.assign(
        cell=[f"{m:.3f} [{lo:.3f}, {hi:.3f}]" for m, lo, hi in zip(df["score"], df["ci_low"], df["ci_high"])],
        col=lambda d: d["set"] + " " + d["metric"],
    )
    return df.pivot_table(index=["model", "system", "path"], columns="col", values="cell", aggfunc="first", sort=False)


def router_rows(items: pd.DataFrame, baseline: str, other: str, n_bootstrap: int, seed: int) -> list[dict[str, object]]:
    """The rows of :func:`routers_paired` (before Holm), from a sequences report's ``items``."""
    rows: list[dict[str, object]] = []
    for (model, path, set_name), group in items.groupby(["model", "path", "set"], sort=False):
        a = group[group["system"] == baseline].set_index("id")[_METRIC]
        b = group[group["system"] == other].set_index("id")[_METRIC].reindex(a.index)
        if a.empty or b.isna().any():
            raise InputError(f"paired: routers {baseline!r} and {other!r} were not both run on {set_name}/{path}")
        t = paired_binary(a.to_numpy(), b.to_numpy(), bootstrap_indices(len(a), n_bootstrap, seed))
        rows.append(
            {"baseline": baseline, "system": other, "model": model, "path": path, "set": set_name, "metric": _METRIC,
             "score_baseline": float(a.mean()), "score_system": float(b.mean()), "delta": t["diff"],
             "ci_low": t["ci_low"], "ci_high": t["ci_high"], "p": t["p_value"], "b": t["only_a"], "c": t["only_b"],
             "p_mcnemar": t["p_mcnemar"], "n": len(a)}
        )  # fmt: skip
    return rows


def routers_paired(
    report: Report, baseline: str, other: str, *, n_bootstrap: int = 1000, seed: int = 0
) -> pd.DataFrame:
    """Router ``other`` against ``baseline`` on the same requests, per path and set (see the module)."""
    rows = router_rows(report.items, baseline, other, n_bootstrap, seed)
    return holm_column(pd.DataFrame(rows, columns=SEQUENCE_PAIRED_COLUMNS))


def paths_paired(
    report: Report,
    baseline: str,
    other: str,
    *,
    langs: Sequence[str] | None = None,
    n_bootstrap: int = 1000,
    seed: int = 0,
) -> pd.DataFrame:
    """Each router on path ``other`` against itself on ``baseline``, per set (only requests in ``langs``,
    if given): exact sequence accuracy of each, ``delta`` = other - baseline with its CI and ``p``, ``b``
    (right only on ``baseline``), ``c`` (only on ``other``), ``p_mcnemar``, then Holm (see the module)."""
    items = report.items if langs is None else report.items[report.items["lang"].isin(list(langs))]
    rows = []
    for (set_name, router), group in items.groupby(["set", "system"], sort=False):
        a = group[group["path"] == baseline].set_index("id")[_METRIC]
        b = group[group["path"] == other].set_index("id")[_METRIC]
        if a.empty or b.empty:
            raise InputError(f"paths_paired: paths {baseline!r} and {other!r} were not both run on {set_name}")
        t = paired_accuracy(a, b, n_bootstrap=n_bootstrap, seed=seed)
        rows.append(
            {"system": router, "set": set_name, "baseline": baseline, "other": other, "metric": _METRIC,
             "score_baseline": t["mean_a"], "score_other": t["mean_b"], "delta": t["diff"], "ci_low": t["ci_low"],
             "ci_high": t["ci_high"], "p": t["p_bootstrap"], "b": t["only_a"], "c": t["only_b"],
             "p_mcnemar": t["p_mcnemar"], "n": t["n"]}
        )  # fmt: skip
    return holm_column(pd.DataFrame(rows, columns=PATHS_PAIRED_COLUMNS))


def sequence_costs(report: Report) -> pd.DataFrame:
    """Per router (``system``), path and set: mean steps, model calls and model seconds per request, the
    fallback rate and the parse-failure rate (failures per router model call)."""
    g = report.items.groupby(["system", "path", "set"], sort=False)
    out = g[["steps", "calls", "seconds", "fallback_rate"]].mean()
    out["parse_failure_rate"] = g["parse_failures"].sum() / g["calls"].sum().where(lambda c: c > 0)
    return out.rename(columns={"steps": "steps/request", "calls": "calls/request", "seconds": "model s/request"})


def sequence_views(report: Report) -> list[tuple[str, pd.DataFrame]]:
    """The table, the cost per request, ``loop`` against ``multi`` (when both ran) and each path against the
    room path per router (when the room path ran), as titled tables."""
    routers, paths = list(report.meta.get("routers", [])), list(report.meta.get("paths", []))  # type: ignore[call-overload]
    n_bootstrap, seed = (int(str(report.meta.get(k, d))) for k, d in (("n_bootstrap", 1000), ("seed", 0)))
    views = [
        ("tool sequences (exact sequence and per-step accuracy; path room = translate then route):", sequence_table(report)),
        ("per request (steps = tools run; calls and model s: the router's own model calls):", sequence_costs(report)),
    ]  # fmt: skip
    if {"multi", "loop"} <= set(routers):
        views.append(("loop against multi (paired, exact sequence accuracy):", routers_paired(report, "multi", "loop", n_bootstrap=n_bootstrap, seed=seed)))  # fmt: skip
    for other in (p for p in paths if p != "room" and "room" in paths):
        title = f"{other} path against the room path, per router (paired, exact sequence accuracy):"
        views.append((title, paths_paired(report, "room", other, n_bootstrap=n_bootstrap, seed=seed)))
    return views
