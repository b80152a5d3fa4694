"""The Aya room graph's building blocks, registered into the graph-as-data registry.

The graph itself is data (``aya_lab/graphs/aya.yaml``); this module provides what the spec names:

- node factories ``aya_ingest.v1``, ``aya_user_agents.v1``, ``aya_translator.v1``, ``aya_supervisor.v1``,
  ``aya_reply_delivery.v1`` (each ``factory(*, factory_parameter, flow_parameter) -> node``);
- reducers ``room_messages.v1`` (list appended, non-list ignored) and ``room_users.v1``;
- the state type ``chat_message``.

Nodes get the run's resources (model, knowledge base, trace) from ``config["configurable"]["aya"]``
(an :class:`AyaRuntime`), so the same built graph serves any model, and drawing a spec needs no model.
Each node records its visit (timing, model calls, prompts, outputs) in the runtime's trace.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from langchain_core.runnables import RunnableConfig

from aya_lab.agents import AyaSupervisor, AyaTranslator, UserAgent
from aya_lab.graph import Registry, default_registry
from aya_lab.messages import AYA, ChatMessage, Delivery
from aya_lab.models.base import record_generations

__all__ = ["AyaRuntime", "NodeVisit", "aya_registry", "parse_aya_request", "AYA_MENTION"]

AYA_MENTION = re.compile(r"(?<![\w@])@aya\b[\s,:;.!?-]*", re.IGNORECASE)


def parse_aya_request(text: str) -> str | None:
    """The request addressed to Aya (the text without the ``@aya`` mention), or ``None`` if not addressed.

    Returns ``""`` for a bare ``@aya`` (the room refuses it with a clear error).
    """
    if not AYA_MENTION.search(text):
        return None
    return AYA_MENTION.sub(" ", text).strip()


@dataclass
class NodeVisit:
    """One node visit of a run: when, how long, and every model generation made in it."""

    node: str
    started: float
    seconds: float
    generations: list[dict[str, Any]] = field(default_factory=list)
    note: str = ""


@dataclass
class AyaRuntime:
    """What nodes need at run time (passed in ``config["configurable"]["aya"]``)."""

    model: Any
    kb: Any
    visits: list[NodeVisit] = field(default_factory=list)


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
            [
                {
                    "model": r.model,
                    "prompt": r.prompt,
                    "output": r.result.text,
                    "prompt_tokens": r.result.prompt_tokens,
                    "completion_tokens": r.result.completion_tokens,
                    "cached": r.result.cached,
                    "latency_s": round(r.result.latency_s, 4),
                }
                for r in records
            ],
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
            "aya_request": parse_aya_request(incoming.content),
            "aya_request_en": None,
            "aya_reply": None,
            "aya_log": [],
        }

    return traced(flow_parameter["name"], body)


def _delivery_factory(field_name: str, doc: str) -> Callable[..., Callable[..., dict]]:
    """A node factory delivering the message in ``state[field_name]`` to every user (one batch)."""

    def factory(*, factory_parameter: dict, flow_parameter: dict) -> Callable[..., dict]:
        prompt = factory_parameter.get("prompt", "user_translate/baseline")
        window = int(factory_parameter.get("context_window", 0))

        def body(state: dict, runtime: AyaRuntime) -> dict:
            original: ChatMessage = state[field_name]
            users = state.get("users") or {}
            agent = UserAgent(runtime.model, prompt, context_window=window)
            translations = agent.translate_many(original, _targets(users), _history(state))
            others = {k: v for k, v in translations.items() if k != original.lang}
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
        english = AyaTranslator(runtime.model, prompt).to_english(state["aya_request"], incoming.lang)
        return {"aya_request_en": english}

    return traced(flow_parameter["name"], body)


def supervisor(*, factory_parameter: dict, flow_parameter: dict) -> Callable[..., dict]:
    """Route the English request to one tool and produce Aya's one reply."""
    params = {
        "router_prompt": factory_parameter.get("router_prompt", "supervisor/baseline"),
        "summarizer": factory_parameter.get("summarizer", "two_call"),
        "query_k": int(factory_parameter.get("query_k", 3)),
        "max_steps": int(factory_parameter.get("max_steps", 3)),
    }
    if params["summarizer"] not in {"two_call", "one_call"}:
        raise ValueError(f"summarizer must be 'two_call' or 'one_call', got {params['summarizer']!r}")

    def body(state: dict, runtime: AyaRuntime) -> dict:
        incoming: ChatMessage = state["incoming"]
        history = [m for m in _history(state, exclude=incoming.id) if m.sender != AYA]
        sup = AyaSupervisor(runtime.model, runtime.kb, **params)
        result = sup.handle(state["aya_request_en"], history, author=incoming.sender)
        reply = ChatMessage(sender=AYA, content=result.reply, lang="eng", reply_to=incoming.id)
        log = [dict(step) for step in result.steps]
        if "summary" in result.details:
            s = result.details["summary"]
            log.append(
                {
                    "log": f"summarizer {sup.summarizer.variant}: count={s.count_requested}, "
                    f"{len(s.message_ids)} messages, {s.calls} calls",
                    "notes": s.notes,
                }
            )
        return {"aya_reply": reply, "aya_log": log}

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
