"""The Aya room graph's building blocks, registered into the graph-as-data registry.

The graph itself is data (``aya_lab/graphs/aya.yaml``); this module provides what the spec names:

- node factories ``aya_ingest.v1``, ``aya_user_agents.v1``, ``aya_translator.v1``, ``aya_supervisor.v1``,
  ``aya_reply_delivery.v1`` (each ``factory(*, factory_parameter, flow_parameter) -> node``);
- (the spec's reducers are the graph registry's own: ``append_list.v1`` and ``merge_dict.v1``);
- the state types ``chat_message`` and ``supervisor_result``.

Each factory declares its parameters as a pydantic model (:mod:`aya_lab.room.parameters`; the graph
builder validates the spec's ``factory_parameter`` against it and passes the instance). Nodes read and
write :class:`~aya_lab.room.state.AyaState` and get the run's resources (models, knowledge base, trace)
from LangGraph's run context (``runtime.context``, an :class:`~aya_lab.room.state.AyaRuntime`), so the
same built graph serves any model, and drawing a spec needs no model. Each node records its visit
(timing, model calls, prompts, outputs) in the context's trace. Model outputs
are untrusted text: translations and Aya's reply pass :func:`~aya_lab.text_safety.clean_text` before
they reach a feed.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from langgraph.runtime import Runtime

from aya_lab.agents import AyaSupervisor, AyaTranslator, UserAgent
from aya_lab.agents.citations import split_fixed
from aya_lab.agents.faithfulness import agreement_for, floor_for
from aya_lab.agents.guard import guard_translations
from aya_lab.agents.protocols import TextModel
from aya_lab.agents.route_input import RoutedInput, RouteOn, decide_input
from aya_lab.agents.supervisor import SupervisorResult
from aya_lab.graph import Registry
from aya_lab.messages import AYA, AYA_MENTION, ChatMessage, parse_aya_request
from aya_lab.models.base import record_generations
from aya_lab.refs import resolve_ref
from aya_lab.room.delivery import deliveries, guard_reasons, needed, route
from aya_lab.room.names import AYA_HEAVY_TYPES, AYA_NODE_FACTORIES, aya_names
from aya_lab.room.parameters import (
    DeliveryParameters,
    IngestParameters,
    SupervisorParameters,
    TranslatorParameters,
)
from aya_lab.room.state import AyaRuntime, AyaState, LogEntry, NodeVisit, TracedGeneration, step_record
from aya_lab.text_safety import clean_text

__all__ = [
    "AyaRuntime",
    "NodeVisit",
    "TracedGeneration",
    "aya_registry",
    "parse_aya_request",
    "AYA_MENTION",
]

Node = Callable[[AyaState, Runtime[AyaRuntime]], AyaState]
"""What a factory returns: LangGraph calls it with the state and the run's :class:`Runtime` (whose
``context`` is the :class:`~aya_lab.room.state.AyaRuntime`)."""


def _runtime(runtime: Runtime[AyaRuntime] | None) -> AyaRuntime:
    context = runtime.context if runtime is not None else None
    if not isinstance(context, AyaRuntime):
        raise RuntimeError(
            "the Aya room graph needs its run context: graph.invoke(..., context=AyaRuntime(...)); run it through ChatRoom"
        )
    return context


def traced(name: str, fn: Callable[[AyaState, AyaRuntime], AyaState]) -> Node:
    """Wrap a node body: record its timing and generations in the run context's trace."""

    def node(state: AyaState, runtime: Runtime[AyaRuntime]) -> AyaState:
        context = _runtime(runtime)
        started = time.time()
        t0 = time.perf_counter()
        with record_generations() as records:
            update = fn(state, context)
        visit = NodeVisit(name, started, time.perf_counter() - t0, [TracedGeneration.from_record(r) for r in records])
        visit.note = "; ".join(entry.get("log", "") for entry in update.get("aya_log") or [])
        context.visits.append(visit)
        return update

    node.__name__ = name  # not functools.wraps: LangGraph injects by parameter name
    return node


