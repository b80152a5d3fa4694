"""Chat messages: what a user (or Aya) said, in which language, and its translations."""

from __future__ import annotations

import re
import uuid
from datetime import UTC, datetime

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["ChatMessage", "Delivery", "AYA", "AYA_MENTION", "parse_aya_request"]

AYA = "aya"

AYA_MENTION = re.compile(r"(?<![\w@])@aya\b[\s,:;.!?-]*", re.IGNORECASE)
"""An ``@aya`` mention (any case) with the punctuation and spaces that follow it."""


def parse_aya_request(text: str) -> str | None:
    """The request addressed to Aya (the text without the ``@aya`` mention), or ``None`` if not addressed.

    Returns ``""`` for a bare ``@aya`` (the room refuses it with a clear error). The room and the
    evaluators share this one parser, so a data file may keep the mention as users type it.
    """
    if not AYA_MENTION.search(text):
        return None
    return AYA_MENTION.sub(" ", text).strip()


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class ChatMessage(BaseModel):
    """One message of the room. ``lang`` is ISO 639-3; ``translations`` maps language -> text.

    ``repr`` is ``sender | content`` so a list of messages reads like a chat.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(default_factory=lambda: uuid.uuid4().hex[:12])
    sender: str
    content: str
    lang: str
    reply_to: str | None = None
    created_at: str = Field(default_factory=_now)
    translations: dict[str, str] = Field(default_factory=dict)

    def __repr__(self) -> str:
        return f"{self.sender} | {self.content}"

    __str__ = __repr__

    def text_in(self, lang: str) -> str:
        """The text in ``lang``: the original when it is in that language, else its translation."""
        if lang == self.lang:
            return self.content
        return self.translations.get(lang, self.content)

    @property
    def english(self) -> str:
        return self.text_in("eng")


class Delivery(BaseModel):
    """One message as it reached one user: what they read, in their language."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    message_id: str
    user: str
    sender: str
    text: str
    lang: str
    translated: bool
    from_aya: bool = False

    def __repr__(self) -> str:
        mark = "🤖 " if self.from_aya else ""
        return f"{mark}{self.sender} | {self.text}"

    __str__ = __repr__
