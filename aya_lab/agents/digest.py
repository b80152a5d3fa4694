"""What a summary reply states besides the model's summary: the window it covers, who said what in it, and
action items found by rule; and the faithful reply when the model's draft is withheld.

* :func:`window_line`: ``The last 4 messages (lena, kofi, sophie):`` — how many, and who wrote them.
* :func:`who_said_what`: one line per message, ``- sender: text``, cut at :data:`MAX_WORDS` words: its English
  when it was written in English or its translation passed the guard (:func:`verified_english`); the English
  draft the guard delivered flagged, marked as the feeds mark it (``- lena [deu, unverified]: Thank you, ...``;
  :func:`doubted_english`); else the message as written, marked with its language (``- amara [swh]: Habari
  timu, ...``).
* :func:`rule_action_items`: the commitments and requests the messages' verified English states (those of a
  flagged draft end in :data:`DOUBTED`, as its line is marked), by rule: a
  sentence in which
  the sender commits (``I'll``, ``I will``, ``I'm going to``, ``let me``, ``I can``, ``I'm`` + a verb in
  ``-ing``) gives ``(sender, what follows)``; a question that asks a named colleague (``Lena, can you ...?``,
  ``@lena could you ...?``) gives ``(lena, what follows)``.
* :func:`with_digest`: a :class:`~aya_lab.agents.summarizer.SummaryResult` whose reply is the window line, the
  model's summary and the rule's action items (``action_items`` become the rule's); when its draft was
  withheld, the window line, who said what and the rule's action items (the messages' own words: nothing is
  invented), and a note says so.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from aya_lab.agents.guard import MARKER, UNVERIFIED, TranslationGuard
from aya_lab.agents.summarizer import SummaryResult
from aya_lab.messages import ChatMessage

__all__ = [
    "DOUBTED",
    "MAX_WORDS",
    "doubted_english",
    "rule_action_items",
    "verified_english",
    "who_said_what",
    "window_line",
    "with_digest",
]

MAX_WORDS = 20
"""Words of a message quoted in who-said-what before it is cut (``…``)."""
DOUBTED = " (unverified translation)"
"""What an action item found in a flagged draft ends with."""
_SENTENCE = re.compile(r"(?<=[.!?])\s+")
_COMMIT = re.compile(
    r"\b(?:I'll|I will|I'm going to|I am going to|let me|I can|I'm (?=\w+ing\b)|I am (?=\w+ing\b))\s*(?P<task>[^.!?]+)",
    re.IGNORECASE,
)
_ASK = re.compile(
    r"(?:^|[,;]\s*)@?(?P<name>[A-Za-z][\w-]*),?\s+(?:can|could|would|will) you (?:please )?(?P<task>[^?]+)\?",
    re.IGNORECASE,
)


def window_line(window: Sequence[ChatMessage]) -> str:
    """``The last N messages (senders):`` for a non-empty window. No clock time: a reply is a pure function of the
    messages, so a recorded room replays (and its translations hit the generation cache)."""
    senders = ", ".join(dict.fromkeys(m.sender for m in window))
    noun = "message" if len(window) == 1 else f"{len(window)} messages"
    return f"The last {noun} ({senders}):"


def _cut(text: str) -> str:
    words = text.split()
    return " ".join(words[:MAX_WORDS]) + ("…" if len(words) > MAX_WORDS else "")


def verified_english(message: ChatMessage) -> str | None:
    """The message's English when it was written in English or its translation passed the guard, else None
    (a withheld or doubted translation is marked ``[not translated]`` / ``[unverified]`` and is not used)."""
    english = message.english
    if message.lang == "eng" or ("eng" in message.translations and not english.startswith((MARKER, UNVERIFIED))):
        return english
    return None


def doubted_english(message: ChatMessage) -> str | None:
    """The English draft of a message the guard delivered flagged (``[unverified] <draft> | original:
    <message>``), else None (no English translation, a passing or a withheld one)."""
    if message.lang == "eng" or "eng" not in message.translations:
        return None
    return TranslationGuard.flagged_draft(message.english, message.content)


def who_said_what(window: Sequence[ChatMessage]) -> list[str]:
    """``- sender: text`` per message (see the module docstring)."""
    lines = []
    for m in window:
        english, doubted = verified_english(m), doubted_english(m)
        if english is not None:
            said = f"{m.sender}: {english}"
        elif doubted:
            said = f"{m.sender} [{m.lang}, unverified]: {doubted}"
        else:
            said = f"{m.sender} [{m.lang}]: {m.content}"
        lines.append(f"- {_cut(said)}")
    return lines


def rule_action_items(window: Sequence[ChatMessage]) -> list[tuple[str, str]]:
    """``(owner, task)`` pairs the messages state (see the module docstring), in order, without repeats."""
    names = {m.sender.lower() for m in window}
    items: list[tuple[str, str]] = []
    for m in window:
        verified = verified_english(m)
        mark = "" if verified is not None else DOUBTED
        for sentence in _SENTENCE.split(verified if verified is not None else doubted_english(m) or ""):
            asked = _ASK.search(sentence)
            if asked and asked.group("name").lower() in names - {m.sender.lower()}:
                items.append((asked.group("name").lower(), asked.group("task").strip() + mark))
                continue
            committed = _COMMIT.search(sentence)
            if committed and len(committed.group("task").split()) >= 2:
                items.append((m.sender.lower(), committed.group("task").strip(" ,;:") + mark))
    return list(dict.fromkeys(items))


def with_digest(result: SummaryResult, history: Sequence[ChatMessage]) -> SummaryResult:
    """``result`` with its window stated and the rule's action items (they measure better than the model's:
    docs/ROOM.md); a withheld draft replaced by who said what (see the module docstring)."""
    chosen = set(result.message_ids)
    window = [m for m in history if m.id in chosen]
    if not window:
        return result
    items = rule_action_items(window)
    actions = ["Action items:", *([f"- {owner}: {task}" for owner, task in items] or ["- no action items"])]
    if not result.withheld:
        text = "\n".join([window_line(window), result.summary.strip() or "(no summary)", *actions])
        return replace(result, text=text, action_items=items)
    text = "\n".join([window_line(window), *who_said_what(window), *actions])
    note = "summary: the model's draft was withheld; the reply quotes who said what and the action items by rule"
    return replace(result, text=text, action_items=items, notes=[*result.notes, note])
