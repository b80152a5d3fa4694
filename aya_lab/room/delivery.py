"""The delivery rule: which of a reader's languages a message reaches them in, and the note saying why.

A reader lists their languages in order of preference (:mod:`aya_lab.room.readers`). A message reaches
each reader in the first of their languages the guard (:mod:`aya_lab.agents.guard`) vouches for. Walking
the reader's languages in order, for each language ``L``:

- ``L`` is the message's language: the **original** is delivered (stop);
- the ``L`` translation passed the guard: it is delivered (stop);
- it was flagged ``[unverified]``: the first such is kept as a fallback, and the walk goes on;
- it was withheld: the walk goes on.

When no language gives a passing delivery, the first flagged translation is delivered (the guard's
``[unverified] <draft> | original: <original>``), else the reader's first language's text, which is the
original behind ``[not translated]`` (as for a one-language reader). A delivery in a language that is
not the reader's first starts with that language's code in brackets, :data:`LANG_MARK` (``[eng] Great,
I will book the room``), an original in the reader's second language included.
:attr:`~aya_lab.messages.Delivery.lang` is the language delivered: the original's for an original, the
translation's for a translation; the ``[not translated]`` fallback keeps the reader's first language,
as it always has.

**Cost.** The room translates in rounds (:func:`needed`): first into every reader's first language (and
English, which Aya reads), exactly the calls of a room of one-language readers; then, only for readers
whose walk is not settled by the translations made so far, into their next language, one batch per
round. So a room whose readers list one language each makes the same model calls as before lists.

**Report notes** (:func:`reader_note`): for a reader listing more than one language who did not get a
passing delivery in their first, one line: ``lena got eng (the original): deu translation withheld
(faithful: ...)``; the run report prints them (:class:`~aya_lab.room.runs.RunReport`, ``reader:`` lines).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from aya_lab.agents.guard import MARKER, UNVERIFIED
from aya_lab.messages import AYA, ChatMessage, Delivery

__all__ = ["LANG_MARK", "Pick", "deliveries", "guard_reasons", "needed", "pick", "reader_note"]

LANG_MARK = "[{lang}] "
"""What starts a delivery in a language other than the reader's first (``[eng] ``)."""

_NOTE = re.compile(r"translation \S+->(\S+) (withheld|unverified) \((.*)\); delivered")


@dataclass(frozen=True)
class Pick:
    """What one reader gets: the language, the text (unmarked), whether it is a translation, and how it
    came (``the original``, ``translated``, ``unverified`` or ``not translated``)."""

    lang: str
    text: str
    translated: bool
    how: str

    @property
    def passed(self) -> bool:
        return self.how in ("the original", "translated")


def _passed(text: str) -> bool:
    return not text.startswith((MARKER, UNVERIFIED))


def _next_language(langs: Sequence[str], src: str, texts: Mapping[str, str]) -> str | None:
    """The language to translate into before the reader of ``langs`` can be settled, or ``None``."""
    for lang in langs:
        if lang == src:
            return None
        if lang not in texts:
            return lang
        if _passed(texts[lang]):
            return None
    return None


def needed(readers: Mapping[str, Sequence[str]], src: str, texts: Mapping[str, str]) -> list[str]:
    """The languages of the next round: each unsettled reader's next untranslated language, in order."""
    wanted = (_next_language(langs, src, texts) for langs in readers.values())
    return list(dict.fromkeys(lang for lang in wanted if lang is not None))


def pick(langs: Sequence[str], original: ChatMessage) -> Pick:
    """What the reader of ``langs`` gets of ``original`` (its ``translations`` already guarded)."""
    flagged: str | None = None
    for lang in langs:
        if lang == original.lang:
            return Pick(lang, original.content, False, "the original")
        text = original.text_in(lang)
        if _passed(text):
            return Pick(lang, text, True, "translated")
        if flagged is None and text.startswith(UNVERIFIED):
            flagged = lang
    if flagged is not None:
        return Pick(flagged, original.text_in(flagged), True, "unverified")
    return Pick(langs[0], original.text_in(langs[0]), True, "not translated")


def guard_reasons(notes: Sequence[str]) -> dict[str, str]:
    """Target language -> ``withheld (<reasons>)`` or ``unverified (<doubts>)``, read from guard notes."""
    return {m[1]: f"{m[2]} ({m[3]})" for m in (_NOTE.search(n) for n in notes) if m}


def reader_note(user: str, langs: Sequence[str], chosen: Pick, reasons: Mapping[str, str]) -> str | None:
    """The report line for a reader of several languages who got no passing delivery in the first, else None."""
    if len(langs) < 2 or (chosen.lang == langs[0] and chosen.passed):
        return None
    tried = langs[: langs.index(chosen.lang)] if chosen.passed else langs
    why = "; ".join(f"{lang} translation {reasons.get(lang, 'withheld')}" for lang in tried)
    return f"{user} got {chosen.lang} ({chosen.how}): {why}"


def deliveries(
    message: ChatMessage, readers: Mapping[str, Sequence[str]], reasons: Mapping[str, str], label: str
) -> tuple[list[Delivery], list[str]]:
    """``message`` (with its guarded translations) for every reader by the rule, and the report notes."""
    out: list[Delivery] = []
    notes: list[str] = []
    for user, langs in readers.items():
        chosen = pick(langs, message)
        mark = "" if chosen.lang == langs[0] else LANG_MARK.format(lang=chosen.lang)
        out.append(
            Delivery(
                message_id=message.id,
                user=user,
                sender=message.sender,
                text=mark + chosen.text,
                lang=chosen.lang,
                translated=chosen.translated,
                from_aya=message.sender == AYA,
            )
        )
        note = reader_note(user, langs, chosen, reasons)
        if note:
            notes.append(f"{label}: {note}")
    return out, notes
