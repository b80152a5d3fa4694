"""Whether the handbook covers a question, read from labelled questions like it.

The section index's margin (``min_margin``, :mod:`aya_lab.rag.margins`) separates an English question the handbook
answers from one it does not, but multilingual-e5-small lifts a Swahili question's section less, so the margin
that refuses out-of-scope questions also refuses most Swahili ones (notebook 06, "Where the answers are lost").
A :class:`ScopePool` decides scope another way: by the questions most like this one among questions a person
labelled in or out of scope, in every language.

Contract
--------
* A pool is labelled questions (:func:`read_labelled_questions`: JSONL lines with a ``question`` and a boolean
  ``in_scope``, the format of ``data/rag/questions_*.jsonl``), each embedded once per process with the
  multilingual encoder as a query, as a question to Aya is, through the generation cache's recorded vectors
  (``recorded=True``, so a replayed decision is the recording's on any CPU).
* :meth:`ScopePool.covers` is true when the :data:`NEIGHBOURS` pool questions nearest the question (cosine; ties
  to the earlier question) are all in scope. A pool question identical to the asked one counts like any other.
* :meth:`ScopePool.rerank` lets the labels' gold sections (``gold``: the handbook sections a writer said answer a
  question, :func:`read_gold_sections`) vote for the section to quote: each section's score gains
  :data:`VOTE_WEIGHT` times the summed cosine of the :data:`VOTERS` nearest in-scope pool questions whose gold it
  is, over :data:`VOTERS` (notebook 06, "Labelled neighbours vote for the section", chose both on the development
  sets).
* Labels belong to the handbook they were written for: a pool carries that handbook's
  :func:`~aya_lab.rag.sections.sections_key` (the default pool: ``data/kb``'s), and :meth:`ScopePool.labels`
  says whether it is the handbook of a given index (its ``key``). A room whose knowledge base has other documents decides scope
  by the section margin instead (:class:`~aya_lab.agents.query.AyaQuery`).
* :data:`POOL_FILES` are the development question sets: the dev set and unseen sets 1–5 (460 questions), with
  which the rule was chosen and then measured on the sixth set; since then each measured set too (the sixth: 560
  questions, measured on the seventh; the seventh: 660, measured on the eighth, ninth and tenth; those three: 960,
  measured on the eleventh). A set that is a test set is never in the pool. How :data:`NEIGHBOURS` and the "all in scope" rule were chosen (each development set left out in
  turn): docs/ROOM.md, "The scope read from labelled questions".
* The default pool's vectors, and the vectors of ``data/kb``'s section index, ship with the project
  (:mod:`aya_lab.rag.vector_record`), written by :func:`write_room_vectors` (``python -m aya_lab.rag.scope``).
"""

from __future__ import annotations

import argparse
import json
import threading
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np

from aya_lab.errors import InputError
from aya_lab.paths import kb_dir, rag_questions_dir
from aya_lab.rag.documents import read_documents
from aya_lab.rag.sections import SectionMatch, index_texts, read_sections, sections_key
from aya_lab.rag.sentence_encoder import SentenceEncoder, multilingual_encoder, recorded_name
from aya_lab.rag.vector_record import RECORD_FILE, write_vector_record

__all__ = [
    "NEIGHBOURS",
    "VOTERS",
    "VOTE_WEIGHT",
    "POOL_FILES",
    "ScopePool",
    "default_pool_paths",
    "labelled_records",
    "read_gold_sections",
    "read_labelled_questions",
    "room_texts",
    "write_room_vectors",
]

NEIGHBOURS = 5
"""How many of the nearest labelled questions must all be in scope."""
VOTERS = 3
"""How many of the nearest in-scope labelled questions vote for a section (:meth:`ScopePool.rerank`)."""
VOTE_WEIGHT = 0.02
"""What a unanimous, identical voters' vote adds to a section's score (a score is a cosine mean, about 0.8-0.9)."""
POOL_FILES = (
    "questions_dev.jsonl",
    "questions_unseen.jsonl",
    "questions_unseen2.jsonl",
    "questions_unseen3.jsonl",
    "questions_unseen4.jsonl",
    "questions_unseen5.jsonl",
    "questions_unseen6.jsonl",
    "questions_unseen7.jsonl",
    "questions_unseen8.jsonl",
    "questions_unseen9.jsonl",
    "questions_unseen10.jsonl",
)
_POOLS: dict[tuple[object, ...], ScopePool] = {}
_LOCK = threading.Lock()


