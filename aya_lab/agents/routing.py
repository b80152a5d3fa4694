"""Routing chains: a router reads the chained input and picks the next tool until the finish tool.

Seed: LangChain's routing-chain design, implemented as designed in :mod:`aya_lab.agents.routing_chain`
(``Router.route(text: str) -> RouterOutput(tool, tool_input, log)``, ``ToolConfig``, ``ChainedInput``,
``RoutingChain``) and re-exported here; :mod:`~aya_lab.agents.routing_steps` is the typed layer above it
(the :class:`RoutingTranscript` each ``route`` receives is the design's chained string and also carries the
typed steps); :mod:`~aya_lab.agents.routing_errors` holds its errors. This module adds the routers Aya
uses, on :class:`TranscriptRouter` (a design router with the design's prefixes as defaults, reading the
typed transcript).

Routers here work with local models that have no tool calling. :class:`KeywordRouter` decides from
multilingual keywords (one step, then finish); :class:`LLMRouter` asks a model and parses
``Action: tool`` / ``Action Input: ...`` or a one-word completion label — an unparseable answer
falls back to the keyword router, and ``RouterOutput.fallback`` says so (``RouterOutput.explicit``
says the model named the tool; Aya's :class:`~aya_lab.agents.authority.AuthorityRouter` lets a write
tool run only on an explicit choice or command, so the keyword fallback never writes). Both finish with the first
observation (each of Aya's tools produces a complete answer); the router that re-decides after each
observation is :class:`~aya_lab.agents.multi_intent.ReDecidingRouter`. Called directly with a plain
string (outside a chain), a typed router reads it as the request.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence

from aya_lab.agents.keywords import keyword_match, parse_action, parse_tool_choice
from aya_lab.agents.protocols import TextModel
from aya_lab.agents.routing_chain import ChainedInput, Router, RouterOutput, RoutingChain, ToolConfig
from aya_lab.agents.routing_errors import (
    RouterOutputError,
    RouterTimeoutError,
    RoutingError,
    StepLimitError,
    ToolOutputError,
    UnknownToolError,
)
from aya_lab.agents.routing_steps import APOLOGY, FINISH, RoutingResult, RoutingTranscript, Step, as_transcript
from aya_lab.models.result import GenerationResult
from aya_lab.prompts import PromptFile

__all__ = [
    "FINISH",
    "APOLOGY",
    "RouterOutput",
    "Router",
    "ToolConfig",
    "ChainedInput",
    "RoutingChain",
    "Step",
    "RoutingTranscript",
    "RoutingResult",
    "as_transcript",
    "TranscriptRouter",
    "KeywordRouter",
    "LLMRouter",
    "RoutingError",
    "RouterOutputError",
    "UnknownToolError",
    "ToolOutputError",
    "StepLimitError",
    "RouterTimeoutError",
    "parse_action",
    "parse_tool_choice",
]


class TranscriptRouter(Router):
    """A :class:`Router` of the typed layer: the design's prefixes as defaults (plain attributes a
    subclass or an instance may set), a ``tools`` tuple the chain checks against its tools, and
    :meth:`finish`. Its ``route`` reads ``transcript.input``, ``.steps`` and ``.observations``
    (:func:`as_transcript` turns a plain string into a transcript holding only that request).

    Contract: :meth:`route` returns a :class:`RouterOutput` naming one of :attr:`tools` or
    :attr:`finish_tool_name`; with the finish tool, ``tool_input`` is the final answer.
    """

    tools: Sequence[str] = ()
    finish_tool_name: str = FINISH  # type: ignore[assignment]
    observation_prefix: str = "Observation: "  # type: ignore[assignment]
    router_prefix: str = "Router: "  # type: ignore[assignment]
    starter_string: str = "\n"  # type: ignore[assignment]

    def finish(self, answer: str, log: str = "finish with the tool's answer") -> RouterOutput:
        return RouterOutput(self.finish_tool_name, answer, log)


class KeywordRouter(TranscriptRouter):
    """Rule-based router: multilingual keywords, first rule that matches wins; default ``chat``.

    ``original`` is the request as its author wrote it, when the routed text is its translation: a
    text with no keyword is matched again on the original, so "Reiserichtlinie" still reaches
    ``query`` when the translation lost the word. One step, then finish with the observation.
    """

    tools = ("query", "summarize", "remember", "chat")

    def __init__(self, original: str | None = None) -> None:
        self.original = original

    def reading(self, original: str | None) -> KeywordRouter:
        """This router also matching ``original`` (a copy: this one is unchanged); itself when there is none."""
        if not original:
            return self
        twin = copy.copy(self)
        twin.original = original
        return twin

    def route(self, transcript: str) -> RouterOutput:
        t = as_transcript(transcript, self)
        if t.steps:
            return self.finish(t.observations[-1] if t.observations else APOLOGY)
        return self.choose(t.input)

    def choose(self, text: str) -> RouterOutput:
        """The tool for ``text`` by its keywords (then by the original's, when there is one)."""
        match = keyword_match(text)
        if match is not None:
            tool, word, _ = match
            return RouterOutput(tool, text, f"keyword {word!r} -> {tool}")
        match = keyword_match(self.original) if self.original else None
        if match is not None:
            tool, word, _ = match
            return RouterOutput(tool, text, f"keyword {word!r} in the original request -> {tool}")
        return RouterOutput("chat", text, "no keyword matched -> chat")


class LLMRouter(TranscriptRouter):
    """Asks a model which tool (prompt from ``prompts/supervisor/<variant>``); one step, then finish.

    The answer may be ``Action: tool`` / ``Action Input: ...`` (the input replaces the request) or a
    completion-format label (``query``, ``Summarize.``...); anything else falls back to ``fallback``
    (default :class:`KeywordRouter`) with ``RouterOutput.fallback`` set; a keyword fallback also matches
    the request as written (``RoutingTranscript.original``, or ``originals`` in :meth:`route_many`), on a copy:
    ``fallback`` itself is never changed.
    """

    def __init__(
        self,
        model: TextModel,
        prompt: PromptFile,
        tools: Sequence[str] = ("query", "summarize", "remember", "chat"),
        fallback: KeywordRouter | None = None,
    ) -> None:
        self.model, self.prompt, self.tools = model, prompt, tuple(tools)
        self.fallback = fallback or KeywordRouter()

    def route(self, transcript: str) -> RouterOutput:
        t = as_transcript(transcript, self)
        if t.steps:
            return self.finish(t.observations[-1] if t.observations else APOLOGY)
        return self.choose(t.input, t.original)

    def choose(self, text: str, original: str | None = None) -> RouterOutput:
        """One model call: the tool for ``text`` (``original``: see :meth:`route_many`)."""
        return self.route_many([text], [original])[0][0]

    def route_many(
        self, texts: Sequence[str], originals: Sequence[str | None] | None = None
    ) -> list[tuple[RouterOutput, GenerationResult]]:
        """First decisions for many texts with one batch of model calls: ``[(decision, generation)]``.

        ``originals[i]`` is ``texts[i]`` as its author wrote it (``None``: the text is the original), for
        the keyword fallback (:class:`KeywordRouter`); the model sees ``texts`` only."""
        results = self.model.generate_texts([self.prompt.render(request=t) for t in texts])
        originals = list(originals) if originals is not None else [None] * len(texts)
        return [(self.decide(t, r.text, o), r) for t, r, o in zip(texts, results, originals, strict=True)]

    def decide(self, text: str, answer: str, original: str | None = None) -> RouterOutput:
        """The decision for the model's ``answer`` to ``text``: the tool it names, or the fallback's
        (a keyword fallback also reading ``original``, the request as written, when given)."""
        action = parse_action(answer, self.tools, self.finish_tool_name)
        if action is not None and action[0] in self.tools:
            tool, given = action
            return RouterOutput(tool, given or text, f"model answered {answer[:60]!r} -> {tool}", explicit=True)
        choice = parse_tool_choice(answer, self.tools)
        if choice is not None:
            # a label is explicit when it opens the answer (an echo of the request that merely contains
            # "Tool: remember" somewhere is not the model's choice of a write)
            first = parse_tool_choice(" ".join(answer.split()[:1]), self.tools)
            return RouterOutput(choice, text, f"model answered {answer[:60]!r} -> {choice}", explicit=first == choice)
        fallback = self.fallback.reading(original) if isinstance(self.fallback, KeywordRouter) else self.fallback
        decision = fallback.choose(text)
        return RouterOutput(
            decision.tool,
            text,
            f"unparseable router answer {answer[:60]!r}; fallback {type(self.fallback).__name__}: {decision.log}",
            fallback=True,
        )
