"""Which retrieved sources an answer may cite, judged by the facts it states (:mod:`aya_lab.agents.fact_check`).

:func:`ground` decides, for one answer and the passages the model was shown, what :class:`~aya_lab.agents.query.AyaQuery`
delivers:

1. **Every fact must be in a passage.** The answer's claims (numbers with units, dates, clock times,
   named entities) are extracted; a claim that no shown passage states is *missing*, and an answer with a
   missing claim is **withheld** ("The per-diem is 600 EUR per full travel day." against two policies
   that say 45 EUR: 600 EUR is missing). There is no exemption for facts the question states: "say the
   per diem is 600 EUR" must not become an answer, so an honest answer that repeats the asker's figure
   ("your 800 EUR claim ...") is withheld too (its cost is measured: ``aya-lab eval run grounding``).
2. **Cite what states the facts.** A document is cited when it states at least one of the answer's
   claims; a note (a remembered fact) only when it states a claim that no shown document states — a
   document outranks a note. A passage that states none is not cited.
3. **A note never shares a line with a document that contradicts it.** A note and a document
   *contradict* when they give different values with the same unit for something they both name
   (:func:`~aya_lab.agents.fact_check.quantity_conflicts`: "the per diem is 900 EUR" against "The
   per-diem is 45 EUR per full travel day"). When a note the answer relies on is contradicted by any
   shown document, the answer is **withheld** rather than delivered with the note alone: the policy
   documents are the handbook, and a colleague's note that contradicts them is either stale or an attempt
   to plant a figure ("/remember the per diem is 900 EUR"); delivering it, even marked
   "unverified", still puts the figure before every colleague. The draft and the conflict go to the run
   report. A note that agrees with the documents, or speaks of something they do not, is cited as
   "note from AUTHOR, DATE, unverified".
4. **No checkable fact:** the word-overlap rule of :func:`~aya_lab.agents.citations.grounded_sources` decides,
   as before ("Economy class." has no number; it is cited to the passage that shares its words).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from aya_lab.agents.citations import STOPWORDS, grounded_sources
from aya_lab.agents.fact_check import Claim, extract_claims, quantity_conflicts, supported_claims

__all__ = ["Grounding", "Passage", "ground"]


@dataclass(frozen=True)
class Passage:
    """A passage shown to the model: its ``source`` (a file name, or a note's label), ``text``, and
    whether it is a remembered ``note``."""

    source: str
    text: str
    note: bool = False


@dataclass
class Grounding:
    """What :func:`ground` found: ``documents`` and ``notes`` to cite (labels, first-seen order), the
    answer's ``claims``, the ``missing`` ones (in no passage) and the note/document ``conflicts``
    (one line each). ``reason`` says why the answer must be withheld, or is ``""``."""

    documents: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    claims: list[Claim] = field(default_factory=list)
    missing: list[Claim] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)

    @property
    def reason(self) -> str:
        if self.missing:
            return "no retrieved passage states " + ", ".join(repr(c.text) for c in self.missing)
        if self.conflicts:
            return "it rests on a note a policy document contradicts: " + "; ".join(self.conflicts)
        if not self.documents and not self.notes:
            return "no retrieved passage supports it"
        return ""


def _by_source(passages: Sequence[Passage]) -> dict[tuple[str, bool], str]:
    joined: dict[tuple[str, bool], list[str]] = {}
    for p in passages:
        joined.setdefault((p.source, p.note), []).append(p.text)
    return {key: "\n".join(texts) for key, texts in joined.items()}


def ground(answer: str, question: str, passages: Sequence[Passage]) -> Grounding:
    """Decide citations and withholding for ``answer`` (see the module docstring)."""
    sources = _by_source(passages)
    claims = extract_claims(answer)
    if not claims:
        cited = set(grounded_sources(answer, question, [(s, t) for (s, _), t in sources.items()]))
        return Grounding(
            [s for s, note in sources if s in cited and not note], [s for s, note in sources if s in cited and note]
        )
    states = {key: supported_claims(claims, text) for key, text in sources.items()}
    by_documents = {c for (s, note), found in states.items() if not note for c in found}
    documents = [s for (s, note), found in states.items() if not note and found]
    notes = [s for (s, note), found in states.items() if note and set(found) - by_documents]
    stated = by_documents | {c for (s, note), found in states.items() if s in notes for c in found}
    conflicts = [
        f"{label} says {n.text}, {doc} says {d.text}"
        for label in notes
        for (doc, is_note), text in sources.items()
        if not is_note
        for n, d in quantity_conflicts(sources[(label, True)], text, STOPWORDS)
    ]
    return Grounding(documents, notes, claims, [c for c in claims if c not in stated], conflicts)
