"""Routing chains as LangChain's early design wrote them, in one module.

The design (LangChain's ``routing_chains``: ``router.py``, ``routing_chain.py`` and ``input.py``):

- :class:`RouterOutput` is a ``NamedTuple`` ``(tool, tool_input, log)``;
- a :class:`Router` answers ``route(text: str) -> RouterOutput`` and names its ``observation_prefix``
  and ``router_prefix`` (abstract); ``finish_tool_name`` is ``"Final Answer"``, ``starter_string`` ``"\\n"``;
- :class:`ToolConfig` ``(tool_name, tool)`` names a ``str -> str`` tool;
- :class:`ChainedInput` accumulates the text handed to the router (printed in colour when verbose);
- :class:`RoutingChain` ``(tools=, router=, verbose=, input_key="question", output_key="answer")`` starts
  the chained string as ``input + starter_string + router_prefix`` and loops: route, add the log; on
  the finish tool return ``tool_input``; else run the tool (an unknown one is a ``KeyError``) and add
  ``"\\n" + observation_prefix``, the observation and ``"\\n" + router_prefix``.

What this module adds, and why: a step limit (``max_steps``: a router that never finishes would loop
forever); an optional ``route_timeout`` (a hung model call inside ``route``); one located error for
every bad input (:class:`RoutingError` and its subclasses, each naming the router or tool and the step);
and a LangChain ``Runnable`` face (``invoke``, ``batch``, ``stream`` of :class:`Step`). The typed layer
above the design: each string the chain hands a router is a :class:`RoutingTranscript` — a ``str`` equal
to the design's chained input, which also carries the request and the typed steps so far, for routers
that would rather read those than parse the text (:class:`~aya_lab.agents.router.TranscriptRouter`).
``RouterOutput`` may carry two flags (``fallback``, ``explicit``) that the tuple itself does not hold, so
it still unpacks into three.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, NamedTuple, Protocol

from langchain_core.runnables import Runnable, RunnableConfig, RunnableLambda, RunnableSerializable
from langchain_core.runnables.config import ensure_config, patch_config
from langchain_core.utils.input import get_color_mapping, print_text
from pydantic import ConfigDict

from aya_lab.agents.routing_errors import (
    RouterOutputError,
    RouterTimeoutError,
    StepLimitError,
    ToolOutputError,
    UnknownToolError,
    call_with_timeout,
    note_step,
)
from aya_lab.agents.routing_steps import (
    APOLOGY,
    FINISH,
    RoutingInput,
    RoutingOutput,
    RoutingResult,
    RoutingTranscript,
    Step,
)

__all__ = ["RouterOutput", "Router", "ToolConfig", "ChainedInput", "RoutingChain", "NamedTool", "Tools"]


class _Decision(NamedTuple):
    tool: str
    tool_input: str
    log: str


class RouterOutput(_Decision):
    """Output of a router: ``(tool, tool_input, log)``, a ``NamedTuple`` as in the design.

    ``fallback`` (a fallback router decided: the model's answer was unparseable) and ``explicit`` (the
    tool was named outright, which a write tool needs: :mod:`aya_lab.agents.authority`) are attributes
    beside the tuple, so ``tool, tool_input, log = output`` still works.
    """

    fallback: bool
    explicit: bool

    def __new__(
        cls, tool: str, tool_input: str, log: str = "", fallback: bool = False, explicit: bool = False
    ) -> RouterOutput:
        self = super().__new__(cls, tool, tool_input, log)
        self.fallback, self.explicit = fallback, explicit
        return self

    def _asdict(self) -> dict[str, str | bool]:  # type: ignore[override]
        """The fields and the flags: LangGraph's checkpointer rebuilds a namedtuple from this, so a
        checkpointed decision keeps ``fallback`` and ``explicit``."""
        return {**super()._asdict(), "fallback": self.fallback, "explicit": self.explicit}

    def __eq__(self, other: object) -> bool:
        flags = (getattr(other, "fallback", False), getattr(other, "explicit", False))
        return tuple.__eq__(self, other) is True and flags == (self.fallback, self.explicit)

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __hash__(self) -> int:
        return hash((tuple(self), self.fallback, self.explicit))

    def __repr__(self) -> str:
        flags = "".join(f", {k}=True" for k in ("fallback", "explicit") if getattr(self, k))
        return f"RouterOutput(tool={self.tool!r}, tool_input={self.tool_input!r}, log={self.log!r}{flags})"


class Router(ABC):
    """Decides which tool to use next from the chained input (the design's contract).

    ``route`` receives the chained string: the request, ``starter_string``, ``router_prefix``, then per
    step the router's ``log``, ``"\\n" + observation_prefix``, the observation and ``"\\n" + router_prefix``.
    It returns a :class:`RouterOutput` naming a tool, or ``finish_tool_name`` with the final answer.
    """

    @abstractmethod
    def route(self, text: str) -> RouterOutput:
        """Given the chained input, decide how to route it."""

    @property
    @abstractmethod
    def observation_prefix(self) -> str:
        """Prefix to append the observation with."""

    @property
    @abstractmethod
    def router_prefix(self) -> str:
        """Prefix to append the router call with."""

    @property
    def finish_tool_name(self) -> str:
        """Name of the tool that finishes the chain."""
        return FINISH

    @property
    def starter_string(self) -> str:
        """Put after the user's input, before the first router call."""
        return "\n"


class ToolConfig(NamedTuple):
    """A tool of a routing chain: its name and a ``str -> str`` callable (or a Runnable); a description."""

    tool_name: str
    tool: Callable[[str], str] | Runnable
    description: str = ""

    @property
    def name(self) -> str:
        return self.tool_name

    def as_runnable(self) -> Runnable:
        return self.tool if isinstance(self.tool, Runnable) else RunnableLambda(self.tool, name=self.tool_name)


class ChainedInput:
    """The input a chain accumulates; printed as it grows, in colour, when ``verbose``."""

    def __init__(self, text: str, verbose: bool = False) -> None:
        self.verbose = verbose
        if verbose:
            print_text(text, None)
        self._input = text

    def add(self, text: str, color: str | None = None) -> None:
        """Add ``text`` to the input (and print it in ``color`` when verbose)."""
        if self.verbose:
            print_text(text, color)
        self._input += text

    @property
    def input(self) -> str:
        return self._input


class NamedTool(Protocol):
    """The design's later ``Tool(name, func)``: a named ``str -> str`` function (``description`` optional)."""

    name: str
    func: Callable[[str], str]


Tools = Mapping[str, Callable[[str], str] | Runnable | ToolConfig] | Iterable[ToolConfig | NamedTool | Runnable]
"""A chain's tools: ToolConfigs, a ``{name: tool}`` mapping, named tools, or Runnables with a name."""


def _tool_configs(tools: Tools | None) -> tuple[ToolConfig, ...]:
    """ToolConfigs from a list of them, a ``{name: tool}`` mapping, or tools with ``.name`` and ``.func``."""
    if isinstance(tools, Mapping):
        return tuple(ToolConfig(n, t.tool if isinstance(t, ToolConfig) else t) for n, t in tools.items())
    out = []
    for t in tools or ():
        name, about, func = getattr(t, "name", None), getattr(t, "description", "") or "", getattr(t, "func", None)
        if isinstance(t, ToolConfig):
            out.append(t)
        elif isinstance(name, str) and callable(func):  # the design's later Tool(name, func)
            out.append(ToolConfig(name, func, about))
        elif isinstance(t, Runnable) and isinstance(name, str):
            out.append(ToolConfig(name, t, about))
        else:
            raise TypeError(f"a tool is a ToolConfig(tool_name, tool), a {{name: tool}} mapping entry; got {t!r:.80}")
    return tuple(out)


class RoutingChain(RunnableSerializable[Any, Any]):
    """The design's routing loop with a step limit, as a LangChain ``Runnable`` (see the module docstring).

    ``RoutingChain(tools=[ToolConfig(...)], router=..., verbose=True)`` as in the design (``tool_configs=``
    is the design's other spelling; ``RoutingChain(router, tools, max_steps)`` positionally too; ``tools``
    may also be a ``{name: tool}`` mapping). Calling it the design's way — ``chain({"question": q})`` or
    ``chain.run(q)`` — returns only the answer (``{"answer": ...}`` / the string); reaching ``max_steps``
    there raises :class:`~aya_lab.agents.routing_errors.StepLimitError`. ``invoke(q)`` returns the typed
    :class:`~aya_lab.agents.routing_steps.RoutingResult`, where the step limit finishes with the last
    observation and sets ``stopped_by_limit``; ``invoke({input_key: q})`` returns ``{input_key, output_key}``;
    ``stream`` yields each :class:`Step`, the finish step last.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    router: Router
    tools: tuple[ToolConfig, ...] = ()
    verbose: bool = False
    input_key: str = "question"
    output_key: str = "answer"
    max_steps: int = 10
    route_timeout: float | None = None
    return_intermediate_steps: bool = True

    def __init__(
        self,
        router: Router | None = None,
        tools: Tools | None = None,
        max_steps: int = 10,
        *,
        tool_configs: Tools | None = None,
        **kwargs: object,
    ) -> None:
        configs = _tool_configs(tool_configs if tools is None else tools)
        if not isinstance(router, Router):
            raise TypeError(f"router must be a Router (route, observation_prefix, router_prefix); got {router!r:.80}")
        names = [t.tool_name for t in configs]
        unknown = set(getattr(router, "tools", None) or ()) - set(names)
        if unknown:
            raise ValueError(f"router can choose {sorted(unknown)} but no such tool was given; tools: {sorted(names)}")
        if max_steps < 1:
            raise ValueError(f"max_steps must be >= 1; got {max_steps}")
        super().__init__(router=router, tools=configs, max_steps=max_steps, **kwargs)

    @property
    def tool_configs(self) -> tuple[ToolConfig, ...]:
        """The design's name for :attr:`tools`."""
        return self.tools

    @property
    def input_keys(self) -> list[str]:
        return [self.input_key]

    @property
    def output_keys(self) -> list[str]:
        return [self.output_key]

    # -- the design's ways of calling a chain -------------------------------------------------------
    def __call__(self, inputs: RoutingInput) -> dict[str, str]:
        """``{input_key: question}`` (or the question) -> ``{input_key: question, output_key: answer}``."""
        question = self._question(inputs)
        return {self.input_key: question, self.output_key: self._answer(question, None)}

    def run(self, text: str) -> str:
        """Text in, the final answer out."""
        return self._answer(self._question(text), None)

    def result(self, text: str, original: str | None = None) -> RoutingResult:
        """The typed :class:`RoutingResult` for ``text`` (at the step limit: finished, flagged);
        ``original``: ``text`` as its author wrote it, when ``text`` is its translation (``RoutingTranscript.original``)."""
        return self._collect(self._steps(text, None, original))

    # -- Runnable ----------------------------------------------------------------------------------------
    def invoke(self, input: RoutingInput, config: RunnableConfig | None = None, **kwargs: object) -> RoutingOutput:
        return self._call_with_config(self._invoke, input, config, run_type="chain")

    def stream(self, input: RoutingInput, config: RunnableConfig | None = None, **kwargs: object) -> Iterator[Step]:
        yield from self._steps(self._question(input), ensure_config(config))

    def _invoke(self, input: Any, run_manager: Any, config: RunnableConfig) -> Any:
        child = patch_config(config, callbacks=run_manager.get_child())
        question = self._question(input)
        if isinstance(input, Mapping) and self.input_key in input:
            return {self.input_key: question, self.output_key: self._answer(question, child)}
        if not self.return_intermediate_steps:
            return self._answer(question, child)
        return self._collect(self._steps(question, child))

    def _question(self, input: Any) -> str:
        if isinstance(input, Mapping):
            key = self.input_key if self.input_key in input else "input"  # "input": the typed layer's form
            if key not in input:
                raise KeyError(f"routing chain input has no {self.input_key!r} key; got keys {sorted(input)}")
            input = input[key]
        if not isinstance(input, str):
            raise TypeError(
                f"a routing chain takes a request string or {{{self.input_key!r}: str}}; got {type(input).__name__}"
            )
        return input

    def _answer(self, question: str, config: RunnableConfig | None) -> str:
        result = self._collect(self._steps(question, config))
        if result.stopped_by_limit:
            raise StepLimitError(
                f"router {type(self.router).__name__} did not finish within max_steps={self.max_steps} tool runs "
                f"(ran: {', '.join(result.tools)}); make it finish with {self.router.finish_tool_name!r}, "
                "or raise max_steps"
            )
        return result.output

    @staticmethod
    def _collect(steps: Iterator[Step]) -> RoutingResult:
        done = list(steps)
        return RoutingResult(done[-1].output.tool_input, done, done[-1].stopped_by_limit)

    # -- the loop ------------------------------------------------------------------------------------------
    def _route(self, transcript: RoutingTranscript, step: int) -> RouterOutput:
        router = self.router
        where = f"step {step}: router {type(router).__name__}"
        try:
            if self.route_timeout is None:
                output = router.route(transcript)
            else:
                output = call_with_timeout(router.route, transcript, self.route_timeout, where)
        except RouterTimeoutError:
            raise
        except Exception as exc:
            note_step(exc, f"{where}: route() raised this")
            raise  # the router's own exception type is kept (callers handle it)
        if not isinstance(output, RouterOutput):
            raise RouterOutputError(
                f"{where} returned {type(output).__name__} {output!r:.80}, not a RouterOutput; "
                "return RouterOutput(tool, tool_input, log)"
            )
        return output

    def _observe(self, output: RouterOutput, tools: dict[str, Runnable], step: int, config: Any) -> str:
        if output.tool not in tools:
            known = ", ".join(tools) or "none"
            raise UnknownToolError(
                f"step {step}: router {type(self.router).__name__} chose tool {output.tool!r}, which this chain "
                f"does not have; tools: {known} (or {self.router.finish_tool_name!r} to finish)"
            )
        try:
            observation = tools[output.tool].invoke(output.tool_input, config)
        except Exception as exc:
            note_step(exc, f"step {step}: tool {output.tool!r} raised this")
            raise  # the tool's own exception type is kept (callers handle it)
        if not isinstance(observation, str):
            raise ToolOutputError(
                f"step {step}: tool {output.tool!r} returned {type(observation).__name__} {observation!r:.60}, "
                "not a str; return the observation as text"
            )
        return observation

    def _steps(self, question: str, config: RunnableConfig | None, original: str | None = None) -> Iterator[Step]:
        router: Router = self.router
        tools = {t.tool_name: t.as_runnable() for t in self.tools}
        colors = get_color_mapping(list(tools), excluded_colors=["green"])
        chained = ChainedInput(question + router.starter_string + router.router_prefix, verbose=self.verbose)
        transcript = RoutingTranscript(chained.input, question, original=original)
        while True:
            output = self._route(transcript, len(transcript.steps) + 1)
            chained.add(output.log, color="green")
            if output.tool == router.finish_tool_name:
                yield Step(output)
                return
            if len(transcript.steps) >= self.max_steps:
                answer = transcript.observations[-1] if transcript.observations else APOLOGY
                log = f"step limit of {self.max_steps} tool runs reached; finish with the last observation"
                yield Step(RouterOutput(router.finish_tool_name, answer, log), stopped_by_limit=True)
                return
            observation = self._observe(output, tools, len(transcript.steps) + 1, config)
            chained.add(f"\n{router.observation_prefix}")
            chained.add(observation, color=colors[output.tool])
            chained.add(f"\n{router.router_prefix}")
            step = Step(output, observation)
            transcript = RoutingTranscript(chained.input, question, (*transcript.steps, step), original)
            yield step
