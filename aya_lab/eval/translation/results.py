"""Results of a translation evaluation: one tidy DataFrame, a table, a plot, a file, a comparison.

:class:`Results` wraps

- ``df`` — one row per system x language pair x hop x metric (columns: :data:`COLUMNS`);
- ``outputs`` — one row per system x pair x hop x segment (source, reference, hypothesis), so that a
  saved result can be re-tested against another (:func:`compare`);
- ``meta`` — the run's settings (baseline, dataset, bootstrap sizes, versions).

``save(path)`` writes ``path`` (CSV of ``df``), ``<stem>.outputs.csv`` and ``<stem>.json`` (``meta``
with a format version); ``Results.load`` refuses a file of another format version with one line.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd

from aya_lab.errors import AyaLabError, InputError
from aya_lab.eval.metrics import paired_tests, score_corpus
from aya_lab.eval.stats import ALPHA
from aya_lab.eval.translation.forest import forest_plot, paired_deltas

__all__ = ["Results", "ResultsFormatError", "COLUMNS", "OUTPUT_COLUMNS", "FORMAT", "FORMAT_VERSION", "compare"]

FORMAT = "aya_lab.eval.translation.evaluate-results"
FORMAT_VERSION = 2

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
_NUMERIC = (
    "score",
    "ci_low",
    "ci_high",
    "p_bootstrap",
    "p_ar",
    "p_holm",
    "delta",
    "delta_low",
    "delta_high",
    "n",
    "n_units",
)
_BOOLS = ("significant", "significant_holm", "reliable")


class ResultsFormatError(AyaLabError, ValueError):
    """A results file that is not one of ours or was written by another format version."""


def _sidecar(path: Path) -> Path:
    return path.with_suffix(".json")


def _outputs_path(path: Path) -> Path:
    return path.with_name(path.stem + ".outputs.csv")


class Results:
    """A tidy results table plus the segment outputs behind it."""

    def __init__(self, df: pd.DataFrame, outputs: pd.DataFrame | None = None, meta: dict | None = None):
        missing = [c for c in COLUMNS if c not in df.columns]
        if missing:
            raise InputError(f"results table lacks columns {missing}")
        self.df = df.reset_index(drop=True)
        self.outputs = outputs if outputs is not None else pd.DataFrame(columns=OUTPUT_COLUMNS)
        self.meta = dict(meta or {})

    def __repr__(self) -> str:
        systems = ", ".join(self.systems)
        return f"Results({len(self.df)} rows; systems: {systems}; pairs: {', '.join(self.pairs)})"

    @property
    def systems(self) -> list[str]:
        return list(dict.fromkeys(self.df["system"]))

    @property
    def pairs(self) -> list[str]:
        return [p for p in dict.fromkeys(self.df["pair"]) if p != "pooled"]

    @property
    def baseline(self) -> str | None:
        return self.meta.get("baseline")

    # -- looking ---------------------------------------------------------------------------------
    def scores(self, metric: str = "chrF", hop: str = "e2e") -> pd.DataFrame:
        """A system x pair grid of one metric's scores (pooled column last, when present)."""
        sub = self.df[(self.df["metric"] == metric) & (self.df["hop"] == hop)]
        grid = sub.pivot_table(index="system", columns="pair", values="score", sort=False)
        order = [p for p in self.pairs if p in grid.columns] + (["pooled"] if "pooled" in grid.columns else [])
        return grid.reindex(index=[s for s in self.systems if s in grid.index], columns=order)

    def table(
        self,
        metrics: tuple[str, ...] = ("BLEU", "chrF", "chrF++", "target_lang_share", "echo_share", "hallucination_rate"),
        hop: str = "e2e",
    ):
        """A pandas Styler: systems as rows, pair x metric as columns.

        Scores read ``score ±half-CI``, rates with a CI ``rate [low, high]`` (``hallucination_rate``: the
        share of outputs the room's faithfulness gate would withhold); ``*`` marks a significant difference from the baseline (both
        paired bootstrap and approximate randomisation at p < 0.05), ``†`` a BLEU that is unreliable for
        the script, ``n/a`` a language the language identifier does not cover. The caption ends with
        ``meta["prompt_notes"]``: each system that got another prompt than asked for. The HTML is
        deterministic (fixed uuid), so notebooks can compare it.
        """
        sub = self.df[(self.df["hop"] == hop) & (self.df["metric"].isin(metrics))]
        cells: dict[tuple[str, str], dict[str, str]] = {}
        for row in sub.itertuples(index=False):
            cells.setdefault((row.pair, row.metric), {})[row.system] = _cell(row)
        columns = [(pair, m) for pair in [*self.pairs, "pooled"] for m in metrics if (pair, m) in cells]
        systems = [s for s in self.systems if s in set(sub["system"])]
        data = {col: [cells[col].get(s, "") for s in systems] for col in columns}
        frame = pd.DataFrame(data, index=pd.Index(systems, name="system"))
        frame.columns = pd.MultiIndex.from_tuples(columns, names=["pair", "metric"]) if columns else frame.columns
        caption = f"{self.meta.get('dataset', '')} ({hop}); baseline: {self.baseline}; * p<0.05 vs baseline (bs & ar); † BLEU unreliable for this script"
        caption += "".join(f"; {note}" for note in self.meta.get("prompt_notes", []))  # swapped prompts
        styler = frame.style.set_uuid("aya-results").set_caption(caption)
        if self.baseline in systems:
            styler = styler.apply(
                lambda r: ["font-style: italic" if r.name == self.baseline else "" for _ in r], axis=1
            )
        return styler

    def tests(self, metric: str = "chrF", hop: str = "e2e") -> pd.DataFrame:
        """The paired-test table: each system against the baseline per pair (and pooled), one metric.

        Columns: system, pair, score, delta (system minus baseline) with its 95% CI, p_bootstrap, p_ar,
        significant (both p < 0.05), p_holm and significant_holm (Holm across the pairs), and what was
        resampled (``resample_unit``: document or segment; ``n_units``).
        """
        cols = ["system", "dataset_id", "pair", "score", "delta", "delta_low", "delta_high", "p_bootstrap", "p_ar"]
        cols += ["significant", "p_holm", "significant_holm", "resample_unit", "n_units", "n"]
        sub = self.df[(self.df["metric"] == metric) & (self.df["hop"] == hop) & (self.df["system"] != self.baseline)]
        return sub[cols].reset_index(drop=True)

    def deltas(self, metric: str = "chrF", against: str | None = None, hop: str = "e2e") -> pd.DataFrame:
        """Per pair, every other system's ``metric`` minus ``against``'s (default: the baseline) with the 95%
        CI of the paired bootstrap, documents resampled where there are ids
        (:func:`~aya_lab.eval.translation.forest.paired_deltas`, from the saved outputs)."""
        n_bootstrap = int(self.meta.get("n_bootstrap") or 1000)
        against = against or self.baseline or self.systems[0]
        return paired_deltas(self.outputs, against=against, metric=metric, hop=hop, n_bootstrap=n_bootstrap)

    def forest(self, metric: str = "chrF", against: str = "copy", ax=None, *, hop: str = "e2e"):
        """A forest plot of :meth:`deltas`: Δ ``metric`` of every other system against ``against`` per pair,
        95% CIs, a vertical line at 0. Returns the matplotlib Axes."""
        title = f"Δ {metric} against {against} ({hop}) on {self.meta.get('dataset', '')}"
        return forest_plot(self.deltas(metric, against, hop), ax=ax, title=title)

    def plot(self, metric: str = "chrF", hop: str = "e2e", *, ax=None, heatmap: bool | None = None):
        """Per-pair bars with CI error bars, systems side by side; a heatmap for many pairs.

        Returns the matplotlib Axes. ``heatmap=None`` chooses a heatmap above 8 pairs.
        """
        import matplotlib.pyplot as plt
        import numpy as np

        sub = self.df[(self.df["metric"] == metric) & (self.df["hop"] == hop) & (self.df["pair"] != "pooled")]
        pairs = [p for p in self.pairs if p in set(sub["pair"])]
        systems = [s for s in self.systems if s in set(sub["system"])]
        if heatmap is None:
            heatmap = len(pairs) > 8
        if ax is None:
            width = max(6.0, 0.6 * len(pairs) * (1 if heatmap else max(1, len(systems)) ** 0.5) + 2)
            _, ax = plt.subplots(figsize=(min(width, 18), 0.5 * len(systems) + 2 if heatmap else 4))
        if heatmap:
            grid = self.scores(metric, hop).reindex(index=systems, columns=pairs)
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
                ax.bar(
                    x + (i - (len(systems) - 1) / 2) * step,
                    scores,
                    step,
                    label=system,
                    yerr=np.vstack([np.clip(low, 0, None), np.clip(high, 0, None)]),
                    capsize=2,
                )
            ax.set_xticks(x, pairs, rotation=30 if len(pairs) > 4 else 0)
            ax.set_ylabel(metric)
            ax.legend(fontsize="small")
        ax.set_title(f"{metric} ({hop}) on {self.meta.get('dataset', '')}")
        return ax

    # -- files -----------------------------------------------------------------------------------
    def save(self, path: str | Path) -> Path:
        """Write the table (CSV), the outputs (``<stem>.outputs.csv``) and metadata (``<stem>.json``)."""
        path = Path(path)
        if path.suffix.lower() != ".csv":
            raise InputError(f"results are saved as CSV (pyarrow is not installed); use a .csv name, not {path.name}")
        path.parent.mkdir(parents=True, exist_ok=True)
        self.df.to_csv(path, index=False)
        self.outputs.to_csv(_outputs_path(path), index=False)
        meta = {"format": FORMAT, "format_version": FORMAT_VERSION, **self.meta}
        _sidecar(path).write_text(json.dumps(meta, indent=2, sort_keys=True, default=str) + "\n", encoding="utf-8")
        return path

    @classmethod
    def load(cls, path: str | Path) -> Results:
        """Read a file written by :meth:`save`; raises :class:`ResultsFormatError` for another version."""
        path = Path(path)
        if not path.exists():
            raise FileNotFoundError(f"no results file at {path}")
        side = _sidecar(path)
        if not side.exists():
            raise ResultsFormatError(f"{path} has no metadata file {side.name}; is it an aya_lab results file?")
        meta = json.loads(side.read_text(encoding="utf-8"))
        if meta.get("format") != FORMAT or meta.get("format_version") != FORMAT_VERSION:
            raise ResultsFormatError(
                f"{path} was written by another version of aya_lab (results format "
                f"{meta.get('format')!r} v{meta.get('format_version')}, this version reads v{FORMAT_VERSION}); "
                "re-run the evaluation to compare it"
            )
        text_cols = [c for c in COLUMNS if c not in _NUMERIC and c not in _BOOLS]
        df = pd.read_csv(
            path, keep_default_na=False, na_values={c: [""] for c in _NUMERIC}, dtype={c: str for c in text_cols}
        )
        for col in _BOOLS:
            df[col] = df[col].astype(str).str.lower().eq("true")
        outputs_file = _outputs_path(path)
        text = {c: str for c in ("source", "reference", "hypothesis", "doc_id")}
        outputs = pd.read_csv(outputs_file, keep_default_na=False, dtype=text) if outputs_file.exists() else None
        meta = {k: v for k, v in meta.items() if k not in ("format", "format_version")}
        return cls(df, outputs, meta)


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


