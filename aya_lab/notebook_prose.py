"""Numbers in a notebook's prose, checked against what the notebook printed.

A notebook's markdown should state only figures its cells produced. :func:`prose_violations` takes a
notebook (the ``.ipynb`` JSON as a dict, nothing executed) and returns every number of a markdown cell
that no output of a code cell of the same notebook shows: stream text, ``text/plain``,
``text/markdown`` and ``text/html`` (tags stripped) — so a conclusion rendered by ``report()`` or
``Markdown(...)`` counts as output, and the prose above it may quote it.

What counts as a number in prose (:func:`prose_numbers`):

- decimals, integers, thousands-grouped integers (``8,952``), percentages (``13%``), and the numbers of
  a range (``0.86–1.00``, ``13 of 60``) or a compound (``3-shot``, ``±0.0``); signs are ignored (a
  direction is a notebook's ``assert``, not this check's business);
- an ISO date (``YYYY-MM-DD``) and a dotted version (``2.6.0``) are one token each, matched as written;
- not a number: anything inside code spans, fenced code or a link's target; a digit run glued to a
  letter, ``@`` or ``_`` (``SmolLM2``, ``fp32``, ``135M``, ``v1``, ``hit@1``) or joined to a word by a
  hyphen (``NTREX-128``, ``NLLB-200``): those are names, not quantities.

A prose number is **found** (:func:`is_found`) when some output number, rounded half-up or half-even to
the prose's decimal places, equals it: prose may round (``0.72`` for an output ``0.721``), never
invent. A percentage also matches the fraction (``86%`` for ``0.857``) and a fraction the percentage.
Small integers are found almost everywhere, so the check is strongest on the figures that matter:
decimals and percentages.

An allow-list is a mapping of regular expressions to reasons; text matching one is blanked out of
the prose before numbers are read (:func:`mask`), so ``"Gemma 3"`` spares the ``3`` of a model name.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, ROUND_HALF_UP, Decimal
from html.parser import HTMLParser

__all__ = [
    "ProseNumber",
    "Violation",
    "prose_text",
    "mask",
    "prose_numbers",
    "output_text",
    "output_numbers",
    "is_found",
    "prose_violations",
]

_FENCED = re.compile(r"^( {0,3})(```|~~~).*?^\1\2[^\n]*$", re.S | re.M)
_CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1", re.S)
_LINK_TARGET = re.compile(r"\]\([^)]*\)")
_TOKEN = re.compile(
    r"(?P<date>\d{4}-\d{2}-\d{2})(?![\w-])"
    r"|(?P<version>\d+(?:\.\d+){2,})(?![\w.])"
    r"|(?P<number>\d{1,3}(?:,\d{3})+(?!\d)(?:\.\d+)?|\d+(?:\.\d+)?)(?P<percent>\s?%)?"
)
_NAME_BEFORE = re.compile(r"(?:[^\W\d]|[@_]|[^\W\d]-)$")  # a letter, @ or _ (SmolLM2, hit@1), or word- (NTREX-)
_OUTPUT_NUMBER = re.compile(r"\d+(?:,\d{3})*(?:\.\d+)?(?:\s?%)?")


@dataclass(frozen=True)
class ProseNumber:
    """One number of a markdown cell: ``text`` as written, its ``kind`` (``number``, ``date`` or
    ``version``), its absolute value and decimal places (numbers only), whether it was a percentage,
    and ``context``, the words around it."""

    text: str
    kind: str
    value: Decimal | None
    decimals: int
    percent: bool
    context: str
    start: int = 0


@dataclass(frozen=True)
class Violation:
    """A prose number no output of the notebook shows: the notebook, the markdown cell's index and
    first line, and the number."""

    notebook: str
    cell: int
    heading: str
    number: ProseNumber

    def __str__(self) -> str:
        return f"{self.notebook}, cell {self.cell} ({self.heading}): {self.number.text!r} in “{self.number.context}”"


def prose_text(markdown: str) -> str:
    """``markdown`` with fenced code, code spans and link targets blanked (same length, so offsets hold)."""
    out = markdown
    for pattern in (_FENCED, _CODE_SPAN, _LINK_TARGET):
        out = pattern.sub(lambda m: " " * len(m.group(0)), out)
    return out


def mask(text: str, allow: Iterable[str]) -> str:
    """``text`` with every match of each allow-list pattern blanked (same length)."""
    for pattern in allow:
        text = re.sub(pattern, lambda m: " " * len(m.group(0)), text, flags=re.M)
    return text


def _decimals(digits: str) -> int:
    return len(digits.split(".")[1]) if "." in digits else 0


def prose_numbers(markdown: str, allow: Iterable[str] = ()) -> list[ProseNumber]:
    """The numbers of one markdown cell, in order (see the module docstring for what counts)."""
    text = mask(prose_text(markdown), allow)
    out = []
    for m in _TOKEN.finditer(text):
        if _NAME_BEFORE.search(text[: m.start()]) or re.match(r"[^\W\d_]", text[m.end() :]):
            continue  # part of a name: SmolLM2, NTREX-128, 135M, fp32
        context = " ".join(markdown[max(0, m.start() - 40) : m.end() + 40].split())
        if m.group("date") or m.group("version"):
            kind = "date" if m.group("date") else "version"
            out.append(ProseNumber(m.group(0), kind, None, 0, False, context, m.start()))
            continue
        digits = m.group("number").replace(",", "")
        percent = bool(m.group("percent"))
        value = Decimal(digits)
        out.append(ProseNumber(m.group(0).strip(), "number", value, _decimals(digits), percent, context, m.start()))
    return out


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag, attrs):
        self._skip += tag in ("style", "script")
        self.parts.append(" ")

    def handle_endtag(self, tag):
        self._skip -= tag in ("style", "script") and self._skip > 0
        self.parts.append(" ")

    def handle_data(self, data):
        if not self._skip:
            self.parts.append(data)


def _html_text(markup: str) -> str:
    parser = _Text()
    parser.feed(markup)
    parser.close()
    return html.unescape("".join(parser.parts))


def output_text(cell: Mapping) -> str:
    """Everything a code cell shows as text: streams, ``text/plain``, ``text/markdown`` and
    ``text/html`` (as text) of its outputs. Images and errors are left out."""
    parts = []
    for output in cell.get("outputs", []):
        if output.get("output_type") == "stream":
            parts.append(_join(output.get("text", "")))
        data = output.get("data", {})
        for mime in ("text/plain", "text/markdown"):
            if mime in data:
                parts.append(_join(data[mime]))
        if "text/html" in data:
            parts.append(_html_text(_join(data["text/html"])))
    return "\n".join(parts)


def _join(value: str | list[str]) -> str:
    return value if isinstance(value, str) else "".join(value)


def output_numbers(text: str) -> tuple[set[tuple[Decimal, int]], set[str]]:
    """The numbers of output ``text`` as ``(absolute value, decimal places)`` — a percentage also as its
    fraction, a fraction as its percentage — and the text's dates and versions as written."""
    numbers: set[tuple[Decimal, int]] = set()
    for m in _OUTPUT_NUMBER.finditer(text):
        raw = m.group(0)
        digits = raw.rstrip("% ").replace(",", "")
        value, places = Decimal(digits), _decimals(digits)
        numbers.add((value, places))
        if raw.endswith("%"):
            numbers.add((value / 100, places + 2))
        elif places >= 2:
            numbers.add((value * 100, places - 2))
        if "," in raw:  # "1,2" in a list is two numbers, not one thousand-grouped one
            numbers.update((Decimal(p), 0) for p in raw.split(".")[0].split(","))
    literal = set(re.findall(r"\d{4}-\d{2}-\d{2}|\d+(?:\.\d+){2,}", text))
    return numbers, literal


