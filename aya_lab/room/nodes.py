"""The Aya room graph's building blocks, registered into the graph-as-data registry.

The graph itself is data (``aya_lab/graphs/aya.yaml``); this module provides what the spec names:

- node factories ``aya_ingest.v1``, ``aya_user_agents.v1``, ``aya_translator.v1``, ``aya_supervisor.v1``,
  ``aya_reply_delivery.v1`` (each ``factory(*, factory_parameter, flow_parameter) -> node``);
- (the spec's reducers are the graph registry's own: ``append_list.v1`` and ``merge_dict.v1``);
- the state type ``chat_message``.

Nodes get the run's resources (model, knowledge base, trace) from ``config["configurable"]["aya"]``
(an :class:`AyaRuntime`), so the same built graph serves any model, and drawing a spec needs no model.
Each node records its visit (timing, model calls, prompts, outputs) in the runtime's trace. Model outputs
are untrusted text: translations and Aya's reply pass :func:`~aya_lab.text_safety.clean_text` before
they reach a feed.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from langchain_core.runnables import RunnableConfig

from aya_lab.agents import AyaSupervisor, AyaTranslator, UserAgent
from aya_lab.agents.citations import split_fixed
from aya_lab.agents.guard import guard_translations
from aya_lab.agents.memory import RoomMemory
from aya_lab.agents.protocols import KnowledgeBaseLike, TextModel
from aya_lab.agents.route_input import RoutedInput, RouteOn, decide_input
from aya_lab.agents.supervisor import SupervisorResult
from aya_lab.graph import Registry, default_registry
from aya_lab.messages import AYA, AYA_MENTION, ChatMessage, Delivery, parse_aya_request
from aya_lab.models.base import record_generations
from aya_lab.models.result import GenerationRecord
from aya_lab.text_safety import clean_text

__all__ = [
    "AyaRuntime",
    "NodeVisit",
    "TracedGeneration",
    "aya_registry",
    "parse_aya_request",
    "AYA_MENTION",
]

_ROOM_ROUTE_ON = tuple(r.value for r in RouteOn if r is not RouteOn.GOLD)  # a room has no reference English


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

    def __getitem__(self, key: str) -> Any:
        if key not in self.__dataclass_fields__:
            raise KeyError(f"{key!r}; a traced generation has {', '.join(self.__dataclass_fields__)}")
        return getattr(self, key)


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
    """What nodes need at run time (passed in ``config["configurable"]["aya"]``).

    ``request`` is the room's one parse of the ``@aya`` mention (``parsed`` says it was given);
    ``result`` is the supervisor's typed result once it ran.
    """

    model: TextModel
    kb: KnowledgeBaseLike
    visits: list[NodeVisit] = field(default_factory=list)
    request: str | None = None
    parsed: bool = False
    result: SupervisorResult | None = None
    translator_model: TextModel | None = None  # the translator role; ``model`` is the aya role
    node_order: list[str] = field(default_factory=list)  # the spec's node order
    memory: RoomMemory | None = None  # the room's memory policy and pending notes (None: policy 'anyone')
    run_id: str | None = None  # the run's id: knowledge-base writes commit or are discarded with it
    guard_notes: list[str] = field(default_factory=list)  # translations the guard withheld (agents.guard)

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


def _runtime(config: Any) -> AyaRuntime:
    try:
        return config["configurable"]["aya"]
    except (KeyError, TypeError):
        raise RuntimeError(
            "the Aya room graph needs config={'configurable': {'aya': AyaRuntime(...)}}; run it through ChatRoom"
        ) from None


def traced(name: str, fn: Callable[[dict, AyaRuntime], dict]) -> Callable[..., dict]:
    """Wrap a node body: record its timing and generations in the runtime's trace."""

    def node(state: dict, config: RunnableConfig) -> dict:
        runtime = _runtime(config)
        started = time.time()
        t0 = time.perf_counter()
        with record_generations() as records:
            update = fn(state, runtime)
        visit = NodeVisit(
            name,
            started,
            time.perf_counter() - t0,
            [TracedGeneration.from_record(r) for r in records],
        )
        if isinstance(update, dict) and "aya_log" in update and update["aya_log"]:
            visit.note = "; ".join(str(x.get("log", "")) for x in update["aya_log"] if isinstance(x, dict))
        runtime.visits.append(visit)
        return update

    node.__name__ = name  # not functools.wraps: LangGraph injects by parameter name
    return node


