"""The evaluation contract: every measurement is a :class:`Task` whose run returns one :class:`Report`.

A :class:`Report` is the one result type of every task (translation, summaries, routing, tool sequences,
retrieval, faithfulness, grounding, attacks). It holds

- ``df`` — the tidy score table, one row per system x unit x metric: ``system``, the task's unit
  columns (``meta["units"]``, e.g. ``pair`` and ``hop`` for translation, ``lang`` for routing),
  ``metric``, ``score``, ``ci_low``, ``ci_high``, ``n``, and the signatures the task records
  (``model_fingerprint``, ``prompt_hash``, ``dataset_id``, a sacrebleu signature);
- ``items`` — one row per system x item: the outputs and per-item scores ``df`` was made from;
- ``paired`` — each system against ``meta["baseline"]``, one row per system x unit x metric:
  ``baseline``, ``system``, the units, ``metric``, ``delta`` with ``ci_low``/``ci_high``, a p-value
  column per test, ``p_holm`` (:func:`~aya_lab.eval.resampling.holm_column`) and ``significant``;
- ``frames`` — named extra tables a task keeps (a confusion matrix, a floor);
- ``meta`` — the run's settings, versions and hashes; ``meta["task"]`` names the task.

``table()``, ``plot()`` and ``compare()`` are the task's own (its :class:`Task` hooks), found through
the task registry, so a loaded report renders as the run that made it did; a task without a hook gets
the generic view. ``save(path)`` writes ``path`` (``df`` as CSV), ``<stem>.items.csv``,
``<stem>.paired.csv``, ``<stem>.<frame>.csv`` and ``<stem>.json`` (meta, format version, column types), whole or
not at all (:func:`~aya_lab.whole_files.write_files`: an error while writing leaves the report that was there);
:meth:`Report.load` reads them back and refuses another format in one line.

**Cost tables** (:func:`cost_table`, one row per arm of a comparison): ``calls``, ``prompt tokens``,
``generated tokens``, ``model s`` (the generations' **recorded** latencies, summed: a run replayed from the
generation cache reports the time the model took when it was recorded), ``generated tokens/s`` (NaN where
nothing was generated) and ``device`` (what the caller says the model runs on). Results of a batch carry
their share of its time, so tokens per second are batched throughput. From a translation report
(:func:`translation_costs`, end-to-end per system), a ``routing`` report (:func:`routing_costs`, request
translations included) or raw generation records (:func:`generation_costs`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Generic, TypeVar

import numpy as np
import pandas as pd
from pydantic import BaseModel

from aya_lab.errors import AyaLabError, InputError
from aya_lab.models.result import GenerationRecord, usage
from aya_lab.refs import resolve_ref
from aya_lab.whole_files import write_files

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from pandas.io.formats.style import Styler

__all__ = [
    "FORMAT",
    "FORMAT_VERSION",
    "Report",
    "ReportFormatError",
    "Task",
    "register_task",
    "task",
    "COST_METRICS",
    "COST_COLUMNS",
    "cost_table",
    "translation_costs",
    "routing_costs",
    "generation_costs",
]

FORMAT = "aya_lab.eval.report"
FORMAT_VERSION = 1
_TABLES = ("items", "paired")
"""The tables every report has besides ``df``, saved as ``<stem>.<name>.csv``."""

BUILT_IN: dict[str, str] = {
    "translation": "aya_lab.eval.translation.evaluate:TRANSLATION_TASK",
    "summaries": "aya_lab.eval.summarization:SUMMARIES_TASK",
    "routing": "aya_lab.eval.routing:ROUTING_TASK",
    "sequences": "aya_lab.eval.routing_sequences:SEQUENCES_TASK",
    "retrieval": "aya_lab.eval.retrieval:RETRIEVAL_TASK",
    "faithfulness": "aya_lab.eval.calibration:FAITHFULNESS_TASK",
    "grounding": "aya_lab.eval.grounding:GROUNDING_TASK",
    "attacks": "aya_lab.eval.attacks:ATTACKS_TASK",
    "answers": "aya_lab.eval.grounding:ANSWERS_TASK",
    "scope": "aya_lab.eval.scope_margins:SCOPE_TASK",
}
"""The built-in tasks, by name, as ``module:attr`` references (imported on first use)."""

C = TypeVar("C", bound=BaseModel)
"""A task's config type."""

