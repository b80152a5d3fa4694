"""What Aya's agents and the room need of a model, a knowledge base and a room — as Protocols.

The agents are written against these structural types, not against the concrete classes: any object
with ``generate_texts`` and ``count_tokens`` serves as a model (a local LangChain chat model, the
library's ``FakeChatModel``, a scripted test double), anything with ``relevant`` and ``add_fact`` as a
knowledge base. ``runtime_checkable`` lets a factory refuse a wrong object with a one-line error.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

from aya_lab.messages import ChatMessage, Delivery
from aya_lab.models.result import GenerationResult
from aya_lab.rag.index import Retrieved

__all__ = ["TextModel", "KnowledgeBaseLike", "RoomLike"]


@runtime_checkable
class TextModel(Protocol):
    """A model the agents can prompt: a batch of conversations in, one :class:`GenerationResult` each out."""

    @property
    def fingerprint(self) -> str: ...

    def generate_texts(self, conversations: Sequence[Any], *, repeat: int = 0) -> list[GenerationResult]: ...

    def count_tokens(self, text: str) -> int: ...


@runtime_checkable
class KnowledgeBaseLike(Protocol):
    """What the query and remember tools need: retrieval above a threshold, and adding a fact (with its
    author, pending until its run commits when ``run_id`` is given). ``forget`` and ``facts`` (for the
    ``forget`` tool and notes' dates) are looked up when used."""

    def relevant(self, query: str, k: int = 4, min_score: float | None = None) -> list[Retrieved]: ...

    def add_fact(self, text: str, *, author: str, run_id: str | None = None) -> Any: ...


@runtime_checkable
class RoomLike(Protocol):
    """What a face (panel, CLI, notebook) needs of a room: users, sending, and the feeds."""

    @property
    def users(self) -> dict[str, str]: ...

    def send(self, user: str, text: str) -> Any: ...

    def feed(self, user: str) -> list[Delivery]: ...

    def history(self) -> list[ChatMessage]: ...
