"""The room's graph state and its reducers (plain functions, unit-tested as such).

Reducer contract (the original design's): a **list** update is appended to the current list; any
non-list update (``None``, a string, a dict) is ignored, so a node can pass through without changing
history. ``merge_users`` merges user -> language maps (a later value wins).
"""

from __future__ import annotations

from typing import Annotated, Any, TypedDict

from aya_lab.messages import ChatMessage, Delivery

__all__ = ["RoomState", "append_messages", "merge_users", "replace_value"]


def append_messages(current: list[Any] | None, update: Any) -> list[Any]:
    """Append a list update; ignore anything that is not a list."""
    base = list(current or [])
    if isinstance(update, list):
        return base + update
    return base


def merge_users(current: dict[str, str] | None, update: Any) -> dict[str, str]:
    """Merge a user -> language mapping; ignore non-dict updates."""
    merged = dict(current or {})
    if isinstance(update, dict):
        merged.update(update)
    return merged


def replace_value(current: Any, update: Any) -> Any:
    """Last write wins (LangGraph's default, spelled out so specs can name it)."""
    return update


class RoomState(TypedDict, total=False):
    """State of the Aya room graph. Fields with reducers accumulate across runs (the room's history)."""

    users: Annotated[dict[str, str], merge_users]
    messages: Annotated[list[ChatMessage], append_messages]
    deliveries: Annotated[list[Delivery], append_messages]
    incoming: ChatMessage | None  # the message of this run
    aya_request: str | None  # the request text after "@aya", if Aya was addressed
    aya_request_en: str | None
    aya_reply: ChatMessage | None
    aya_log: list[dict[str, Any]]  # router steps, tool, fallbacks, parse notes of this run
