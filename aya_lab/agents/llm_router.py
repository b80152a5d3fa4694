"""The model kinds of router, for local models without tool calling: one decision, or one every step.

:class:`LLMRouter` asks the model once (``prompts/supervisor/<variant>``, the request only) and parses
leniently: ``Action: tool`` / ``Action Input: ...`` (:func:`parse_action`; the input replaces the request)
or a one-word label (:func:`parse_tool_choice`); then it finishes with the observation.

:class:`LoopRouter` is the design's loop with the model in it: every step renders the whole chained input
(the request, ``"\nDecision:"``, then per step its own earlier decision, ``"\nObservation: "``, the
observation, ``"\nDecision:"``) into ``prompts/router_loop/<variant>`` and parses the answer **strictly**
(:func:`parse_decision`): ``Action: TOOL`` + ``Action Input: TEXT``, or ``Final Answer: TEXT``; only an
echoed ``Decision:`` and what follows a line starting ``Observation`` (the design's stop string) are
tolerated.

A decision the model named is ``explicit`` (a write needs that: :mod:`~aya_lab.agents.authority`). An
answer that does not parse is decided by the router's ``fallback`` (default
:class:`~aya_lab.agents.keywords.KeywordRouter`, also given the request as written) and marked
``fallback``, the log naming the fallback and the answer; after an observation the loop's fallback finishes.

Simplified, and why: the loop composes the reply from the observations (each of Aya's tools answers a part
of the request, checked by its own agent), not from the model's ``Final Answer`` text, kept in the log — a
135M router model writing the delivered answer would deliver invented text. A ``remember`` whose input
points back ("the action items") stores what it points at in the last observation
(:func:`~aya_lab.agents.multi_intent.resolve_reference`). A ``Final Answer`` before any tool ran routes the
request to ``chat`` (whose reply checks apply). The chain's ``max_steps`` bounds the loop; its
``route_timeout`` a hung model call.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from aya_lab.agents.keywords import KeywordRouter
from aya_lab.agents.multi_intent import Intent, compose_reply, resolve_reference
from aya_lab.agents.protocols import TextModel
from aya_lab.agents.router import ROUTER_TOOLS, TranscriptRouter
from aya_lab.agents.routing_chain import RouterOutput
from aya_lab.agents.routing_steps import RoutingTranscript, as_transcript
from aya_lab.models.result import GenerationResult
from aya_lab.prompts import PromptFile, fit_prompt

__all__ = [
    "LOOP_PROMPT",
    "Decision",
    "LLMRouter",
    "LoopRouter",
    "parse_action",
    "parse_decision",
    "parse_tool_choice",
]

LOOP_PROMPT = "router_loop/baseline"

_SYNONYMS = {
    **dict.fromkeys(("question", "rag", "policy", "search"), "query"),
    **dict.fromkeys(("summarise", "summary", "summarization"), "summarize"),
    **dict.fromkeys(("memory", "store", "note"), "remember"),
    **dict.fromkeys(("smalltalk", "greeting"), "chat"),
}
_LENIENT = re.compile(r"Action\s*:\s*(?P<tool>[^\n]*?)\s*(?:\n\s*Action\s*Input\s*:\s*(?P<input>.*))?\s*$", re.I | re.S)
_STRICT = re.compile(r"Action:[ \t]*(?P<tool>[^\n]*?)[ \t]*\nAction Input:[ \t]*(?P<input>[^\n]*?)[ \t]*")
_FINAL = re.compile(r"Final Answer:[ \t]*(?P<answer>.*?)\s*", re.S)


def parse_tool_choice(answer: str, tools: Sequence[str]) -> str | None:
    """The tool named first in a model's answer (synonyms accepted), or ``None`` when there is none."""
    for word in re.findall(r"[a-z]+", answer.lower()):
        tool = _SYNONYMS.get(word, word)
        if tool in tools:
            return tool
    return None


