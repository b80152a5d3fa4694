"""The languages a user reads: :func:`checked_languages`, and their one stored form.

A user declares the languages they read **in order of preference**: ``"swh"`` (one language, as before),
``["swh", "eng"]``, or the text ``"swh,eng"`` (what ``--user amara:swh,eng``, the REPL's ``/add amara
swh,eng`` and the panel's ``amara:swh,eng`` box pass on). Each language is a code or a name, normalised
to ISO 639-3 (:func:`~aya_lab.languages.get_language`). Refused, each with a one-line
:class:`~aya_lab.room.errors.RoomError` naming the value and the fix: no language (an empty list, or an
empty item as in ``swh,,eng``), more than :data:`MAX_LANGUAGES`, one language twice (``sw`` and
``swh`` are one), or an unknown language or a non-text value (named by :func:`~aya_lab.languages.get_language`).

The room file keeps a user's list in the users table's ``lang`` column, joined by commas
(:func:`stored`); a room made before lists holds one code there, which reads back as a one-language
list (:func:`from_stored`), so old rooms open unchanged.
"""

from __future__ import annotations

from collections.abc import Sequence

from aya_lab.languages import get_language
from aya_lab.room.errors import RoomError

__all__ = ["MAX_LANGUAGES", "Languages", "checked_languages", "from_stored", "stored"]

MAX_LANGUAGES = 4
"""The most languages one user may list."""

Languages = str | Sequence[str]
"""What a caller may give as a user's languages: one (``"swh"``), a list, or comma-separated text."""


def _items(value: object) -> list[object]:
    if isinstance(value, str):
        return list(value.split(","))
    return list(value) if isinstance(value, list | tuple) else [value]


def checked_languages(user: str, value: object) -> tuple[str, ...]:
    """``value`` as ``user``'s languages: ISO 639-3 codes in the order given; :class:`RoomError` naming
    the value and the fix when it is refused (see the module docstring)."""
    items = _items(value)
    if not items:
        raise RoomError(f"user {user!r} reads no language ({value!r}); give at least one, e.g. ['swh', 'eng']")
    if len(items) > MAX_LANGUAGES:
        raise RoomError(
            f"user {user!r} lists {len(items)} languages; give at most {MAX_LANGUAGES}, in order of preference"
        )
    codes: list[str] = []
    for item in items:
        if isinstance(item, str) and not item.strip():
            raise RoomError(
                f"languages of user {user!r} hold an empty item ({value!r}); separate languages by one comma, "
                "e.g. swh,eng"
            )
        try:
            code = get_language(item).code  # type: ignore[arg-type]  # a non-text item is refused there
        except ValueError as exc:
            raise RoomError(f"user {user!r}: {exc}") from None
        if code in codes:
            raise RoomError(f"user {user!r} lists {code} twice ({value!r}); give each language once")
        codes.append(code)
    return tuple(codes)


def stored(languages: Languages) -> str:
    """``languages`` (checked codes) as the users table keeps them: ``swh,eng`` (one language, or a str:
    that code alone)."""
    return languages if isinstance(languages, str) else ",".join(languages)


def from_stored(text: str) -> tuple[str, ...]:
    """The languages a users-table value holds (a room from before lists: one code, one language)."""
    return tuple(text.split(","))
