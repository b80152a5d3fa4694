"""The translation task's reports: :func:`translation_report` makes one, and the functions here are its
table, plot, comparison and paired deltas.

A translation :class:`~aya_lab.eval.report.Report` (task ``translation``, units ``pair`` and ``hop``) holds

- ``df`` — one row per system x language pair x hop x metric (columns: :data:`COLUMNS`), with the
  tests against the baseline on each row (``delta``, ``p_bootstrap``, ``p_ar``, ``p_holm``);
- ``items`` — one row per system x pair x hop x segment (source, reference, hypothesis: :data:`OUTPUT_COLUMNS`),
  so that a saved report can be re-tested against another (:func:`compare_translations`);
- ``paired`` — the same tests as the report's paired table (:func:`translation_paired_table`);
- ``meta`` — the run's settings (baseline, dataset, bootstrap sizes, versions).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import pandas as pd

from aya_lab.errors import InputError
from aya_lab.eval.metrics import paired_tests, score_corpus
from aya_lab.eval.report import Report
from aya_lab.eval.resampling import ALPHA
from aya_lab.eval.translation.paired_deltas import forest_plot, paired_deltas

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from pandas.io.formats.style import Styler

__all__ = [
    "COLUMNS",
    "OUTPUT_COLUMNS",
    "baseline_tests",
    "compare_translations",
    "deltas",
    "forest",
    "translation_paired_table",
    "translation_plot",
    "translation_report",
    "translation_table",
]

COLUMNS = [
    "system",
    "dataset",
    "split",
    "src",
    "tgt",
    "pair",
    "hop",
    "metric",
    "score",
    "ci_low",
    "ci_high",
    "p_bootstrap",
    "p_ar",
    "significant",
    "p_holm",
    "significant_holm",
    "delta",
    "delta_low",
    "delta_high",
    "n",
    "resample_unit",
    "n_units",
    "sacrebleu_signature",
    "reliable",
    "note",
    "model_fingerprint",
    "prompt_hash",
    "graph_spec_hash",
    "dataset_id",
    "baseline",
]
OUTPUT_COLUMNS = [
    "system",
    "dataset_id",
    "pair",
    "src",
    "tgt",
    "hop",
    "idx",
    "doc_id",
    "source",
    "reference",
    "hypothesis",
]
SCORE_METRICS = ("BLEU", "chrF", "chrF++")
SHARE_METRICS = ("target_lang_share", "echo_share", "echo_source_share", "echo_example_share", "hallucination_rate")
HOPS = ("e2e", "src-pivot", "pivot-tgt")
TEST_COLUMNS = ["baseline", "system", "dataset_id", "pair", "hop", "metric", "score_baseline", "score_system"]
TEST_COLUMNS += ["delta", "ci_low", "ci_high", "p", "p_ar", "p_holm", "significant", "resample_unit", "n_units", "n"]
"""The columns of a translation report's ``paired`` table (:func:`translation_paired_table`)."""


def pairs_of(report: Report) -> list[str]:
    """The report's language pairs in run order (``pooled`` left out)."""
    return [str(p) for p in dict.fromkeys(report.df["pair"]) if p != "pooled"]


def translation_paired_table(df: pd.DataFrame, baseline: str | None) -> pd.DataFrame:
    """Each system against ``baseline`` per pair, hop and metric, from the tests on ``df``'s rows: ``delta``
    (system minus baseline) with its 95% CI, ``p`` (paired bootstrap), ``p_ar`` (approximate
    randomisation), ``p_holm`` (Holm across the pairs) and ``significant`` (``p_holm`` below 0.05)."""
    keys = ["dataset_id", "pair", "hop", "metric"]
    base = df[df["system"] == baseline].set_index(keys)["score"]
    rows = df[(df["system"] != baseline) & df["p_bootstrap"].notna()]
    out = rows.assign(
        baseline=baseline,
        score_baseline=[base.get(tuple(k), float("nan")) for k in rows[keys].itertuples(index=False)],
        score_system=rows["score"],
        ci_low=rows["delta_low"],
        ci_high=rows["delta_high"],
        p=rows["p_bootstrap"],
        significant=rows["significant_holm"],
    )
    return out[TEST_COLUMNS].reset_index(drop=True)


