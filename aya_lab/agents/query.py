"""AyaQuery: answers policy questions from the knowledge base, citing only the sources the answer uses.

Retrieval keeps chunks above the knowledge base's relevance threshold; when none is left the answer
is a fixed "I don't know" (no model call: a small model would invent a policy). Policy passages and
notes from colleagues (remembered facts) reach the model in separate, tagged blocks; notes are
labelled with their author and date, marked unverified, and rank below a document of equal relevance.
The agent, not the model, appends the sources line, citing only the sources the answer shares words
with (:mod:`aya_lab.agents.citations`). An answer no source supports is withheld
(``unsupported="withhold"``, the default: the reply is
:data:`~aya_lab.agents.reply_checks.WITHHELD_ANSWER` and the draft goes to the run report), or delivered
with "(no source supports this answer)" (``unsupported="flag"``, for studying the model's drafts).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from aya_lab.agents.citations import grounded_sources, note_label, rank_for_answer, sources_line, strip_fixed
from aya_lab.agents.protocols import KnowledgeBaseLike, TextModel
from aya_lab.agents.reply_checks import WITHHELD_ANSWER
from aya_lab.errors import InputError
from aya_lab.prompts import PromptFile, load_prompt
from aya_lab.rag.index import Retrieved

__all__ = ["AyaQuery", "QueryAnswer", "IDK"]

IDK = "I don't know: the knowledge base has nothing on this."


@dataclass
class QueryAnswer:
    text: str  # the reply, sources line included
    answer: str  # the model's answer alone
    sources: list[str] = field(default_factory=list)  # what the sources line cites (documents, then notes)
    scores: list[float] = field(default_factory=list)  # the scores of the passages shown to the model
    retrieved: list[str] = field(default_factory=list)  # every source shown to the model
    withheld: bool = False  # no source supported the model's answer, so the reply is WITHHELD_ANSWER

    @property
    def note(self) -> str | None:
        """For the run report: the withheld draft, or None."""
        return (
            f"query: answer withheld, no retrieved passage supports it: {self.answer[:120]!r}"
            if self.withheld
            else None
        )


class AyaQuery:
    def __init__(
        self,
        model: TextModel,
        kb: KnowledgeBaseLike,
        prompt: str | PromptFile = "query/baseline",
        k: int = 3,
        min_score: float | None = None,
        unsupported: Literal["withhold", "flag"] = "withhold",
    ) -> None:
        if unsupported not in ("withhold", "flag"):
            raise InputError(f"unsupported={unsupported!r}: use 'withhold' or 'flag'")
        self.model, self.kb, self.k, self.min_score = model, kb, k, min_score
        self.unsupported = unsupported
        self.prompt = load_prompt(prompt) if isinstance(prompt, str) else prompt

    def _labels(self, hits: list[Retrieved]) -> dict[int, str]:
        """Position -> "note from AUTHOR, DATE" for the notes among ``hits`` (the date: the fact's, by text)."""
        if not any(h.kind == "fact" for h in hits):
            return {}
        dated = {f.text: f.created_at for f in self.kb.facts()}
        return {i: note_label(h.author, dated.get(h.text)) for i, h in enumerate(hits) if h.kind == "fact"}

    def answer(self, question: str) -> QueryAnswer:
        found = self.kb.relevant(question, k=2 * self.k, min_score=self.min_score)
        hits = rank_for_answer(found, self.k)
        if not hits:
            return QueryAnswer(IDK, IDK)
        labels = self._labels(hits)
        passages = "\n".join(f"[{h.source}] {h.text}" for i, h in enumerate(hits) if i not in labels)
        notes = "\n".join(f"[{labels[i]}] {h.text}" for i, h in enumerate(hits) if i in labels)
        conversation = self.prompt.render(passages=passages or "(none)", notes=notes or "(none)", question=question)
        (result,) = self.model.generate_texts([conversation])
        answer = strip_fixed(result.text.strip().split("\n\n")[0]) or IDK  # the sources line is the agent's
        named = [(labels.get(i, h.source), h.text) for i, h in enumerate(hits)]
        cited = grounded_sources(answer, question, named)
        documents = [s for s in cited if s not in labels.values()]
        note_labels = [s for s in cited if s in labels.values()]
        retrieved = list(dict.fromkeys(s for s, _ in named))
        scores = [h.score for h in hits]
        if not cited and answer != IDK and self.unsupported == "withhold":
            return QueryAnswer(WITHHELD_ANSWER, answer, [], scores, retrieved, withheld=True)
        text = f"{answer} {sources_line(documents, note_labels)}"
        return QueryAnswer(text, answer, documents + note_labels, scores, retrieved)

    def __call__(self, question: str) -> str:
        return self.answer(question).text
