"""Handbook sections for answers in any language: the multilingual encoder finds the section a question asks
about, and the sentences of it that answer, so that Aya can quote them.

Contract
--------
* :func:`read_sections` cuts knowledge-base documents into :class:`Section` s: a Markdown document at its
  ``##``/``###`` headings (its title block, the text under the ``#`` title before the first section, is left
  out: a version line is no answer), a plain-text document at its blank lines. A section's sentences are its bullets (a bullet and its continuation
  lines are one sentence) and the sentences of its prose (split after ``.``, ``!`` or ``?``). Markdown emphasis
  is dropped; nothing else is changed, so a quote is the handbook's own words.
* :class:`SectionIndex` embeds every sentence with where it stands (``"passage: TITLE > HEADING: SENTENCE"``)
  and every section whole with multilingual-e5-small (:mod:`aya_lab.rag.sentence_encoder`), once per set of
  sections in a process, through the generation cache's recorded vectors (``recorded=True``: the encoder's
  arithmetic rounds differently per CPU, and a replayed search must give the recording's margins). :meth:`SectionIndex.search` scores the sections for one or more texts of the same
  question (the request as written, its English): the mean of its best sentence's and its whole text's cosine,
  plus :data:`TITLE_WEIGHT` times its document title's (a question that names a policy reads that policy).
* A question is **in scope** when its best section stands out from the handbook: best score minus the median
  section score ≥ the measured written margin (:mod:`aya_lab.rag.margins`, ``data/calibration/scope-margins.json``). A question the handbook does not cover scores about the same against
  every section (e5 puts every workplace question near every policy); one it covers lifts one section.
* :meth:`SectionIndex.quote` picks the section's sentence closest to the question and the others within
  :data:`QUOTE_MARGIN` of it, at most ``max_sentences``, in the section's order.

How the margins are measured: :mod:`aya_lab.rag.margins`; how :data:`QUOTE_MARGIN` and :data:`TITLE_WEIGHT`
were chosen (on ``data/rag/questions.jsonl`` and ``data/rag/questions_dev.jsonl``, never on the unseen
questions): docs/ROOM.md, "Answers that quote".
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from aya_lab.rag.documents import KBDocument
from aya_lab.rag.margins import scope_margins
from aya_lab.rag.sentence_encoder import SentenceEncoder, multilingual_encoder

__all__ = [
    "QUOTE_MARGIN",
    "TITLE_WEIGHT",
    "Quote",
    "Section",
    "SectionIndex",
    "SectionMatch",
    "index_texts",
    "read_sections",
    "sections_key",
]

TITLE_WEIGHT = 0.25
"""How much a section's document title counts beside its text ("what does the travel policy say about flights")."""
QUOTE_MARGIN = 0.03
"""A sentence is quoted beside the best one when its score is within this of the best sentence's."""

_HEADING = re.compile(r"^(#{1,3})\s+(.+?)\s*#*\s*$")
_BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(])")
_INDEXES: dict[str, SectionIndex] = {}
_LOCK = threading.Lock()


@dataclass(frozen=True)
class Section:
    source: str  # the document ("travel_policy.md")
    title: str  # the document's title ("Travel Policy"), else its file name
    heading: str  # the section's nearest heading ("Flights"); the title for a document without sections
    sentences: tuple[str, ...]

    @property
    def text(self) -> str:
        return " ".join(self.sentences)


@dataclass(frozen=True)
class SectionMatch:
    section: Section
    score: float  # the best cosine between the question's texts and the section
    margin: float  # the best section's score less the median section score (the same for every match)


@dataclass(frozen=True)
class Quote:
    source: str
    heading: str
    sentences: tuple[str, ...]

    @property
    def text(self) -> str:
        """``From SOURCE, "HEADING": "SENTENCES"``: the handbook's words, with where they stand."""
        body = " ".join(s if s[-1] in ".!?:" else f"{s}." for s in self.sentences)
        return f'From {self.source}, "{self.heading}": "{body}"'


def _clean(line: str) -> str:
    return " ".join(line.replace("**", "").replace("__", "").split())


def _sentences(lines: Sequence[str]) -> tuple[str, ...]:
    """Bullets (with their continuation lines) and prose sentences, in order."""
    items: list[str] = []
    current: list[str] = []
    bullet = False

    def flush() -> None:
        text = _clean(" ".join(current))
        if text:
            items.extend([text] if bullet else [s for s in _SENTENCE_END.split(text) if s])
        current.clear()

    for line in lines:
        if not line.strip():
            flush()
            bullet = False
        elif _BULLET.match(line):
            flush()
            bullet = True
            current.append(_BULLET.sub("", line))
        else:
            current.append(line)
    flush()
    return tuple(items)


