"""The room's refusal: :class:`RoomError` (here, so that :mod:`~.store` and :mod:`~.room` both raise it)."""

from __future__ import annotations

from aya_lab.errors import AyaLabError

__all__ = ["RoomError"]


class RoomError(AyaLabError, ValueError):
    """Bad input to a room (unknown user, bad language, empty message...): one line, with the fix."""
