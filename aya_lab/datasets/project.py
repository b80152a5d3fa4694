"""The project's own data sets under ``data/``: typed records and loaders.

Each JSONL line is validated by a pydantic model with ``extra="forbid"``; a bad line raises
:class:`CorpusError` with one line naming the file, the line number and the field, e.g.
``data/rag/questions.jsonl:12: gold_docs: Input should be a valid list``. Language fields accept any
spelling :func:`aya_lab.languages.normalize_language` knows and are stored as ISO 639-3 codes.

Simplification: the loaders read whole files into lists (the sets are small, hundreds of lines);
checks that concern the *data set* rather than one record (label balance, counts) live in
``tests/test_corpora.py``, while checks that make a single record unusable (``gold_count`` larger than
the transcript, an action-item owner who never speaks in the window) are model validators.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from aya_lab.languages import normalize_language
from aya_lab.paths import project_root

__all__ = [
    "CorpusError",
    "RagQuestion",
    "TranscriptMessage",
    "ActionItem",
    "Transcript",
    "RoutingExample",
    "RoutingLabel",
    "ROUTING_LABELS",
    "WORKPLACE_LANGUAGES",
    "list_kb_documents",
    "load_rag_questions",
    "load_transcripts",
    "load_routing_examples",
    "load_workplace",
    "load_workplace_doc_ids",
    "default_paths",
]

RoutingLabel = Literal["query", "summarize", "remember", "chat"]
ROUTING_LABELS: tuple[str, ...] = ("query", "summarize", "remember", "chat")
WORKPLACE_LANGUAGES: tuple[str, ...] = ("eng", "fra", "deu", "spa", "cmn")


class CorpusError(ValueError):
    """A data file that cannot be loaded; the message is ``<file>:<line>: <field>: <problem>``."""


def default_paths() -> dict[str, Path]:
    """Where each set lives under the repository root."""
    data = project_root() / "data"
    return {
        "kb": data / "kb",
        "rag": data / "rag" / "questions.jsonl",
        "transcripts": data / "transcripts" / "transcripts.jsonl",
        "routing": data / "routing" / "requests.jsonl",
        "workplace": data / "workplace",
    }


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


# --- knowledge base -----------------------------------------------------------------------------


def list_kb_documents(path: str | Path | None = None) -> list[Path]:
    """The Markdown documents of the knowledge base, sorted by name (``README.md`` left out)."""
    folder = Path(path) if path is not None else default_paths()["kb"]
    if not folder.is_dir():
        raise CorpusError(f"{folder}: knowledge-base folder not found")
    return sorted(p for p in folder.glob("*.md") if p.name.lower() != "readme.md")


# --- RAG questions -------------------------------------------------------------------------------


class RagQuestion(_Record):
    """A question for retrieval / QA evaluation; out-of-scope questions have no gold documents."""

    id: str = Field(pattern=r"^q\d{3,}$")
    question: str = Field(min_length=1)
    gold_docs: list[str]
    answer_keywords: list[str]
    in_scope: bool

    @model_validator(mode="after")
    def _scope_matches_docs(self) -> RagQuestion:
        if self.in_scope and not self.gold_docs:
            raise ValueError("gold_docs: an in-scope question needs at least one gold document")
        if not self.in_scope and (self.gold_docs or self.answer_keywords):
            raise ValueError("gold_docs: an out-of-scope question has no gold documents or keywords")
        return self


# --- transcripts ---------------------------------------------------------------------------------


class TranscriptMessage(_Record):
    """One chat message: ``text`` in language ``lang``, ``text_en`` its English meaning."""

    sender: str = Field(pattern=r"^[a-z]+$")
    lang: str
    text: str = Field(min_length=1)
    text_en: str = Field(min_length=1)

    @field_validator("lang")
    @classmethod
    def _norm_lang(cls, value: str) -> str:
        return normalize_language(value)


class ActionItem(_Record):
    """Who will do what: ``owner`` is a sender name, ``task`` a short imperative phrase."""

    owner: str = Field(pattern=r"^[a-z]+$")
    task: str = Field(min_length=1)


class Transcript(_Record):
    """A chat history, a summarize request over it, and the gold answer for the requested window.

    ``gold_count`` is the N of "the last N messages"; 0 means the whole conversation.
    ``gold_action_items`` are the action items within that window only.
    """

    id: str = Field(pattern=r"^t\d{3,}$")
    messages: list[TranscriptMessage] = Field(min_length=1)
    request: str = Field(min_length=1)
    request_lang: str
    gold_count: int = Field(ge=0)
    gold_action_items: list[ActionItem]
    reference_summary: str = Field(min_length=1)

    @field_validator("request_lang")
    @classmethod
    def _norm_lang(cls, value: str) -> str:
        return normalize_language(value)

    @model_validator(mode="after")
    def _window_is_consistent(self) -> Transcript:
        if self.gold_count > len(self.messages):
            raise ValueError(f"gold_count: {self.gold_count} is more than the {len(self.messages)} messages")
        senders = {m.sender for m in self.window}
        for item in self.gold_action_items:
            if item.owner not in senders:
                raise ValueError(
                    f"gold_action_items: owner {item.owner!r} does not speak in the last "
                    f"{self.gold_count or 'all'} messages"
                )
        return self

    @property
    def window(self) -> list[TranscriptMessage]:
        """The messages the request asks about (the last ``gold_count``; all when it is 0)."""
        return list(self.messages) if self.gold_count == 0 else list(self.messages[-self.gold_count :])

    @property
    def senders(self) -> list[str]:
        """Distinct senders in order of first appearance."""
        return list(dict.fromkeys(m.sender for m in self.messages))


# --- routing -------------------------------------------------------------------------------------


class RoutingExample(_Record):
    """A request to Aya (the text after ``@aya``) with its route."""

    id: str = Field(pattern=r"^r\d{3,}$")
    text: str = Field(min_length=1)
    lang: str
    label: RoutingLabel
    text_en: str = Field(min_length=1)

    @field_validator("lang")
    @classmethod
    def _norm_lang(cls, value: str) -> str:
        return normalize_language(value)


# --- loading -------------------------------------------------------------------------------------

_M = TypeVar("_M", bound=BaseModel)


def _display(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(project_root()))
    except ValueError:
        return str(path)


def _describe(exc: ValidationError) -> str:
    err = exc.errors()[0]
    loc = ".".join(str(p) for p in err["loc"])
    msg = err["msg"].removeprefix("Value error, ")
    if not loc and ": " in msg:  # model validators put the field name first
        loc, msg = msg.split(": ", 1)
    return f"{loc or '<record>'}: {msg}"


def _load_jsonl(path: Path, model: type[_M]) -> list[_M]:
    if not path.is_file():
        raise CorpusError(f"{_display(path)}: file not found")
    records: list[_M] = []
    seen: dict[str, int] = {}
    with path.open(encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                raise CorpusError(f"{_display(path)}:{lineno}: <line>: empty line")
            try:
                data = json.loads(line)
            except json.JSONDecodeError as exc:
                raise CorpusError(f"{_display(path)}:{lineno}: <json>: {exc.msg} (column {exc.colno})") from None
            if not isinstance(data, dict):
                raise CorpusError(f"{_display(path)}:{lineno}: <record>: expected a JSON object")
            try:
                record = model.model_validate(data)
            except ValidationError as exc:
                raise CorpusError(f"{_display(path)}:{lineno}: {_describe(exc)}") from None
            rid = getattr(record, "id", None)
            if rid is not None:
                if rid in seen:
                    raise CorpusError(f"{_display(path)}:{lineno}: id: {rid!r} already used on line {seen[rid]}")
                seen[rid] = lineno
            records.append(record)
    return records


def load_rag_questions(path: str | Path | None = None) -> list[RagQuestion]:
    """Load ``data/rag/questions.jsonl`` (or ``path``)."""
    return _load_jsonl(Path(path) if path is not None else default_paths()["rag"], RagQuestion)


def load_transcripts(path: str | Path | None = None) -> list[Transcript]:
    """Load ``data/transcripts/transcripts.jsonl`` (or ``path``)."""
    return _load_jsonl(Path(path) if path is not None else default_paths()["transcripts"], Transcript)


def load_routing_examples(path: str | Path | None = None) -> list[RoutingExample]:
    """Load ``data/routing/requests.jsonl`` (or ``path``)."""
    return _load_jsonl(Path(path) if path is not None else default_paths()["routing"], RoutingExample)


def _read_lines(path: Path) -> list[str]:
    if not path.is_file():
        raise CorpusError(f"{_display(path)}: file not found")
    raw = path.read_bytes()
    if b"\r" in raw:
        raise CorpusError(f"{_display(path)}: <file>: CR line endings; use LF")
    lines = raw.decode("utf-8").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    for lineno, line in enumerate(lines, 1):
        if not line.strip():
            raise CorpusError(f"{_display(path)}:{lineno}: <line>: empty segment")
    return lines


def load_workplace(lang: str, path: str | Path | None = None) -> list[str]:
    """The workplace-chat segments in one language (``data/workplace/workplace.<iso3>.txt``)."""
    folder = Path(path) if path is not None else default_paths()["workplace"]
    return _read_lines(folder / f"workplace.{normalize_language(lang)}.txt")


def load_workplace_doc_ids(path: str | Path | None = None) -> list[str]:
    """One conversation id per workplace segment, line-aligned with :func:`load_workplace`."""
    folder = Path(path) if path is not None else default_paths()["workplace"]
    return _read_lines(folder / "workplace.doc_id.txt")
