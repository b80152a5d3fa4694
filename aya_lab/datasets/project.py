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
import re
import unicodedata
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Literal, TypeVar

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError, model_validator

from aya_lab.errors import AyaLabError
from aya_lab.languages import normalize_language
from aya_lab.messages import parse_aya_request
from aya_lab.paths import project_root

__all__ = [
    "CorpusError",
    "describe_validation_error",
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
    "load_policy_questions",
    "POLICY_QUESTION_SETS",
    "policy_questions_path",
    "GoldSection",
    "PolicyQuestion",
    "load_transcripts",
    "load_routing_examples",
    "ROUTING_SETS",
    "TRANSCRIPT_SETS",
    "load_workplace",
    "load_workplace_doc_ids",
    "default_paths",
    "GROUP_OWNERS",
    "normalize_owner",
    "RECORD_SCHEMAS",
    "record_schema",
    "read_data_text",
]

RoutingLabel = Literal["query", "summarize", "remember", "chat"]
ROUTING_LABELS: tuple[str, ...] = ("query", "summarize", "remember", "chat")
WORKPLACE_LANGUAGES: tuple[str, ...] = ("eng", "fra", "deu", "spa", "cmn")


class CorpusError(AyaLabError, ValueError):
    """A data file that cannot be loaded; the message is ``<file>:<line>: <field>: <problem>``."""


