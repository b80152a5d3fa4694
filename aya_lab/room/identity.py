"""User ids: one normal form, one script, no look-alikes: :func:`user_id`, :func:`clash`, :func:`skeleton`.

A user id is what the room shows beside every message, so two ids that look alike are two people one
reader cannot tell apart (``kofi`` and ``kоfi`` with a Cyrillic ``о``). The room keeps ids in one form:

- **normalised**: NFKC, then case-folded (``Kofi`` -> ``kofi``, fullwidth ``１２３`` -> ``123``,
  ``𝐤𝐨𝐟𝐢`` -> ``kofi``); the stored and displayed id is this form, and every lookup (``send``,
  ``feed``, ``/as``, a ``listed:`` policy) normalises the name it is given the same way;
- **letters and digits of one script**, with ``-`` and ``_``; the scripts Japanese, Korean and Chinese
  write together (Han with Hiragana/Katakana, Hangul or Bopomofo) count as one. Scripts are read with
  ``confusable-homoglyphs`` (Unicode's script data);
- **at most** :data:`MAX_ID_LENGTH` characters, and not ``aya``;
- **not a look-alike of another user**: two ids clash when their normal forms are equal or their
  *skeletons* are (each non-ASCII character replaced by the ASCII letter or digit it is confusable with,
  from Unicode's confusables data: Cyrillic ``соре`` and Latin ``cope`` share the skeleton ``cope``).

Each refusal is a :class:`~aya_lab.room.errors.RoomError`: one line naming the id and the fix.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Mapping
from pathlib import Path

from confusable_homoglyphs import categories, confusables

from aya_lab.agents.memory import MemoryPolicy, PolicyRecord
from aya_lab.messages import AYA
from aya_lab.room.errors import RoomError
from aya_lab.room.readers import checked_languages

__all__ = [
    "MAX_ID_LENGTH",
    "checked_policy",
    "checked_user",
    "checked_users",
    "clash",
    "clash_error",
    "normal_id",
    "shown_id",
    "skeleton",
    "stored_ids",
    "user_id",
]

MAX_ID_LENGTH = 32
"""The longest user id accepted (after normalisation)."""

_SAFE_TOGETHER = ({"HAN", "HIRAGANA", "KATAKANA"}, {"HAN", "HANGUL"}, {"HAN", "BOPOMOFO"})
"""Scripts one language writes together: an id mixing only these is not mixed-script."""

_ANY_SCRIPT = {"COMMON", "INHERITED"}  # digits, '-', '_', combining marks


def normal_id(name: object) -> str:
    """``name`` in the room's normal form (NFKC, case-folded, stripped); ``""`` for a non-string."""
    return unicodedata.normalize("NFKC", name).casefold().strip() if isinstance(name, str) else ""


def stored_ids(users: Iterable[str]) -> dict[str, str]:
    """The normal form of each stored id -> that id (a room from before normal forms keeps its ids)."""
    return {normal_id(u): u for u in users}


def shown_id(name: object) -> str:
    """``name`` for an error line: quoted, at most 40 characters, and escaped too when not ASCII."""
    if not isinstance(name, str):
        return repr(name)
    short = name if len(name) <= 40 else name[:37] + "..."
    escaped = short.encode("ascii", "backslashreplace").decode()
    return repr(short) + (f" ({escaped})" if escaped != short else "")


def _scripts(name: str) -> set[str]:
    return {str(a) for a in categories.unique_aliases(name)} - _ANY_SCRIPT


def user_id(name: object) -> str:
    """The normal form of a new user id, or :class:`RoomError` naming the id and the fix (see module)."""
    if not isinstance(name, str) or not name.strip():
        raise RoomError(f"invalid user id {name!r}; give a name of letters, digits, '-' or '_'")
    normal = normal_id(name)
    if len(normal) > MAX_ID_LENGTH:
        raise RoomError(f"user id {shown_id(normal)} has {len(normal)} characters; use at most {MAX_ID_LENGTH}")
    if AYA in (normal, skeleton(normal)) or not normal.replace("_", "").replace("-", "").isalnum():
        raise RoomError(f"invalid user id {shown_id(name)}; use letters, digits, '-' or '_' (and not 'aya')")
    scripts = _scripts(normal)
    if len(scripts) > 1 and not any(scripts <= together for together in _SAFE_TOGETHER):
        raise RoomError(
            f"user id {shown_id(name)} mixes scripts ({', '.join(sorted(s.title() for s in scripts))}); "
            "write it in one script"
        )
    return normal


def _ascii_twin(char: str) -> str:
    """The ASCII letter or digit ``char`` is confusable with, or ``char`` itself."""
    if char.isascii():
        return char
    for glyph in confusables.confusables_data.get(char, ()):
        twin = glyph["c"]
        if len(twin) == 1 and twin.isascii() and twin.isalnum():
            return twin.casefold()
    return char


def skeleton(name: str) -> str:
    """``name``'s look: its normal form with every non-ASCII character replaced by its ASCII look-alike."""
    return "".join(_ascii_twin(c) for c in normal_id(name))


def clash(name: str, others: Iterable[str]) -> str | None:
    """The first of ``others`` (ids in normal form) that ``name`` is or looks like, or ``None``."""
    normal, look = normal_id(name), skeleton(name)
    for other in others:
        if other == normal or skeleton(other) == look:
            return other
    return None


def clash_error(name: str, other: str, language: str) -> RoomError:
    """The refusal of ``name`` beside the existing user ``other`` (who reads ``language``)."""
    how = "is" if normal_id(name) == other else "looks like"
    return RoomError(
        f"user id {shown_id(name)} {how} the existing user {other!r} (reads {language}); "
        "pick another id (ids ignore case, width and look-alike letters)"
    )


def checked_user(name: str, languages: object) -> tuple[str, tuple[str, ...]]:
    """``(user id in normal form, ISO 639-3 codes in order of preference)`` of a user to add
    (:func:`~aya_lab.room.readers.checked_languages`), or :class:`RoomError` naming the value and the fix."""
    normal = user_id(name)
    return normal, checked_languages(normal, languages)


def checked_users(users: Mapping[str, object] | None) -> dict[str, tuple[str, ...]]:
    """``users`` (id -> a language or a list of them) with ids in normal form; :class:`RoomError` when one
    is bad or two are one id."""
    out: dict[str, tuple[str, ...]] = {}
    for name, language in (users or {}).items():
        normal, code = checked_user(name, language)
        other = clash(normal, out)
        if other is not None:
            raise RoomError(
                f"users {other!r} and {name!r} are one id (ids ignore case, width and look-alike letters); "
                "give each user once"
            )
        out[normal] = code
    return out


def checked_policy(value: str | PolicyRecord | MemoryPolicy, users: Mapping[str, object], room: Path) -> MemoryPolicy:
    """``value`` as the policy of ``room`` whose users are ``users``: its listed ids normalised, and
    :class:`RoomError` when it names someone who is not a user."""
    policy = MemoryPolicy.parse(value)
    ids = stored_ids(users)
    listed = tuple(dict.fromkeys(ids.get(normal_id(u), normal_id(u)) for u in policy.users))
    strangers = [u for u in listed if u not in users]
    if strangers:
        raise RoomError(
            f"memory_policy {policy.describe()!r} names {', '.join(map(repr, strangers))}, not a user of "
            f"{room}; users: {', '.join(users) or 'none'} (list users of the room, or add them first)"
        )
    return MemoryPolicy(policy.mode, listed)
