"""Routing chains: a router reads its own transcript and picks the next tool until the finish tool.

Seed: LangChain's routing-chain design. A :class:`Router` is handed a growing :class:`Transcript` —
the user's input, the router's ``starter_string``, then for each step the router's log, the
``observation_prefix``, the tool's observation and the ``router_prefix`` — and answers
``route(transcript) -> RouterOutput(tool, tool_input, log)``. A :class:`RoutingChain` is a router
plus a suite of named tools (:class:`ToolConfig`: name, runnable, description); it keeps the chained
transcript, runs the chosen tool, appends the observation and asks again, until the router names
``finish_tool_name`` ("Final Answer") or ``max_steps`` tools have run. It is a LangChain
``Runnable``: ``invoke`` returns a :class:`RoutingResult` (the final answer and the typed steps),
``batch`` runs many requests, ``stream`` yields each :class:`Step` as it happens.

Routers here work with local models that have no tool calling. :class:`KeywordRouter` decides from
multilingual keywords (one step, then finish); :class:`LLMRouter` asks a model and parses
``Action: tool`` / ``Action Input: ...`` or a one-word completion label — an unparseable answer
falls back to the keyword router, and ``RouterOutput.fallback`` says so (``RouterOutput.explicit``
says the model named the tool; Aya's :class:`~aya_lab.agents.authority.AuthorityRouter` lets a write
tool run only on an explicit choice or command, so the keyword fallback never writes). Both finish with the first
observation (each of Aya's tools produces a complete answer); the router that re-decides after each
observation is :class:`~aya_lab.agents.multi_intent.ReDecidingRouter`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_core.runnables import Runnable, RunnableConfig, RunnableLambda, RunnableSerializable
from langchain_core.runnables.config import ensure_config, patch_config
from pydantic import ConfigDict

from aya_lab.agents.keywords import keyword_match, parse_action, parse_tool_choice
from aya_lab.agents.protocols import TextModel
from aya_lab.models.result import GenerationResult
from aya_lab.prompts import PromptFile

__all__ = [
    "FINISH",
    "APOLOGY",
    "RouterOutput",
    "Step",
    "Transcript",
    "Router",
    "KeywordRouter",
    "LLMRouter",
    "ToolConfig",
    "RoutingChain",
    "RoutingResult",
    "parse_action",
    "parse_tool_choice",
]

FINISH = "Final Answer"
"""The default finish tool's name (``Router.finish_tool_name``)."""
APOLOGY = "Sorry, I could not complete that request."


@dataclass(frozen=True)
class RouterOutput:
    """The router's decision: which tool, with what input, and a log line saying why.

    ``fallback`` is true when the model's answer could not be parsed and a fallback router decided;
    ``explicit`` when the tool was named outright — by the model's parsed answer or an explicit command —
    which a write tool needs (see :mod:`aya_lab.agents.authority`).
    """

    tool: str
    tool_input: str
    log: str = ""
    fallback: bool = False
    explicit: bool = False


@dataclass(frozen=True)
class Step:
    """One step of a routing chain: the router's decision and the tool's observation.

    The last step of a run is the finish step (``observation`` is ``None``); ``stopped_by_limit``
    marks a finish the chain forced because ``max_steps`` tools had run.
    """

    output: RouterOutput
    observation: str | None = None
    stopped_by_limit: bool = False

    @property
    def is_finish(self) -> bool:
        return self.observation is None


@dataclass(frozen=True)
class Transcript:
    """The chained transcript a router reads: ``text`` as the design writes it, and the typed steps."""

    input: str
    text: str
    steps: tuple[Step, ...] = ()

    @classmethod
    def start(cls, text: str, router: Router) -> Transcript:
        return cls(text, f"{text}{router.starter_string}")

    def add(self, step: Step, router: Router) -> Transcript:
        """The transcript after ``step``: its log, the observation prefix, the observation, the router prefix."""
        chained = f"{self.text}{step.output.log}\n{router.observation_prefix}{step.observation}\n{router.router_prefix}"
        return Transcript(self.input, chained, (*self.steps, step))

    @property
    def observations(self) -> list[str]:
        return [s.observation for s in self.steps if s.observation is not None]


