"""The names the Aya room's graph spec may use, without importing what they build.

:func:`aya_names` is a :class:`~aya_lab.graph.Registry` with the same names as
:func:`aya_lab.room.nodes.aya_registry` (a test keeps the two equal), whose node factories are
:class:`~aya_lab.graph.registry.LazyFactory` references: validating a spec against it imports neither
the agents nor the model stack (``aya-lab graph validate`` starts in well under a second); building a
graph from it imports :mod:`aya_lab.room.nodes` on the first node built.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from aya_lab.graph import Registry, default_registry
from aya_lab.graph.registry import LazyFactory
from aya_lab.messages import ChatMessage
from aya_lab.room.parameters import (
    DeliveryParameters,
    IngestParameters,
    SupervisorParameters,
    TranslatorParameters,
)

__all__ = ["AYA_NODE_FACTORIES", "aya_names"]

AYA_NODE_FACTORIES: dict[str, tuple[str, type[BaseModel]]] = {
    "aya_ingest.v1": ("aya_lab.room.nodes:ingest", IngestParameters),
    "aya_user_agents.v1": ("aya_lab.room.nodes:user_agents", DeliveryParameters),
    "aya_translator.v1": ("aya_lab.room.nodes:translator", TranslatorParameters),
    "aya_supervisor.v1": ("aya_lab.room.nodes:supervisor", SupervisorParameters),
    "aya_reply_delivery.v1": ("aya_lab.room.nodes:reply_delivery", DeliveryParameters),
}
"""Factory name -> (``module:attr`` of the factory, its parameters model), as
:func:`aya_lab.room.nodes.aya_registry` registers them."""


def aya_names() -> Registry:
    """The default registry plus the Aya room's names, its factories imported on first use."""
    reg = default_registry()
    reg.add_type("chat_message", ChatMessage)
    reg.add_type("supervisor_result", Any)  # the real class imports the agents; an annotation is all a spec check needs
    for name, (ref, parameters) in AYA_NODE_FACTORIES.items():
        reg.add_node_factory(name, LazyFactory(ref), parameters=parameters)
    return reg