_REGISTERED: dict[str, Task] = {}  # type: ignore[type-arg]  # tasks of every config type


class ReportFormatError(AyaLabError, ValueError):
    """A report file that is not one of ours, or was written by another format version."""


@dataclass(frozen=True)
class Task(Generic[C]):
    """One measurement: a typed config, a run that yields a :class:`Report`, and how to show one.

    ``config`` is a pydantic model (every field has a default or is required; its field descriptions are
    the CLI's help, so ``aya-lab eval run NAME`` needs no code of its own); ``run`` takes a validated
    config. ``table``, ``plot`` and ``compare`` take the report first; ``None`` uses the generic view.
    ``views`` is what ``aya-lab eval run NAME`` prints: titled tables (``None``: the table alone).
    """

    name: str
    summary: str
    config: type[C]
    run: Callable[[C], Report]
    table: Callable[..., pd.DataFrame | Styler] | None = None
    plot: Callable[..., Axes] | None = None
    compare: Callable[..., pd.DataFrame] | None = None
    views: Callable[[Report], list[tuple[str, pd.DataFrame]]] | None = None


def register_task(spec: Task[C]) -> Task[C]:
    """Register ``spec`` under its name (a project task or a plugin's); returns it, so it can decorate."""
    _REGISTERED[spec.name] = spec
    return spec


def task(name: str) -> Task:  # type: ignore[type-arg]  # whichever config the task has
    """The task registered as ``name``; a one-line error lists the tasks there are."""
    if name not in _REGISTERED and name in BUILT_IN:
        register_task(resolve_ref(BUILT_IN[name]))
    if name not in _REGISTERED:
        known = ", ".join(sorted({*BUILT_IN, *_REGISTERED}))
        raise InputError(f"unknown evaluation task {name!r}; the tasks are: {known}")
    return _REGISTERED[name]


