"""The names the Aya room's graph spec may use, without importing what they build.

:func:`aya_names` is a :class:`~aya_lab.graph.Registry` with the same names as
:func:`aya_lab.room.nodes.aya_registry` (a test keeps the two equal), whose node factories are
:class:`~aya_lab.graph.registry.LazyFactory` references: validating a spec against it imports neither
the agents nor the model stack (``aya-lab graph validate`` starts in well under a second); building a
graph from it imports :mod:`aya_lab.room.nodes` on the first node built.
"""

from __future__ import annotations

from aya_lab.graph import Registry, default_registry
from aya_lab.graph.registry import LazyFactory
from aya_lab.messages import ChatMessage

__all__ = ["AYA_NODE_FACTORIES", "aya_names"]

AYA_NODE_FACTORIES: dict[str, str] = {
    "aya_ingest.v1": "aya_lab.room.nodes:ingest",
    "aya_user_agents.v1": "aya_lab.room.nodes:user_agents",
    "aya_translator.v1": "aya_lab.room.nodes:translator",
    "aya_supervisor.v1": "aya_lab.room.nodes:supervisor",
    "aya_reply_delivery.v1": "aya_lab.room.nodes:reply_delivery",
}
"""Factory name -> ``module:attr`` of the factory (as :func:`aya_lab.room.nodes.aya_registry` registers it)."""


def aya_names() -> Registry:
    """The default registry plus the Aya room's names, its factories imported on first use."""
    reg = default_registry()
    reg.add_type("chat_message", ChatMessage)
    for name, ref in AYA_NODE_FACTORIES.items():
        reg.add_node_factory(name, LazyFactory(ref))
    return reg
