"""Routing: a router picks a tool for a text; a routing chain runs tools until the finish tool.

Seed: LangChain's routing-chain design. ``Router.route(text, observations) -> RouterOutput(tool,
tool_input, log)``; :class:`RoutingChain` calls the router, runs the chosen tool, appends the
observation and loops until the router returns the finish tool, or the step limit is hit (then the last
observation, or a fixed apology, becomes the final answer). It works with local models that have no
tool calling: :class:`LLMRouter` asks for a one-word answer and parses it; an unparseable answer falls
back to :class:`KeywordRouter` and the fallback is recorded in the log.

Simplification: a router that has seen one observation finishes with it (Aya's tools each produce a
complete answer), so a normal run is router -> tool -> finish, one model call for routing.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "FINISH",
    "RouterOutput",
    "Router",
    "KeywordRouter",
    "LLMRouter",
    "RoutingChain",
    "RoutingResult",
    "parse_tool_choice",
]

FINISH = "finish"


@dataclass(frozen=True)
class RouterOutput:
    """The router's decision: which tool, with what input, and a log line saying why."""

    tool: str
    tool_input: str
    log: str = ""
    fallback: bool = False  # the model's answer could not be parsed; the fallback router decided


@dataclass
class RoutingResult:
    """What a routing chain produced: the final answer and every step taken."""

    output: str
    steps: list[dict[str, Any]] = field(default_factory=list)
    tool: str | None = None  # the (first) tool that ran
    stopped_by_limit: bool = False


class Router:
    """Base class: decide the next tool for ``text`` given the observations so far."""

    tools: Sequence[str] = ()

    def route(self, text: str, observations: Sequence[str] = ()) -> RouterOutput:
        """Finish with the last observation once a tool has run; otherwise :meth:`choose` a tool."""
        if observations:
            return RouterOutput(FINISH, observations[-1], "finish with the tool's answer")
        return self.choose(text)

    def choose(self, text: str) -> RouterOutput:  # pragma: no cover - abstract
        """The tool for ``text`` when nothing has run yet."""
        raise NotImplementedError


# Keywords in several languages; matched on accent-folded, lowercased text.
_KEYWORDS: list[tuple[str, tuple[str, ...]]] = [
    (
        "summarize",
        (
            "summar",
            "recap",
            "resum",
            "zusammenfass",
            "fasse",
            "tl;dr",
            "action item",
            "muhtasari",
            "总结",
            "概括",
            "摘要",
            "what did i miss",
            "catch me up",
        ),
    ),
    (
        "remember",
        (
            "remember",
            "note that",
            "keep in mind",
            "store",
            "save this",
            "souviens",
            "retiens",
            "note que",
            "merk",
            "erinner",
            "recuerda",
            "anota",
            "kumbuka",
            "记住",
        ),
    ),
    (
        "query",
        (
            "policy",
            "policies",
            "allowance",
            "per diem",
            "per-diem",
            "reimburs",
            "expense",
            "travel",
            "leave",
            "vacation",
            "holiday",
            "laptop",
            "password",
            "vpn",
            "security",
            "remote",
            "how many days",
            "politique",
            "politik",
            "richtlinie",
            "urlaub",
            "reise",
            "politica",
            "viaje",
            "vacaciones",
            "gastos",
            "sera",
            "likizo",
            "safari",
            "政策",
            "报销",
            "休假",
            "差旅",
        ),
    ),
]


def _fold(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text.lower())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


class KeywordRouter(Router):
    """Rule-based router: multilingual keywords, first rule that matches wins; default ``chat``."""

    tools = ("query", "summarize", "remember", "chat")

    def choose(self, text: str) -> RouterOutput:
        folded = _fold(text)
        for tool, words in _KEYWORDS:
            for word in words:
                if _fold(word) in folded:
                    return RouterOutput(tool, text, f"keyword {word!r} -> {tool}")
        return RouterOutput("chat", text, "no keyword matched -> chat")


_SYNONYMS = {
    "query": "query",
    "question": "query",
    "rag": "query",
    "policy": "query",
    "search": "query",
    "summarize": "summarize",
    "summarise": "summarize",
    "summary": "summarize",
    "summarization": "summarize",
    "remember": "remember",
    "memory": "remember",
    "store": "remember",
    "note": "remember",
    "chat": "chat",
    "smalltalk": "chat",
    "greeting": "chat",
}


def parse_tool_choice(answer: str, tools: Sequence[str]) -> str | None:
    """The tool named first in a model's answer (synonyms accepted), or ``None`` when there is none."""
    for word in re.findall(r"[a-z]+", answer.lower()):
        tool = _SYNONYMS.get(word, word)
        if tool in tools:
            return tool
    return None


class LLMRouter(Router):
    """Asks a chat model for a one-word tool name (prompt from ``prompts/supervisor/<variant>``)."""

    def __init__(
        self,
        model: Any,
        prompt: Any,
        tools: Sequence[str] = ("query", "summarize", "remember", "chat"),
        fallback: Router | None = None,
    ) -> None:
        self.model, self.prompt, self.tools = model, prompt, tuple(tools)
        self.fallback = fallback or KeywordRouter()

    def choose(self, text: str) -> RouterOutput:
        return self.route_many([text])[0][0]

    def route_many(self, texts: Sequence[str]) -> list[tuple[RouterOutput, Any]]:
        """Route many texts with one batch of model calls: ``[(decision, generation result)]``."""
        results = self.model.generate_texts([self.prompt.render(request=t) for t in texts])
        return [(self.decide(t, r.text), r) for t, r in zip(texts, results, strict=True)]

    def decide(self, text: str, answer: str) -> RouterOutput:
        """The decision for the model's ``answer`` to ``text``: the tool it names, or the fallback's."""
        tool = parse_tool_choice(answer, self.tools)
        if tool is not None:
            return RouterOutput(tool, text, f"model answered {answer[:60]!r} -> {tool}")
        decision = self.fallback.choose(text)
        return RouterOutput(
            decision.tool,
            text,
            f"unparseable router answer {answer[:60]!r}; fallback {type(self.fallback).__name__}: {decision.log}",
            fallback=True,
        )


class RoutingChain:
    """Router -> tool -> observation, looping until the finish tool or ``max_steps`` tool runs."""

    def __init__(self, router: Router, tools: dict[str, Callable[[str], str]], max_steps: int = 3) -> None:
        unknown = set(getattr(router, "tools", ())) - set(tools)
        if unknown:
            raise ValueError(f"router can choose {sorted(unknown)} but no such tool was given; tools: {sorted(tools)}")
        self.router, self.tools, self.max_steps = router, tools, max_steps

    def run(self, text: str) -> RoutingResult:
        observations: list[str] = []
        result = RoutingResult(output="")
        for _ in range(self.max_steps + 1):
            decision = self.router.route(text, observations)
            result.steps.append({"tool": decision.tool, "input": decision.tool_input, "log": decision.log})
            if decision.tool == FINISH:
                result.output = decision.tool_input
                return result
            if len(observations) >= self.max_steps:
                break
            if decision.tool not in self.tools:
                observations.append(f"unknown tool {decision.tool!r}")
                continue
            result.tool = result.tool or decision.tool
            observation = self.tools[decision.tool](decision.tool_input)
            result.steps[-1]["observation"] = observation
            observations.append(observation)
        result.stopped_by_limit = True
        result.output = observations[-1] if observations else "Sorry, I could not complete that request."
        return result
