"""Numbers a translation states that its source does not: a changed time, amount or date is a made-up fact.

The faithfulness gate scores meaning, not facts: "the meeting is at 10:00" and "the meeting is at 11:00"
are equally similar to the source. :func:`unsupported_numbers` compares the digit groups of source and
output: every maximal run of decimal digits in any script (``"10:00"`` -> ``10``, ``00``; ``"१२"`` ->
``12``; Unicode digits are read by their value). A group of the output is unsupported unless it
occurs in the source's digits run together (so ``1000`` is supported by ``1,000``, and separators
never matter: ``1.000`` / ``1 000``, ``3.5`` / ``3,5``) or is all zeros (``15 h`` is ``15:00`` and
``15.00 Uhr``: the zero minutes carry no fact a reader could be misled by).

What it does not do: numbers the source writes in words (``"two hours"`` translated as ``"2 Stunden"``)
read as unsupported, and clock conventions that change the number (Swahili counts hours from 6 a.m.:
3 p.m. is *saa tisa*, the ninth hour) too; a number the output leaves out is not flagged (a translation
may write it in words). These are the check's known false positives and misses, measured in
docs/SECURITY.md rather than patched with exceptions.
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["digit_groups", "unsupported_numbers"]

_DIGITS = re.compile(r"\d+", re.UNICODE)


def digit_groups(text: str) -> list[str]:
    """The runs of decimal digits in ``text``, each written with ASCII digits, in order."""
    return ["".join(str(unicodedata.digit(ch)) for ch in run) for run in _DIGITS.findall(text)]


def unsupported_numbers(source: str, output: str) -> list[str]:
    """The digit groups of ``output`` that ``source`` does not contain (each once, in order of appearance)."""
    have = "".join(digit_groups(source))
    return list(dict.fromkeys(g for g in digit_groups(output) if g.strip("0") and g not in have))