def as_transcript(transcript: Transcript | str, router: Router) -> Transcript:
    """A plain string is a transcript that holds only the user's input."""
    return transcript if isinstance(transcript, Transcript) else Transcript.start(transcript, router)


class Router(ABC):
    """Decides the next tool from the transcript so far (see the module docstring).

    Contract: :meth:`route` returns a :class:`RouterOutput` naming one of :attr:`tools` or
    :attr:`finish_tool_name`; with the finish tool, ``tool_input`` is the final answer.
    """

    tools: Sequence[str] = ()
    finish_tool_name: str = FINISH
    observation_prefix: str = "Observation: "
    router_prefix: str = "Router: "
    starter_string: str = "\n"

    @abstractmethod
    def route(self, transcript: Transcript | str) -> RouterOutput:
        """The next decision for ``transcript`` (a string is a transcript with no steps yet)."""

    def finish(self, answer: str, log: str = "finish with the tool's answer") -> RouterOutput:
        return RouterOutput(self.finish_tool_name, answer, log)


class KeywordRouter(Router):
    """Rule-based router: multilingual keywords, first rule that matches wins; default ``chat``.

    ``original`` is the request as its author wrote it, when the routed text is its translation: a
    text with no keyword is matched again on the original, so "Reiserichtlinie" still reaches
    ``query`` when the translation lost the word. One step, then finish with the observation.
    """

    tools = ("query", "summarize", "remember", "chat")

    def __init__(self, original: str | None = None) -> None:
        self.original = original

    def route(self, transcript: Transcript | str) -> RouterOutput:
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