def _readers(users: dict[str, str], runtime: AyaRuntime) -> dict[str, tuple[str, ...]]:
    """Each user's languages in order (the run context's lists; a user it lacks reads their one language)."""
    listed = runtime.readers
    return {u: listed[u] if listed.get(u, ())[:1] == (lang,) else (lang,) for u, lang in users.items()}


def _routes(
    readers: dict[str, tuple[str, ...]], runtime: AyaRuntime, src: str, rule: str
) -> dict[str, tuple[str, ...]]:
    """Each reader's route for a message in ``src`` (:func:`~aya_lab.room.delivery.route`), from the record
    of the model that translates each direction (an adapter's own, not its base's)."""
    records: dict[str, tuple[int, int]] = {}
    for lang in {x for langs in readers.values() for x in langs if x != src}:
        floor = floor_for(runtime.translator_for(src, lang))
        if floor is not None and (record := floor.record_into(lang)) is not None:
            records[lang] = record
    return {user: route(langs, src, records, rule) for user, langs in readers.items()}


def _history(state: AyaState, exclude: str | None = None) -> list[ChatMessage]:
    return [m for m in state.get("messages") or [] if m.id != exclude]


# -- node factories ------------------------------------------------------------------------------------
def ingest(*, factory_parameter: IngestParameters, flow_parameter: dict[str, str]) -> Node:
    """Start a run: find the request to Aya (if any), clear the last run's Aya fields."""
    IngestParameters.model_validate(factory_parameter)

    def body(state: AyaState, runtime: AyaRuntime) -> AyaState:
        incoming = state["incoming"]
        return {
            "aya_request": runtime.request if runtime.parsed else parse_aya_request(incoming.content),
            "aya_request_en": None,
            "aya_reply": None,
            "aya_result": None,
            "aya_log": [],
        }

    return traced(flow_parameter["name"], body)


def _translate_keeping_fixed(
    agent: UserAgent, original: ChatMessage, targets: list[str], history: list[ChatMessage]
) -> dict[str, str]:
    """``agent.translate_many`` of Aya's reply ``original`` with its fixed parts (sources lines, set by
    code) cut out: only the text between them is translated (one batch per piece), and the fixed parts
    are put back verbatim in every language."""
    pieces = split_fixed(original.content)
    if len(pieces) == 1 and not pieces[0][1]:
        return agent.translate_many(original, targets, history) if targets else {}
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


def _english_of_request(state: AyaState, original: ChatMessage) -> dict[str, str]:
    """The English the translator node already made of a request to Aya, as the message's English
    (``@aya`` and the request): a request is translated into English once, and English readers see
    what Aya routes. Empty when there is none (English, not addressed, or a graph without the node)."""
    english = state.get("aya_request_en")
    if original.lang == "eng" or not english or state.get("aya_request") is None:
        return {}
    return {"eng": f"@aya {english}"}


def _by_translator(runtime: AyaRuntime, source: str, targets: list[str]) -> list[tuple[TextModel, list[str]]]:
    """``targets`` grouped by the model that translates ``source`` into each (one batch per model), in
    the order of first use."""
    groups: dict[int, tuple[TextModel, list[str]]] = {}
    for lang in targets:
        model = runtime.translator_for(source, lang)
        groups.setdefault(id(model), (model, []))[1].append(lang)
    return list(groups.values())


