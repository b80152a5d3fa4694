"""Calibrating and measuring the faithfulness gate on the labelled set of ``data/faithfulness``.

:func:`evaluate_faithfulness` scores every pair of the set (:mod:`aya_lab.agents.faithfulness`), picks
each language's threshold on the **calibration** split (:func:`calibrate`: the
:data:`~aya_lab.agents.faithfulness.WITHHELD_QUANTILE` quantile of the scores of honest translations to
or from the language, for languages with at least :data:`MIN_HONEST` of them), and reports on the other
split (:func:`gate_report`) the precision and recall of the "unfaithful" class — an output withheld — and the
share of honest translations withheld, overall, per kind and per language, each with a percentile
bootstrap 95% CI. The resampled units are source sentences (every pair made from one sentence goes in
or out together: they share words, names and length). Per kind, only the rate that kind has is shown:
recall for an unfaithful kind, the withheld share for honest translations.

The result is a ``faithfulness`` :class:`~aya_lab.eval.report.Report`: ``df`` holds those rates (units
``group`` and ``value``: ``all``/``all``, ``kind``/KIND, ``language``/LANG; ``n`` the group's pairs, with
``n_unfaithful`` and ``n_faithful`` beside it), ``items`` every pair of the set, both splits, with its
score, its threshold and whether the gate withholds it, and ``meta`` the picked ``thresholds``, the
reported ``split``, the set's ``data`` path and the external sets ``skipped`` (what
:mod:`aya_lab.eval.calibration` records). :func:`faithfulness_table` (the task's table) is the
wide table :func:`gate_report` gives. The ``faithfulness`` task (``run("faithfulness")``, ``aya-lab eval run
faithfulness``, which can also write the calibration files) is :mod:`aya_lab.eval.calibration`'s.

**The set** (``data/faithfulness/pairs.jsonl``): labelled (source, output) pairs. Each JSONL line is a :class:`FaithRecord`: ``id``, ``split`` (``calibration`` or ``holdout``), ``kind``
(:data:`PAIR_KINDS`), ``label`` (``faithful`` or ``unfaithful``; fixed by the kind), the languages ``src`` and
``tgt``, and the two texts. A text is either inline, or a **reference** into an external test set's
dev/train split (``{"ref": "mafand/dev/swh-eng", "line": 12}``: line 12 of
``load_parallel("mafand", "swh", "eng", split="dev").sources``), resolved from ``AYA_LAB_DATA_DIR`` when
the set is loaded, so external data is never copied into the repository. An output may carry a
``transform`` (:data:`TRANSFORMS`: ``first_half`` keeps its first half of words, ``wrong_fact`` changes
its first number or weekday), applied after it is resolved. How the set was built: ``data/faithfulness/
README.md`` and ``benchmarks/build_faithfulness_set.py``.

:func:`load_faithfulness_set` validates every line (one-line :class:`~aya_lab.datasets.project.CorpusError`
naming ``file:line``, the field and the fix) and resolves the references; rows whose external set is
missing are skipped and counted (``FaithSet.skipped``) unless ``require_external=True``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import numpy as np
import pandas as pd
from pydantic import BaseModel, ConfigDict, ValidationError, field_validator, model_validator

from aya_lab.agents.faithfulness import (
    WITHHELD_QUANTILE,
    RealOutputFloor,
    faithfulness_scores,
    threshold_for,
)
from aya_lab.datasets.parallel import load_parallel
from aya_lab.datasets.project import CorpusError, describe_validation_error, read_data_text
from aya_lab.datasets.sources import DatasetError, DatasetNotFoundError
from aya_lab.errors import InputError
from aya_lab.eval.report import Report
from aya_lab.eval.resampling import cluster_bootstrap_counts, cluster_labels, percentile_ci, share_ci
from aya_lab.languages import normalize_language
from aya_lab.models.cache import GenerationCache
from aya_lab.paths import project_root
from aya_lab.rag.sentence_encoder import ENCODER_NAME

__all__ = [
    "MIN_HONEST",
    "calibrate",
    "evaluate_faithfulness",
    "faithfulness_table",
    "picked_thresholds",
    "gate_report",
    "scored_pairs",
    "PAIR_KINDS",
    "TRANSFORMS",
    "FaithPair",
    "FaithRecord",
    "FaithSet",
    "default_set_path",
    "first_half",
    "load_faithfulness_set",
    "wrong_fact",
]

MIN_HONEST = 10
"""A language gets its own threshold only with at least this many honest calibration pairs."""
_COLUMNS = ["group", "value", "n_unfaithful", "n_faithful", "precision", "precision_low", "precision_high"]
_COLUMNS += ["recall", "recall_low", "recall_high", "withheld", "withheld_low", "withheld_high"]
_RATES = ("precision", "recall", "withheld")
_PAIR_FIELDS = ("id", "split", "kind", "label", "src", "tgt", "source", "output", "origin")


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
    tp, fp, fn, tn = per_unit.T
    shares = ((tp, tp + fp), (tp, tp + fn), (fp, fp + tn))  # events and totals per unit
    for k, name in enumerate(("precision", "recall", "withheld")):
        row[name] = float(point[k])
        low, high = percentile_ci(boots[k]) if boots is not None else (float("nan"), float("nan"))
        low, high = share_ci(low, high, *shares[k])  # rare in the units: the exact far bound
        row[f"{name}_low"], row[f"{name}_high"] = low, high
    return row


def gate_report(
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


def _masked(group: str, value: str, metric: str) -> bool:
    """The rates :func:`gate_report` leaves out: precision per kind, recall of honest translations."""
    return group == "kind" and (metric == "precision" or (value == "faithful" and metric == "recall"))


def _scores(table: pd.DataFrame, system: str) -> pd.DataFrame:
    """:func:`gate_report`'s wide ``table`` as the report's tidy ``df`` (the rates it leaves out dropped)."""
    rows = []
    for r in table.to_dict("records"):
        for metric in _RATES:
            if not _masked(r["group"], r["value"], metric):
                rows.append({"system": system, "group": r["group"], "value": r["value"], "metric": metric,
                             "score": r[metric], "ci_low": r[f"{metric}_low"], "ci_high": r[f"{metric}_high"],
                             "n": r["n_unfaithful"] + r["n_faithful"], "n_unfaithful": r["n_unfaithful"],
                             "n_faithful": r["n_faithful"]})  # fmt: skip
    return pd.DataFrame(rows, columns=["system", "group", "value", "metric", "score", "ci_low", "ci_high", "n",
                                       "n_unfaithful", "n_faithful"])  # fmt: skip


def faithfulness_table(result: Report, system: str | None = None) -> pd.DataFrame:
    """The wide table of :func:`gate_report` (one row per group, each rate with its CI) from ``result``'s
    ``df``, for ``system`` (default: the first)."""
    df = result.df[result.df["system"] == (system or result.systems[0])]
    rows = []
    for (group, value), part in df.groupby(["group", "value"], sort=False):
        by = part.set_index("metric")
        row: dict[str, object] = {"group": group, "value": value}
        row |= {"n_unfaithful": int(part["n_unfaithful"].iloc[0]), "n_faithful": int(part["n_faithful"].iloc[0])}
        for metric in _RATES:
            found = metric in by.index
            for suffix, column in (("", "score"), ("_low", "ci_low"), ("_high", "ci_high")):
                row[metric + suffix] = float(by.at[metric, column]) if found else np.nan
        rows.append(row)
    return pd.DataFrame(rows, columns=_COLUMNS)


def scored_pairs(result: Report) -> tuple[list[FaithPair], np.ndarray]:
    """Every pair of a faithfulness report's set (both splits, in file order) and its score."""
    items = result.items
    pairs = [FaithPair(*(str(row[f]) for f in _PAIR_FIELDS)) for row in items.to_dict("records")]
    return pairs, items["score"].to_numpy(dtype=float)