def translation_report(df: pd.DataFrame, outputs: pd.DataFrame | None = None, meta: dict | None = None) -> Report:
    """The translation report of a score table ``df`` (:data:`COLUMNS`), its segment ``outputs`` and ``meta``."""
    missing = [c for c in COLUMNS if c not in df.columns]
    if missing:
        raise InputError(f"translation scores lack the columns {missing}")
    df = df.reset_index(drop=True)
    items = outputs if outputs is not None else pd.DataFrame(columns=OUTPUT_COLUMNS)
    meta = {**(meta or {}), "units": ["pair", "hop"]}
    return Report("translation", df, items, translation_paired_table(df, meta.get("baseline")), meta)


def translation_table(
    report: Report,
    metrics: tuple[str, ...] = ("BLEU", "chrF", "chrF++", "target_lang_share", "echo_share", "hallucination_rate"),
    hop: str = "e2e",
) -> Styler:
    """A pandas Styler: systems as rows, pair x metric as columns.

    Scores read ``score ±half-CI``, rates with a CI ``rate [low, high]`` (``hallucination_rate``: the
    share of outputs the room's faithfulness gate would withhold); ``*`` marks a significant difference
    from the baseline (both paired bootstrap and approximate randomisation at p < 0.05), ``†`` a BLEU
    that is unreliable for the script, ``n/a`` a language the language identifier does not cover. The
    caption ends with ``meta["prompt_notes"]``: each system that got another prompt than asked for. The
    HTML is deterministic (fixed uuid), so notebooks can compare it.
    """
    df, baseline = report.df, report.baseline
    sub = df[(df["hop"] == hop) & (df["metric"].isin(metrics))]
    cells: dict[tuple[str, str], dict[str, str]] = {}
    for row in sub.itertuples(index=False):
        cells.setdefault((row.pair, row.metric), {})[row.system] = _cell(row)
    columns = [(pair, m) for pair in [*pairs_of(report), "pooled"] for m in metrics if (pair, m) in cells]
    systems = [s for s in report.systems if s in set(sub["system"])]
    data = {col: [cells[col].get(s, "") for s in systems] for col in columns}
    frame = pd.DataFrame(data, index=pd.Index(systems, name="system"))
    frame.columns = pd.MultiIndex.from_tuples(columns, names=["pair", "metric"]) if columns else frame.columns
    caption = f"{report.meta.get('dataset', '')} ({hop}); baseline: {baseline}; * p<0.05 vs baseline (bs & ar); † BLEU unreliable for this script"
    caption += "".join(f"; {note}" for note in report.meta.get("prompt_notes", []))  # type: ignore[attr-defined]
    styler = frame.style.set_uuid("aya-results").set_caption(caption)
    if baseline in systems:
        styler = styler.apply(lambda r: ["font-style: italic" if r.name == baseline else "" for _ in r], axis=1)
    return styler


def baseline_tests(report: Report, metric: str = "chrF", hop: str = "e2e") -> pd.DataFrame:
    """The paired-test table as the score table holds it: each system against the baseline per pair (and
    pooled), one metric. Columns: system, pair, score, delta (system minus baseline) with its 95% CI
    (``delta_low``, ``delta_high``), p_bootstrap, p_ar, significant (both p < 0.05), p_holm and
    significant_holm (Holm across the pairs), and what was resampled (``resample_unit``; ``n_units``)."""
    cols = ["system", "dataset_id", "pair", "score", "delta", "delta_low", "delta_high", "p_bootstrap", "p_ar"]
    cols += ["significant", "p_holm", "significant_holm", "resample_unit", "n_units", "n"]
    rows = report.select(metric=metric, hop=hop)
    return rows[rows["system"] != report.baseline][cols].reset_index(drop=True)


def deltas(report: Report, metric: str = "chrF", against: str | None = None, hop: str = "e2e") -> pd.DataFrame:
    """Per pair, every other system's ``metric`` minus ``against``'s (default: the baseline) with the 95%
    CI of the paired bootstrap, documents resampled where there are ids
    (:func:`~aya_lab.eval.translation.paired_deltas.paired_deltas`, from the report's items)."""
    n_bootstrap = int(str(report.meta.get("n_bootstrap") or 1000))
    against = against or report.baseline or report.systems[0]
    return paired_deltas(report.items, against=against, metric=metric, hop=hop, n_bootstrap=n_bootstrap)