def default_pool_paths() -> list[Path]:
    """The files of :data:`POOL_FILES` (``data/rag``, or the copy the wheel carries)."""
    return [rag_questions_dir() / name for name in POOL_FILES]


def labelled_records(paths: Sequence[Path]) -> list[dict[str, object]]:
    """Every line of ``paths`` as its JSON object, in order; a missing file or a line without a text ``question``
    and a boolean ``in_scope`` is a one-line :class:`InputError` naming the file and line."""
    out: list[dict[str, object]] = []
    for path in paths:
        try:
            lines = Path(path).read_text(encoding="utf-8").splitlines()
        except OSError as exc:
            raise InputError(f"{path}: cannot read the labelled questions ({exc.strerror or exc})") from None
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
                question, in_scope = record["question"], record["in_scope"]
            except (ValueError, TypeError, KeyError):
                record, question, in_scope = None, None, None
            if not isinstance(question, str) or not question.strip() or not isinstance(in_scope, bool):
                raise InputError(
                    f"{path}:{number}: a labelled question needs a text 'question' and 'in_scope' true or false"
                )
            out.append(record)
    return out


def read_labelled_questions(paths: Sequence[Path]) -> list[tuple[str, bool]]:
    """``(question, in_scope)`` of every record of ``paths`` (:func:`labelled_records`), in order."""
    return [_labelled(record) for record in labelled_records(paths)]


def read_gold_sections(paths: Sequence[Path]) -> list[frozenset[tuple[str, str]]]:
    """Each labelled question's gold sections, ``(doc, section)``, in :func:`read_labelled_questions`' order (empty
    where a record has none, or a malformed ``gold``)."""
    return [_gold(record) for record in labelled_records(paths)]


def _labelled(record: dict[str, object]) -> tuple[str, bool]:
    return str(record["question"]), bool(record["in_scope"])


def _gold(record: dict[str, object]) -> frozenset[tuple[str, str]]:
    gold = record.get("gold")
    if not isinstance(gold, list):
        return frozenset()
    return frozenset((g["doc"], g["section"]) for g in gold if isinstance(g, dict) and isinstance(g.get("doc"), str)
                     and isinstance(g.get("section"), str))  # fmt: skip


