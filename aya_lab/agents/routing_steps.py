"""The typed layer above the routing-chain design: each step as data, the transcript a router is
handed, what a chain takes (:data:`RoutingInput`) and what it produced.

A :class:`RoutingTranscript` *is* the design's chained input — a ``str`` equal to ``input + starter_string +
router_prefix`` and, per step, ``log + "\\n" + observation_prefix + observation + "\\n" + router_prefix``
— so a router written from the design reads it as text; it also carries the request (``input``) and the
typed :class:`Step` list, for routers that would rather not parse the text.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

__all__ = [
    "FINISH",
    "APOLOGY",
    "DecisionLike",
    "ChainFormat",
    "Step",
    "RoutingTranscript",
    "RoutingResult",
    "RoutingInput",
    "RoutingOutput",
    "as_transcript",
]

FINISH = "Final Answer"
"""The finish tool's name (``Router.finish_tool_name``)."""
APOLOGY = "Sorry, I could not complete that request."


class DecisionLike(Protocol):
    """What a step holds of a router's decision; :class:`~aya_lab.agents.routing_chain.RouterOutput` is one.
    (The chain imports this module, so this module names the fields instead of importing the class.)"""

    @property
    def tool(self) -> str: ...
    @property
    def tool_input(self) -> str: ...
    @property
    def log(self) -> str: ...
    @property
    def fallback(self) -> bool: ...


class ChainFormat(Protocol):
    """The strings a router puts around the steps of the chained input; every
    :class:`~aya_lab.agents.routing_chain.Router` has them."""

    @property
    def starter_string(self) -> str: ...
    @property
    def router_prefix(self) -> str: ...
    @property
    def observation_prefix(self) -> str: ...


@dataclass(frozen=True)
class Step:
    """One step of a routing chain: the router's decision and the tool's observation.

    The last step of a run is the finish step (``observation`` is ``None``); ``stopped_by_limit``
    marks a finish the chain forced because ``max_steps`` tools had run.
    """

    output: DecisionLike
    observation: str | None = None
    stopped_by_limit: bool = False

    @property
    def is_finish(self) -> bool:
        return self.observation is None


class RoutingTranscript(str):
    """The chained input as the design builds it (this ``str``), with the request and the typed steps.

    ``original`` is the request as its author wrote it when ``input`` is its translation (``None``
    otherwise; :class:`~aya_lab.agents.route_input.RoutedInput`): a router's keyword fallback may
    match it too. It is not part of the chained string.
    """

    input: str
    steps: tuple[Step, ...]
    original: str | None

    def __new__(
        cls, text: str, input: str | None = None, steps: Sequence[Step] = (), original: str | None = None
    ) -> RoutingTranscript:
        self = super().__new__(cls, text)
        self.input = text if input is None else input
        self.steps = tuple(steps)
        self.original = original
        return self

    @classmethod
    def start(cls, text: str, router: ChainFormat, original: str | None = None) -> RoutingTranscript:
        """The first string a router reads: ``text + starter_string + router_prefix``."""
        return cls(f"{text}{router.starter_string}{router.router_prefix}", text, original=original)

    def add(self, step: Step, router: ChainFormat) -> RoutingTranscript:
        """The transcript after ``step``: its log, the observation prefix, the observation, the router prefix."""
        chained = f"{self}{step.output.log}\n{router.observation_prefix}{step.observation}\n{router.router_prefix}"
        return RoutingTranscript(chained, self.input, (*self.steps, step), self.original)

    @property
    def text(self) -> str:
        """The chained string as a plain ``str``."""
        return str(self)

    @property
    def observations(self) -> list[str]:
        return [s.observation for s in self.steps if s.observation is not None]


def as_transcript(transcript: str, router: ChainFormat) -> RoutingTranscript:
    """A plain string (a router called directly, outside a chain) is a transcript holding only that request."""
    return transcript if isinstance(transcript, RoutingTranscript) else RoutingTranscript.start(transcript, router)


@dataclass
class RoutingResult:
    """What a routing chain produced: the final answer and every step (tool steps, then the finish)."""

    output: str
    steps: list[Step] = field(default_factory=list)
    stopped_by_limit: bool = False

    @property
    def intermediate_steps(self) -> list[tuple[DecisionLike, str]]:
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


RoutingInput = str | Mapping[str, object]
"""What a routing chain takes: the request, or ``{input_key: request}`` (``{"input": request}`` too)."""
RoutingOutput = RoutingResult | dict[str, str] | str
"""What a chain's ``invoke`` gives: a :class:`RoutingResult`, ``{input_key, output_key}`` for a mapping input,
or the answer alone (``return_intermediate_steps=False``)."""