def _targets(users: dict[str, str]) -> list[str]:
    """Languages a message must reach: every user's, plus English (Aya reads English)."""
    return list(dict.fromkeys([*users.values(), "eng"]))


def _deliveries(message: ChatMessage, users: dict[str, str]) -> list[Delivery]:
    return [
        Delivery(
            message_id=message.id,
            user=user,
            sender=message.sender,
            text=message.text_in(lang),
            lang=lang,
            translated=lang != message.lang,
            from_aya=message.sender == AYA,
        )
        for user, lang in users.items()
    ]


def _history(state: dict, exclude: str | None = None) -> list[ChatMessage]:
    return [m for m in state.get("messages") or [] if m.id != exclude]


# -- node factories ------------------------------------------------------------------------------------
def ingest(*, factory_parameter: dict, flow_parameter: dict) -> Callable[..., dict]:
    """Start a run: find the request to Aya (if any), clear the last run's Aya fields."""

    def body(state: dict, runtime: AyaRuntime) -> dict:
        incoming: ChatMessage = state["incoming"]
        return {
            "aya_request": runtime.request if runtime.parsed else parse_aya_request(incoming.content),
            "aya_request_en": None,
            "aya_reply": None,
            "aya_log": [],
        }

    return traced(flow_parameter["name"], body)


def _translate_keeping_fixed(
    agent: UserAgent, original: ChatMessage, targets: list[str], history: list[ChatMessage], fixed: bool
) -> dict[str, str]:
    """``agent.translate_many``; with ``fixed``, the fixed parts of Aya's reply (sources lines, set by
    code) are cut out, only the text between them is translated (one batch per piece), and the fixed
    parts are put back verbatim in every language."""
    pieces = split_fixed(original.content) if fixed else [(original.content, False)]
    if len(pieces) == 1 and not pieces[0][1]:
        return agent.translate_many(original, targets, history)
    out = dict.fromkeys(targets, "")
    for piece, verbatim in pieces:
        if verbatim or not piece.strip():
            done = dict.fromkeys(targets, piece)
        else:
            lead, trail = piece[: len(piece) - len(piece.lstrip())], piece[len(piece.rstrip()) :]
            done = agent.translate_many(original.model_copy(update={"content": piece.strip()}), targets, history)
            done = {lang: f"{lead}{text}{trail}" for lang, text in done.items()}
        out = {lang: out[lang] + done[lang] for lang in targets}
    return out


def _delivery_factory(field_name: str, doc: str) -> Callable[..., Callable[..., dict]]:
    """A node factory delivering the message in ``state[field_name]`` to every user (one batch)."""

    def factory(*, factory_parameter: dict, flow_parameter: dict) -> Callable[..., dict]:
        prompt = factory_parameter.get("prompt", "user_translate/baseline")
        window = int(factory_parameter.get("context_window", 0))
        fixed = field_name == "aya_reply"  # Aya's sources lines are never translated

        def body(state: dict, runtime: AyaRuntime) -> dict:
            original: ChatMessage = state[field_name]
            users = state.get("users") or {}
            agent = UserAgent(runtime.translator, prompt, context_window=window)
            translations = _translate_keeping_fixed(agent, original, _targets(users), _history(state), fixed)
            # a model's output is untrusted text too: no control or bidi-override character reaches a feed
            others = {k: clean_text(v) for k, v in translations.items() if k != original.lang}
            label = f"{original.sender}'s message {original.id}"
            others, notes = guard_translations(original.content, original.lang, others, runtime.translator, label=label)
            runtime.guard_notes += notes
            message = original.model_copy(update={"translations": others})
            return {"messages": [message], "deliveries": _deliveries(message, users)}

        return traced(flow_parameter["name"], body)

    factory.__doc__ = doc
    return factory


user_agents = _delivery_factory(
    "incoming", "Deliver the incoming message to every user: one translation per language, one model batch."
)
reply_delivery = _delivery_factory("aya_reply", "Deliver Aya's reply to every user in their language (one batch).")


def translator(*, factory_parameter: dict, flow_parameter: dict) -> Callable[..., dict]:
    """Bring the request to Aya into English."""
    prompt = factory_parameter.get("prompt", "aya_translate/baseline")

    def body(state: dict, runtime: AyaRuntime) -> dict:
        incoming: ChatMessage = state["incoming"]
        english = AyaTranslator(runtime.translator, prompt).to_english(state["aya_request"], incoming.lang)
        return {"aya_request_en": english}

    return traced(flow_parameter["name"], body)


