"""The vocabulary of which text Aya routes: :class:`RouteOn` (the decision is
:func:`~aya_lab.agents.route_input.decide_input`).

A module of its own that imports nothing of the package: the room's parameter models
(:mod:`aya_lab.room.parameters`), which checking a spec reads, derive the room's ``route_on`` choices
from it without importing the agents or a model.
"""

from __future__ import annotations

from enum import StrEnum

__all__ = ["RouteOn"]


class RouteOn(StrEnum):
    """Which text of a non-English request the supervisor routes.

    The spellings it replaces: the room graph's ``route_on`` parameter (``english``, ``original``,
    ``auto``), the evaluators' ``translate`` (``True``, ``False``, ``"auto"``, ``"gold"``) and the
    tool-sequence paths (``room``, ``original``, ``auto``, ``gold``).
    """

    ENGLISH = "english"
    """The English translation, whatever it says (the room's first path; ``translate=True``; path ``room``)."""
    ORIGINAL = "original"
    """The request as written, untranslated (``translate=False``)."""
    AUTO = "auto"
    """The translation, or the original where the translation fails the output-language check (the
    room's default)."""
    GOLD = "gold"
    """A reference English given by the caller (a data set's ``text_en``); evaluation only, a room has none."""

    @property
    def translates(self) -> bool:
        """Whether a model must bring the request into English before
        :func:`~aya_lab.agents.route_input.decide_input` (``english``, ``auto``)."""
        return self in (RouteOn.ENGLISH, RouteOn.AUTO)
