"""Type and size checks on what a caller hands the room's public methods (``send``, ``feed``, ``add_user``,
``trace``, ``check_user``), before anything is read or written: a wrong type or an oversized value is a
:class:`~aya_lab.room.errors.RoomError` in one line naming the value and the fix, never a bare
``TypeError`` from deep inside, and the room is left as it was.

**Size before tokens:** a message longer than :data:`CHARS_PER_TOKEN` characters per allowed token
(``max_message_tokens``; 20,000 characters at the default 1000) is refused before it is tokenized, so a
megabyte without spaces (one "word" to a whitespace tokenizer) cannot slip past the token limit, and
no tokenizer spends time on it. Real text averages about four characters per token in the room's
languages, so an honest message under the token limit is far below this one.
"""

from __future__ import annotations

from aya_lab.messages import AYA
from aya_lab.room.errors import RoomError

__all__ = ["CHARS_PER_TOKEN", "assistant_sender", "checked_id", "checked_size", "checked_text", "shown"]

CHARS_PER_TOKEN = 20


def shown(value: object, limit: int = 60) -> str:
    """``repr(value)`` cut to ``limit`` characters (one line: ``repr`` escapes newlines)."""
    text = repr(value)
    return text if len(text) <= limit else f"{text[: limit - 3]}..."


def checked_id(value: object, what: str = "user") -> str:
    """``value`` when it is a str; else :class:`RoomError` naming it (``what``: "user", "run id")."""
    if isinstance(value, str):
        return value
    example = "'kofi'" if what == "user" else "one of room.runs()'s run_id"
    raise RoomError(f"{what} must be text (str), not {type(value).__name__} {shown(value)}; pass e.g. {example}")


def checked_text(user: str, text: object) -> str:
    """``text`` when it is a str; else :class:`RoomError` naming its type and the fix."""
    if isinstance(text, str):
        return text
    fix = "decode it first, e.g. text.decode('utf-8')" if isinstance(text, bytes | bytearray) else "pass a str"
    raise RoomError(f"message from {user!r} must be text (str), not {type(text).__name__} {shown(text)}; {fix}")


def checked_size(user: str, text: str, max_tokens: int) -> None:
    """Refuse ``text`` longer than ``max_tokens`` × :data:`CHARS_PER_TOKEN` characters."""
    limit = max_tokens * CHARS_PER_TOKEN
    if len(text) > limit:
        raise RoomError(
            f"message from {user!r} has {len(text):,} characters, over the room's limit of {limit:,} "
            f"({max_tokens} tokens x {CHARS_PER_TOKEN}); split it into shorter messages"
        )


def assistant_sender(user: str) -> RoomError | None:
    """The refusal for a message sent as Aya herself, or None for any other id."""
    if user.strip().lower() != AYA:
        return None
    return RoomError(f"{user!r} is the room's assistant, not a user; send as a user of the room and write '@aya ...'")
