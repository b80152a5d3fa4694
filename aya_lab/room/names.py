"""The names the Aya room's graph spec may use, without importing what they build.

:func:`aya_names` is the one table of the room's names: a :class:`~aya_lab.graph.Registry` whose node
factories are :class:`~aya_lab.graph.registry.LazyFactory` references and whose heavy types
(:data:`AYA_HEAVY_TYPES`) are ``Any``: validating a spec against it imports neither the agents nor the
model stack (``aya-lab graph validate`` starts in well under a second); building a graph from it imports
:mod:`aya_lab.room.nodes` on the first node built. :func:`aya_lab.room.nodes.aya_registry` is this
registry with every reference resolved, so the two hold the same names by construction.
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

__all__ = ["AYA_HEAVY_TYPES", "AYA_NODE_FACTORIES", "aya_names"]

AYA_HEAVY_TYPES: dict[str, str] = {"supervisor_result": "aya_lab.agents.supervisor:SupervisorResult"}
"""State type name -> ``module:attr`` of a class whose module imports the agents: :func:`aya_names`
registers ``Any`` (an annotation is all a spec check needs), :func:`~aya_lab.room.nodes.aya_registry`
the class."""

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
    for name in AYA_HEAVY_TYPES:
        reg.add_type(name, Any)
    for name, (ref, parameters) in AYA_NODE_FACTORIES.items():
        reg.add_node_factory(name, LazyFactory(ref), parameters=parameters)
    return reg
