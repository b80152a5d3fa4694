"""The Aya room graph's contract, typed: its state, its run context, and the one record of a routing step.

- :class:`AyaState` is the one source of the room graph's state: each field with its type and, as
  ``Annotated`` metadata, its reducer (the shape :func:`~aya_lab.graph.build_graph` gives a spec's state).
  The nodes are typed against it; the spec (``aya_lab/graphs/aya.yaml``, ``flow_parameter.state``) is
  data a researcher edits, and :func:`~aya_lab.room.room_graph.require_room_graph` checks it against
  this class when a room opens: a field missing, or declared with another type or reducer, is refused
  in one line naming the field and what to write. Aya's typed
  :class:`~aya_lab.agents.supervisor.SupervisorResult` travels in it as ``aya_result`` and is
  checkpointed with the run (:data:`CHECKPOINTED_TYPES`).
- :class:`AyaRuntime` is the run context: LangGraph's ``context`` (``graph.invoke(..., context=runtime)``;
  a node reads it as ``runtime.context``) holding what a run uses but does not checkpoint (the models,
  the knowledge base, the memory, the trace of node visits).
- :func:`step_record` is the one serializer of a routing step, for the checkpointed log and the run report.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated, TypedDict

from aya_lab.agents.memory import RoomMemory
from aya_lab.agents.protocols import KnowledgeBaseLike, TextModel
from aya_lab.agents.routing_steps import Step
from aya_lab.agents.supervisor import SupervisorResult
from aya_lab.graph.registry import append_list, merge_dict
from aya_lab.messages import ChatMessage, Delivery
from aya_lab.models.result import GenerationRecord

__all__ = [
    "CHECKPOINTED_TYPES",
    "AyaRuntime",
    "AyaState",
    "LogEntry",
    "NodeVisit",
    "StepRecord",
    "TracedGeneration",
    "step_record",
]


class StepRecord(TypedDict):
    """One routing step as plain data: the router's decision and the tool's observation (``None`` for
    the finish step)."""

    tool: str
    input: str
    log: str
    observation: str | None


class LogEntry(TypedDict, total=False):
    """One line of ``aya_log``: a routing step, or a note (``log``) with the summarizer's ``notes``."""

    tool: str
    input: str
    log: str
    observation: str | None
    notes: list[str]


def step_record(step: Step) -> StepRecord:
    """``step`` as plain data (the checkpointed ``aya_log`` and :attr:`RunReport.aya_steps` both use this)."""
    out = step.output
    return {"tool": out.tool, "input": out.tool_input, "log": out.log, "observation": step.observation}


class AyaState(TypedDict, total=False):
    """The Aya room graph's state, as the nodes read and write it; a room graph's spec declares each
    field with this type (its class: ``dict[str, str]`` is ``dict``, ``str | None`` is ``str``) and
    this reducer (none: the last value wins).

    ``users``, ``messages`` and ``deliveries`` accumulate over the room's life (reducers ``merge_dict``
    and ``append_list``); the ``aya_*`` fields are reset by ``ingest`` at the start of every run.
    """

    users: Annotated[dict[str, str], merge_dict]  # user id -> language (ISO 639-3)
    messages: Annotated[list[ChatMessage], append_list]  # every message, with its translations
    deliveries: Annotated[list[Delivery], append_list]  # every message as each user received it
    incoming: ChatMessage  # this run's message
    aya_request: str | None  # the request to Aya as written (None: Aya not addressed)
    aya_request_en: str | None  # the request in English, translated once (None: English, or not addressed)
    aya_reply: ChatMessage | None  # Aya's one reply, in English
    aya_result: SupervisorResult | None  # what the supervisor did, typed
    aya_log: list[LogEntry]  # the supervisor's steps and notes as plain data