def _guarded(
    runtime: AyaRuntime,
    original: ChatMessage,
    translations: dict[str, str],
    label: str,
    agreements: dict[str, float | None],
    agreement: float | str,
    prompt: str,
) -> tuple[dict[str, str], list[str]]:
    """``translations`` of ``original`` through the guard, in order, each judged by the record of the model
    that wrote it (:meth:`~aya_lab.room.state.AyaRuntime.translator_for`: an adapter is not its base) and by
    its drafts' ``agreements`` (doubtful under ``agreement``; ``calibrated``: the threshold that model's record
    measured for drafts under ``prompt``)."""
    out: dict[str, str] = {}
    notes: list[str] = []
    for lang, text in translations.items():
        model = runtime.translator_for(original.lang, lang)
        part, more = guard_translations(
            original.content,
            original.lang,
            {lang: text},
            model,
            label=label,
            agreements=agreements,
            agreement=agreement_for(model, prompt) if agreement == "calibrated" else float(agreement),
        )
        out |= part
        notes += more
    return out, notes


def _round(
    state: AyaState, runtime: AyaRuntime, params: DeliveryParameters, original: ChatMessage, targets: list[str]
) -> tuple[dict[str, str], list[str]]:
    """One round of translations of ``original`` into ``targets`` (one batch per translator), cleaned and
    guarded: ``(texts to deliver, guard notes)``. Aya's sources lines stay verbatim; a request's English
    is the translator node's."""
    fixed = original.sender == AYA  # Aya's sources lines are never translated
    made = {} if fixed else _english_of_request(state, original)
    translations = {k: v for k, v in made.items() if k in targets}
    agreements: dict[str, float | None] = {}
    for model, langs in _by_translator(runtime, original.lang, [t for t in targets if t not in made]):
        agent = UserAgent(
            model,
            params.prompt,
            context_window=params.context_window,
            drafts=params.drafts,
            select=params.select,
            sentences=params.sentences,
        )
        if fixed:
            translations |= _translate_keeping_fixed(agent, original, langs, _history(state))
            continue
        drafted = agent.draft_many(original, langs, _history(state))
        translations |= {lang: d.text for lang, d in drafted.items()}
        agreements |= {lang: d.agreement for lang, d in drafted.items()}
    missing = [t for t in targets if t != original.lang and t not in translations]
    if missing:  # the delivery rule's rounds ask for each language until it has a text: this ends them
        raise RuntimeError(f"no translation of {original.id} into {', '.join(missing)} came back from the translator")
    # a model's output is untrusted text too: no control or bidi-override character reaches a feed
    others = {k: clean_text(v) for k, v in translations.items() if k != original.lang}
    label = f"{original.sender}'s message {original.id}"
    return _guarded(runtime, original, others, label, agreements, params.agreement, params.prompt)


def _delivery_factory(field_name: str, doc: str) -> Callable[..., Node]:
    """A node factory delivering the message in ``state[field_name]`` to every user by the delivery rule
    (:mod:`aya_lab.room.delivery`): one round into every first language, more only where one failed."""

    def factory(*, factory_parameter: DeliveryParameters, flow_parameter: dict[str, str]) -> Node:
        params = DeliveryParameters.model_validate(factory_parameter)

        def body(state: AyaState, runtime: AyaRuntime) -> AyaState:
            original = state["incoming"] if field_name == "incoming" else state["aya_reply"]
            if original is None:
                raise RuntimeError(f"{flow_parameter['name']}: the state has no {field_name} to deliver")
            users = state.get("users") or {}
            readers = _readers(users, runtime)
            routes = _routes(readers, runtime, original.lang, params.route)
            first = [r[0] for r in routes.values()]
            texts, notes = _round(state, runtime, params, original, list(dict.fromkeys([*first, "eng"])))
            while more := needed(routes, original.lang, texts):
                extra, extra_notes = _round(state, runtime, params, original, more)
                texts, notes = texts | extra, notes + extra_notes
            runtime.guard_notes += notes
            message = original.model_copy(update={"translations": texts})
            label = f"{original.sender}'s message {original.id}"
            got, reader_notes = deliveries(message, readers, guard_reasons(notes), label, routes)
            runtime.reader_notes += reader_notes
            return {"messages": [message], "deliveries": got}

        return traced(flow_parameter["name"], body)

    factory.__doc__ = doc
    return factory


