"""The faithfulness calibration set (``data/faithfulness/pairs.jsonl``): labelled (source, output) pairs.

Each JSONL line is a :class:`FaithRecord`: ``id``, ``split`` (``calibration`` or ``holdout``), ``kind``
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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator, model_validator

from aya_lab.datasets.parallel import load_parallel
from aya_lab.datasets.project import CorpusError, describe_validation_error, read_data_text
from aya_lab.datasets.sources import DatasetError, DatasetNotFoundError
from aya_lab.languages import normalize_language
from aya_lab.paths import project_root

__all__ = [
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
