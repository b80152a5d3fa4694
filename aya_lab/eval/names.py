"""Names the ``eval`` commands accept, apart from the code that runs them so that the CLI's option
definitions (which ``aya-lab eval ... --help`` shows) import no model stack: the summary floors, the
attack categories and the attack rooms' memory policy."""

from __future__ import annotations

from typing import Literal

__all__ = ["ATTACK_CATEGORIES", "DEFAULT_MEMORY_POLICY", "EMBEDDERS", "SUMMARY_FLOORS", "Category"]

SUMMARY_FLOORS = ("copy-transcript", "lead-3")
"""The summary floors ``aya-lab eval summarize`` runs by default (any ``lead-N`` works)."""

Category = Literal[
    "instruction_override", "role_marker", "tool_hijack", "remember_poisoning", "passage_injection", "ordinary"
]
ATTACK_CATEGORIES: tuple[str, ...] = Category.__args__  # type: ignore[attr-defined]
"""The categories of the adversarial set (``aya-lab eval attacks --categories``)."""
DEFAULT_MEMORY_POLICY = "listed:kofi"
"""The remember policy of the rooms ``aya-lab eval attacks`` opens (only kofi may make Aya remember)."""
EMBEDDERS = ("all-MiniLM-L6-v2",)
"""The embedders ``aya-lab eval run retrieval --embedder`` names (the packaged one; from Python, any
LangChain ``Embeddings``)."""