def forest(
    report: Report, metric: str = "chrF", against: str = "copy", ax: Axes | None = None, *, hop: str = "e2e"
) -> Axes:
    """A forest plot of :func:`deltas`: Δ ``metric`` of every other system against ``against`` per pair,
    95% CIs, a vertical line at 0. Returns the matplotlib Axes."""
    title = f"Δ {metric} against {against} ({hop}) on {report.meta.get('dataset', '')}"
    return forest_plot(deltas(report, metric, against, hop), ax=ax, title=title)


def translation_plot(
    report: Report, metric: str = "chrF", hop: str = "e2e", *, ax: Axes | None = None, heatmap: bool | None = None
) -> Axes:
    """Per-pair bars with CI error bars, systems side by side; a heatmap for many pairs.

    Returns the matplotlib Axes. ``heatmap=None`` chooses a heatmap above 8 pairs.
    """
    import matplotlib.pyplot as plt
    import numpy as np

    df = report.df
    sub = df[(df["metric"] == metric) & (df["hop"] == hop) & (df["pair"] != "pooled")]
    pairs = [p for p in pairs_of(report) if p in set(sub["pair"])]
    systems = [s for s in report.systems if s in set(sub["system"])]
    if heatmap is None:
        heatmap = len(pairs) > 8
    if ax is None:
        width = max(6.0, 0.6 * len(pairs) * (1 if heatmap else max(1, len(systems)) ** 0.5) + 2)
        _, ax = plt.subplots(figsize=(min(width, 18), 0.5 * len(systems) + 2 if heatmap else 4))
    if heatmap:
        grid = report.grid(metric, hop=hop).reindex(index=systems, columns=pairs)
        image = ax.imshow(grid.to_numpy(dtype=float), aspect="auto", cmap="viridis")
        ax.set_xticks(range(len(pairs)), pairs, rotation=60, ha="right")
        ax.set_yticks(range(len(systems)), systems)
        ax.figure.colorbar(image, ax=ax, label=metric)
    else:
        step = 0.8 / max(1, len(systems))
        x = np.arange(len(pairs))
        for i, system in enumerate(systems):
            rows = sub[sub["system"] == system].set_index("pair").reindex(pairs)
            scores = rows["score"].to_numpy(dtype=float)
            low = np.nan_to_num(scores - rows["ci_low"].to_numpy(dtype=float), nan=0.0)
            high = np.nan_to_num(rows["ci_high"].to_numpy(dtype=float) - scores, nan=0.0)
            err = np.vstack([np.clip(low, 0, None), np.clip(high, 0, None)])
            ax.bar(x + (i - (len(systems) - 1) / 2) * step, scores, step, label=system, yerr=err, capsize=2)
        ax.set_xticks(x, pairs, rotation=30 if len(pairs) > 4 else 0)
        ax.set_ylabel(metric)
        ax.legend(fontsize="small")
    ax.set_title(f"{metric} ({hop}) on {report.meta.get('dataset', '')}")
    return ax


def _fmt(x: float) -> str:
    return "" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.1f}"


def _cell(row) -> str:
    if row.metric in SHARE_METRICS:
        if row.score is None or (isinstance(row.score, float) and math.isnan(row.score)):
            return "n/a"
        text = f"{100 * row.score:.0f}%"
        if row.ci_low == row.ci_low and row.ci_high == row.ci_high:  # a rate with a CI (hallucination_rate)
            text += f" [{100 * row.ci_low:.0f}, {100 * row.ci_high:.0f}]"
        return text
    text = _fmt(row.score)
    if row.ci_low == row.ci_low and row.ci_high == row.ci_high:  # not NaN
        text += f" ±{(row.ci_high - row.ci_low) / 2:.1f}"
    if bool(row.significant):
        text += " *"
    if row.metric == "BLEU" and not bool(row.reliable):
        text += " †"
    return text


