"""What makes a graph spec a room graph: :func:`room_graph_problem`, :func:`state_problems`,
:func:`require_room_graph` and :func:`load_room_graph`.

A valid spec is not necessarily one the room can run. The room sends each message through its graph and
then checks that every user got it exactly once (:mod:`aya_lab.room.runs`); a graph without the room's
nodes delivers nothing, so every send would fail that check. :meth:`ChatRoom.open
<aya_lab.room.room.ChatRoom.open>` (and so ``aya-lab chat --graph FILE``) refuses such a spec first,
before any file is created. A room graph declares, at its top level:

- every field of :class:`~aya_lab.room.state.AyaState` in its state (the nodes read and write them),
  each with the type and reducer ``AyaState`` gives it (:data:`ROOM_STATE`, derived from that class: the
  Python type is the one source, the spec's declaration is checked against it; more fields may be added);
- a node for each factory of :data:`ROOM_FACTORIES`: ``ingest`` takes the message in,
  ``user_agents`` delivers it to every user, ``supervisor`` and ``reply_delivery`` give Aya's one
  reply (the translator of Aya's request is optional: without it Aya routes on the request as written).
"""

from __future__ import annotations

import types
import typing
from collections.abc import Mapping
from typing import Annotated, Any

from aya_lab.graph import GraphSpec, Problem, Registry, SpecError, load_spec
from aya_lab.graph.errors import format_path
from aya_lab.graph.spec import NodeSpec, SpecSource
from aya_lab.room.errors import RoomError
from aya_lab.room.state import AyaState

__all__ = [
    "ROOM_FACTORIES",
    "ROOM_STATE",
    "load_room_graph",
    "require_room_graph",
    "room_graph_problem",
    "state_problems",
]

ROOM_FACTORIES = ("aya_ingest.v1", "aya_user_agents.v1", "aya_supervisor.v1", "aya_reply_delivery.v1")
"""The node factories a room graph uses (:data:`aya_lab.room.names.AYA_NODE_FACTORIES` names them all)."""


def _declared(hint: Any) -> tuple[Any, Any]:
    """(the class, the reducer or None) an ``AyaState`` annotation declares: ``Annotated[list[X],
    append_list]`` is ``(list, append_list)``; ``X | None`` is ``(X, None)``."""
    reducer = None
    if typing.get_origin(hint) is Annotated:
        hint, reducer = hint.__origin__, hint.__metadata__[0]
    if isinstance(hint, types.UnionType) or typing.get_origin(hint) is typing.Union:
        (hint,) = [arg for arg in typing.get_args(hint) if arg is not type(None)]
    return typing.get_origin(hint) or hint, reducer


ROOM_STATE: dict[str, tuple[Any, Any]] = {
    name: _declared(hint) for name, hint in typing.get_type_hints(AyaState, include_extras=True).items()
}
"""Room state field -> (its class, its reducer or None), derived from :class:`~aya_lab.room.state.AyaState`."""


def _name_of(table: Mapping[str, Any], obj: Any) -> str:
    """The name ``obj`` is registered under in ``table`` (the first, sorted), or its Python name."""
    names = sorted(name for name, registered in table.items() if registered is obj)
    return names[0] if names else getattr(obj, "__qualname__", repr(obj))


def _type_problem(name: str, declared: str, registry: Registry) -> str | None:
    """What is wrong with room state field ``name`` declared with type ``declared``, or None."""
    cls = ROOM_STATE[name][0]
    if registry.types.get(declared) is cls:
        return None
    want = _name_of(registry.types, cls)
    return f"the room's state field {name!r} has type {want!r} (AyaState), not {declared!r}; write type: {want}"


def _reducer_problem(name: str, declared: str | None, registry: Registry) -> str | None:
    """What is wrong with room state field ``name`` declared with reducer ``declared``, or None."""
    reducer = ROOM_STATE[name][1]
    if (registry.reducers.get(declared) if declared else None) is reducer:
        return None
    got = repr(declared) if declared else "none (the last value wins)"
    if reducer is None:
        return f"the room's state field {name!r} keeps its last value (AyaState), not reducer {got}; remove its reducer"
    want = _name_of(registry.reducers, reducer)
    return f"the room's state field {name!r} has reducer {want!r} (AyaState), not {got}; write reducer: {want}"


def state_problems(spec: GraphSpec, registry: Registry) -> list[Problem]:
    """The room's state fields ``spec`` declares with a type or reducer other than ``AyaState``'s (names
    looked up in ``registry``), each a located problem naming the field and what to write."""
    problems = []
    for i, field in enumerate(spec.flow_parameter.state):
        if field.field_name in ROOM_STATE:
            for key, problem in (
                ("type", _type_problem(field.field_name, field.type, registry)),
                ("reducer", _reducer_problem(field.field_name, field.reducer, registry)),
            ):
                if problem:
                    problems.append(Problem(format_path(["flow_parameter", "state", i, key]), problem))
    return problems


def room_graph_problem(spec: GraphSpec) -> str | None:
    """Why ``spec`` is not a room graph (one line naming its file, what it lacks and the fix), or None."""
    fields = {f.field_name for f in spec.flow_parameter.state}
    factories = {f.flow_parameter.factory for f in spec.flows if isinstance(f, NodeSpec)}
    missing_fields = [name for name in ROOM_STATE if name not in fields]
    missing_nodes = [name for name in ROOM_FACTORIES if name not in factories]
    if not (missing_fields or missing_nodes):
        return None
    lacks = []
    if missing_fields:
        lacks.append(f"the state field{'s' if len(missing_fields) > 1 else ''} {', '.join(missing_fields)}")
    if missing_nodes:
        lacks.append(f"a node for {', '.join(missing_nodes)}")
    return (
        f"graph {spec.source or spec.name!r} is not a room graph: it lacks {' and '.join(lacks)}; "
        "give the room's graph (aya, aya_onecall, aya_context3) or an overlay with base: aya.yaml"
    )


def require_room_graph(spec: GraphSpec, registry: Registry) -> None:
    """:class:`~aya_lab.room.errors.RoomError` with :func:`room_graph_problem`'s line, if there is one;
    else a :class:`~aya_lab.graph.SpecError` with :func:`state_problems`' (one line each), if any."""
    problem = room_graph_problem(spec)
    if problem:
        raise RoomError(problem)
    problems = state_problems(spec, registry)
    if problems:
        raise SpecError(problems, f"{spec.source} (resolved)" if len(spec.lineage) > 1 else spec.source)


def load_room_graph(source: SpecSource, registry: Registry) -> GraphSpec:
    """``source`` (a spec file) loaded against ``registry`` and checked as a room graph
    (:func:`require_room_graph`): a valid spec that is no room graph would deliver nothing."""
    spec = load_spec(source, registry=registry)
    require_room_graph(spec, registry)
    return spec
