"""AyaSupervisor: reads the English request, routes it to one tool, emits exactly one reply.

Tools: ``query`` (:class:`~aya_lab.agents.query.AyaQuery`), ``summarize`` (a summarizer variant over
the room history), ``remember`` (:class:`AyaRemember`: add a fact to the knowledge base) and ``chat``
(:class:`AyaChat`: a short direct answer). Routing is an :class:`~aya_lab.agents.routing.LLMRouter` with the
keyword fallback; :class:`~aya_lab.agents.routing.RoutingChain` loops router -> tool -> observation until the
finish tool (step limit ``max_steps``). Whatever happens, one final text leaves :meth:`handle`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from aya_lab.agents.query import AyaQuery
from aya_lab.agents.routing import LLMRouter, RoutingChain
from aya_lab.agents.summarizer import make_summarizer
from aya_lab.messages import ChatMessage
from aya_lab.prompts import load_prompt

__all__ = ["AyaSupervisor", "AyaChat", "AyaRemember", "SupervisorResult"]


class AyaChat:
    def __init__(self, model: Any, prompt: str = "chat/baseline") -> None:
        self.model, self.prompt = model, load_prompt(prompt)

    def __call__(self, request: str) -> str:
        (result,) = self.model.generate_texts([self.prompt.render(request=request)])
        return result.text.strip().split("\n\n")[0] or "Happy to help."


_REMEMBER = re.compile(r"^\s*(please\s+)?(remember|note|keep in mind|store|save)( that| this)?[:,]?\s*", re.I)


class AyaRemember:
    """Stores the fact in the knowledge base (the request minus its 'remember that' lead-in)."""

    def __init__(self, kb: Any, author: str | None = None) -> None:
        self.kb, self.author = kb, author

    def __call__(self, request: str) -> str:
        fact = _REMEMBER.sub("", request).strip() or request.strip()
        self.kb.add_fact(fact, author=self.author)
        return f"Noted: {fact}"


@dataclass
class SupervisorResult:
    reply: str
    tool: str | None
    steps: list[dict[str, Any]] = field(default_factory=list)
    details: dict[str, Any] = field(default_factory=dict)


class AyaSupervisor:
    def __init__(
        self,
        model: Any,
        kb: Any,
        *,
        router_prompt: str = "supervisor/baseline",
        summarizer: str = "two_call",
        query_k: int = 3,
        max_steps: int = 3,
    ) -> None:
        self.model, self.kb = model, kb
        self.router = LLMRouter(model, load_prompt(router_prompt))
        self.summarizer = make_summarizer(summarizer, model)
        self.query = AyaQuery(model, kb, k=query_k)
        self.chat = AyaChat(model)
        self.max_steps = max_steps

    def handle(self, request_en: str, history: Sequence[ChatMessage], author: str | None = None) -> SupervisorResult:
        details: dict[str, Any] = {}

        def summarize(text: str) -> str:
            result = self.summarizer.summarize(text, history)
            details["summary"] = result
            return result.text

        def query(text: str) -> str:
            answer = self.query.answer(text)
            details["query"] = answer
            return answer.text

        tools = {"query": query, "summarize": summarize, "remember": AyaRemember(self.kb, author), "chat": self.chat}
        result = RoutingChain(self.router, tools, self.max_steps).run(request_en)
        return SupervisorResult(result.output, result.tool, result.steps, details)