user_agents = _delivery_factory(
    "incoming",
    "Deliver the incoming message to every user: one translation per language (``drafts`` drafts of it), one "
    "model batch per translator (a request to Aya's English is the translator node's, not translated again).",
)
reply_delivery = _delivery_factory("aya_reply", "Deliver Aya's reply to every user in their language (one batch).")


def translator(*, factory_parameter: TranslatorParameters, flow_parameter: dict[str, str]) -> Node:
    """Bring the request to Aya into English (the one English of it: the supervisor routes it and the
    delivery node gives it to English readers)."""
    params = TranslatorParameters.model_validate(factory_parameter)

    def body(state: AyaState, runtime: AyaRuntime) -> AyaState:
        request = state.get("aya_request")
        if request is None:
            return {"aya_request_en": None}
        lang = state["incoming"].lang
        english = AyaTranslator(runtime.translator_for(lang, "eng"), params.prompt).to_english(request, lang)
        return {"aya_request_en": english}

    return traced(flow_parameter["name"], body)


def _routed_input(state: AyaState, route_on: RouteOn) -> RoutedInput:
    """The text the supervisor routes (:func:`~aya_lab.agents.route_input.decide_input` on the request as
    written, its language and the translator node's English)."""
    return decide_input(state.get("aya_request") or "", state["incoming"].lang, state.get("aya_request_en"), route_on)


def _aya_log(result: SupervisorResult, variant: str, path_log: str | None) -> list[LogEntry]:
    """The supervisor's steps as plain data for the log (:func:`~aya_lab.room.state.step_record`)."""
    log: list[LogEntry] = [{"log": path_log}] if path_log else []
    for step in result.steps:
        record = step_record(step)
        entry: LogEntry = {"tool": record["tool"], "input": record["input"], "log": record["log"]}
        if record["observation"] is not None:
            entry["observation"] = record["observation"]
        log.append(entry)
    for s in result.summaries:
        counted = f"count={s.count_requested}, {len(s.message_ids)} messages, {s.calls} calls"
        log.append({"log": f"summarizer {variant}: {counted}", "notes": s.notes})
    return log


def supervisor(*, factory_parameter: SupervisorParameters, flow_parameter: dict[str, str]) -> Node:
    """Route the request through Aya's routing chain (one or more tools) and produce her one reply.

    Parameters: :class:`~aya_lab.room.parameters.SupervisorParameters`. The typed result travels in the
    state (``aya_result``) beside the reply.
    """
    params = SupervisorParameters.model_validate(factory_parameter)
    route_on = RouteOn(params.route_on)
    options = params.model_dump(exclude={"route_on"})

    def body(state: AyaState, runtime: AyaRuntime) -> AyaState:
        incoming = state["incoming"]
        history = [m for m in _history(state, exclude=incoming.id) if m.sender != AYA]
        sup = AyaSupervisor(runtime.model, runtime.kb, **options)
        routed = _routed_input(state, route_on)
        result = sup.handle(
            routed.text,
            history,
            author=incoming.sender,
            run_id=runtime.run_id,
            memory=runtime.memory,
            original=routed.original,
        )
        reply = ChatMessage(sender=AYA, content=clean_text(result.reply), lang="eng", reply_to=incoming.id)
        return {
            "aya_reply": reply,
            "aya_result": result,
            "aya_log": _aya_log(result, sup.summarizer.variant, routed.note),
        }

    return traced(flow_parameter["name"], body)


def aya_registry() -> Registry:
    """The default registry plus everything the Aya room graph names: :func:`~aya_lab.room.names.aya_names`
    with each name it holds by reference resolved (the real class of each heavy type, this module's
    factories), so the two registries hold the same names by construction."""
    reg = aya_names()
    for name, ref in AYA_HEAVY_TYPES.items():
        reg.add_type(name, resolve_ref(ref), replace=True)
    for name, (ref, parameters) in AYA_NODE_FACTORIES.items():
        reg.add_node_factory(name, resolve_ref(ref), parameters=parameters, replace=True)
    return reg
