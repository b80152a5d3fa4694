"""AyaQuery: answers policy questions from the knowledge base, by quoting the handbook (the room's default) or with
the model's draft, citing only the sources that state the facts the answer states.

**Quoting** (``answers="quote"``): the request as written, in any language, is searched
against the handbook's sections with the multilingual encoder (:mod:`aya_lab.rag.sections`); when its best
section stands out (in scope) the reply quotes the one to three sentences of it closest to the question, with
where they stand: ``From travel_policy.md, "Flights": "Economy class for flights under 6 hours."``. A question
written in English must also pass the English index's relevance threshold. When the handbook does not cover the
question but a colleague's note does, the reply quotes the note, labelled unverified; otherwise "I don't know".
No model is called: the words are the handbook's. Chosen over the model's drafts by measurement (docs/ROOM.md,
"Answers that quote"). A knowledge base with no sections (opened without reading its documents) is answered
with drafts.

**Quoting through the glossary** (``answers="glossary"``): as quoting, but a question in French, German,
Spanish or Swahili is searched together with the English handbook terms its words name
(:mod:`aya_lab.rag.glossary`), and such a glossed search is in scope at its own measured margin,
``glossed_margin`` (:mod:`aya_lab.rag.margins`; an English question, or one the glossary names no term of, is
searched as written, at ``min_margin``).

**Quoting, in scope by labelled questions** (``answers="neighbours"``): as quoting, but the question is in scope
when the questions most like it among those a person labelled are all in scope
(:meth:`~aya_lab.rag.scope.ScopePool.covers`), instead of by the section's margin; an English question must still
pass the English index's threshold. The pool is ``scope_pool`` (default the development question sets,
:data:`~aya_lab.rag.scope.POOL_FILES`, labelled for ``data/kb``); a knowledge base with other documents than the
pool's handbook is in scope by the margin, as with ``quote``.

**Quoting the section the labelled questions vote for** (``answers="voted"``): as ``neighbours``, and the section
quoted is the index's best after the pool's gold sections vote (:meth:`~aya_lab.rag.scope.ScopePool.rerank`;
a pool of another handbook neither decides scope nor votes). The room's default (``aya.yaml``).

**Drafts** (``answers="draft"``): the model answers from the retrieved passages, as below.

Retrieval keeps chunks above the knowledge base's relevance threshold; when none is left the answer
is a fixed "I don't know" (no model call: a small model would invent a policy). Policy passages and
notes from colleagues (remembered facts) reach the model in separate, tagged blocks; notes are
labelled with their author and date, marked unverified, and rank below a document of equal relevance.

The agent, not the model, appends the sources line. Before that, code checks the draft
(:mod:`aya_lab.agents.grounding`): prompt tags it echoes are stripped; every number, date, time and
named entity it states must be in a shown passage, and only the passages that state them are cited
(without such facts, the sources it shares words with: :mod:`aya_lab.agents.citations`); a note that a
shown document contradicts is never cited. A draft that fails is withheld (``unsupported="withhold"``,
the default: the reply is :data:`~aya_lab.agents.reply_checks.WITHHELD_ANSWER`, the draft and the reason
go to the run report), or delivered with "(no source supports this answer)" (``unsupported="flag"``, for
studying the model's drafts).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from aya_lab.agents.citations import NO_SOURCE, note_label, rank_for_answer, sources_line, strip_fixed
from aya_lab.agents.grounding import Passage, ground
from aya_lab.agents.protocols import KnowledgeBaseLike, TextModel
from aya_lab.agents.reply_checks import WITHHELD_ANSWER, leaked_tags, strip_tags
from aya_lab.agents.translator import is_english
from aya_lab.errors import InputError
from aya_lab.prompts import PromptFile, load_prompt
from aya_lab.rag.glossary import default_glossary, question_language
from aya_lab.rag.index import Retrieved
from aya_lab.rag.margins import scope_margins
from aya_lab.rag.scope import ScopePool
from aya_lab.rag.sections import Quote, SectionIndex, SectionMatch
from aya_lab.spotlight import delimiter_tags

__all__ = ["ANSWER_MODES", "AnswerMode", "AyaQuery", "QueryAnswer", "IDK"]

IDK = "I don't know: the knowledge base has nothing on this."
ANSWER_MODES = ("quote", "glossary", "neighbours", "voted", "draft")
AnswerMode = Literal["quote", "glossary", "neighbours", "voted", "draft"]


@dataclass
class QueryAnswer:
    text: str  # the reply, sources line included
    answer: str  # the model's answer alone
    sources: list[str] = field(default_factory=list)  # what the sources line cites (documents, then notes)
    scores: list[float] = field(default_factory=list)  # the scores of the passages shown to the model
    retrieved: list[str] = field(default_factory=list)  # every source shown to the model
    withheld: bool = False  # the draft failed the checks, so the reply is WITHHELD_ANSWER
    reason: str = ""  # why the draft failed (aya_lab.agents.grounding.Grounding.reason), or ""
    missing: list[str] = field(default_factory=list)  # the draft's facts that no shown passage states
    leaked: list[str] = field(default_factory=list)  # prompt tags the draft echoed (stripped)
    quote: Quote | None = None  # what the reply quotes (answers="quote"), else None
    ranked_first: tuple[str, str] | None = None  # answers="quote": (document, heading) ranked first, quoted or not
    margin: float | None = None  # answers="quote": the scope rule's margin (best section score less the median)

    @property
    def note(self) -> str | None:
        """For the run report: the withheld draft and why, the prompt tags stripped from a delivered one, or None."""
        if self.withheld:
            return f"query: answer withheld, {self.reason}: {self.answer[:160]!r}"
        return f"query: prompt tags stripped from the draft: {sorted(set(self.leaked))}" if self.leaked else None


class AyaQuery:
    def __init__(
        self,
        model: TextModel | None,
        kb: KnowledgeBaseLike,
        prompt: str | PromptFile = "query/baseline",
        k: int = 3,
        min_score: float | None = None,
        unsupported: Literal["withhold", "flag"] = "withhold",
        answers: AnswerMode = "draft",
        scope_pool: ScopePool | None = None,
    ) -> None:
        if unsupported not in ("withhold", "flag"):
            raise InputError(f"unsupported={unsupported!r}: use 'withhold' or 'flag'")
        if answers not in ANSWER_MODES:
            raise InputError(
                f"answers={answers!r}: use 'quote' (quote the handbook), 'glossary' (quote, reading the question "
                "through the term glossary), 'neighbours' (quote, in scope by labelled questions), 'voted' (as "
                "neighbours, their gold sections voting for the section) or 'draft' (the model's answer)"
            )
        self.model, self.kb, self.k, self.min_score = model, kb, k, min_score
        self.answers: AnswerMode = answers
        self.scope_pool = scope_pool
        self.unsupported = unsupported
        self.prompt = load_prompt(prompt) if isinstance(prompt, str) else prompt

    def _labels(self, hits: list[Retrieved]) -> dict[int, str]:
        """Position -> "note from AUTHOR, DATE" for the notes among ``hits`` (the date: the fact's, by text)."""
        if not any(h.kind == "fact" for h in hits):
            return {}
        dated = {f.text: f.created_at for f in self.kb.facts()}
        return {i: note_label(h.author, dated.get(h.text)) for i, h in enumerate(hits) if h.kind == "fact"}

    def answer(self, question: str, original: str | None = None) -> QueryAnswer:
        """The answer to ``question`` (English, or as written); ``original``: the request as written when
        ``question`` is its translation (quoting searches what was written)."""
        sections = self.kb.sections() if self.answers != "draft" else []
        if sections:
            return self._quote(question, original, SectionIndex.shared(sections))
        return self._draft(question)

    def _quote(self, question: str, original: str | None, index: SectionIndex) -> QueryAnswer:
        written = original or question
        texts = [written]
        if self.answers == "glossary":
            lang = question_language(written)
            terms = default_glossary().english_terms(written, lang) if lang else None
            texts += [terms] if terms else []
        matches = index.search(texts, k=self.k if self.answers != "voted" else len(index.sections))
        if self.answers == "voted" and self._pool_labels(index):
            matches = self._pool().rerank(matches, written)
        matches = matches[: self.k]
        scores, retrieved = [m.score for m in matches], list(dict.fromkeys(m.section.source for m in matches))
        top, margin = (matches[0].section.source, matches[0].section.heading), matches[0].margin
        found: list[Retrieved] | None = None  # the English index's passages: asked for only where they decide
        if self._in_scope(index, matches, texts):
            if original is None and is_english(question):  # an English question must pass the English index too
                found = self._found(question)
            if found is None or any(h.kind != "fact" for h in found):
                quote = index.quote(matches[0], texts)
                text = " ".join(quote.sentences)
                return QueryAnswer(
                    quote.text, text, [quote.source], scores, retrieved, quote=quote, ranked_first=top, margin=margin
                )
        notes = [h for h in (found if found is not None else self._found(question)) if h.kind == "fact"]
        if notes:
            label = self._labels(notes)[0]
            text = f'{label[0].upper()}{label[1:]} (unverified): "{notes[0].text}"'
            return QueryAnswer(
                text, notes[0].text, [f"{label}, unverified"], scores, retrieved, ranked_first=top, margin=margin
            )
        return QueryAnswer(IDK, IDK, [], scores, retrieved, ranked_first=top, margin=margin)

    def _found(self, question: str) -> list[Retrieved]:
        """The English index's passages for ``question`` above the relevance threshold, ranked for an answer."""
        return rank_for_answer(self.kb.relevant(question, k=2 * self.k, min_score=self.min_score), self.k)

    def _in_scope(self, index: SectionIndex, matches: list[SectionMatch], texts: list[str]) -> bool:
        """The scope rule of the answer mode: the labelled questions' (``neighbours``, ``voted``) or the section
        margin's."""
        if self.answers in ("neighbours", "voted") and self._pool_labels(index):
            return bool(matches) and self._pool().covers(texts[0])
        margins = scope_margins()
        return index.in_scope(matches, margins.glossed_margin if len(texts) > 1 else margins.min_margin)

    def _pool(self) -> ScopePool:
        self.scope_pool = self.scope_pool or ScopePool.shared()
        return self.scope_pool

    def _pool_labels(self, index: SectionIndex) -> bool:
        """Whether the scope pool's labels are of ``index``'s handbook (labels of another say nothing of it)."""
        return self._pool().labels(index.key)

    def _draft(self, question: str) -> QueryAnswer:
        if self.model is None:
            raise InputError("the query agent needs a model for its drafts: pass one, or answers='quote'")
        found = self.kb.relevant(question, k=2 * self.k, min_score=self.min_score)
        hits = rank_for_answer(found, self.k)
        if not hits:
            return QueryAnswer(IDK, IDK)
        labels = self._labels(hits)
        passages = "\n".join(f"[{h.source}] {h.text}" for i, h in enumerate(hits) if i not in labels)
        notes = "\n".join(f"[{labels[i]}] {h.text}" for i, h in enumerate(hits) if i in labels)
        conversation = self.prompt.render(passages=passages or "(none)", notes=notes or "(none)", question=question)
        (result,) = self.model.generate_texts([conversation])
        draft = strip_fixed(result.text.strip().split("\n\n")[0])  # the sources line is the agent's
        tags = delimiter_tags(self.prompt.system or "", self.prompt.user)
        leaked = leaked_tags(draft, tags)
        answer = strip_tags(draft, tags)
        shown = [Passage(labels.get(i, h.source), h.text, i in labels) for i, h in enumerate(hits)]
        scores, retrieved = [h.score for h in hits], list(dict.fromkeys(p.source for p in shown))
        if not draft or answer == IDK:
            return QueryAnswer(IDK, IDK, [], scores, retrieved, leaked=leaked)
        if not answer and self.unsupported == "withhold":  # the model wrote prompt tags and nothing else
            reason = "the draft is only prompt tags"
            return QueryAnswer(WITHHELD_ANSWER, draft, [], scores, retrieved, True, reason, [], leaked)
        answer = answer or draft  # tags alone, kept as written when flagged
        grounding = ground(answer, question, shown)
        missing = [c.text for c in grounding.missing]
        if grounding.reason and self.unsupported == "withhold":
            return QueryAnswer(WITHHELD_ANSWER, answer, [], scores, retrieved, True, grounding.reason, missing, leaked)
        if grounding.reason:
            return QueryAnswer(f"{answer} {NO_SOURCE}", answer, [], scores, retrieved, False, "", missing, leaked)
        text = f"{answer} {sources_line(grounding.documents, grounding.notes)}"
        cited = grounding.documents + grounding.notes
        return QueryAnswer(text, answer, cited, scores, retrieved, False, "", missing, leaked)

    def __call__(self, question: str) -> str:
        return self.answer(question).text
