"""Grounded citations: which retrieved sources an answer uses, how notes are labelled, and the fixed
sources line that code (never the model) appends to Aya's answer.

**The rule.** Let *added* be the answer's content words that the question does not contain (a
restated question shares words with every retrieved passage; the words an answer *adds* — "economy",
"45", "receipt" — come from the passage it used). A source is cited when its passages hold at least
``min(MIN_SHARED, len(added), len(own))`` of them, and at least one (``own``: the source's content words
not in the question; a one-line note cannot share more than it has). Content words: lowercased word tokens
(letters or digits) that are not stopwords. The threshold was chosen on ``data/rag/questions.jsonl`` (figures and how:
``data/rag/README.md``). When no source qualifies the line says :data:`NO_SOURCE`.

**Notes from colleagues** (remembered facts) are shown to the model in their own block, labelled
"note from kofi, YYYY-MM-DD", and cited as "note from kofi, YYYY-MM-DD, unverified", never as a
policy document. On equal relevance a document outranks a note: notes rank with their cosine score
minus :data:`FACT_PENALTY` (ties: documents first).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from datetime import datetime

from aya_lab.rag.index import FACT_PENALTY, Retrieved

__all__ = [
    "FACT_PENALTY",
    "MIN_SHARED",
    "NO_SOURCE",
    "STOPWORDS",
    "citation_words",
    "grounded_sources",
    "note_label",
    "rank_for_answer",
    "sources_line",
    "split_fixed",
    "strip_fixed",
]

MIN_SHARED = 3
"""Added content words an answer must share with a source's passages to cite it (fewer when the answer
adds fewer; at least one)."""
NO_SOURCE = "(no source supports this answer)"

_STOP = frozenset(
    """a an the and or but if of to in on at by for with from as is are was were be been being it its this that
    these those there here i you he she we they me my your our their his her them us do does did done have has had
    can could may might must shall should will would not no yes so than then too very just only also any all each
    some such what which who whom whose when where why how much many more most other into out up down over under
    about after before between during per own same both few again once answer question policy company employee
    employees please know don t s""".split()
)
STOPWORDS = _STOP
"""Words that carry no content for citing (English function words and the words every question shares)."""
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_FIXED = re.compile(
    r"\((?:sources: [^()\n]*|no source supports this answer)\)"  # the sources line
    r'|(?:From [\w./-]+\.(?:md|markdown|txt), "[^"\n]*"|Note from [^()\n:]*\(unverified\)): '  # where a quote stands
)


def citation_words(text: str) -> set[str]:
    """Lowercased word tokens of ``text`` that are not :data:`STOPWORDS` (function words and the words every
    question shares): the words a citation is decided on."""
    return {w for w in _WORD.findall(text.lower()) if w not in _STOP}


def grounded_sources(
    answer: str, question: str, passages: Iterable[tuple[str, str]], min_shared: int = MIN_SHARED
) -> list[str]:
    """The sources, in first-seen order, whose passages hold at least ``min(min_shared, len(added),
    len(own))`` (and at least one) of the content words ``answer`` adds to ``question`` (``own``: the
    source's content words not in the question — a short note can share only few). ``passages``:
    ``(source, text)`` pairs."""
    asked = citation_words(question)
    added = citation_words(answer) - asked
    by_source: dict[str, set[str]] = {}
    for source, text in passages:
        by_source.setdefault(source, set()).update(citation_words(text))
    return [
        s
        for s, words in by_source.items()
        if added and len(added & words) >= max(1, min(min_shared, len(added), len(words - asked)))
    ]


def note_label(author: str | None, created_at: datetime | str | None) -> str:
    """``"note from kofi, YYYY-MM-DD"`` (the date part of an ISO time; unknown parts say so)."""
    day = str(created_at)[:10] if created_at else "undated"
    return f"note from {author or 'an unknown colleague'}, {day}"


def sources_line(documents: Sequence[str], notes: Sequence[str]) -> str:
    """``(sources: a.md, b.md; note from kofi, YYYY-MM-DD, unverified)``, or :data:`NO_SOURCE`."""
    if not documents and not notes:
        return NO_SOURCE
    parts = [", ".join(documents)] if documents else []
    parts += [f"{label}, unverified" for label in notes]
    return f"(sources: {'; '.join(parts)})"


def split_fixed(text: str) -> list[tuple[str, bool]]:
    """``text`` cut into ``(piece, fixed)`` pieces: ``fixed`` pieces are set by code (sources lines, where a quote
    stands: ``From travel_policy.md, "Flights": ``), to be delivered verbatim; the others may be translated."""
    pieces: list[tuple[str, bool]] = []
    pos = 0
    for m in _FIXED.finditer(text):
        if m.start() > pos:
            pieces.append((text[pos : m.start()], False))
        pieces.append((m.group(0), True))
        pos = m.end()
    if pos < len(text) or not pieces:
        pieces.append((text[pos:], False))
    return pieces


def strip_fixed(text: str) -> str:
    """``text`` without anything shaped like a sources line (a model must not write its own)."""
    return " ".join(_FIXED.sub(" ", text).split())


def rank_for_answer(hits: Sequence[Retrieved], k: int, fact_penalty: float = FACT_PENALTY) -> list[Retrieved]:
    """The best ``k`` hits with notes ranked at ``score - fact_penalty``; on equal rank documents first."""
    order = sorted(
        enumerate(hits),
        key=lambda ih: (-(ih[1].score - (fact_penalty if ih[1].kind == "fact" else 0.0)), ih[1].kind == "fact", ih[0]),
    )
    return [h for _, h in order[:k]]