def picked_thresholds(result: Report) -> dict[str, float]:
    """The per-language thresholds a faithfulness report was measured with (picked on its calibration split)."""
    picked = result.meta.get("thresholds")
    return {str(k): float(v) for k, v in picked.items()} if isinstance(picked, Mapping) else {}


def _items(pairs: Sequence[FaithPair], scores: np.ndarray, limits: np.ndarray, system: str) -> pd.DataFrame:
    rows = [{"system": system, **{f: getattr(p, f) for f in _PAIR_FIELDS}} for p in pairs]
    items = pd.DataFrame(rows, columns=["system", *_PAIR_FIELDS])
    return items.assign(score=np.asarray(scores, dtype=float), threshold=limits, withheld=np.asarray(scores) < limits)


def _floor_meta(floor: RealOutputFloor | None) -> dict[str, object] | None:
    if floor is None:
        return None
    return {"model": floor.model, "value": floor.value, "languages": sorted(floor.languages),
            "unsupported": sorted(floor.unsupported)}  # fmt: skip


def evaluate_faithfulness(
    path: str | Path | None = None,
    split: str = "holdout",
    *,
    n_bootstrap: int = 1000,
    seed: int = 0,
    thresholds: dict[str, float] | None = None,
    floor: RealOutputFloor | None = None,
    scores_cache: GenerationCache | None = None,
) -> Report:
    """Score the set at ``path`` (through ``scores_cache``, default the generation cache:
    :func:`~aya_lab.agents.faithfulness.faithfulness_scores`), calibrate on its calibration split (unless
    ``thresholds`` are given) and report on ``split`` (``holdout``, or ``calibration`` to see the fit itself)
    with ``floor`` applied; a ``faithfulness`` report (see the module docstring) whose system is ``gate``
    (``gate+floor:MODEL``)."""
    data = load_faithfulness_set(path)
    if not data.pairs:
        raise InputError(
            f"{data.path}: no pairs to score (external sets missing: {data.skipped}); set AYA_LAB_DATA_DIR"
        )
    scores = faithfulness_scores([p.source for p in data.pairs], [p.output for p in data.pairs], scores_cache)
    cal = [i for i, p in enumerate(data.pairs) if p.split == "calibration"]
    picked = thresholds or calibrate([data.pairs[i] for i in cal], scores[cal])
    chosen = [i for i, p in enumerate(data.pairs) if p.split == split]
    if not chosen:
        raise InputError(f'{data.path}: no pairs in the {split} split; label some pairs "split": "{split}"')
    table = gate_report(
        [data.pairs[i] for i in chosen], scores[chosen], picked, n_bootstrap=n_bootstrap, seed=seed, floor=floor
    )
    system = "gate" if floor is None else f"gate+floor:{floor.model}"
    limits = np.array([threshold_for(p.src, p.tgt, picked, floor) for p in data.pairs], dtype=float)
    meta: dict[str, object] = {"units": ["group", "value"], "split": split, "data": str(data.path),
                               "skipped": dict(data.skipped), "thresholds": dict(sorted(picked.items())),
                               "floor": _floor_meta(floor), "encoder": ENCODER_NAME, "n_bootstrap": n_bootstrap,
                               "seed": seed}  # fmt: skip
    return Report("faithfulness", _scores(table, system), _items(data.pairs, scores, limits, system), meta=meta)


