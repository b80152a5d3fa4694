"""Untrusted text made safe to store, to prompt with and to show: clean on the way in, escape on the way out.

Messages, model outputs and files may carry characters that act on whatever shows them instead of being
read: NUL and the other C0/C1 controls, terminal escape sequences (clear screen, colours, a fake red
"Aya:" line, OSC 8 hyperlinks), carriage returns that overwrite a line (``harmless text\\rkofi: I resign``
shows as "kofi: I resign"), bidi overrides that reorder what follows them, and invisible characters that
hide inside words (``@a\\u200bya``) or smuggle text (Unicode tag characters).

* :func:`clean_text` (on the way in; the room applies it to every message and to every model output
  before it reaches a feed): a terminal escape sequence is removed whole; ``\\r\\n``, a lone ``\\r``,
  NEL and the Unicode line/paragraph separators become ``\\n``; every other C0/C1 control (newline and
  tab kept), DEL, bidi embeddings/overrides/isolates (U+202A-E, U+2066-9), invisible operators,
  the word joiner, BOM and noncharacters are removed; a lone surrogate becomes U+FFFD.
  Context-dependent characters keep their legitimate uses: a zero-width (non-)joiner or space stays
  between two non-ASCII letters, marks, digits or symbols (Persian, Indic and Khmer words, emoji
  sequences such as 👩🏽‍💻) and goes anywhere else (inside ``a\\u200bdmin``, or in a run); the first
  variation selector after a character stays (``❤️``), a run of them goes; tag characters stay only in
  an emoji flag sequence (🏴 + tags + CANCEL TAG). Ordinary text, of any script, with emoji, newlines
  and tabs, comes back unchanged (the same ``str``).
* :func:`for_terminal` and :func:`for_html` (on the way out): whatever :func:`clean_text` would change is
  shown as a visible escape (``\\x1b``, ``\\u202e``) instead of acting, so text stored before cleaning,
  or from another source, cannot drive the terminal or the page; continuation lines can be indented so
  a message cannot fake a line of its own. Ordinary text is unchanged (for HTML: ``html.escape``).

Simplified, and why: no Unicode normalisation (NFC would change honest text that is merely decomposed),
and no confusable-letter folding (a Cyrillic "а" in a message is the user's business; names are
checked where they are names). LRM/RLM/ALM (bidi *marks*) are kept: they cannot reorder strong text,
and RTL writers use them around numbers and punctuation.
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Callable

__all__ = ["clean_text", "for_html", "for_terminal", "hostile_characters", "describe_code_points"]

_ESCAPE_SEQUENCE = (
    r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]"  # CSI: colours, cursor moves, clear screen
    r"|(?:\x1b[\]P^_X]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x9c\n]*(?:\x07|\x1b\\|\x9c)?"  # OSC/DCS/SOS/PM/APC
    r"|\x1b[ -/]*[0-~]"  # any other escape (ESC c: reset the terminal)
)
_LINE_BREAK = r"\r\n?|[\x85\u2028\u2029]"
_FLAG_TAGS = r"\U0001F3F4[\U000E0020-\U000E007E]+\U000E007F"  # 🏴 + tag letters + CANCEL TAG: a flag
_TAGS = r"[\U000E0000-\U000E007F]+"
_SELECTORS = r"[\uFE00-\uFE0F\U000E0100-\U000E01EF]+"
_JOINERS = r"[\u200B-\u200D]+"  # zero-width space, non-joiner, joiner
_ALWAYS = (
    r"[\x00-\x08\x0b-\x1f\x7f-\x9f"  # C0 but tab and newline, DEL, C1
    r"\u202A-\u202E\u2066-\u2069"  # bidi embeddings, overrides, isolates
    r"\u2060-\u2064\u206A-\u206F\u180E\uFEFF\uFFF9-\uFFFB\uFFFE\uFFFF"  # joiner, invisible operators, BOM
    r"\ud800-\udfff]"  # lone surrogates
)
_PATTERN = re.compile(
    "|".join(
        f"(?P<{name}>{rx})"
        for name, rx in (
            ("esc", _ESCAPE_SEQUENCE),
            ("line", _LINE_BREAK),
            ("flag", _FLAG_TAGS),
            ("tags", _TAGS),
            ("sel", _SELECTORS),
            ("join", _JOINERS),
            ("bad", _ALWAYS),
        )
    )
)


def _visible(ch: str) -> bool:
    """A non-ASCII letter, mark, digit or symbol: a character a joiner may legitimately sit beside."""
    return ord(ch) > 0x7F and unicodedata.category(ch)[0] in "LMNS"


def _cleaned(m: re.Match[str]) -> str:
    """What :func:`clean_text` puts in place of one match (the match itself where it is legitimate)."""
    kind, text, s, e = m.lastgroup, m.string, m.start(), m.end()
    if kind == "line":
        return "\n"
    if kind == "flag":
        return m.group()
    if kind == "sel":  # the first selector after a character (❤️, a keycap) stays; a run is smuggling
        return m.group()[0] if s > 0 and text[s - 1] not in "\n\t" else ""
    if kind == "join" and e - s == 1 and s > 0 and e < len(text) and _visible(text[s - 1]) and _visible(text[e]):
        return m.group()
    if kind == "bad" and "\ud800" <= m.group() <= "\udfff":
        return "\ufffd"
    return ""


def clean_text(text: str) -> str:
    """``text`` with hostile characters removed or neutralised (see the module docstring); ordinary
    text is returned unchanged."""
    return _PATTERN.sub(_cleaned, text) if _PATTERN.search(text) else text


def hostile_characters(text: str) -> list[str]:
    """The characters :func:`clean_text` removes or changes in ``text`` (``U+001B ESCAPE``-style names,
    each once, in order of appearance): for a message that names what was wrong."""
    found: dict[str, None] = {}
    for m in _PATTERN.finditer(text):
        if _cleaned(m) != m.group():
            for ch in m.group()[:1] if m.lastgroup == "esc" else m.group().replace("\n", ""):
                found.setdefault(describe_code_points(ch), None)
    return list(found)


def describe_code_points(text: str) -> str:
    """``'а'`` -> ``U+0430 CYRILLIC SMALL LETTER A``; several characters joined with ``", "``."""
    return ", ".join(f"U+{ord(ch):04X} {unicodedata.name(ch, _control_name(ch))}" for ch in text)


def _control_name(ch: str) -> str:
    names = {"\x00": "NUL", "\x1b": "ESCAPE", "\r": "CARRIAGE RETURN", "\x7f": "DELETE"}
    return names.get(ch, "SURROGATE" if unicodedata.category(ch) == "Cs" else "CONTROL")


def _escape(chars: str) -> str:
    """Each character as a visible Python-style escape: ``\\x1b``, ``\\u202e``, ``\\U000e0041``."""
    return "".join(ch.encode("unicode_escape", "backslashreplace").decode("ascii") for ch in chars)


def _escaped(m: re.Match[str]) -> str:
    """The match shown as escapes where cleaning would change it (an escape sequence whole, so its
    parameters stay readable: ``\\x1b[31m``)."""
    kept = _cleaned(m)
    if kept == m.group():
        return kept
    if m.lastgroup == "sel":  # the selector that stays, then the run shown
        return kept + _escape(m.group()[len(kept) :])
    if m.lastgroup == "esc":
        return _escape(m.group()[0]) + _escape_rest(m.group()[1:])
    if m.lastgroup == "line":  # shown (no overwrite), then the line break cleaning makes of it
        return _escape(m.group().removesuffix("\n")) + "\n"
    return _escape(m.group())


def _escape_rest(rest: str) -> str:
    return "".join(_escape(ch) if ch < " " or "\x7f" <= ch <= "\x9f" else ch for ch in rest)


def _render(text: str, escape_plain: Callable[[str], str], indent: str) -> str:
    out: list[str] = []
    pos = 0
    for m in _PATTERN.finditer(text):
        out.append(escape_plain(text[pos : m.start()]))
        out.append(_escaped(m))
        pos = m.end()
    out.append(escape_plain(text[pos:]))
    shown = "".join(out)
    return shown.replace("\n", "\n" + indent) if indent else shown


def for_terminal(text: str, indent: str = "") -> str:
    """``text`` as a terminal should print it: hostile characters as visible escapes, each newline
    followed by ``indent`` (so a message's second line cannot pass for a line of its own)."""
    if not indent and not _PATTERN.search(text):
        return text
    return _render(text, lambda s: s, indent)


def for_html(text: str) -> str:
    """``text`` for an HTML page: ``html.escape`` plus hostile characters as visible escapes."""
    return _render(text, html.escape, "")
