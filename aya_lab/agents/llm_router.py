"""An LLM router that loops as the routing-chain design says: the model reads the whole chained input.

:class:`LoopRouter` is a :class:`~aya_lab.agents.routing_chain.Router`: at every step ``route(text)``
receives the chained string the :class:`~aya_lab.agents.routing_chain.RoutingChain` built — the
request, ``"\\n" + router_prefix``, then per step its own earlier decision (the log),
``"\\nObservation: "``, the observation and ``"\\nDecision:"`` — renders it into the
``router_loop/baseline`` prompt (chat template) and parses the model's answer **strictly**, in one
format (:func:`parse_decision`)::

    Action: <query|summarize|remember|chat>
    Action Input: <text>

or ``Final Answer: <text>``. Only an answer echoing the router prefix first (``Decision: Action: ...``)
or running on into an observation of its own (the design's stop string ``"\\nObservation"``, cut as a
stop sequence would) is tolerated; anything else is a parse failure, and the stated fallback decides
that step: the keyword router (:class:`~aya_lab.agents.routing.KeywordRouter`, reading the request as
written too) chooses the first tool; after an observation, the fallback finishes. Each step's
:class:`RouterOutput` says who decided (``fallback``; the log names the router, the step and the
unparseable answer), and the model's own decisions are ``explicit`` (a write tool may run on them:
:mod:`aya_lab.agents.authority`).

Simplified, and why: the reply is composed from the observations (each of Aya's tools answers a part
of the request, checked by its own agent), not taken from the model's ``Final Answer`` text, which is
kept in the log — a 135M router model writing the delivered answer would deliver invented text. A
``remember`` whose input points back ("the action items", "that") stores what it points at in the last
observation (:func:`~aya_lab.agents.multi_intent.resolve_reference`). A
``Final Answer`` before any tool ran routes the request to ``chat`` (whose reply checks apply). The
number of steps is bounded by the chain's ``max_steps``; a hung model call by its ``route_timeout``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from aya_lab.agents.multi_intent import Intent, compose_reply, resolve_reference
from aya_lab.agents.protocols import TextModel
from aya_lab.agents.routing import KeywordRouter, RouterOutput, RoutingTranscript, TranscriptRouter, as_transcript
from aya_lab.prompts import PromptFile, fit_prompt

__all__ = ["LOOP_PROMPT", "Decision", "LoopRouter", "parse_decision"]

LOOP_PROMPT = "router_loop/baseline"
_ACTION = re.compile(r"Action:[ \t]*(?P<tool>[^\n]*?)[ \t]*\nAction Input:[ \t]*(?P<input>[^\n]*?)[ \t]*")
_FINAL = re.compile(r"Final Answer:[ \t]*(?P<answer>.*?)\s*", re.S)


@dataclass(frozen=True)
class Decision:
    """A parsed answer: ``tool`` (a tool name or the finish tool) and ``text`` (its input or the
    answer); or, when the answer does not parse, ``tool`` is ``None`` and ``error`` says why."""

    tool: str | None
    text: str = ""
    error: str = ""


def parse_decision(
    answer: str, tools: Sequence[str], finish: str = "Final Answer", prefix: str = "Decision:"
) -> Decision:
    """The decision in ``answer``, strictly: ``Action: TOOL`` then ``Action Input: TEXT`` (TOOL one of
    ``tools``, TEXT not empty), or ``Final Answer: TEXT``, and nothing else. Tolerated: surrounding
    whitespace, ``prefix`` echoed at the start, and whatever follows a line starting ``Observation``
    (the design's stop string)."""
    text = answer.split("\nObservation", 1)[0].strip()
    text = text[len(prefix) :].strip() if prefix and text.startswith(prefix) else text
    if not text:
        return Decision(None, error="empty answer")
    final = _FINAL.fullmatch(text)
    if final is not None:
        return Decision(finish, final.group("answer"))
    action = _ACTION.fullmatch(text)
    if action is None:
        return Decision(None, error="not 'Action: TOOL' + 'Action Input: TEXT' or 'Final Answer: TEXT'")
    tool, given = action.group("tool"), action.group("input")
    if tool not in tools:
        return Decision(None, error=f"unknown tool {tool[:30]!r} (tools: {', '.join(tools)})")
    if not given:
        return Decision(None, error=f"empty Action Input for {tool}")
    return Decision(tool, given)


class LoopRouter(TranscriptRouter):
    """Asks ``model`` for the next decision at every step, reading the whole chained input (see the module).

    ``fallback`` (default :class:`KeywordRouter`) decides a step whose answer does not parse.
    ``decisions`` counts this router's model calls and parse failures (``calls``, ``failures``).
    """

    observation_prefix = "Observation: "
    router_prefix = "Decision:"

    def __init__(
        self,
        model: TextModel,
        prompt: str | PromptFile = LOOP_PROMPT,
        tools: Sequence[str] = ("query", "summarize", "remember", "chat"),
        fallback: KeywordRouter | None = None,
    ) -> None:
        self.model, self.prompt, self.tools = model, fit_prompt(prompt, model), tuple(tools)
        self.fallback = fallback or KeywordRouter()
        self.calls = self.failures = 0

    def route(self, text: str) -> RouterOutput:
        """The next decision for the chained input ``text`` (one model call)."""
        t = as_transcript(text, self)
        (result,) = self.model.generate_texts([self.prompt.render(transcript=str(t))])
        self.calls += 1
        return self.decide(t, result.text)

    def decide(self, text: str, answer: str) -> RouterOutput:
        """The step's :class:`RouterOutput` for the model's ``answer`` to the chained input ``text``."""
        t = as_transcript(text, self)
        step = len(t.steps) + 1
        d = parse_decision(answer, self.tools, self.finish_tool_name, self.router_prefix)
        if d.tool == self.finish_tool_name and t.steps:
            return RouterOutput(d.tool, compose_reply(t.observations), f" Final Answer: {d.text}", explicit=True)
        if d.tool == self.finish_tool_name:
            log = f" Action: chat\nAction Input: {t.input}"  # finished before any tool: chat answers, checked
            return RouterOutput("chat", t.input, log)
        if d.tool is not None:
            given = resolve_reference(Intent(d.tool, d.text), t.observations)  # "remember the action items"
            return RouterOutput(d.tool, given, f" Action: {d.tool}\nAction Input: {d.text}", explicit=True)
        self.failures += 1
        return self._fallback(t, step, answer, d.error)

    def _fallback(self, t: RoutingTranscript, step: int, answer: str, error: str) -> RouterOutput:
        why = f"step {step}: router {type(self).__name__}: unparseable answer {answer[:60]!r} ({error})"
        if t.steps:
            return RouterOutput(
                self.finish_tool_name,
                compose_reply(t.observations),
                f" Final Answer: ({why}; fallback finishes)",
                fallback=True,
            )
        fallback = self.fallback.reading(t.original)
        chosen = fallback.choose(t.input)
        log = f" Action: {chosen.tool}\nAction Input: {chosen.tool_input}\n({why}; fallback {type(fallback).__name__}: {chosen.log})"
        return RouterOutput(chosen.tool, chosen.tool_input, log, fallback=True)