class ScopePool:
    """Labelled questions embedded with the multilingual encoder; see the module docstring."""

    def __init__(
        self,
        questions: Sequence[tuple[str, bool]],
        encoder: SentenceEncoder | None = None,
        k: int = NEIGHBOURS,
        handbook: str | None = None,
        gold: Sequence[frozenset[tuple[str, str]]] | None = None,
    ) -> None:
        if not 1 <= k <= len(questions):
            raise InputError(f"a scope pool of {len(questions)} labelled questions cannot look at {k} neighbours")
        if gold is not None and len(gold) != len(questions):
            raise InputError(f"a scope pool of {len(questions)} labelled questions got {len(gold)} gold section sets")
        self.questions = list(questions)
        self.gold = list(gold) if gold is not None else [frozenset()] * len(questions)
        """Each question's gold sections, ``(doc, section)`` (empty: none given)."""
        self.k = k
        self.handbook = handbook
        """The :func:`~aya_lab.rag.sections.sections_key` of the handbook the labels were written for (None: any)."""
        self.encoder = encoder or multilingual_encoder()
        self._vectors = self.encoder.encode([q for q, _ in self.questions], recorded=True)
        self._in_scope = np.array([label for _, label in self.questions], dtype=bool)

    @classmethod
    def shared(cls, paths: Sequence[Path] | None = None, handbook: str | None = None, k: int = NEIGHBOURS) -> ScopePool:
        """One pool per distinct set of labelled questions, handbook and ``k`` in this process (default
        :func:`default_pool_paths`, labelled for the handbook of ``data/kb``, :data:`NEIGHBOURS`)."""
        records = labelled_records(paths if paths is not None else default_pool_paths())
        questions = [_labelled(record) for record in records]
        handbook = handbook or sections_key(read_sections(read_documents(kb_dir())))
        key = (handbook, k, *questions)
        with _LOCK:
            if key not in _POOLS:
                _POOLS[key] = cls(questions, k=k, handbook=handbook, gold=[_gold(record) for record in records])
            return _POOLS[key]

    def labels(self, handbook: str) -> bool:
        """Whether this pool's labels were written for ``handbook`` (a :func:`~aya_lab.rag.sections.sections_key`,
        as :attr:`SectionIndex.key <aya_lab.rag.sections.SectionIndex>` holds it)."""
        return self.handbook is None or self.handbook == handbook

    def neighbours(self, question: str) -> list[tuple[str, bool, float]]:
        """The :attr:`k` pool questions nearest ``question``: ``(text, in_scope, cosine)``, nearest first."""
        if not question.strip():
            raise ValueError("a scope decision needs a non-empty question")
        scores = self._vectors @ self.encoder.encode([question.strip()], recorded=True)[0]
        order = np.argsort(-scores, kind="stable")[: self.k]
        return [(self.questions[i][0], bool(self._in_scope[i]), float(scores[i])) for i in order]

    def covers(self, question: str) -> bool:
        """Whether the handbook covers ``question``: its :attr:`k` nearest labelled questions are all in scope."""
        return all(in_scope for _, in_scope, _ in self.neighbours(question))

    def votes(self, question: str, voters: int = VOTERS, cosine: bool = True) -> dict[tuple[str, str], float]:
        """Per gold section of the ``voters`` in-scope pool questions nearest ``question``: the summed cosine of
        those whose gold it is (each counting 1 without ``cosine``), over ``voters``."""
        scores = self._vectors @ self.encoder.encode([question.strip()], recorded=True)[0]
        inside = np.flatnonzero(self._in_scope)
        nearest = inside[np.argsort(-scores[inside], kind="stable")[:voters]]
        out: dict[tuple[str, str], float] = {}
        for i in nearest:
            for section in self.gold[i]:
                out[section] = out.get(section, 0.0) + (float(scores[i]) if cosine else 1.0) / voters
        return out

    def rerank(self, matches: Sequence[SectionMatch], question: str) -> list[SectionMatch]:
        """``matches`` (every section the index scored, for one question) with :meth:`votes` added to their
        scores, best first (ties in the index's order); the margin stays the index's."""
        votes = self.votes(question)
        voted = [replace(m, score=m.score + VOTE_WEIGHT * votes.get((m.section.source, m.section.heading), 0.0))
                 for m in matches]  # fmt: skip
        return sorted(voted, key=lambda m: -m.score)


def room_texts() -> dict[str, list[str]]:
    """The texts a room embeds the same way every time, by :func:`~aya_lab.rag.sentence_encoder.recorded_name`:
    the default pool's questions (queries) and what the section index of ``data/kb`` embeds (passages)."""
    sentences, whole, titles = index_texts(read_sections(read_documents(kb_dir())))
    passages = [t for group in sentences for t in group] + whole + titles
    questions = [q for q, _ in read_labelled_questions(default_pool_paths())]
    return {recorded_name(False): list(dict.fromkeys(questions)), recorded_name(True): list(dict.fromkeys(passages))}


def write_room_vectors(path: Path, encoder: SentenceEncoder | None = None) -> int:
    """Embed :func:`room_texts` (through the generation cache's recorded vectors, as the room does) and write
    them to ``path`` as a :mod:`~aya_lab.rag.vector_record` record; returns the number of vectors."""
    encoder = encoder or multilingual_encoder()
    vectors = {}
    for name, texts in room_texts().items():
        rows = encoder.encode(texts, passages=name == recorded_name(True), recorded=True)
        vectors.update({(name, text): row for text, row in zip(texts, rows)})
    write_vector_record(path, vectors)
    return len(vectors)


def _write_room_vectors_command(argv: Sequence[str] | None = None) -> int:
    """``python -m aya_lab.rag.scope [--out FILE]``: write the room's recorded vectors (the scope pool's
    questions, the handbook's sections) after either changes."""
    parser = argparse.ArgumentParser(
        prog="python -m aya_lab.rag.scope", description=_write_room_vectors_command.__doc__
    )
    parser.add_argument("--out", type=Path, default=rag_questions_dir() / RECORD_FILE, help="default: %(default)s")
    out = parser.parse_args(argv).out
    print(f"{out}: {write_room_vectors(out)} vectors")
    return 0


if __name__ == "__main__":
    raise SystemExit(_write_room_vectors_command())