def _markdown_sections(doc: KBDocument) -> list[Section]:
    sections: list[Section] = []
    title, heading = "", ""
    lines: list[str] = []
    has_sections = any(_HEADING.match(line) and not line.startswith("# ") for line in doc.text.splitlines())
    for line in [*doc.text.splitlines(), "# "]:
        found = _HEADING.match(line) if line.startswith("#") else None
        if found is None and line != "# ":
            lines.append(line)
            continue
        sentences = _sentences(lines)
        if sentences and (heading != title or not has_sections):  # a title block is no answer
            sections.append(Section(doc.source, title or doc.source, heading or title or doc.source, sentences))
        lines = []
        if found is not None:
            heading = _clean(found.group(2))
            title = title or (heading if found.group(1) == "#" else "")
    return sections


def read_sections(docs: Sequence[KBDocument]) -> list[Section]:
    """Every document's sections, in document order (see the module docstring)."""
    out: list[Section] = []
    for doc in docs:
        if doc.source.lower().endswith((".md", ".markdown")):
            out.extend(_markdown_sections(doc))
        else:
            paragraphs = [p for p in re.split(r"\n\s*\n", doc.text) if p.strip()]
            out.extend(Section(doc.source, doc.source, doc.source, _sentences(p.splitlines())) for p in paragraphs)
    return [s for s in out if s.sentences]


def sections_key(sections: Sequence[Section]) -> str:
    """A sha256 of the sections' documents, headings and sentences: which handbook an index (or a scope pool's
    labels, :mod:`aya_lab.rag.scope`) is of."""
    return hashlib.sha256(repr([(s.source, s.heading, s.sentences) for s in sections]).encode()).hexdigest()


def index_texts(sections: Sequence[Section]) -> tuple[list[list[str]], list[str], list[str]]:
    """What a :class:`SectionIndex` embeds as passages: each section's sentences, each section whole, and each
    section's document title, every text but a title prefixed with its document and heading."""
    sentences = [[f"{s.title} > {s.heading}: {x}" for x in s.sentences] for s in sections]
    return sentences, [f"{s.title} > {s.heading}: {s.text}" for s in sections], [s.title for s in sections]


class SectionIndex:
    """Sections and their sentences embedded with the multilingual encoder; see the module docstring."""

    def __init__(self, sections: Sequence[Section], encoder: SentenceEncoder | None = None) -> None:
        if not sections:
            raise ValueError("a SectionIndex needs at least one section")
        self.sections = list(sections)
        self.key = sections_key(self.sections)
        """Which handbook this index is of (:func:`sections_key`)."""
        self.encoder = encoder or multilingual_encoder()
        sentences, whole, titles = index_texts(self.sections)
        self._vectors = [self.encoder.encode(texts, passages=True, recorded=True) for texts in sentences]
        self._whole = self.encoder.encode(whole, passages=True, recorded=True)
        self._titles = self.encoder.encode(titles, passages=True, recorded=True)

    @classmethod
    def shared(cls, sections: Sequence[Section]) -> SectionIndex:
        """One index per distinct set of sections in this process (embedding them takes a few seconds)."""
        key = sections_key(sections)
        with _LOCK:
            if key not in _INDEXES:
                _INDEXES[key] = cls(sections)
            return _INDEXES[key]

    def _queries(self, texts: Sequence[str]) -> np.ndarray:
        texts = [t for t in dict.fromkeys(t.strip() for t in texts) if t]
        if not texts:
            raise ValueError("search needs at least one non-empty text")
        return self.encoder.encode(texts, recorded=True)

    def _scores(self, texts: Sequence[str]) -> list[np.ndarray]:
        """Each section's sentence scores: a sentence's best cosine over the question's texts."""
        queries = self._queries(texts)
        return [(vectors @ queries.T).max(axis=1).astype(np.float64) for vectors in self._vectors]

    def search(self, texts: Sequence[str], k: int = 3) -> list[SectionMatch]:
        """The ``k`` best sections for the question written as ``texts`` (one or more), best first."""
        queries = self._queries(texts)
        best_sentence = np.array([float(s.max()) for s in self._scores(texts)])
        whole, title = (self._whole @ queries.T).max(axis=1), (self._titles @ queries.T).max(axis=1)
        scores = (best_sentence + whole) / 2 + TITLE_WEIGHT * title
        margin = float(scores.max() - np.median(scores))
        order = np.argsort(-scores, kind="stable")[:k]
        return [SectionMatch(self.sections[i], float(scores[i]), margin) for i in order]

    def in_scope(self, matches: Sequence[SectionMatch], min_margin: float | None = None) -> bool:
        """Whether the best section stands out enough to answer from: by ``min_margin``, by default the measured
        written margin (:func:`~aya_lab.rag.margins.scope_margins`)."""
        min_margin = scope_margins().min_margin if min_margin is None else min_margin
        return bool(matches) and matches[0].margin >= min_margin

    def quote(self, match: SectionMatch, texts: Sequence[str], max_sentences: int = 3) -> Quote:
        """The sentences of ``match``'s section that answer the question best (see the module docstring)."""
        scores = self._scores(texts)[self.sections.index(match.section)]
        best = float(scores.max())
        chosen = sorted(np.argsort(-scores, kind="stable")[: max(1, max_sentences)])
        kept = tuple(match.section.sentences[i] for i in chosen if scores[i] >= best - QUOTE_MARGIN)
        return Quote(match.section.source, match.section.heading, kept)
