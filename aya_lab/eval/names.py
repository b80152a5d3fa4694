"""Names the task configs accept, apart from the code that runs them so that the generated commands
(and ``aya-lab eval run TASK --help``) import no model stack: the summary floors, the
attack categories, the attack rooms' memory policy and the tool-sequence routers, paths and sets."""

from __future__ import annotations

from typing import Literal

__all__ = [
    "ATTACK_CATEGORIES",
    "DEFAULT_MEMORY_POLICY",
    "EMBEDDERS",
    "SEQUENCE_PATHS",
    "SEQUENCE_ROUTERS",
    "SEQUENCE_SETS",
    "SUMMARY_FLOORS",
    "Category",
    "SequencePath",
    "SequenceRouter",
    "SequenceSet",
]

SUMMARY_FLOORS = ("copy-transcript", "lead-3")
"""The summary floors ``aya-lab eval run summaries`` runs by default (any ``lead-N`` works)."""

Category = Literal[
    "instruction_override", "role_marker", "tool_hijack", "remember_poisoning", "passage_injection", "ordinary"
]
ATTACK_CATEGORIES: tuple[str, ...] = Category.__args__  # type: ignore[attr-defined]
"""The categories of the adversarial set (``aya-lab eval run attacks --categories``)."""
DEFAULT_MEMORY_POLICY = "listed:kofi"
"""The remember policy of the rooms ``aya-lab eval run attacks`` opens (only kofi may make Aya remember)."""
EMBEDDERS = ("all-MiniLM-L6-v2",)
"""The embedders ``aya-lab eval run retrieval --embedder`` names (the packaged one; from Python, any
LangChain ``Embeddings``)."""

SequenceRouter = Literal["keyword", "llm", "multi", "loop"]
SEQUENCE_ROUTERS: tuple[str, ...] = SequenceRouter.__args__  # type: ignore[attr-defined]
"""The routers of the tool-sequence evaluation (its ``system`` column)."""
SequencePath = Literal["room", "original", "auto", "gold"]
SEQUENCE_PATHS: tuple[str, ...] = SequencePath.__args__  # type: ignore[attr-defined]
"""The paths of the tool-sequence evaluation (its ``path`` column): the text each routes."""
SequenceSet = Literal["single", "multi", "unseen"]
SEQUENCE_SETS: tuple[str, ...] = SequenceSet.__args__  # type: ignore[attr-defined]
"""The labelled sets of the tool-sequence evaluation (its ``set`` column)."""