Kind = Literal["faithful", "unrelated", "example_echo", "example_paraphrase", "partial", "wrong_fact", "model_output"]
PAIR_KINDS: tuple[str, ...] = Kind.__args__  # type: ignore[attr-defined]
"""The kinds of pair: honest translations, and outputs that translate nothing (``unrelated``: another
sentence's translation; ``example_echo``: a few-shot pool sentence; ``example_paraphrase``: a paraphrase
of one; ``partial``: the first half of the translation; ``wrong_fact``: the translation with a number or
weekday changed) — and ``model_output``, a real model's output labelled by reading it."""
TRANSFORMS: tuple[str, ...] = ("first_half", "wrong_fact")

_WEEKDAYS = {
    "eng": ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday"),
    "deu": ("Montag", "Dienstag", "Mittwoch", "Donnerstag", "Freitag"),
    "fra": ("lundi", "mardi", "mercredi", "jeudi", "vendredi"),
    "swh": ("Jumatatu", "Jumanne", "Jumatano", "Alhamisi", "Ijumaa"),
}
_NUMBER = re.compile(r"\d+")


def first_half(text: str) -> str:
    """The first half of ``text``'s words (rounded down, at least one): a translation cut short."""
    words = text.split()
    return " ".join(words[: max(1, len(words) // 2)])


def wrong_fact(text: str, lang: str) -> str | None:
    """``text`` with its first number changed (``n`` -> ``n + 2``) or, failing that, its first weekday
    (in ``lang``: eng, deu, fra, swh) moved three days on; ``None`` when it has neither."""
    found = _NUMBER.search(text)
    if found:
        return text[: found.start()] + str(int(found.group()) + 2) + text[found.end() :]
    days = _WEEKDAYS.get(normalize_language(lang), ())
    for k, day in enumerate(days):
        hit = re.search(rf"\b{re.escape(day)}\b", text)
        if hit:
            return text[: hit.start()] + days[(k + 3) % len(days)] + text[hit.end() :]
    return None


class _Ref(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    ref: str  # "SET/SPLIT/SRC-TGT": the text is that split's source side, line ``line`` (0-based)
    line: int
    transform: Literal["first_half", "wrong_fact"] | None = None

    @model_validator(mode="after")
    def _parse(self) -> _Ref:
        parts = self.ref.split("/")
        if len(parts) != 3 or parts[2].count("-") != 1 or parts[1] == "test":
            raise ValueError(
                f"ref {self.ref!r} is not SET/SPLIT/SRC-TGT with a dev or train split, e.g. mafand/dev/swh-eng"
            )
        if self.line < 0:
            raise ValueError(f"line {self.line} is negative; lines count from 0")
        return self


class FaithRecord(BaseModel):
    """One line of the set, as stored (texts inline or by reference)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    id: str
    split: Literal["calibration", "holdout"]
    kind: Kind
    label: Literal["faithful", "unfaithful"]
    src: str
    tgt: str
    source: str | _Ref
    output: str | _Ref
    origin: str = ""

    @field_validator("source", "output", mode="before")
    @classmethod
    def _text_or_ref(cls, value: object) -> object:
        if isinstance(value, dict):  # a reference: its own errors, not the union's "should be a string"
            try:
                return _Ref.model_validate(value)
            except ValidationError as exc:
                raise ValueError(describe_validation_error(exc)) from None
        return value

    @model_validator(mode="after")
    def _consistent(self) -> FaithRecord:
        if self.kind != "model_output" and (self.kind == "faithful") != (self.label == "faithful"):
            raise ValueError(
                f"label {self.label!r} contradicts kind {self.kind!r}; only kind faithful is labelled faithful"
            )
        for text in (self.source, self.output):
            if isinstance(text, str) and not text.strip():
                raise ValueError("a text is empty; give the sentence, or a ref to one")
        normalize_language(self.src), normalize_language(self.tgt)
        return self


@dataclass(frozen=True)
class FaithPair:
    """A resolved pair: both texts as strings, ready to score."""

    id: str
    split: str
    kind: str
    label: str
    src: str
    tgt: str
    source: str
    output: str
    origin: str = ""  # the sentence the pair was made from ("messages:3"): pairs of one sentence go together

    @property
    def unfaithful(self) -> bool:
        return self.label == "unfaithful"


@dataclass
class FaithSet:
    """The resolved pairs, with the external sets that were missing (``skipped``: set name -> rows)."""

    pairs: list[FaithPair]
    path: Path
    skipped: dict[str, int] = field(default_factory=dict)


def default_set_path() -> Path:
    """``data/faithfulness/pairs.jsonl`` in the checkout."""
    return project_root() / "data" / "faithfulness" / "pairs.jsonl"


def _read_records(path: Path) -> list[tuple[int, FaithRecord]]:
    records: list[tuple[int, FaithRecord]] = []
    seen: dict[str, int] = {}
    for lineno, line in enumerate(read_data_text(path).splitlines(), 1):
        where = f"{path}:{lineno}"
        if not line.strip():
            raise CorpusError(f"{where}: <line>: empty line; remove it (one JSON record per line)")
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            raise CorpusError(
                f"{where}: <json>: {exc.msg} (column {exc.colno}); write one JSON object per line"
            ) from None
        if not isinstance(data, dict):
            raise CorpusError(
                f"{where}: <record>: expected a JSON object with id, split, kind, label, src, tgt, source, output"
            )
        try:
            record = FaithRecord.model_validate(data)
        except ValidationError as exc:
            raise CorpusError(f"{where}: {describe_validation_error(exc)}") from None
        if record.id in seen:
            raise CorpusError(
                f"{where}: id: {record.id!r} already used on line {seen[record.id]}; give each pair its own id"
            )
        seen[record.id] = lineno
        records.append((lineno, record))
    return records


def _resolver(path: Path):
    sets: dict[str, list[str] | None] = {}

    def resolve(text: str | _Ref, lang: str, lineno: int) -> str | None:
        if isinstance(text, str):
            return text
        name, split, pair = text.ref.split("/")
        if text.ref not in sets:
            a, b = pair.split("-")
            try:
                sets[text.ref] = load_parallel(name, a, b, split=split).sources
            except DatasetNotFoundError:
                sets[text.ref] = None  # the external set is not here: skipped and counted
            except DatasetError as exc:
                raise CorpusError(f"{path}:{lineno}: ref: {exc}") from None
        lines = sets[text.ref]
        if lines is None:
            return None
        if text.line >= len(lines):
            raise CorpusError(f"{path}:{lineno}: ref: {text.ref} has {len(lines)} lines, not line {text.line}")
        out = lines[text.line]
        if text.transform == "first_half":
            return first_half(out)
        if text.transform == "wrong_fact":
            return wrong_fact(out, lang) or out
        return out

    return resolve


def load_faithfulness_set(
    path: str | Path | None = None, split: str | None = None, *, require_external: bool = False
) -> FaithSet:
    """The pairs of ``path`` (default :func:`default_set_path`), of one ``split`` or all (``None``),
    with references resolved; a missing external set skips its rows (or raises, ``require_external``)."""
    if split not in (None, "calibration", "holdout"):
        raise CorpusError(f"split {split!r} is not calibration or holdout; pass one of them, or none for both")
    file = Path(path) if path is not None else default_set_path()
    resolve = _resolver(file)
    pairs: list[FaithPair] = []
    skipped: dict[str, int] = {}
    for lineno, rec in _read_records(file):
        if split is not None and rec.split != split:
            continue
        source, output = resolve(rec.source, rec.src, lineno), resolve(rec.output, rec.tgt, lineno)
        if source is None or output is None:
            name = next(t.ref.split("/")[0] for t in (rec.source, rec.output) if isinstance(t, _Ref))
            if require_external:
                raise CorpusError(
                    f"{file}:{lineno}: ref: the {name} set is missing; set AYA_LAB_DATA_DIR to its folder"
                )
            skipped[name] = skipped.get(name, 0) + 1
            continue
        src, tgt = normalize_language(rec.src), normalize_language(rec.tgt)
        pairs.append(FaithPair(rec.id, rec.split, rec.kind, rec.label, src, tgt, source, output, rec.origin or rec.id))
    return FaithSet(pairs, file, skipped)
