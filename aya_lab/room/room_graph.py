"""What makes a graph spec a room graph: :func:`room_graph_problem` and :func:`require_room_graph`.

A valid spec is not necessarily one the room can run. The room sends each message through its graph and
then checks that every user got it exactly once (:mod:`aya_lab.room.runs`); a graph without the room's
nodes delivers nothing, so every send would fail that check. :meth:`ChatRoom.open
<aya_lab.room.room.ChatRoom.open>` (and so ``aya-lab chat --graph FILE``) refuses such a spec first,
before any file is created. A room graph declares, at its top level:

- every field of :class:`~aya_lab.room.state.AyaState` in its state (the nodes read and write them);
- a node for each factory of :data:`ROOM_FACTORIES`: ``ingest`` takes the message in,
  ``user_agents`` delivers it to every user, ``supervisor`` and ``reply_delivery`` give Aya's one
  reply (the translator of Aya's request is optional: without it Aya routes on the request as written).
"""

from __future__ import annotations

import typing

from aya_lab.graph import GraphSpec
from aya_lab.graph.spec import NodeSpec
from aya_lab.room.errors import RoomError
from aya_lab.room.state import AyaState

__all__ = ["ROOM_FACTORIES", "require_room_graph", "room_graph_problem"]

ROOM_FACTORIES = ("aya_ingest.v1", "aya_user_agents.v1", "aya_supervisor.v1", "aya_reply_delivery.v1")
"""The node factories a room graph uses (:data:`aya_lab.room.names.AYA_NODE_FACTORIES` names them all)."""


def room_graph_problem(spec: GraphSpec) -> str | None:
    """Why ``spec`` is not a room graph (one line naming its file, what it lacks and the fix), or None."""
    fields = {f.field_name for f in spec.flow_parameter.state}
    factories = {f.flow_parameter.factory for f in spec.flows if isinstance(f, NodeSpec)}
    missing_fields = [name for name in typing.get_type_hints(AyaState) if name not in fields]
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


def require_room_graph(spec: GraphSpec) -> None:
    """:class:`~aya_lab.room.errors.RoomError` with :func:`room_graph_problem`'s line, if there is one."""
    problem = room_graph_problem(spec)
    if problem:
        raise RoomError(problem)
