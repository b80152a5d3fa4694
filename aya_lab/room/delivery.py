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

**Routes** (:func:`route`, the delivery parameter ``route``). The order in which a reader's languages are
tried is their order of preference (``route: preference``), or, by default (``route: measured``), what
the measured records say is more faithful: the original first when it is in one of the reader's
languages (no translation is more faithful than the message itself), then the translations, where one
moves ahead of an earlier one only when the translator's labelled drafts into it were clearly more often
faithful (the lower end of its Wilson 95% interval above the upper end of the other's; the record is
the calibration file of the model that translates that direction, ``faithful_by_target``). A language
without a record keeps its place. The mark and the ``[not translated]`` fallback still follow the
reader's own first language.

**Cost.** The room translates in rounds (:func:`needed`): first into every reader's first language (and
English, which Aya reads), exactly the calls of a room of one-language readers; then, only for readers
whose walk is not settled by the translations made so far, into their next language, one batch per
round; the first round goes into each reader's first *routed* language. So a room whose readers list one
language each makes the same model calls as before lists.

**Report notes** (:func:`reader_note`): for a reader listing more than one language who did not get a
passing delivery in their first, one line: ``lena got eng (the original): deu translation withheld
(faithful: ...)``; the run report prints them (:class:`~aya_lab.room.runs.RunReport`, ``reader:`` lines).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from aya_lab.agents.guard import MARKER, UNVERIFIED
from aya_lab.messages import AYA, ChatMessage, Delivery

__all__ = [
    "LANG_MARK",
    "ROUTES",
    "Pick",
    "deliveries",
    "guard_reasons",
    "needed",
    "pick",
    "reader_note",
    "route",
    "wilson",
]

ROUTES = ("measured", "preference")
"""The delivery parameter ``route``: by the measured records (default) or by the reader's order alone."""
_Z = 1.959964  # the normal quantile of a two-sided 95% interval

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


def wilson(successes: int, n: int) -> tuple[float, float]:
    """The Wilson score 95% interval of ``successes`` out of ``n`` (``(0, 1)`` when ``n`` is 0)."""
    if n <= 0:
        return 0.0, 1.0
    p, z2 = successes / n, _Z * _Z
    centre, half = (p + z2 / (2 * n)) / (1 + z2 / n), _Z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def _clearly_better(a: tuple[int, int] | None, b: tuple[int, int] | None) -> bool:
    return a is not None and b is not None and wilson(*a)[0] > wilson(*b)[1]


def route(
    langs: Sequence[str], src: str, records: Mapping[str, tuple[int, int]] | None = None, rule: str = "measured"
) -> tuple[str, ...]:
    """The order in which the reader of ``langs`` is offered a message in ``src`` (see the module docstring);
    ``records``: ``(faithful, labelled)`` drafts per target language of the translator of each direction."""
    if rule == "preference":
        return tuple(langs)
    order = [src] if src in langs else []
    for lang in (x for x in langs if x != src):
        ahead = (i for i, other in enumerate(order) if other != src and _clearly_better(
            (records or {}).get(lang), (records or {}).get(other)))  # fmt: skip
        order.insert(next(ahead, len(order)), lang)
    return tuple(order)


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


def pick(langs: Sequence[str], original: ChatMessage, first: str | None = None) -> Pick:
    """What the reader whose route is ``langs`` gets of ``original`` (its ``translations`` already guarded);
    ``first``: the reader's own first language, which the ``[not translated]`` fallback keeps (default
    ``langs[0]``)."""
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
    fallback = first or langs[0]
    return Pick(fallback, original.text_in(fallback), True, "not translated")


def guard_reasons(notes: Sequence[str]) -> dict[str, str]:
    """Target language -> ``withheld (<reasons>)`` or ``unverified (<doubts>)``, read from guard notes."""
    return {m[1]: f"{m[2]} ({m[3]})" for m in (_NOTE.search(n) for n in notes) if m}


def reader_note(
    user: str, langs: Sequence[str], chosen: Pick, reasons: Mapping[str, str], order: Sequence[str] | None = None
) -> str | None:
    """The report line for a reader of several languages who got no passing delivery in the first, else None;
    ``order`` is the reader's route (default ``langs``)."""
    order = order or langs
    if len(langs) < 2 or (chosen.lang == langs[0] and chosen.passed):
        return None
    tried = order[: order.index(chosen.lang)] if chosen.passed else order
    why = "; ".join(f"{lang} translation {reasons.get(lang, 'withheld')}" for lang in tried)
    return f"{user} got {chosen.lang} ({chosen.how}): {why or 'first on the route (measured records)'}"


def deliveries(
    message: ChatMessage,
    readers: Mapping[str, Sequence[str]],
    reasons: Mapping[str, str],
    label: str,
    routes: Mapping[str, Sequence[str]] | None = None,
) -> tuple[list[Delivery], list[str]]:
    """``message`` (with its guarded translations) for every reader by the rule, each along their route
    (``routes``; default their languages in order), and the report notes."""
    out: list[Delivery] = []
    notes: list[str] = []
    for user, langs in readers.items():
        order = (routes or {}).get(user, langs)
        chosen = pick(order, message, first=langs[0])
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
        note = reader_note(user, langs, chosen, reasons, order)
        if note:
            notes.append(f"{label}: {note}")
    return out, notes