def is_found(number: ProseNumber, numbers: set[tuple[Decimal, int]], literal: set[str]) -> bool:
    """Whether an output shows ``number``: a date or version as written; a number as some output number
    with at least as many decimal places that rounds to it (half-up or half-even)."""
    if number.kind != "number":
        return number.text in literal
    assert number.value is not None
    quantum = Decimal(1).scaleb(-number.decimals)
    for value, places in numbers:
        if places < number.decimals:
            continue
        if any(value.quantize(quantum, rounding=r) == number.value for r in (ROUND_HALF_UP, ROUND_HALF_EVEN)):
            return True
    return False


def _heading(source: str) -> str:
    first = next((line.strip() for line in source.splitlines() if line.strip()), "")
    return first[:60]


def prose_violations(
    notebook: Mapping, name: str, allow: Iterable[str] = (), settings: Iterable[str] = ()
) -> list[Violation]:
    """Every number of ``notebook``'s markdown cells that none of its code cells' outputs shows, after
    blanking the ``allow`` patterns; ``name`` labels the violations.

    A number inside a match of a ``settings`` pattern (``r"\\d+ new tokens"``) states how the notebook
    runs, not what it found: it is looked up in the code cells' source instead (``max_new_tokens=64``),
    so a setting the prose states still has to be the one the code sets."""
    cells = notebook.get("cells", [])
    code = [c for c in cells if c.get("cell_type") == "code"]
    shown = output_numbers("\n".join(output_text(c) for c in code))
    written = output_numbers("\n".join(_join(c.get("source", "")) for c in code))
    allow, settings = list(allow), list(settings)
    out = []
    for index, cell in enumerate(cells):
        if cell.get("cell_type") != "markdown":
            continue
        source = _join(cell.get("source", ""))
        spans = [m.span() for p in settings for m in re.finditer(p, prose_text(source))]
        for number in prose_numbers(source, allow):
            is_setting = any(a <= number.start < b for a, b in spans)
            if not is_found(number, *(written if is_setting else shown)):
                out.append(Violation(name, index, _heading(source), number))
    return out