def _supervisor_params(factory_parameter: dict) -> tuple[dict, RouteOn]:
    params = {
        "router_prompt": factory_parameter.get("router_prompt", "supervisor/baseline"),
        "summarizer": factory_parameter.get("summarizer", "two_call"),
        "query_k": int(factory_parameter.get("query_k", 3)),
        "max_steps": int(factory_parameter.get("max_steps", 3)),
        "multi_intent": bool(factory_parameter.get("multi_intent", True)),
        "route_timeout": None
        if factory_parameter.get("route_timeout") is None
        else float(factory_parameter["route_timeout"]),
    }
    if params["summarizer"] not in {"two_call", "one_call"}:
        raise ValueError(f"summarizer must be 'two_call' or 'one_call', got {params['summarizer']!r}")
    route_on = factory_parameter.get("route_on", "auto")
    if route_on not in _ROOM_ROUTE_ON:
        raise ValueError(f"route_on must be one of {', '.join(_ROOM_ROUTE_ON)}, got {route_on!r}")
    return params, RouteOn(route_on)


def _routed_input(state: dict, route_on: RouteOn) -> RoutedInput:
    """The text the supervisor routes (:func:`~aya_lab.agents.route_input.decide_input` on the request as
    written, its language and the translator node's English)."""
    return decide_input(state["aya_request"], state["incoming"].lang, state["aya_request_en"], route_on)


def _aya_log(result: SupervisorResult, variant: str, path_log: str | None) -> list[dict]:
    """The supervisor's steps as plain data for the checkpointed state (the typed result is in the runtime)."""
    log: list[dict] = [{"log": path_log}] if path_log else []
    for step in result.steps:
        entry = {"tool": step.output.tool, "input": step.output.tool_input, "log": step.output.log}
        if step.observation is not None:
            entry["observation"] = step.observation
        log.append(entry)
    for s in result.summaries:
        log.append(
            {
                "log": f"summarizer {variant}: count={s.count_requested}, {len(s.message_ids)} messages, {s.calls} calls",
                "notes": s.notes,
            }
        )
    return log


def supervisor(*, factory_parameter: dict, flow_parameter: dict) -> Callable[..., dict]:
    """Route the request through Aya's routing chain (one or more tools) and produce her one reply.

    Parameters: ``router_prompt``, ``summarizer``, ``query_k``, ``max_steps``; ``multi_intent``
    (default true: a request asking for two tools runs both; single-intent requests make the same
    model calls as without it); ``route_on`` (a :class:`~aya_lab.agents.route_input.RouteOn` but ``gold``;
    default ``auto``: the translation, or the original where the translation is not English); ``route_timeout`` (seconds; default
    none: a router's model call that hangs ends the send with a ``RouterTimeoutError``, rolled back).
    """
    params, route_on = _supervisor_params(factory_parameter)

    def body(state: dict, runtime: AyaRuntime) -> dict:
        incoming: ChatMessage = state["incoming"]
        history = [m for m in _history(state, exclude=incoming.id) if m.sender != AYA]
        sup = AyaSupervisor(runtime.model, runtime.kb, **params)
        routed = _routed_input(state, route_on)
        result = sup.handle(
            routed.text,
            history,
            author=incoming.sender,
            run_id=runtime.run_id,
            memory=runtime.memory,
            original=routed.original,
        )
        runtime.result = result
        reply = ChatMessage(sender=AYA, content=clean_text(result.reply), lang="eng", reply_to=incoming.id)
        return {"aya_reply": reply, "aya_log": _aya_log(result, sup.summarizer.variant, routed.note)}

    return traced(flow_parameter["name"], body)


def aya_registry() -> Registry:
    """The default registry plus everything the Aya room graph names."""
    reg = default_registry()
    reg.add_type("chat_message", ChatMessage)
    reg.add_node_factory("aya_ingest.v1", ingest)
    reg.add_node_factory("aya_user_agents.v1", user_agents)
    reg.add_node_factory("aya_translator.v1", translator)
    reg.add_node_factory("aya_supervisor.v1", supervisor)
    reg.add_node_factory("aya_reply_delivery.v1", reply_delivery)
    return reg
