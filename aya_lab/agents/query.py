"""AyaQuery: answers policy questions from the knowledge base, naming the source documents.

Retrieval keeps chunks above the knowledge base's relevance threshold; when none is left the answer
is a fixed "I don't know" (no model call: a small model would invent a policy). The model answers from
the retrieved passages; the agent, not the model, appends the sources, so they are always the
documents actually retrieved.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from aya_lab.agents.protocols import KnowledgeBaseLike, TextModel
from aya_lab.prompts import PromptFile, load_prompt

__all__ = ["AyaQuery", "QueryAnswer", "IDK"]

IDK = "I don't know: the knowledge base has nothing on this."


@dataclass
class QueryAnswer:
    text: str  # the reply, sources included
    answer: str  # the model's answer alone
    sources: list[str] = field(default_factory=list)
    scores: list[float] = field(default_factory=list)


class AyaQuery:
    def __init__(
        self,
        model: TextModel,
        kb: KnowledgeBaseLike,
        prompt: str | PromptFile = "query/baseline",
        k: int = 3,
        min_score: float | None = None,
    ) -> None:
        self.model, self.kb, self.k, self.min_score = model, kb, k, min_score
        self.prompt = load_prompt(prompt) if isinstance(prompt, str) else prompt

    def answer(self, question: str) -> QueryAnswer:
        hits = self.kb.relevant(question, k=self.k, min_score=self.min_score)
        if not hits:
            return QueryAnswer(IDK, IDK)
        passages = "\n".join(f"[{h.source}] {h.text}" for h in hits)
        (result,) = self.model.generate_texts([self.prompt.render(passages=passages, question=question)])
        sources = list(dict.fromkeys(h.source for h in hits))
        answer = result.text.strip().split("\n\n")[0] or IDK
        return QueryAnswer(f"{answer} (sources: {', '.join(sources)})", answer, sources, [h.score for h in hits])

    def __call__(self, question: str) -> str:
        return self.answer(question).text
