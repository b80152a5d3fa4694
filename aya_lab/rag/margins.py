"""The quoting scope rule's section margins, measured: ``data/calibration/scope-margins.json``.

A question is in scope for a quote when its best handbook section stands out from the median section by a
margin (:meth:`~aya_lab.rag.sections.SectionIndex.in_scope`). Two margins are measured, never typed into code:

* ``min_margin``, for a question searched as written: the **strictest** margin on :data:`GRID` that keeps at
  least :data:`KEEP_IN_SCOPE` of the in-scope questions of :data:`WRITTEN_SETS` in scope (strictest, because
  out-of-scope questions are refused more the stricter it is; the share kept is the policy).
* ``glossed_margin``, for a question searched together with the English terms the glossary gives it
  (:mod:`aya_lab.rag.glossary`): the **lowest** margin on :data:`GRID` at which the out-of-scope questions of
  :data:`GLOSSED_SETS` are refused at least as often as when every one is searched as written at
  ``min_margin`` (a question the glossary names no term of keeps the written search and ``min_margin``).

:class:`ScopeMargins` is the record: the command that wrote it, the date, the encoder, every file it read with
its sha256, every question's measured margins, and both margins; it is refused on load unless both margins
are what the rule gives on its own questions (:func:`derive_margins`), so a hand-edited margin is an error.
``aya-lab eval run scope --write-calibration data/calibration`` measures and writes it
(:mod:`aya_lab.eval.scope_margins`). :func:`scope_margins` reads it once per change of the file; a missing or bad
file is one :class:`MarginsError` line naming the file, the field and the fix.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from aya_lab.errors import AyaLabError
from aya_lab.json_record import read_record
from aya_lab.paths import calibration_dir

__all__ = [
    "GLOSSED_SETS",
    "GRID",
    "KEEP_IN_SCOPE",
    "MARGINS_COMMAND",
    "MARGINS_FILE",
    "WRITTEN_SETS",
    "MarginsError",
    "QuestionMargin",
    "ScopeMargins",
    "derive_margins",
    "kept_in_scope",
    "margins_path",
    "refused_out_of_scope",
    "scope_margins",
]

MARGINS_FILE = "scope-margins.json"
MARGINS_COMMAND = "aya-lab eval run scope --write-calibration data/calibration"
"""The command that measures and writes :data:`MARGINS_FILE` (the fix a bad file's error names)."""
KEEP_IN_SCOPE = 0.9
"""The share of in-scope development questions the written margin keeps in scope (a policy, not a measurement)."""
GRID = tuple(round(0.03 + i / 1000, 3) for i in range(71))
"""The candidate margins, 0.030 to 0.100 in steps of 0.001."""
WRITTEN_SETS = ("questions.jsonl", "questions_dev.jsonl")
"""The development questions (``data/rag``) the written margin is chosen on: 58 in English, 20 in four languages."""
GLOSSED_SETS = ("questions_dev.jsonl", "questions_unseen.jsonl", "questions_unseen2.jsonl", "questions_unseen3.jsonl")
"""The development questions the glossed margin is chosen on: the sets scored before the glossary existed."""


class MarginsError(AyaLabError, ValueError):
    """A scope-margins record that is missing, unreadable or malformed (one line: the file, the field, the fix)."""


class QuestionMargin(BaseModel):
    """One development question's measured margins: as written, and with its glossary terms (``None``: the
    glossary gave it none, or it is English, so it is only ever searched as written)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    set: str = Field(min_length=1)
    id: str = Field(min_length=1)
    lang: str = Field(min_length=3, max_length=3)
    in_scope: bool
    margin: float
    glossed: float | None = None


class ScopeMargins(BaseModel):
    """The record (see the module docstring); ``data`` maps each file read to its sha256."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    version: Literal[1]
    kind: Literal["scope-margins"]
    command: str = Field(min_length=1)
    date: dt.date
    encoder: str = Field(min_length=1)
    data: dict[str, str] = Field(min_length=1)
    keep_in_scope: float = Field(gt=0, le=1)
    grid: list[float] = Field(min_length=1)
    questions: list[QuestionMargin] = Field(min_length=1)
    min_margin: float
    glossed_margin: float

    @model_validator(mode="after")
    def _margins_follow_the_rule(self) -> ScopeMargins:
        derived = derive_margins(self.questions, self.keep_in_scope, self.grid)
        if (self.min_margin, self.glossed_margin) != derived:
            raise ValueError(f"min_margin, glossed_margin: {self.min_margin}, {self.glossed_margin} are not the "
                             f"rule's {derived[0]}, {derived[1]} on the record's own questions")  # fmt: skip
        return self


def kept_in_scope(questions: Sequence[QuestionMargin], at: float) -> tuple[int, int]:
    """``(kept, of)``: the in-scope questions of :data:`WRITTEN_SETS` whose written margin is at least ``at``."""
    inside = [q.margin for q in questions if q.set in WRITTEN_SETS and q.in_scope]
    return sum(m >= at for m in inside), len(inside)


def refused_out_of_scope(
    questions: Sequence[QuestionMargin], at: float, glossed_at: float | None = None
) -> tuple[int, int]:
    """``(refused, of)``: the out-of-scope questions of :data:`GLOSSED_SETS` refused when searched as written at
    ``at``; with ``glossed_at``, those the glossary gives terms are searched with them at ``glossed_at``."""
    outside = [q for q in questions if q.set in GLOSSED_SETS and not q.in_scope]
    refused = sum(q.glossed < glossed_at if glossed_at is not None and q.glossed is not None else q.margin < at
                  for q in outside)  # fmt: skip
    return refused, len(outside)


def derive_margins(questions: Sequence[QuestionMargin], keep: float, grid: Sequence[float]) -> tuple[float, float]:
    """``(min_margin, glossed_margin)`` by the module docstring's rule; the lowest candidate when none keeps
    ``keep`` in scope (so a bad set answers less, never more), the highest when no glossed margin matches."""
    candidates = sorted(grid)
    keeping = [t for t in candidates if (kept := kept_in_scope(questions, t))[1] and kept[0] >= keep * kept[1]]
    min_margin = keeping[-1] if keeping else candidates[0]
    target = refused_out_of_scope(questions, min_margin)[0]
    matching = [t for t in candidates if refused_out_of_scope(questions, min_margin, t)[0] >= target]
    return min_margin, (matching[0] if matching else candidates[-1])


def margins_path(directory: Path | None = None) -> Path:
    """:data:`MARGINS_FILE` in ``directory`` (default :func:`~aya_lab.paths.calibration_dir`)."""
    return (directory or calibration_dir()) / MARGINS_FILE


@lru_cache(maxsize=8)
def _read(path: Path, mtime_ns: int) -> ScopeMargins:
    """The validated record at ``path`` (``mtime_ns`` keys the cache: a rewritten file is read again)."""
    return read_record(path, ScopeMargins, MARGINS_COMMAND, MarginsError)


def scope_margins(directory: Path | None = None) -> ScopeMargins:
    """The scope-margins record of ``directory`` (default the project's), validated."""
    path = margins_path(directory)
    if not path.is_file():
        raise MarginsError(f"{path}: file not found; restore it from git or run `{MARGINS_COMMAND}`")
    return _read(path, path.stat().st_mtime_ns)
