"""Spotlighting (Hines et al., 2024, *delimiting*): untrusted values stay inside their delimiters.

A prompt file declares which of its variables hold untrusted text (``untrusted: [message, context]``)
and wraps them in tags of its own (``<message>{message}</message>``). When it is rendered, each
untrusted value is passed through :func:`spotlight_value`:

- **tags**: any opening or closing tag in the value whose name is one of the template's delimiter tags
  (:func:`delimiter_tags`: every ``<name>``/``</name>`` written in the template text, case-insensitive,
  also with spaces such as ``< /message >``) has its ``<`` replaced by the look-alike ``‹`` (U+2039),
  so the value can neither close its own span nor open a new one; other text (``a < b``, ``<b>``) is
  left alone;
- **lines** (completion prompts only): a completion prompt is line-structured (``Source: ...`` then
  ``Target:``), so every line break in an untrusted value (``\\n``, ``\\r``, U+2028, ...) collapses
  with the spaces around it to one space and the value cannot forge a few-shot line. Chat prompts keep
  newlines (the chat template keeps the roles apart).

A value without delimiter tags or line breaks renders byte-identically (FLORES/NTREX segments, the
workplace set).
"""

from __future__ import annotations

import functools
import re

__all__ = ["LOOKALIKE", "delimiter_tags", "spotlight_value"]

LOOKALIKE = "\u2039"  # ‹ SINGLE LEFT-POINTING ANGLE QUOTATION MARK
_TAG = re.compile(r"<\s*/?\s*([A-Za-z][\w-]*)\s*>")
_BREAKS = re.compile(r"[ \t]*(?:\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029])\s*")


def delimiter_tags(*templates: str) -> frozenset[str]:
    """The tag names (lower case) written as ``<name>`` or ``</name>`` in ``templates``."""
    return frozenset(m.group(1).lower() for t in templates for m in _TAG.finditer(t or ""))


@functools.lru_cache(maxsize=64)
def _tag_pattern(tags: frozenset[str]) -> re.Pattern[str]:
    names = "|".join(re.escape(t) for t in sorted(tags, key=lambda t: (-len(t), t)))
    return re.compile(rf"<(?=\s*/?\s*(?:{names})(?![\w-]))", re.IGNORECASE)


def spotlight_value(value: str, tags: frozenset[str], *, single_line: bool = False) -> str:
    """``value`` made safe to place between the delimiter ``tags`` (see the module docstring)."""
    out = str(value)
    if tags:
        out = _tag_pattern(tags).sub(LOOKALIKE, out)
    if single_line:
        out = _BREAKS.sub(" ", out)
    return out