@dataclass
class Report:
    """A task's scores, items, paired tests and metadata (see the module docstring)."""

    task: str
    df: pd.DataFrame
    items: pd.DataFrame = field(default_factory=pd.DataFrame)
    paired: pd.DataFrame = field(default_factory=pd.DataFrame)
    meta: dict[str, object] = field(default_factory=dict)
    frames: dict[str, pd.DataFrame] = field(default_factory=dict)

    def __post_init__(self) -> None:
        missing = [c for c in ("system", "metric", "score") if c not in self.df.columns]
        if missing:
            raise InputError(f"a {self.task} report's score table lacks the columns {missing}")
        self.meta = {**self.meta, "task": self.task}

    def __repr__(self) -> str:
        return (
            f"Report({self.task}: {len(self.df)} scores; systems: {', '.join(self.systems)}; {len(self.items)} items)"
        )

    @property
    def systems(self) -> list[str]:
        """The systems, in the order they were run."""
        return [str(s) for s in dict.fromkeys(self.df["system"])]

    @property
    def baseline(self) -> str | None:
        """The system the others are tested against."""
        value = self.meta.get("baseline")
        return None if value is None else str(value)

    @property
    def units(self) -> list[str]:
        """The unit columns of ``df`` (what a score is per, besides system and metric)."""
        return [str(u) for u in self.meta.get("units", [])]  # type: ignore[attr-defined]

    def score(self, metric: str, system: str | None = None, **units: str) -> float:
        """One score: ``metric`` of ``system`` (the baseline by default) where the unit columns equal
        ``units``; a one-line error when that selects no row or several."""
        rows = self.select(metric=metric, system=system or self.baseline or self.systems[0], **units)
        if len(rows) != 1:
            raise InputError(f"{len(rows)} {self.task} scores match {metric} {system} {units}; name the units")
        return float(rows["score"].iloc[0])

    def select(self, **where: object) -> pd.DataFrame:
        """The rows of ``df`` whose columns equal ``where`` (a list value: any of it)."""
        keep = pd.Series(True, index=self.df.index)
        for column, value in where.items():
            values = value if isinstance(value, list | tuple | set) else [value]
            keep &= self.df[column].isin(values)
        return self.df[keep]

    def grid(self, metric: str, **where: object) -> pd.DataFrame:
        """A system x unit grid of ``metric``'s scores (the first unit of ``meta["units"]`` as columns, in
        run order), over the rows whose other columns equal ``where`` (e.g. ``hop="e2e"``)."""
        rows = self.select(metric=metric, **where)
        unit = self.units[0] if self.units else "metric"
        grid = rows.pivot_table(index="system", columns=unit, values="score", sort=False)
        columns = [u for u in dict.fromkeys(rows[unit]) if u in grid.columns]
        return grid.reindex(index=[s for s in self.systems if s in grid.index], columns=columns)

    def table(self, *args: object, **kwargs: object) -> pd.DataFrame | Styler:
        """The task's table (see its :class:`Task`), else systems x (unit, metric) ``score [low, high]``."""
        hook = task(self.task).table if self.task in {*BUILT_IN, *_REGISTERED} else None
        return hook(self, *args, **kwargs) if hook else generic_table(self)

    def plot(self, *args: object, **kwargs: object) -> Axes:
        """The task's plot, else one bar per system and unit with its CI for ``metric``."""
        hook = task(self.task).plot if self.task in {*BUILT_IN, *_REGISTERED} else None
        return hook(self, *args, **kwargs) if hook else generic_plot(self, *args, **kwargs)  # type: ignore[arg-type]

    def views(self) -> list[tuple[str, pd.DataFrame]]:
        """What ``aya-lab eval run`` prints: the task's titled tables (its :class:`Task` ``views``), else
        the table alone, titled with its caption (the legend of its marks) when it is styled."""
        hook = task(self.task).views if self.task in {*BUILT_IN, *_REGISTERED} else None
        if hook is not None:
            return hook(self)
        table = self.table()
        if isinstance(table, pd.DataFrame):
            return [("", table)]
        return [(str(getattr(table, "caption", None) or ""), table.data)]  # a styled table's legend is its title

    def compare(self, other: Report, **kwargs: object) -> pd.DataFrame:
        """Paired tests of ``other``'s systems against this report's, by the task's own rule."""
        if other.task != self.task:
            raise InputError(f"a {self.task} report compares with another {self.task} report, not {other.task}")
        hook = task(self.task).compare
        if hook is None:
            raise InputError(f"the {self.task} task has no comparison of saved reports")
        return hook(self, other, **kwargs)

    def save(self, path: str | Path) -> Path:
        """Write the report's files (see the module docstring); returns ``path``."""
        path = Path(path)
        if path.suffix.lower() != ".csv":
            raise InputError(f"a report is saved as CSV files; use a .csv name, not {path.name}")
        tables = {"df": self.df, "items": self.items, "paired": self.paired, **self.frames}
        side = {"format": FORMAT, "format_version": FORMAT_VERSION, "task": self.task, "frames": list(self.frames)}
        side["dtypes"] = {name: {str(c): str(t) for c, t in frame.dtypes.items()} for name, frame in tables.items()}
        side["meta"] = self.meta
        text = json.dumps(side, indent=2, default=str) + "\n"
        writers: dict[Path, Callable[[Path], object]] = {
            path if name == "df" else _beside(path, name): partial(frame.to_csv, index=False)
            for name, frame in tables.items()
        }
        writers[path.with_suffix(".json")] = lambda tmp: tmp.write_text(text, encoding="utf-8")
        write_files(writers)  # every file whole, or the report that was there before
        return path

    @classmethod
    def load(cls, path: str | Path) -> Report:
        """Read a report :meth:`save` wrote; :class:`ReportFormatError` for anything else."""
        path = Path(path)
        if not path.is_file():
            raise InputError(f"no report file at {path}; give the .csv a report was saved as")
        side = path.with_suffix(".json")
        try:
            head = json.loads(side.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            raise ReportFormatError(f"{path} has no readable {side.name}; is it a saved aya_lab report?") from None
        if not isinstance(head, dict) or (head.get("format"), head.get("format_version")) != (FORMAT, FORMAT_VERSION):
            raise ReportFormatError(
                f"{path} is not an aya_lab report of format v{FORMAT_VERSION} ({side.name} says "
                f"{head.get('format') if isinstance(head, dict) else head!r}); re-run the evaluation to save it again"
            )
        dtypes = head.get("dtypes", {})
        frames = {n: _read(_beside(path, n), dtypes.get(n, {})) for n in (*_TABLES, *head.get("frames", []))}
        df = _read(path, dtypes.get("df", {}))
        extra = {n: frames[n] for n in head.get("frames", [])}
        return cls(head["task"], df, frames["items"], frames["paired"], head.get("meta", {}), extra)


def _beside(path: Path, name: str) -> Path:
    return path.with_name(f"{path.stem}.{name}.csv")


def _read(path: Path, dtypes: Mapping[str, str]) -> pd.DataFrame:
    """A saved table with its column types restored (text stays text, ``""`` in a number column is NaN)."""
    if not path.exists() or path.stat().st_size <= 1:
        return pd.DataFrame({c: pd.Series(dtype=t if t != "bool" else object) for c, t in dtypes.items()})
    numeric = [c for c, t in dtypes.items() if t.startswith(("float", "int"))]
    text = {c: str for c, t in dtypes.items() if t in ("object", "str", "string")}
    frame = pd.read_csv(path, keep_default_na=False, na_values={c: [""] for c in numeric}, dtype=text)  # type: ignore[arg-type]
    for column, kind in dtypes.items():
        if column in frame and kind == "bool":
            frame[column] = frame[column].astype(str).str.lower().eq("true")
    return frame


def _cell(score: float, low: float, high: float) -> str:
    if np.isnan(score):
        return "n/a"
    return f"{score:.3g}" if np.isnan(low) else f"{score:.3g} [{low:.3g}, {high:.3g}]"


def generic_table(report: Report) -> pd.DataFrame:
    """Systems as rows, (units..., metric) as columns, cells ``score [low, high]``."""
    df = report.df
    low = df["ci_low"] if "ci_low" in df else pd.Series(np.nan, index=df.index)
    high = df["ci_high"] if "ci_high" in df else pd.Series(np.nan, index=df.index)
    cells = [_cell(*map(float, v)) for v in zip(df["score"], low, high, strict=True)]
    view = df.assign(cell=cells)
    table = view.pivot_table(
        index="system", columns=[*report.units, "metric"], values="cell", aggfunc="first", sort=False
    )
    return table.reindex(index=[s for s in report.systems if s in table.index])


def generic_plot(report: Report, metric: str | None = None, *, ax: Axes | None = None) -> Axes:
    """Bars of ``metric`` (the first one by default) per system and first unit, with CI error bars."""
    import matplotlib.pyplot as plt

    metric = metric or str(report.df["metric"].iloc[0])
    rows = report.select(metric=metric)
    unit = report.units[0] if report.units else None
    groups = list(dict.fromkeys(rows[unit])) if unit else [metric]
    if ax is None:
        _, ax = plt.subplots(figsize=(max(5.0, 1.2 * len(groups) * max(1, len(report.systems)) ** 0.5), 3.5))
    step = 0.8 / max(1, len(report.systems))
    for i, system in enumerate(report.systems):
        mine = rows[rows["system"] == system]
        mine = mine.set_index(unit).reindex(groups) if unit else mine
        scores = mine["score"].to_numpy(dtype=float)
        err = [np.nan_to_num(scores - mine.get("ci_low", scores)), np.nan_to_num(mine.get("ci_high", scores) - scores)]
        x = np.arange(len(groups)) + (i - (len(report.systems) - 1) / 2) * step
        ax.bar(x, scores, step, label=system, yerr=np.clip(np.vstack(err), 0, None), capsize=2)
    ax.set_xticks(np.arange(len(groups)), groups)
    ax.set_ylabel(metric)
    ax.set_title(f"{metric} ({report.task})")
    ax.legend(fontsize="small")
    return ax


COST_METRICS = {
    "llm_calls": "calls",
    "prompt_tokens": "prompt tokens",
    "completion_tokens": "generated tokens",
    "latency_s": "model s",
}
"""Tidy-result metric name -> cost-table column."""
COST_COLUMNS = [*COST_METRICS.values(), "generated tokens/s", "device"]
_USAGE_COLUMNS = {"calls" if k == "llm_calls" else k: column for k, column in COST_METRICS.items()}
""":func:`~aya_lab.models.result.usage` key -> cost-table column (``usage`` says ``calls`` for ``llm_calls``)."""


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