def compare_translations(
    a: Report,
    b: Report,
    *,
    system_a: str | None = None,
    system_b: str | None = None,
    n_bootstrap: int = 1000,
    n_ar: int = 10000,
) -> pd.DataFrame:
    """Paired tests of system(s) in ``b`` against one system of ``a`` on the segments both scored.

    ``system_a`` defaults to ``a``'s baseline (or its only system); ``system_b`` to every system of
    ``b``. Segments are matched by dataset id, pair, hop and index, and must share their references.
    Returns a tidy DataFrame: system_a, system_b, dataset_id, pair, hop, metric, score_a, score_b,
    p_bootstrap, p_ar, significant, n. These tests resample segments (sacrebleu's own), even where the
    outputs carry document ids; :func:`deltas` resamples documents.
    """
    for res, label in ((a, "A"), (b, "B")):
        if res.items is None or res.items.empty:
            raise InputError(f"result {label} has no saved outputs (<stem>.items.csv); re-run the evaluation")
    sys_a = system_a or a.baseline or a.systems[0]
    if sys_a not in set(a.items["system"]):
        raise InputError(f"system {sys_a!r} is not in result A; it has: {', '.join(a.systems)}")
    systems_b = [system_b] if system_b else list(dict.fromkeys(b.items["system"]))
    for s in systems_b:
        if s not in set(b.items["system"]):
            raise InputError(f"system {s!r} is not in result B; it has: {', '.join(b.systems)}")
    out_a = a.items[a.items["system"] == sys_a]
    rows = []
    for (did, pair, hop), grp_a in out_a.groupby(["dataset_id", "pair", "hop"], sort=False):
        grp_a = grp_a.sort_values("idx")
        hyps_b = _matching_outputs(b, systems_b, sys_a, grp_a, did, pair, hop)
        if hyps_b:
            rows += _compare_rows(sys_a, grp_a, hyps_b, did, pair, hop, n_bootstrap, n_ar)
    if not rows:
        raise InputError("results A and B share no dataset/pair/hop to compare")
    return pd.DataFrame(rows)


def _matching_outputs(b: Report, systems_b, sys_a: str, grp_a: pd.DataFrame, did, pair, hop) -> dict[str, list[str]]:
    """Each B system's hypotheses on the segments of ``grp_a`` (same references required)."""
    hyps_b = {}
    for s in systems_b:
        grp_b = b.items[
            (b.items["system"] == s)
            & (b.items["dataset_id"] == did)
            & (b.items["pair"] == pair)
            & (b.items["hop"] == hop)
        ].sort_values("idx")
        if grp_b.empty:
            continue
        if list(grp_b["reference"]) != list(grp_a["reference"]):
            raise InputError(f"{did} {pair} {hop}: results A and B were scored against different references")
        hyps_b[s if s != sys_a else f"{s} (B)"] = list(grp_b["hypothesis"])
    return hyps_b


def _compare_rows(sys_a, grp_a: pd.DataFrame, hyps_b: dict, did, pair, hop, n_bootstrap, n_ar) -> list[dict]:
    tgt = grp_a["tgt"].iloc[0] if hop != "src-pivot" else "eng"
    refs = list(grp_a["reference"])
    base = list(grp_a["hypothesis"])
    tests = paired_tests(base, hyps_b, refs, tgt, n_bootstrap=n_bootstrap, n_ar=n_ar)
    score_a = score_corpus(base, refs, tgt, n_bootstrap=1)
    rows = []
    for s, hyps in hyps_b.items():
        score_b = score_corpus(hyps, refs, tgt, n_bootstrap=1)
        for metric in SCORE_METRICS:
            p = tests[(s, metric)]
            rows.append(
                {
                    "system_a": sys_a,
                    "system_b": s,
                    "dataset_id": did,
                    "pair": pair,
                    "hop": hop,
                    "metric": metric,
                    "score_a": score_a[metric].score,
                    "score_b": score_b[metric].score,
                    "p_bootstrap": p["p_bootstrap"],
                    "p_ar": p["p_ar"],
                    "significant": p["p_bootstrap"] < ALPHA and p["p_ar"] < ALPHA,
                    "n": len(refs),
                }
            )
    return rows