def default_paths() -> dict[str, Path]:
    """Where each set lives under the repository root."""
    data = project_root() / "data"
    return {
        "kb": data / "kb",
        "rag": data / "rag" / "questions.jsonl",
        "rag_dev": data / "rag" / "questions_dev.jsonl",
        "rag_unseen": data / "rag" / "questions_unseen.jsonl",
        "rag_unseen2": data / "rag" / "questions_unseen2.jsonl",
        "rag_unseen3": data / "rag" / "questions_unseen3.jsonl",
        "rag_unseen4": data / "rag" / "questions_unseen4.jsonl",
        "rag_unseen5": data / "rag" / "questions_unseen5.jsonl",
        "rag_unseen6": data / "rag" / "questions_unseen6.jsonl",
        "rag_unseen7": data / "rag" / "questions_unseen7.jsonl",
        "rag_unseen8": data / "rag" / "questions_unseen8.jsonl",
        "rag_unseen9": data / "rag" / "questions_unseen9.jsonl",
        "rag_unseen10": data / "rag" / "questions_unseen10.jsonl",
        "rag_unseen11": data / "rag" / "questions_unseen11.jsonl",
        "transcripts": data / "transcripts" / "transcripts.jsonl",
        "transcripts_unseen": data / "transcripts" / "unseen.jsonl",
        "routing": data / "routing" / "requests.jsonl",
        "routing_unseen": data / "routing" / "requests_unseen.jsonl",
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


GROUP_OWNERS: frozenset[str] = frozenset({"all", "everyone", "everybody", "team", "the team", "all of us", "we"})
"""Owners that name the whole group; :func:`normalize_owner` maps each of them to ``"all"``."""

_EDGE_PUNCT = re.compile(r"^[\W_]+|[\W_]+$")


def normalize_owner(name: str) -> str:
    """A person or group as compared in action-item matching and gold checks.

    NFKC, case-folded, quotes and punctuation stripped from both ends (``'"Jonas:'`` -> ``jonas``,
    ``@amara`` -> ``amara``), inner spaces collapsed; a group owner (:data:`GROUP_OWNERS`: all,
    everyone, team, ...) becomes ``"all"``.
    """
    text = unicodedata.normalize("NFKC", str(name)).casefold()
    text = " ".join(_EDGE_PUNCT.sub("", text).split())
    return "all" if text in GROUP_OWNERS else text


def _aya_request(value: str) -> str:
    """The text with a leading ``@aya`` mention removed by the room's own parser."""
    parsed = parse_aya_request(value)
    text = value.strip() if parsed is None else parsed
    if not text:
        raise ValueError("only an @aya mention, no request after it")
    return text


LanguageCode = Annotated[str, AfterValidator(normalize_language)]
"""A language name or code, normalised to ISO 639-3 (an unknown one is refused)."""
AyaRequestText = Annotated[str, Field(min_length=1), AfterValidator(_aya_request)]
"""A request as a user writes it, with a leading ``@aya`` mention removed by the room's parser."""


class TranscriptMessage(_Record):
    """One chat message: ``text`` in language ``lang``; ``text_en`` its English meaning when known.

    ``sender`` is any non-empty name (compared through :func:`normalize_owner`). Without ``text_en``
    a non-English message reaches the summarizers as written.
    """

    sender: str = Field(min_length=1)
    lang: LanguageCode
    text: str = Field(min_length=1)
    text_en: str | None = Field(default=None, min_length=1)


class ActionItem(_Record):
    """Who will do what: ``owner`` a sender name or a group (all, everyone, team), ``task`` a short phrase."""

    owner: str = Field(min_length=1)
    task: str = Field(min_length=1)


class Transcript(_Record):
    """A chat history, a summarize request over it, and the gold answer for the requested window.

    ``id`` is optional (the loader names a record without one ``<file stem>:<line>``). ``request`` may
    keep its ``@aya`` mention (removed by the room's parser). ``gold_count`` is the N of "the last N
    messages"; 0 means the whole conversation. ``gold_action_items`` are the action items within that
    window only; an owner is a sender of the window or a group (:data:`GROUP_OWNERS`).
    ``reference_summary`` is optional; without it the summary chrF of the record is n/a.
    """

    id: str | None = Field(default=None, min_length=1)
    messages: list[TranscriptMessage] = Field(min_length=1)
    request: AyaRequestText
    request_lang: LanguageCode
    gold_count: int = Field(ge=0)
    gold_action_items: list[ActionItem] = Field(default_factory=list)
    reference_summary: str | None = Field(default=None, min_length=1)

    @model_validator(mode="after")
    def _window_is_consistent(self) -> Transcript:
        if self.gold_count > len(self.messages):
            raise ValueError(f"gold_count: {self.gold_count} is more than the {len(self.messages)} messages")
        senders = {normalize_owner(m.sender) for m in self.window} | {"all"}
        for item in self.gold_action_items:
            if normalize_owner(item.owner) not in senders:
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
    """A request to Aya with its route.

    ``text`` is what the user wrote, with or without its ``@aya`` mention (removed by the room's
    parser); ``id`` is optional (the loader names a record without one ``<file stem>:<line>``);
    ``text_en``, an English gloss, is needed only to route the gold English (``--translate gold``).
    """

    id: str | None = Field(default=None, min_length=1)
    text: AyaRequestText
    lang: LanguageCode
    label: RoutingLabel
    text_en: str | None = Field(default=None, min_length=1)


# --- loading -------------------------------------------------------------------------------------

_M = TypeVar("_M", bound=BaseModel)


def _display(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(project_root()))
    except ValueError:
        return str(path)


def describe_validation_error(exc: ValidationError) -> str:
    """The first error of ``exc`` as ``field: problem`` (one line, for located loader errors)."""
    err = exc.errors()[0]
    loc = ".".join(str(p) for p in err["loc"])
    msg = err["msg"].removeprefix("Value error, ")
    if not loc and ": " in msg:  # model validators put the field name first
        loc, msg = msg.split(": ", 1)
    return f"{loc or '<record>'}: {msg}"


def read_data_text(path: Path, needs: str = "one JSON record per line") -> str:
    """The file's text; one-line :class:`CorpusError` naming the file and the fix when it is missing,
    unreadable, not UTF-8, or empty (``needs`` says what it should hold, for the empty case)."""
    if not path.is_file():
        raise CorpusError(f"{_display(path)}: file not found")
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise CorpusError(
            f"{_display(path)}: <file>: cannot be read ({exc.strerror or exc}); pass a readable text file"
        ) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CorpusError(
            f"{_display(path)}: <file>: not UTF-8 (byte 0x{exc.object[exc.start]:02x} at offset {exc.start}); "
            "re-save it as UTF-8"
        ) from None
    text = text.removeprefix("\ufeff")
    if not text.strip():
        raise CorpusError(f"{_display(path)}: <file>: the file is empty; it needs {needs}")
    return text


def _load_jsonl(path: Path, model: type[_M]) -> list[_M]:
    records: list[_M] = []
    seen: dict[str, int] = {}
    for lineno, line in enumerate(read_data_text(path).splitlines(), 1):
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
            raise CorpusError(f"{_display(path)}:{lineno}: {describe_validation_error(exc)}") from None
        if "id" in type(record).model_fields:
            if record.id is None:  # type: ignore[attr-defined]  # ids are optional: name the record by its line
                record = record.model_copy(update={"id": f"{path.stem}:{lineno}"})
            record_id: str = record.id  # type: ignore[attr-defined]  # checked: the model has an id field
            if record_id in seen:
                raise CorpusError(
                    f"{_display(path)}:{lineno}: id: {record_id!r} already used on line {seen[record_id]}"
                )
            seen[record_id] = lineno
        records.append(record)
    return records


def load_rag_questions(path: str | Path | None = None) -> list[RagQuestion]:
    """Load ``data/rag/questions.jsonl`` (or ``path``)."""
    return _load_jsonl(Path(path) if path is not None else default_paths()["rag"], RagQuestion)


class GoldSection(_Record):
    """A handbook section that states an answer: its file and its ``##`` heading."""

    doc: str = Field(min_length=1)
    section: str = Field(min_length=1)


class PolicyQuestion(_Record):
    """A policy question in any language with the sections and the English fact that answer it
    (``data/rag/README.md``); an out-of-scope question has neither."""

    id: str = Field(pattern=r"^[a-z]\d{3,}$")
    lang: str = Field(pattern=r"^[a-z]{3}$")
    question: str = Field(min_length=1)
    gold: list[GoldSection]
    fact: str
    in_scope: bool

    @model_validator(mode="after")
    def _scope_matches_gold(self) -> PolicyQuestion:
        if self.in_scope and not (self.gold and self.fact):
            raise ValueError("gold: an in-scope question needs at least one gold section and its fact")
        if not self.in_scope and (self.gold or self.fact):
            raise ValueError("gold: an out-of-scope question has no gold sections or fact")
        return self


POLICY_QUESTION_SETS: dict[str, str] = {
    "dev": "rag_dev", "unseen": "rag_unseen", "unseen2": "rag_unseen2", "unseen3": "rag_unseen3",
    "unseen4": "rag_unseen4", "unseen5": "rag_unseen5", "unseen6": "rag_unseen6",
    "unseen7": "rag_unseen7", "unseen8": "rag_unseen8", "unseen9": "rag_unseen9",
    "unseen10": "rag_unseen10",
    "unseen11": "rag_unseen11",
}  # fmt: skip
"""The committed multilingual question sets by name: ``dev`` (20 questions in French, German, Spanish and
Swahili, for choosing), ``unseen`` (75 in five languages, written and committed before any score; since the
quoting rule changed after it, a dev set too), ``unseen2`` (75 more, written by a writer who never read the
other sets, committed before any score), ``unseen3`` (90, 24 of the 72 in scope in Swahili, written the same
way), ``unseen4`` (100, 16 in scope and 4 out of scope per language, written the same way; the test set of
the scope rule chosen on the others) and ``unseen5`` (100 more in ``unseen4``'s design; the test set of the
glossary's margin, chosen on the first four sets) and ``unseen6`` (100 more in that design, the test set of the
labelled-question scope rule) and ``unseen7`` (100 more, its second test set, with ``unseen6`` in the pool) and
``unseen8`` (100 more, its third test set, with ``unseen7`` in the pool) and ``unseen9`` (100 more, the test set of
the labelled questions' vote for the section) and ``unseen10`` (100 more, its second test set, the vote by then
the room's default) and ``unseen11`` (100 more, the test set of the room with unseen sets 8-10 in its pool)."""


def load_policy_questions(path: str | Path = "unseen") -> list[PolicyQuestion]:
    """Load a set named in :data:`POLICY_QUESTION_SETS` or a JSONL file of :class:`PolicyQuestion` records."""
    return _load_named(path, POLICY_QUESTION_SETS, PolicyQuestion)


def policy_questions_path(path: str | Path = "unseen") -> Path:
    """The file :func:`load_policy_questions` reads for ``path`` (a set name or a file)."""
    if isinstance(path, str) and path in POLICY_QUESTION_SETS:
        return default_paths()[POLICY_QUESTION_SETS[path]]
    return Path(path)


TRANSCRIPT_SETS: dict[str, str] = {"transcripts": "transcripts", "unseen": "transcripts_unseen"}
"""The committed summarizer transcript sets by name (each a :func:`default_paths` key): ``transcripts`` (47,
the first set) and ``unseen`` (``unseen.jsonl``, written after the summarizer's training data and committed
before any score; ``data/transcripts/README.md``)."""


def load_transcripts(path: str | Path | None = None) -> list[Transcript]:
    """Load ``data/transcripts/transcripts.jsonl``, a set named in :data:`TRANSCRIPT_SETS` (``"unseen"``), or ``path``."""
    return _load_named(path or "transcripts", TRANSCRIPT_SETS, Transcript)


ROUTING_SETS: dict[str, str] = {"requests": "routing", "unseen": "routing_unseen"}
"""The committed single-intent routing sets by name (each a :func:`default_paths` key): ``requests``
(``requests.jsonl``, in-sample for the keyword rules) and ``unseen`` (``requests_unseen.jsonl``, written
after them and never used to edit them; ``data/routing/README.md``)."""


def load_routing_examples(path: str | Path | None = None) -> list[RoutingExample]:
    """Load ``data/routing/requests.jsonl``, a set named in :data:`ROUTING_SETS` (``"unseen"``), or ``path``."""
    return _load_named(path or "requests", ROUTING_SETS, RoutingExample)


def _load_named(path: str | Path, sets: Mapping[str, str], record: type[_M]) -> list[_M]:
    """``path`` as a committed set named in ``sets`` (a :func:`default_paths` key each), else a JSONL file of
    ``record`` rows."""
    if isinstance(path, str) and path in sets:
        return _load_jsonl(default_paths()[sets[path]], record)
    return _load_jsonl(Path(path), record)


def _read_lines(path: Path) -> list[str]:
    text = read_data_text(path, "one segment per line")
    if "\r" in text:
        raise CorpusError(f"{_display(path)}: <file>: CR line endings; use LF")
    lines = text.split("\n")
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


# --- JSON Schemas ----------------------------------------------------------------------------------

RECORD_SCHEMAS: dict[str, type[BaseModel]] = {"transcript": Transcript, "routing_request": RoutingExample}
"""The record formats a user's own files may follow, by the name of their schema file under ``data/schemas``."""


def record_schema(name: str) -> dict:
    """The JSON Schema (draft 2020-12) of one JSONL record of format ``name`` (see :data:`RECORD_SCHEMAS`).

    Generated from the pydantic model the loader validates with, so the two cannot drift;
    ``data/schemas/<name>.schema.json`` is this output. Checks that span records (unique ids) and the
    model validators (gold owners speak in the window, ``gold_count`` within the messages) are the
    loader's alone.
    """
    if name not in RECORD_SCHEMAS:
        raise KeyError(f"no record schema {name!r}; known: {', '.join(RECORD_SCHEMAS)}")
    schema = RECORD_SCHEMAS[name].model_json_schema()
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", **schema}