CHECKPOINTED_TYPES: tuple[tuple[str, str], ...] = (
    ("aya_lab.messages", "ChatMessage"),
    ("aya_lab.messages", "Delivery"),
    ("aya_lab.agents.supervisor", "SupervisorResult"),
    ("aya_lab.agents.routing_steps", "Step"),
    ("aya_lab.agents.routing_chain", "RouterOutput"),
    ("aya_lab.agents.summarizer", "SummaryResult"),
    ("aya_lab.agents.query", "QueryAnswer"),
    ("aya_lab.rag.sections", "Quote"),
)
"""The classes a room's checkpoints may hold (LangGraph's msgpack allow-list; anything else is refused)."""


@dataclass(frozen=True)
class TracedGeneration:
    """One model generation made in a node visit: the exact prompt, the output and its cost.

    ``g["prompt_tokens"]`` reads a field too (traces were dicts before; the notebooks index them).
    """

    model: str
    prompt: str
    output: str
    prompt_tokens: int
    completion_tokens: int
    cached: bool
    latency_s: float

    @classmethod
    def from_record(cls, r: GenerationRecord) -> TracedGeneration:
        res = r.result
        return cls(
            r.model, r.prompt, res.text, res.prompt_tokens, res.completion_tokens, res.cached, round(res.latency_s, 4)
        )

    def __getitem__(self, key: str) -> str | int | bool | float:
        if key not in self.__dataclass_fields__:
            raise KeyError(f"{key!r}; a traced generation has {', '.join(self.__dataclass_fields__)}")
        value: str | int | bool | float = getattr(self, key)
        return value


@dataclass
class NodeVisit:
    """One node visit of a run: when, how long, and every model generation made in it."""

    node: str
    started: float
    seconds: float
    generations: list[TracedGeneration] = field(default_factory=list)
    note: str = ""

    def __post_init__(self) -> None:  # a trace read back from JSON holds dicts
        self.generations = [g if isinstance(g, TracedGeneration) else TracedGeneration(**g) for g in self.generations]


@dataclass
class AyaRuntime:
    """The run context (LangGraph's ``context``): what nodes use at run time but never checkpoint.

    ``request`` is the room's one parse of the ``@aya`` mention (``parsed`` says it was given).
    """

    model: TextModel
    kb: KnowledgeBaseLike
    visits: list[NodeVisit] = field(default_factory=list)
    request: str | None = None
    parsed: bool = False
    translator_model: TextModel | None = None  # the translator role; ``model`` is the aya role
    node_order: list[str] = field(default_factory=list)  # the spec's node order
    memory: RoomMemory | None = None  # the room's memory policy and pending notes (None: policy 'anyone')
    run_id: str | None = None  # the run's id: knowledge-base writes commit or are discarded with it
    guard_notes: list[str] = field(default_factory=list)  # translations the guard withheld (agents.guard)
    direction_models: dict[str, TextModel] = field(default_factory=dict)  # "swh-eng" -> that direction's translator
    readers: dict[str, tuple[str, ...]] = field(
        default_factory=dict
    )  # user -> languages, in order (aya_lab.room.delivery)
    reader_notes: list[str] = field(default_factory=list)  # deliveries not in a reader's first language, and why

    def ordered_visits(self) -> list[NodeVisit]:
        """Visits in the spec's node order (a stable sort: repeated visits of one node keep their order).
        Parallel nodes finish in any order, so the trace would otherwise differ between two runs of one
        send; the room's graphs list their nodes in an order their edges respect."""
        rank = {name: i for i, name in enumerate(self.node_order)}
        return sorted(self.visits, key=lambda v: rank.get(v.node, len(rank)))

    @property
    def translator(self) -> TextModel:
        """The ``translator`` role's model (user agents, Aya's translator, reply delivery); ``model``
        when none was given. ``model`` is the ``aya`` role's (supervisor, query, summarizer)."""
        return self.model if self.translator_model is None else self.translator_model

    def translator_for(self, source: str, target: str) -> TextModel:
        """The model that translates ``source`` text for ``target`` readers: the room's translator for
        that direction (:mod:`aya_lab.models.directions`), else the ``translator`` role's."""
        return self.direction_models.get(f"{source}-{target}", self.translator)
