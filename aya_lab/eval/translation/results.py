"""The translation task's report: :func:`translation_report` makes one; its table, plot, paired deltas,
forest plot and comparison are here.

A translation :class:`~aya_lab.eval.report.Report` (task ``translation``, units ``pair`` and ``hop``) holds

- ``df`` — one row per system x language pair x hop x metric (:data:`COLUMNS`), with the tests against
  the baseline on each row (``delta``, ``p_bootstrap``, ``p_ar``, ``p_holm``);
- ``items`` — one row per system x pair x hop x segment (:data:`OUTPUT_COLUMNS`), so that a saved report
  can be re-tested against another (:func:`compare_translations`) or against a floor (:func:`deltas`);
- ``paired`` — the same tests as a paired table (:func:`translation_paired_table`);
- ``meta`` — the run's settings (baseline, dataset, bootstrap sizes, versions).

:func:`deltas` recomputes, from the saved segments, every other system's difference in one metric against
a named system (a floor such as ``copy``, or the baseline) with the 95% CI of its paired bootstrap,
documents resampled where the outputs carry document ids, so the interval is the one the report's own
tests used when the named system is the baseline. :func:`forest` draws them: one row per pair, one
marker per system, a line at 0 — a row whose interval lies right of it is a pair where the system wins.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from aya_lab.errors import InputError
from aya_lab.eval.metrics import METRICS
from aya_lab.eval.report import Report
from aya_lab.eval.resampling import ALPHA, BLOCK, FEW_UNITS, analyse_group, units_for

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from pandas.io.formats.style import Styler

__all__ = [
    "COLUMNS",
    "DELTA_COLUMNS",
    "OUTPUT_COLUMNS",
    "TEST_COLUMNS",
    "baseline_tests",
    "compare_translations",
    "deltas",
    "deltas_across",
    "forest",
    "translation_paired_table",
    "translation_plot",
    "translation_report",
    "translation_table",
]

COLUMNS = (
    "system dataset split src tgt pair hop metric score ci_low ci_high p_bootstrap p_ar significant p_holm "
    "significant_holm delta delta_low delta_high n resample_unit n_units few_units sacrebleu_signature reliable note "
    "model_fingerprint prompt_hash graph_spec_hash dataset_id baseline"
).split()
"""The columns of a translation report's ``df``."""
OUTPUT_COLUMNS = "system dataset_id pair src tgt hop idx doc_id source reference hypothesis".split()
"""The columns of a translation report's ``items``."""
TEST_COLUMNS = "baseline system dataset_id pair hop metric score_baseline score_system delta ci_low ci_high p".split()
TEST_COLUMNS += "p_ar p_holm significant resample_unit n_units n".split()
"""The columns of a translation report's ``paired`` table (:func:`translation_paired_table`)."""
DELTA_COLUMNS = "system against dataset_id pair hop metric delta ci_low ci_high p_bootstrap resample_unit n_units few_units n".split()
"""The columns of :func:`deltas`."""
SHARE_METRICS = ("target_lang_share", "echo_share", "echo_source_share", "echo_example_share", "hallucination_rate")


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

    Scores read ``score ±half-CI``, rates with a CI ``rate [low, high]``; ``*`` marks a significant
    difference from the baseline (both paired bootstrap and approximate randomisation at p < 0.05), ``†``
    a BLEU that is unreliable for the script, ``‡`` a score resampled from fewer than
    :data:`~aya_lab.eval.resampling.FEW_UNITS` units (no ``*`` then, as a notebook's family never counts it
    significant; from one unit, no interval is shown: it has no spread),
    ``n/a`` a language the language identifier does not cover.
    The caption ends with ``meta["prompt_notes"]``. The HTML is deterministic (fixed uuid).
    """
    df, baseline = report.df, report.baseline
    sub = df[(df["hop"] == hop) & (df["metric"].isin(metrics))]
    cells: dict[tuple[str, str], dict[str, str]] = {}
    for row in sub.itertuples(index=False):
        cells.setdefault((row.pair, row.metric), {})[row.system] = _cell(row)
    columns = [(pair, m) for pair in [*pairs_of(report), "pooled"] for m in metrics if (pair, m) in cells]
    systems = [s for s in report.systems if s in set(sub["system"])]
    frame = pd.DataFrame(
        {col: [cells[col].get(s, "") for s in systems] for col in columns}, index=pd.Index(systems, name="system")
    )
    frame.columns = pd.MultiIndex.from_tuples(columns, names=["pair", "metric"]) if columns else frame.columns
    caption = f"{report.meta.get('dataset', '')} ({hop}); baseline: {baseline}; * p<0.05 vs baseline (bs & ar); † BLEU unreliable for this script"
    if "few_units" in sub and sub["few_units"].astype(bool).any():
        caption += (
            f"; ‡ resampled from fewer than {FEW_UNITS} units (n_units): the interval is too narrow to trust and no "
            "difference is marked significant"
        )
    caption += "".join(f"; {note}" for note in report.meta.get("prompt_notes", []))  # type: ignore[attr-defined]
    styler = frame.style.set_uuid("aya-results").set_caption(caption)
    if baseline in systems:
        styler = styler.apply(lambda r: ["font-style: italic" if r.name == baseline else "" for _ in r], axis=1)
    return styler


def _cell(row) -> str:
    units = getattr(row, "n_units", float("nan"))
    one_unit = units == units and units < 2  # one unit resampled has no spread: no interval to show
    had_ci = row.ci_low == row.ci_low and row.ci_high == row.ci_high  # not NaN
    has_ci = had_ci and not one_unit
    few = " ‡" if had_ci and bool(getattr(row, "few_units", False)) else ""
    if row.metric in SHARE_METRICS:
        if row.score is None or (isinstance(row.score, float) and math.isnan(row.score)):
            return "n/a"
        return (
            f"{100 * row.score:.0f}%" + (f" [{100 * row.ci_low:.0f}, {100 * row.ci_high:.0f}]" if has_ci else "") + few
        )
    text = "" if row.score is None or (isinstance(row.score, float) and math.isnan(row.score)) else f"{row.score:.1f}"
    text += (f" ±{(row.ci_high - row.ci_low) / 2:.1f}" if has_ci else "") + few
    text += " *" if bool(row.significant) and not few else ""  # too few units to test (docs/EVALUATION.md)
    return text + (" †" if row.metric == "BLEU" and not bool(row.reliable) else "")


def baseline_tests(report: Report, metric: str = "chrF", hop: str = "e2e") -> pd.DataFrame:
    """The paired-test table as the score table holds it: each system against the baseline per pair (and
    pooled), one metric. Columns: system, pair, score, delta (system minus baseline) with its 95% CI
    (``delta_low``, ``delta_high``), p_bootstrap, p_ar, significant (both p < 0.05), p_holm and
    significant_holm (Holm across the pairs), and what was resampled (``resample_unit``; ``n_units``; ``few_units``)."""
    cols = ["system", "dataset_id", "pair", "score", "delta", "delta_low", "delta_high", "p_bootstrap", "p_ar"]
    cols += ["significant", "p_holm", "significant_holm", "resample_unit", "n_units", "few_units", "n"]
    rows = report.select(metric=metric, hop=hop)
    return rows[rows["system"] != report.baseline][cols].reset_index(drop=True)


def _delta_rows(grp: pd.DataFrame, against: str, metric: str, hop: str, n_bootstrap: int, block: int) -> list[dict]:
    base = grp[grp["system"] == against].sort_values("idx")
    refs = list(base["reference"])
    hyps = {against: list(base["hypothesis"])}
    for system, sub in grp[grp["system"] != against].groupby("system", sort=False):
        sub = sub.sort_values("idx")
        if list(sub["reference"]) == refs:
            hyps[str(system)] = list(sub["hypothesis"])
    if base.empty or len(hyps) < 2:
        return []
    units = units_for(list(base["doc_id"]) if "doc_id" in base.columns else None, len(refs), block)
    tgt = "eng" if hop == "src-pivot" else str(base["tgt"].iloc[0])
    _, tests = analyse_group(
        hyps, refs, tgt, units, baseline=against, n_bootstrap=n_bootstrap, n_ar=0, metrics=(metric,)
    )
    where = {"against": against, "dataset_id": str(base["dataset_id"].iloc[0]), "pair": str(base["pair"].iloc[0])}
    return [
        {
            "system": system,
            **where,
            "hop": hop,
            "metric": metric,
            "delta": t["delta"],
            "ci_low": t["delta_low"],
            "ci_high": t["delta_high"],
            "p_bootstrap": t["p_bootstrap"],
            "resample_unit": units.kind,
            "n_units": units.n_units,
            "few_units": units.n_units < FEW_UNITS,
            "n": len(refs),
        }  # fmt: skip
        for system in hyps
        if system != against and (t := tests[(system, metric)])
    ]


def deltas(report: Report, metric: str = "chrF", against: str | None = None, hop: str = "e2e") -> pd.DataFrame:
    """Per pair, every other system's ``metric`` minus ``against``'s (default: the baseline) with the 95%
    CI of the paired bootstrap (:data:`DELTA_COLUMNS`, in the report's pair order; ``p_bootstrap`` is
    unadjusted). Raises :class:`~aya_lab.errors.InputError` naming the systems when ``against`` did not
    run, or when the report has no saved outputs."""
    outputs = report.items
    if outputs is None or outputs.empty:
        raise InputError("this result has no saved segment outputs; re-run the evaluation to compare systems")
    against = against or report.baseline or report.systems[0]
    systems = list(dict.fromkeys(outputs["system"]))
    if against not in systems:
        raise InputError(f"no system {against!r} in this result; it has: {', '.join(systems)}")
    sub = outputs[outputs["hop"] == hop]
    if sub.empty:
        raise InputError(f"no outputs for hop {hop!r}; hops here: {', '.join(dict.fromkeys(outputs['hop']))}")
    n_bootstrap = int(str(report.meta.get("n_bootstrap") or 1000))
    block = BLOCK if report.meta.get("resample", "auto") == "auto" else 1  # as the report's own tests resampled
    rows = [r for _, g in sub.groupby(["dataset_id", "pair"], sort=False) for r in _delta_rows(g, against, metric, hop, n_bootstrap, block)]  # fmt: skip
    return pd.DataFrame(rows, columns=DELTA_COLUMNS)


def deltas_across(
    reports: Mapping[tuple[str, ...], Report],
    system: str | Mapping[tuple[str, ...], str],
    against: Sequence[str],
    metric: str = "chrF",
    names: Sequence[str] = ("direction", "test set"),
) -> pd.DataFrame:
    """One system's paired ``metric`` difference (:func:`deltas`) against each of ``against``, in each of several
    one-pair reports keyed by a tuple (e.g. direction and test set). ``system`` is one name, or a name per key.
    One row per (key..., against), indexed by ``(*names, "against")``, with ``delta ci_low ci_high p_bootstrap
    resample_unit n_units`` and ``significant`` (the CI excludes 0; unadjusted — a notebook's family adjusts).
    Raises :class:`~aya_lab.errors.InputError` naming the system when a report has no row for it."""
    rows = {}
    for key, report in reports.items():
        name = system if isinstance(system, str) else system[key]
        for other in against:
            d = deltas(report, metric, against=other)
            mine = d[(d["system"] == name) & (d["pair"] != "pooled")]
            if mine.empty:
                raise InputError(f"no system {name!r} against {other!r} in the report for {key}; it has: "
                                 f"{', '.join(dict.fromkeys(d['system'])) or 'none'}")  # fmt: skip
            rows[(*key, other)] = mine.iloc[0]
    table = pd.DataFrame(rows).T[["delta", "ci_low", "ci_high", "p_bootstrap", "resample_unit", "n_units"]]
    table.index.names = [*names, "against"]
    table["significant"] = (table["ci_low"].astype(float) > 0) | (table["ci_high"].astype(float) < 0)
    return table


def forest(
    report: Report, metric: str = "chrF", against: str = "copy", ax: Axes | None = None, *, hop: str = "e2e"
) -> Axes:
    """A forest plot of :func:`deltas`: Δ ``metric`` of every other system against ``against`` per pair
    with its 95% CI, systems offset within a row and named in the legend, a line at 0. Returns the
    matplotlib Axes (one error-bar container per system)."""
    import matplotlib.pyplot as plt

    table = deltas(report, metric, against, hop)
    if table.empty:
        raise InputError("nothing to plot: no system shares segments with the one compared against")
    keys = list(dict.fromkeys(zip(table["dataset_id"], table["pair"])))
    pairs = [p for _, p in keys]  # a pair that repeats is labelled with its dataset
    labels = [p if pairs.count(p) == 1 else f"{p} ({did.split(':')[0]})" for did, p in keys]
    systems = list(dict.fromkeys(table["system"]))
    if ax is None:
        _, ax = plt.subplots(figsize=(7, 1.0 + 0.45 * len(keys) * max(1, len(systems)) ** 0.5))
    step = 0.6 / max(1, len(systems))
    position = {did: i for i, (did, _) in enumerate(keys)}
    for j, system in enumerate(systems):
        sub = table[table["system"] == system]
        y = np.array([position[d] for d in sub["dataset_id"]]) + (j - (len(systems) - 1) / 2) * step
        x = sub["delta"].to_numpy(dtype=float)
        low = np.clip(np.nan_to_num(x - sub["ci_low"].to_numpy(dtype=float)), 0, None)
        high = np.clip(np.nan_to_num(sub["ci_high"].to_numpy(dtype=float) - x), 0, None)
        ax.errorbar(x, y, xerr=np.vstack([low, high]), fmt="o", capsize=3, label=system)
    ax.axvline(0.0, color="grey", linestyle="--", linewidth=1)
    ax.set_yticks(range(len(keys)), labels)
    ax.set_ylim(len(keys) - 0.5, -0.5)  # first pair on top
    units = "+".join(dict.fromkeys(table["resample_unit"]))
    ax.set_xlabel(f"Δ {metric} against {table['against'].iloc[0]} (95% CI, paired bootstrap over {units}s)")
    ax.set_title(f"Δ {metric} against {against} ({hop}) on {report.meta.get('dataset', '')}")
    ax.legend(fontsize="small")
    return ax


def translation_plot(
    report: Report, metric: str = "chrF", hop: str = "e2e", *, ax: Axes | None = None, heatmap: bool | None = None
) -> Axes:
    """Per-pair bars with CI error bars, systems side by side; a heatmap for many pairs.

    Returns the matplotlib Axes. ``heatmap=None`` chooses a heatmap above 8 pairs.
    """
    import matplotlib.pyplot as plt

    df = report.df
    sub = df[(df["metric"] == metric) & (df["hop"] == hop) & (df["pair"] != "pooled")]
    pairs = [p for p in pairs_of(report) if p in set(sub["pair"])]
    systems = [s for s in report.systems if s in set(sub["system"])]
    heatmap = len(pairs) > 8 if heatmap is None else heatmap
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
    p_bootstrap, p_ar, significant, n. These tests resample segments (sacrebleu's own draws), even where
    the outputs carry document ids; :func:`deltas` resamples documents.
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
    rows = []
    for (did, pair, hop), grp_a in a.items[a.items["system"] == sys_a].groupby(
        ["dataset_id", "pair", "hop"], sort=False
    ):
        grp_a = grp_a.sort_values("idx")
        hyps_b = _matching_outputs(b, systems_b, sys_a, grp_a, (did, pair, hop))
        if hyps_b:
            rows += _compare_rows(sys_a, grp_a, hyps_b, (did, pair, hop), n_bootstrap, n_ar)
    if not rows:
        scored = [", ".join(sorted(set(r.items["dataset_id"].astype(str)))) for r in (a, b)]
        raise InputError(
            f"results A and B scored no segments in common (A: {scored[0]}; B: {scored[1]}); a paired test needs "
            "the same set, pair and segments: run both with the same --dataset, --pairs, --n and --docs"
        )
    return pd.DataFrame(rows)


def _matching_outputs(b: Report, systems_b, sys_a: str, grp_a: pd.DataFrame, where: tuple) -> dict[str, list[str]]:
    """Each B system's hypotheses on the segments of ``grp_a`` (same references required)."""
    hyps_b = {}
    same = (b.items["dataset_id"] == where[0]) & (b.items["pair"] == where[1]) & (b.items["hop"] == where[2])
    for s in systems_b:
        grp_b = b.items[same & (b.items["system"] == s)].sort_values("idx")
        if grp_b.empty:
            continue
        if list(grp_b["reference"]) != list(grp_a["reference"]):
            raise InputError(f"{' '.join(where)}: results A and B were scored against different references")
        hyps_b[s if s != sys_a else f"{s} (B)"] = list(grp_b["hypothesis"])
    return hyps_b


def _compare_rows(sys_a, grp_a: pd.DataFrame, hyps_b: dict, where: tuple, n_bootstrap, n_ar) -> list[dict]:
    tgt = grp_a["tgt"].iloc[0] if where[2] != "src-pivot" else "eng"
    refs, key = list(grp_a["reference"]), "\x00A"  # no system is named like the key of A's outputs
    scores, tests = analyse_group(
        {key: list(grp_a["hypothesis"]), **hyps_b}, refs, tgt, units_for(None, len(refs)), baseline=key,
        n_bootstrap=n_bootstrap, n_ar=n_ar,
    )  # fmt: skip
    return [
        {
            "system_a": sys_a,
            "system_b": s,
            "dataset_id": where[0],
            "pair": where[1],
            "hop": where[2],
            "metric": metric,
            "score_a": scores[key][metric].score,
            "score_b": scores[s][metric].score,
            "p_bootstrap": p["p_bootstrap"],
            "p_ar": p["p_ar"],
            "significant": p["p_bootstrap"] < ALPHA and p["p_ar"] < ALPHA,
            "n": len(refs),
        }  # fmt: skip
        for s in hyps_b
        for metric in METRICS
        if (p := tests[(s, metric)])
    ]