def parse_action(
    answer: str, tools: Sequence[str], finish_tool_name: str = "Final Answer"
) -> tuple[str, str | None] | None:
    """Parse the ReAct-style ``Action: tool`` / ``Action Input: ...`` answer of a model, leniently.

    Returns ``(tool, tool_input)`` (``tool_input`` is ``None`` when the answer gave none) for a tool in
    ``tools`` or the finish tool, or ``None`` when the answer has no ``Action:`` line naming one.
    """
    m = _LENIENT.search(answer)
    if m is None:
        return None
    named = m.group("tool").strip().strip("\"'`.")
    if named.lower() == finish_tool_name.lower():
        tool: str | None = finish_tool_name
    else:
        tool = parse_tool_choice(named, tools)
    if tool is None:
        return None
    given = m.group("input")
    return tool, (given.strip().strip('"') if given is not None and given.strip() else None)


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
    action = _STRICT.fullmatch(text)
    if action is None:
        return Decision(None, error="not 'Action: TOOL' + 'Action Input: TEXT' or 'Final Answer: TEXT'")
    tool, given = action.group("tool"), action.group("input")
    if tool not in tools:
        return Decision(None, error=f"unknown tool {tool[:30]!r} (tools: {', '.join(tools)})")
    if not given:
        return Decision(None, error=f"empty Action Input for {tool}")
    return Decision(tool, given)


class LLMRouter(TranscriptRouter):
    """Asks a model which tool, once (see the module); one step, then finish.

    An answer that names no tool is decided by ``fallback`` (default :class:`KeywordRouter`, given the
    request as written too: ``RoutingTranscript.original``, or ``originals`` in :meth:`route_many`).
    """

    def __init__(
        self,
        model: TextModel,
        prompt: PromptFile,
        tools: Sequence[str] = ROUTER_TOOLS,
        fallback: TranscriptRouter | None = None,
    ) -> None:
        self.model, self.prompt, self.tools = model, prompt, tuple(tools)
        self.fallback = fallback or KeywordRouter()

    def choose(self, text: str, original: str | None = None) -> RouterOutput:
        """One model call: the tool for ``text`` (``original``: see :meth:`route_many`)."""
        return self.route_many([text], [original])[0][0]

    def route_many(
        self, texts: Sequence[str], originals: Sequence[str | None] | None = None
    ) -> list[tuple[RouterOutput, GenerationResult]]:
        """First decisions for many texts with one batch of model calls: ``[(decision, generation)]``.

        ``originals[i]`` is ``texts[i]`` as its author wrote it (``None``: the text is the original), for
        the fallback; the model sees ``texts`` only."""
        results = self.model.generate_texts([self.prompt.render(request=t) for t in texts])
        originals = list(originals) if originals is not None else [None] * len(texts)
        return [(self.decide(t, r.text, o), r) for t, r, o in zip(texts, results, originals, strict=True)]

    def decide(self, text: str, answer: str, original: str | None = None) -> RouterOutput:
        """The decision for the model's ``answer`` to ``text``: the tool it names, or the fallback's
        (which also reads ``original``, the request as written, when given)."""
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
        decision = self.fallback.choose(text, original)
        return RouterOutput(
            decision.tool,
            text,
            f"unparseable router answer {answer[:60]!r}; fallback {type(self.fallback).__name__}: {decision.log}",
            fallback=True,
        )


class LoopRouter(TranscriptRouter):
    """Asks ``model`` for the next decision at every step, reading the whole chained input (see the module).

    ``fallback`` (default :class:`KeywordRouter`) decides a step whose answer does not parse.
    ``calls`` and ``failures`` count this router's model calls and parse failures.
    """

    observation_prefix = "Observation: "
    router_prefix = "Decision:"

    def __init__(
        self,
        model: TextModel,
        prompt: str | PromptFile = LOOP_PROMPT,
        tools: Sequence[str] = ROUTER_TOOLS,
        fallback: TranscriptRouter | None = None,
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
        chosen = self.fallback.choose(t.input, t.original)
        log = f" Action: {chosen.tool}\nAction Input: {chosen.tool_input}\n({why}; fallback {type(self.fallback).__name__}: {chosen.log})"
        return RouterOutput(chosen.tool, chosen.tool_input, log, fallback=True)