class LLMRouter(Router):
    """Asks a model which tool (prompt from ``prompts/supervisor/<variant>``); one step, then finish.

    The answer may be ``Action: tool`` / ``Action Input: ...`` (the input replaces the request) or a
    completion-format label (``query``, ``Summarize.``...); anything else falls back to ``fallback``
    (default :class:`KeywordRouter`) with ``RouterOutput.fallback`` set.
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

    def route(self, transcript: Transcript | str) -> RouterOutput:
        t = as_transcript(transcript, self)
        if t.steps:
            return self.finish(t.observations[-1] if t.observations else APOLOGY)
        return self.choose(t.input)

    def choose(self, text: str) -> RouterOutput:
        """One model call: the tool for ``text``."""
        return self.route_many([text])[0][0]

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
        fallback = KeywordRouter(original) if original and isinstance(self.fallback, KeywordRouter) else self.fallback
        decision = fallback.choose(text)
        return RouterOutput(
            decision.tool,
            text,
            f"unparseable router answer {answer[:60]!r}; fallback {type(self.fallback).__name__}: {decision.log}",
            fallback=True,
        )


@dataclass(frozen=True)
class ToolConfig:
    """A named tool of a routing chain: a runnable (or a ``str -> str`` function) and what it does."""

    name: str
    runnable: Runnable | Callable[[str], str]
    description: str = ""

    def as_runnable(self) -> Runnable:
        return self.runnable if isinstance(self.runnable, Runnable) else RunnableLambda(self.runnable, name=self.name)


@dataclass
class RoutingResult:
    """What a routing chain produced: the final answer and every step (tool steps, then the finish)."""

    output: str
    steps: list[Step] = field(default_factory=list)
    stopped_by_limit: bool = False

    @property
    def intermediate_steps(self) -> list[tuple[RouterOutput, str]]:
        """``(RouterOutput, observation)`` for each tool that ran, in order."""
        return [(s.output, s.observation) for s in self.steps if s.observation is not None]

    @property
    def tools(self) -> list[str]:
        """The tools that ran, in order."""
        return [out.tool for out, _ in self.intermediate_steps]

    @property
    def tool(self) -> str | None:
        """The first tool that ran (``None`` when none did)."""
        return self.tools[0] if self.tools else None

    @property
    def fallback(self) -> bool:
        """Whether any decision came from the fallback router (the model's answer was unparseable)."""
        return any(s.output.fallback for s in self.steps)


def _tool_configs(tools: Mapping[str, Any] | Sequence[ToolConfig]) -> tuple[ToolConfig, ...]:
    if isinstance(tools, Mapping):
        return tuple(t if isinstance(t, ToolConfig) else ToolConfig(n, t) for n, t in tools.items())
    return tuple(tools)


class RoutingChain(RunnableSerializable[Any, Any]):
    """Router -> tool -> observation, looping until the finish tool or ``max_steps`` tool runs.

    ``RoutingChain(router, tools, max_steps=3)``; ``tools`` is a list of :class:`ToolConfig` or a
    ``{name: runnable-or-function}`` mapping. Input: the request (a string, or ``{"input": ...}``).
    ``invoke`` returns a :class:`RoutingResult`, or only the final answer when
    ``return_intermediate_steps=False``. ``stream`` yields each :class:`Step`, the finish step last.
    At the step limit the last observation (or a fixed apology) becomes the final answer.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    router: Any
    tool_configs: tuple[ToolConfig, ...]
    max_steps: int = 3
    return_intermediate_steps: bool = True

    def __init__(
        self, router: Router, tools: Mapping[str, Any] | Sequence[ToolConfig], max_steps: int = 3, **kwargs: Any
    ) -> None:
        configs = _tool_configs(tools)
        names = [t.name for t in configs]
        unknown = set(getattr(router, "tools", ())) - set(names)
        if unknown:
            raise ValueError(f"router can choose {sorted(unknown)} but no such tool was given; tools: {sorted(names)}")
        if max_steps < 1:
            raise ValueError(f"max_steps must be >= 1; got {max_steps}")
        super().__init__(router=router, tool_configs=configs, max_steps=max_steps, **kwargs)

    @property
    def tools(self) -> dict[str, Runnable]:
        """Tool name -> runnable."""
        return {t.name: t.as_runnable() for t in self.tool_configs}

    def invoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        return self._call_with_config(self._invoke, input, config, run_type="chain")

    def run(self, text: str) -> RoutingResult:
        """``invoke`` that always returns the :class:`RoutingResult`."""
        return self._collect(self._steps(text, None))

    def stream(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Iterator[Step]:
        yield from self._steps(_text(input), ensure_config(config))

    def _invoke(self, input: Any, run_manager: Any, config: RunnableConfig) -> Any:
        child = patch_config(config, callbacks=run_manager.get_child())
        result = self._collect(self._steps(_text(input), child))
        return result if self.return_intermediate_steps else result.output

    @staticmethod
    def _collect(steps: Iterator[Step]) -> RoutingResult:
        done = list(steps)
        final = done[-1]
        return RoutingResult(final.output.tool_input, done, final.stopped_by_limit)

    def _steps(self, text: str, config: RunnableConfig | None) -> Iterator[Step]:
        router: Router = self.router
        tools = self.tools
        transcript = Transcript.start(text, router)
        while True:
            decision = router.route(transcript)
            if decision.tool == router.finish_tool_name:
                yield Step(decision)
                return
            if len(transcript.steps) >= self.max_steps:
                answer = transcript.observations[-1] if transcript.observations else APOLOGY
                log = f"step limit of {self.max_steps} tool runs reached; finish with the last observation"
                yield Step(RouterOutput(router.finish_tool_name, answer, log), stopped_by_limit=True)
                return
            if decision.tool in tools:
                observation = str(tools[decision.tool].invoke(decision.tool_input, config))
            else:
                observation = f"unknown tool {decision.tool!r}; tools: {', '.join(tools)}"
            step = Step(decision, observation)
            transcript = transcript.add(step, router)
            yield step


def _text(input: Any) -> str:
    if isinstance(input, Mapping):
        input = input.get("input")
    if not isinstance(input, str):
        raise TypeError(f"a routing chain takes a request string or {{'input': str}}; got {type(input).__name__}")
    return input
