"""What Aya's agents and the room need of a model, a knowledge base and a room — as Protocols.

The agents are written against these structural types, not against the concrete classes: any object
with ``generate_texts``, ``count_tokens`` and ``guard_checks`` serves as a model (a local LangChain chat
model, the library's ``FakeChatModel``, a scripted test double), anything with ``relevant``,
``add_fact``, ``facts`` and ``forget`` as a knowledge base. ``runtime_checkable`` lets a factory refuse
a wrong object with a one-line error.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from aya_lab.messages import ChatMessage, Delivery
from aya_lab.models.result import GenerationResult
from aya_lab.rag.facts import Fact
from aya_lab.rag.index import Retrieved
from aya_lab.rag.sections import Section

if TYPE_CHECKING:
    from aya_lab.models.base import Conversation

__all__ = ["TextModel", "KnowledgeBaseLike", "RoomKnowledgeBase", "RoomLike"]


@runtime_checkable
class TextModel(Protocol):
    """A model the agents can prompt: a batch of conversations in, one :class:`GenerationResult` each out.

    ``guard_checks`` names the translation guard's checks (:mod:`aya_lab.agents.guard`) that apply to
    its outputs: all of them for a real model; a scripted fake, which is no translator, narrows them."""

    @property
    def fingerprint(self) -> str: ...

    @property
    def guard_checks(self) -> tuple[str, ...]: ...

    def generate_texts(self, conversations: Sequence[Conversation], *, repeat: int = 0) -> list[GenerationResult]: ...

    def count_tokens(self, text: str) -> int: ...


@runtime_checkable
class KnowledgeBaseLike(Protocol):
    """What the query, remember and forget tools need: retrieval above a threshold; adding a fact (with
    its author, pending until its run commits when ``run_id`` is given; returns its id); the committed
    facts (ids for ``forget``, dates for notes' labels); removing one with an audit row naming ``by``; the
    documents' sections (what the query agent quotes; empty when none were read)."""

    def relevant(self, query: str, k: int = 4, min_score: float | None = None) -> list[Retrieved]: ...

    def add_fact(self, text: str, *, author: str, run_id: str | None = None) -> str: ...

    def facts(self) -> list[Fact]: ...

    def forget(self, fact_id: str, *, by: str, reason: str = "") -> None: ...

    def sections(self) -> list[Section]: ...


@runtime_checkable
class RoomKnowledgeBase(KnowledgeBaseLike, Protocol):
    """A knowledge base a room can own: :class:`KnowledgeBaseLike` plus the run API that keeps a send
    all-or-nothing (facts added under a run's id are pending until ``commit_run``; ``discard_run``
    drops them when the send fails; ``pending_runs`` and ``discard_uncommitted`` recover after a kill)."""

    def commit_run(self, run_id: str) -> int: ...

    def discard_run(self, run_id: str) -> int: ...

    def pending_runs(self) -> list[str]: ...

    def discard_uncommitted(self) -> int: ...


@runtime_checkable
class RoomLike(Protocol):
    """What a face (panel, CLI, notebook) needs of a room: users, sending, and the feeds. ``send``
    returns the room's run report (``aya_lab.room.RunReport``: the room sits above the agents, so it is
    ``object`` here; a face that reads the report holds a ``ChatRoom``)."""

    @property
    def users(self) -> dict[str, str]: ...

    def send(self, user: str, text: str) -> object: ...

    def feed(self, user: str) -> list[Delivery]: ...

    def history(self) -> list[ChatMessage]: ...