def compare(
    a: Results,
    b: Results,
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
    outputs carry document ids; :meth:`Results.deltas` resamples documents.
    """
    for res, label in ((a, "A"), (b, "B")):
        if res.outputs is None or res.outputs.empty:
            raise InputError(f"result {label} has no saved outputs (<stem>.outputs.csv); re-run the evaluation")
    sys_a = system_a or a.baseline or a.systems[0]
    if sys_a not in set(a.outputs["system"]):
        raise InputError(f"system {sys_a!r} is not in result A; it has: {', '.join(a.systems)}")
    systems_b = [system_b] if system_b else list(dict.fromkeys(b.outputs["system"]))
    for s in systems_b:
        if s not in set(b.outputs["system"]):
            raise InputError(f"system {s!r} is not in result B; it has: {', '.join(b.systems)}")
    out_a = a.outputs[a.outputs["system"] == sys_a]
    rows = []
    for (did, pair, hop), grp_a in out_a.groupby(["dataset_id", "pair", "hop"], sort=False):
        grp_a = grp_a.sort_values("idx")
        hyps_b = _matching_outputs(b, systems_b, sys_a, grp_a, did, pair, hop)
        if hyps_b:
            rows += _compare_rows(sys_a, grp_a, hyps_b, did, pair, hop, n_bootstrap, n_ar)
    if not rows:
        raise InputError("results A and B share no dataset/pair/hop to compare")
    return pd.DataFrame(rows)


def _matching_outputs(b: Results, systems_b, sys_a: str, grp_a: pd.DataFrame, did, pair, hop) -> dict[str, list[str]]:
    """Each B system's hypotheses on the segments of ``grp_a`` (same references required)."""
    hyps_b = {}
    for s in systems_b:
        grp_b = b.outputs[
            (b.outputs["system"] == s)
            & (b.outputs["dataset_id"] == did)
            & (b.outputs["pair"] == pair)
            & (b.outputs["hop"] == hop)
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
