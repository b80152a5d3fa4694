"""Checkable facts in English text, and whether a passage states them.

A **claim** is one fact an answer states that a reader could look up: a number (with its unit or
currency: "45 EUR", "€45", "45 euros", "50 %", "14 days"), a date ("YYYY-MM-DD", "30 November 2026",
"November 30", "March 2027", a weekday), a clock time ("22:00", "4 pm"), or a named entity (two or more
capitalised words, not counting a sentence's first word: "Kivu Logistics", "Tamu Foods"). Each claim has
a normal form, so "45.00 EUR" == "EUR 45" == "€45" == "45 euros" and "1,000" == "1000".

**Support.** A passage supports a claim when it states the same fact: a number of the same value with
the same unit, or with no unit on one side ("45" in the answer is supported by "45 EUR", "3 days" by
"3 working days"; "45 days" is not supported by "45 EUR"); a date whose stated parts agree ("30
November" is supported by "YYYY-11-30"); the same clock time; an entity written in the passage (case,
hyphens and spacing aside). A bare number is also supported by a date or time part of the passage
("2026" by "2026-MM-DD").

**Simplifications (minbpe-style, said out loud).** Regular expressions, no parser and no NER model (none
is installed; spaCy is not wanted): a one-word name ("Zurich") is not a claim, nor is a name at the
start of a sentence; number words count only before a unit ("three days"), so "one of us" is no claim;
a number's unit is the word right after it (or a currency sign before it), so "45 EUR per day" claims
45 EUR and says nothing about "per day". A claim can be supported by a passage that states the same
number about something else ("22.50 EUR" for a hotel cap, when 22.50 EUR is a half per diem): the check
catches facts that are *in no passage*, not facts put in the wrong place.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from aya_lab.agents.numbers import ENGLISH_NUMBER_WORDS

__all__ = ["Claim", "extract_claims", "supported", "supported_claims", "quantity_conflicts"]

_MONTHS = {
    m: i + 1
    for i, names in enumerate(
        "january jan|february feb|march mar|april apr|may|june jun|july jul|august aug|september sep sept|"
        "october oct|november nov|december dec".split("|")
    )
    for m in names.split()
}
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_UNITS = {
    **dict.fromkeys(("eur", "euro", "euros", "€"), "EUR"),
    **dict.fromkeys(("usd", "dollar", "dollars", "$"), "USD"),
    **dict.fromkeys(("gbp", "pound", "pounds", "£"), "GBP"),
    **dict.fromkeys(("chf", "francs"), "CHF"),
    **dict.fromkeys(("kes", "shillings"), "KES"),
    **dict.fromkeys(("%", "percent", "pct"), "%"),
    **{w: w.rstrip("s") for w in "days hours minutes weeks months years nights seconds characters".split()},
    **{w: w for w in "day hour minute week month year night second character".split()},
    **dict.fromkeys(("h", "hr", "hrs"), "hour"),
    **dict.fromkeys(("min", "mins"), "minute"),
    **dict.fromkeys(("chars",), "character"),
    **dict.fromkeys(("km", "kilometre", "kilometres", "kilometer", "kilometers"), "km"),
    **{u: u.upper() for u in ("gb", "mb", "tb")},
}
_NUMBER_WORDS = ENGLISH_NUMBER_WORDS

_MONTH = r"(?P<{}>" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_ORD = r"(?:st|nd|rd|th)?"
_DATES = [
    re.compile(r"\b(?P<y>\d{4})-(?P<m>\d{1,2})-(?P<d>\d{1,2})\b"),
    re.compile(rf"\b(?P<d>\d{{1,2}}){_ORD}\s+(?:of\s+)?{_MONTH.format('mn')}(?:,?\s+(?P<y>\d{{4}}))?\b", re.I),
    re.compile(rf"\b{_MONTH.format('mn')}\s+(?P<d>\d{{1,2}}){_ORD}(?:,?\s+(?P<y>\d{{4}}))?\b", re.I),
    re.compile(rf"\b{_MONTH.format('mn')}\s+(?P<y>\d{{4}})\b", re.I),
    # a month name alone: capitalised, and not "May" (a verb too often)
    re.compile(r"\b(?P<mn>January|February|March|April|June|July|August|September|October|November|December)\b"),
]
_WEEKDAY = re.compile(r"\b(" + "|".join(_WEEKDAYS) + r")s?\b", re.I)
_TIME = re.compile(
    r"\b(?P<h>\d{1,2})(?::(?P<mi>\d{2}))?\s*(?P<ap>[ap]\.?m\.?)(?![\w])|\b(?P<h2>\d{1,2}):(?P<mi2>\d{2})\b", re.I
)
_SIGN = r"(?P<pre>€|\$|£|\b(?:EUR|USD|GBP|CHF|KES)\s?)?"
_NUMBER = re.compile(
    _SIGN + r"(?<![\w.,])(?P<num>\d{1,3}(?:,\d{3})+|\d+)(?P<dec>\.\d+)?(?:st|nd|rd|th)?(?![\w])"
    r"(?:(?:\s?|-)(?P<unit>%|€|\$|£|[A-Za-z]+)(?![\w]))?(?P<cent>\s+cent\b)?"
)
_WORD_NUMBER = re.compile(r"\b(?P<num>" + "|".join(_NUMBER_WORDS) + r")(?:\s|-)(?P<unit>[A-Za-z]+)\b", re.I)
_CAP = r"(?:[A-Z][\w'’&.-]*[\w]|[A-Z])"
_ENTITY = re.compile(rf"{_CAP}(?:[ \t]+(?:(?:of|de|du|la|van|von|and|&|for)[ \t]+)?{_CAP})+")
_SENTENCE_START = re.compile(r"(?:^|[.!?:;\n•*>\-–—(\[\"“]\s*)$")
_NOT_NAMES = frozenset(_WEEKDAYS) | frozenset(_MONTHS) | {"i", "the", "a", "an"}


@dataclass(frozen=True)
class Claim:
    """One checkable fact: ``kind`` (``number``, ``date``, ``time``, ``entity``), its normal form ``key``
    (``"45 EUR"``, ``"22.5"``, ``"YYYY-MM-DD"``, ``"--11-30"``, ``"friday"``, ``"22:00"``, ``"kivu
    logistics"``) and the text as written."""

    kind: str
    key: str
    text: str

    @property
    def value(self) -> str:
        """A number's value alone (``"45"`` of ``"45 EUR"``); the key for other kinds."""
        return self.key.split(" ", 1)[0]

    @property
    def unit(self) -> str:
        """A number's unit (``"EUR"``, ``"%"``, ``"day"``), or ``""``."""
        return self.key.split(" ", 1)[1] if self.kind == "number" and " " in self.key else ""


def _decimal(text: str) -> str:
    try:
        return format(Decimal(text.replace(",", "")).normalize(), "f")
    except InvalidOperation:  # pragma: no cover - the pattern admits digits only
        return text


def _date_key(y: str | None, m: int, d: str | None) -> str:
    return f"{y or ''}-{m:02d}-{int(d):02d}" if d else f"{y or ''}-{m:02d}"


def _dates(text: str, taken: list[tuple[int, int]]) -> Iterable[Claim]:
    for pattern in _DATES:
        for match in pattern.finditer(text):
            if _overlaps(match.span(), taken):
                continue
            groups = match.groupdict()
            month = int(groups["m"]) if groups.get("m") else _MONTHS[groups["mn"].lower()]
            if not 1 <= month <= 12 or (groups.get("d") and not 1 <= int(groups["d"]) <= 31):
                continue
            taken.append(match.span())
            yield Claim("date", _date_key(groups.get("y"), month, groups.get("d")), match.group(0))
    for match in _WEEKDAY.finditer(text):
        if not _overlaps(match.span(), taken):
            taken.append(match.span())
            yield Claim("date", match.group(1).lower(), match.group(0))


def _times(text: str, taken: list[tuple[int, int]]) -> Iterable[Claim]:
    for match in _TIME.finditer(text):
        if _overlaps(match.span(), taken):
            continue
        hour, minute = int(match.group("h") or match.group("h2")), int(match.group("mi") or match.group("mi2") or 0)
        ampm = (match.group("ap") or "").lower()[:1]
        if ampm:
            hour = hour % 12 + (12 if ampm == "p" else 0)
        if hour > 24 or minute > 59:
            continue
        taken.append(match.span())
        yield Claim("time", f"{hour:02d}:{minute:02d}", match.group(0))


def _unit(word: str | None) -> str:
    return _UNITS.get((word or "").lower()) or ""


def _numbers(text: str, taken: list[tuple[int, int]], *, bare_words: bool) -> Iterable[Claim]:
    for match in _NUMBER.finditer(text):
        start = match.start("num")
        if _overlaps((start, match.end("num")), taken):
            continue
        value = _decimal(match.group("num") + (match.group("dec") or ""))
        pre = (match.group("pre") or "").strip()
        unit = _unit(pre) or _unit(match.group("unit"))
        if (match.group("unit") or "").lower() == "per" and match.group("cent"):
            unit = "%"
        taken.append((start, match.end()))
        written = (
            match.group(0)
            if unit
            else text[match.start() : match.end("dec") if match.group("dec") else match.end("num")]
        )
        yield Claim("number", f"{value} {unit}".strip(), written.strip())
    for match in _WORD_NUMBER.finditer(text):
        unit = _unit(match.group("unit"))
        if _overlaps(match.span(), taken) or not (unit or bare_words):
            continue
        taken.append(match.span())
        written = match.group(0) if unit else match.group("num")
        yield Claim("number", f"{_NUMBER_WORDS[match.group('num').lower()]} {unit}".strip(), written)


def _entities(text: str) -> Iterable[Claim]:
    for match in _ENTITY.finditer(text):
        words = match.group(0).split()
        if _SENTENCE_START.search(text[: match.start()]):
            words = words[1:]  # a sentence's first word is capitalised anyway
        while words and words[0].lower() in _NOT_NAMES | {"of", "de", "du", "la", "van", "von", "and", "&", "for"}:
            words = words[1:]
        if len(words) >= 2 and not any(w.lower() in _NOT_NAMES for w in words):
            yield Claim("entity", _squash(" ".join(words)), " ".join(words))


def _squash(text: str) -> str:
    return " ".join(re.sub(r"[-‐‑–—_]", " ", text.lower()).replace("’", "'").split())


def _overlaps(span: tuple[int, int], taken: Sequence[tuple[int, int]]) -> bool:
    return any(span[0] < end and start < span[1] for start, end in taken)


def extract_claims(text: str, *, lenient: bool = False) -> list[Claim]:
    """The claims of ``text``, deduplicated by normal form, in the order: dates, times, numbers, entities.

    ``lenient`` (for passages, the side that supports): a number word counts without a unit too."""
    taken: list[tuple[int, int]] = []
    claims = [*_dates(text, taken), *_times(text, taken)]
    claims += [*_numbers(text, taken, bare_words=lenient), *_entities(text)]
    return list({(c.kind, c.key): c for c in claims}.values())


def _date_parts(key: str) -> tuple[str, ...]:
    return tuple(key.split("-")) if "-" in key else (key,)


def _date_agrees(claim: str, stated: str) -> bool:
    a, b = _date_parts(claim), _date_parts(stated)
    if len(a) == 1 or len(b) == 1:
        return a == b  # weekdays
    pairs = list(zip(a, b, strict=False))
    return all(x == y or not x or not y for x, y in pairs)


def supported(claim: Claim, passage: str, stated: Sequence[Claim] | None = None) -> bool:
    """Whether ``passage`` states ``claim`` (see the module docstring); ``stated``: the passage's claims,
    when already extracted (``extract_claims(passage, lenient=True)``)."""
    if claim.kind == "entity":
        return claim.key in _squash(passage)
    stated = extract_claims(passage, lenient=True) if stated is None else stated
    if claim.kind == "date":
        return any(s.kind == "date" and _date_agrees(claim.key, s.key) for s in stated)
    if claim.kind == "time":
        return any(s.kind == "time" and s.key == claim.key for s in stated)
    for s in stated:
        if s.kind == "number" and s.value == claim.value and (s.unit == claim.unit or not s.unit or not claim.unit):
            return True
    if claim.unit:
        return False
    parts = {p.lstrip("0") or "0" for s in stated if s.kind in ("date", "time") for p in re.split(r"[-:]", s.key) if p}
    return claim.value in parts


def supported_claims(claims: Sequence[Claim], passage: str) -> list[Claim]:
    """The ``claims`` that ``passage`` states."""
    stated = extract_claims(passage, lenient=True)
    return [c for c in claims if supported(c, passage, stated)]


def _sentences(text: str) -> list[str]:
    return [s for s in re.split(r"(?<=[.!?])\s+|\n+|\s-\s", text) if s.strip()]


def quantity_conflicts(note: str, document: str, stop: frozenset[str]) -> list[tuple[Claim, Claim]]:
    """``(note's claim, document's claim)`` pairs where the two texts state **different values for the
    same thing**: two numbers with the same non-empty unit (a currency, ``%``, a time unit), the
    document's in a sentence that shares a content word (not a number, not a unit, not in ``stop``)
    with the note — "the per diem is 900 EUR" against "The per-diem is 45 EUR per full travel day"
    (same unit EUR, shared word "diem"). Different words for one thing ("vacation" vs "annual leave")
    are not seen."""
    note_claims = [c for c in extract_claims(note) if c.kind == "number" and c.unit]
    if not note_claims:
        return []
    note_words = _plain_words(note, stop)
    conflicts = []
    for sentence in _sentences(document):
        if not note_words & _plain_words(sentence, stop):
            continue
        for d in extract_claims(sentence):
            for n in note_claims:
                if d.kind == "number" and d.unit == n.unit and d.value != n.value:
                    conflicts.append((n, d))
    return conflicts


def _plain_words(text: str, stop: frozenset[str]) -> set[str]:
    words = {w for w in re.findall(r"[^\W\d_]+", text.lower()) if w not in stop}
    return {w for w in words if w not in _UNITS}
