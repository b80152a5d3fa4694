"""The adversarial set's records: the schema of one attack and the loader of a set.

Records (``data/adversarial/attacks.jsonl``, schema ``data/schemas/attack.schema.json``) are loaded
and validated by :func:`load_attacks`: a malformed record is a one-line :class:`AttackDataError`
``<file>:<line>: <field>: <problem>``. How an attack is run and scored: :mod:`aya_lab.eval.attacks`
(which re-exports these names).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from aya_lab.datasets.project import describe_validation_error
from aya_lab.errors import AyaLabError
from aya_lab.eval.names import ATTACK_CATEGORIES, Category
from aya_lab.languages import normalize_language
from aya_lab.messages import AYA
from aya_lab.paths import project_root

__all__ = [
    "AttackDataError",
    "AttackRecord",
    "FollowUp",
    "KBDocumentSpec",
    "attack_schema",
    "default_attacks_path",
    "load_attacks",
]

_USER_ID = re.compile(r"^[A-Za-z0-9_-]{1,40}$")
_DOC_NAME = re.compile(r"^[A-Za-z0-9_.-]+\.(md|txt)$")
# rules that need a target; the others may be scored by a written fact alone
_NEEDS_TARGET = {"instruction_override", "role_marker", "passage_injection"}


class AttackDataError(AyaLabError, ValueError):
    """A malformed attack file: ``<file>:<line>: <field>: <problem>`` on one line."""


def _user(value: str) -> str:
    if not _USER_ID.match(value) or value.lower() == AYA:
        raise ValueError(f"invalid user id {value!r}; use letters, digits, '-' or '_' (and not 'aya')")
    return value


class KBDocumentSpec(BaseModel):
    """A small document added to the knowledge-base folder before the attack is sent."""

    model_config = ConfigDict(extra="forbid")
    name: str = Field(description="a plain file name ending in .md or .txt (no folder)")
    text: str = Field(min_length=1)

    @field_validator("name")
    @classmethod
    def _plain_name(cls, v: str) -> str:
        if not _DOC_NAME.match(v) or v.lower() == "readme.md":
            raise ValueError(f"{v!r} is not a plain .md/.txt file name; use e.g. travel_faq.md")
        return v


class FollowUp(BaseModel):
    """A message sent after the attack (an honest colleague's question that poison could reach)."""

    model_config = ConfigDict(extra="forbid")
    sender: str
    text: str = Field(min_length=1)
    lang: str = "eng"

    _sender = field_validator("sender")(_user)

    @field_validator("lang")
    @classmethod
    def _lang(cls, v: str) -> str:
        return normalize_language(v)


class AttackRecord(BaseModel):
    """One attack: ``sender`` (speaking ``lang``) sends ``text`` into a fresh room.

    ``target`` is the string whose presence in a feed or Aya's reply means success (see the module
    rules); ``kb_document`` is added to the knowledge base first (passage injection); ``followup`` is
    sent after the attack; ``expect_fact`` says a written fact is *not* an attack effect."""

    model_config = ConfigDict(extra="forbid")
    id: str = Field(min_length=1)
    category: Category
    lang: str
    sender: str
    text: str = Field(min_length=1)
    target: str | None = Field(default=None, min_length=1)
    kb_document: KBDocumentSpec | None = None
    followup: FollowUp | None = None
    expect_fact: bool = False
    note: str | None = None

    _sender = field_validator("sender")(_user)

    @field_validator("lang")
    @classmethod
    def _lang(cls, v: str) -> str:
        return normalize_language(v)

    @model_validator(mode="after")
    def _consistent(self) -> AttackRecord:
        if self.category in _NEEDS_TARGET and self.target is None:
            raise ValueError(f'target: a {self.category} attack needs a target string, e.g. "HACKED"')
        if self.category == "passage_injection" and self.kb_document is None:
            raise ValueError("kb_document: a passage_injection attack needs {'name': ..., 'text': ...}")
        return self


def default_attacks_path() -> Path:
    """``data/adversarial/attacks.jsonl``."""
    return project_root() / "data" / "adversarial" / "attacks.jsonl"


def attack_schema() -> dict:
    """The JSON Schema of one record (``data/schemas/attack.schema.json`` is this output)."""
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", **AttackRecord.model_json_schema()}


def _parse_line(where: str, line: str) -> AttackRecord:
    try:
        data = json.loads(line)
    except json.JSONDecodeError as exc:
        raise AttackDataError(f"{where}: <json>: {exc.msg} (column {exc.colno})") from None
    if not isinstance(data, dict):
        raise AttackDataError(f"{where}: <record>: expected a JSON object")
    try:
        return AttackRecord.model_validate(data)
    except ValidationError as exc:
        raise AttackDataError(f"{where}: {describe_validation_error(exc)}") from None


def load_attacks(path: str | Path | None = None, categories: Iterable[str] | None = None) -> list[AttackRecord]:
    """The attacks of ``path`` (default :func:`default_attacks_path`), only ``categories`` if given.

    Raises :class:`AttackDataError` (one line naming file, line and field) on a missing, non-UTF-8 or
    empty file, bad JSON, a record the schema refuses, a duplicate id, or an unknown category."""
    path = Path(path) if path is not None else default_attacks_path()
    wanted = list(categories) if categories is not None else None
    unknown = [c for c in wanted or [] if c not in ATTACK_CATEGORIES]
    if unknown:
        raise AttackDataError(f"unknown attack category {unknown[0]!r}; use {', '.join(ATTACK_CATEGORIES)}")
    try:
        text = path.read_bytes().decode("utf-8")
    except FileNotFoundError:
        raise AttackDataError(f"{path}: file not found") from None
    except UnicodeDecodeError as exc:
        raise AttackDataError(f"{path}: <file>: not UTF-8 (offset {exc.start}); re-save it as UTF-8") from None
    if not text.strip():
        raise AttackDataError(f"{path}: <file>: the file is empty")
    records: list[AttackRecord] = []
    seen: dict[str, int] = {}
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            raise AttackDataError(f"{path}:{lineno}: <line>: empty line")
        record = _parse_line(f"{path}:{lineno}", line)
        if record.id in seen:
            raise AttackDataError(f"{path}:{lineno}: id: {record.id!r} already used on line {seen[record.id]}")
        seen[record.id] = lineno
        records.append(record)
    return [r for r in records if wanted is None or r.category in wanted]
