"""Degenerate repetition: a model output that loops ("kwa kuchelewa kwa kuchelewa ...", "750 EUR, la 750
EUR, la ...", "Die 1000000000...") has stopped translating, whatever words it repeats.

:func:`repetition_loop` finds the longest run of one word n-gram (n = 1..:data:`MAX_NGRAM`) repeated
back to back, and the longest run of one character. An output loops when a run of at least
:data:`MIN_REPEATS` copies covers at least :data:`MIN_SHARE` of its words, or one character repeats
:data:`MIN_CHAR_RUN` times or more. The rule is the generic signature of degenerate decoding (Holtzman
et al., 2020), fixed before it was measured on the room's unseen messages, not fitted to them: an
honest sentence rarely says the same word or phrase four times in a row. The guard applies it only
when the source itself does not loop (a message that repeats "no no no no" may be translated so).
"""

from __future__ import annotations

import re

__all__ = ["MAX_NGRAM", "MIN_CHAR_RUN", "MIN_REPEATS", "MIN_SHARE", "repetition_loop"]

MAX_NGRAM = 4
MIN_REPEATS = 4
MIN_SHARE = 0.5
MIN_CHAR_RUN = 16

_WORD = re.compile(r"\w+", re.UNICODE)
_CHAR_RUN = re.compile(r"(.)\1{" + str(MIN_CHAR_RUN - 1) + ",}")


def _longest_run(words: list[str], n: int) -> tuple[int, str]:
    """The most back-to-back copies of one ``n``-gram in ``words``, and that n-gram."""
    best, best_gram = 0, ""
    for start in range(n):
        grams = [tuple(words[i : i + n]) for i in range(start, len(words) - n + 1, n)]
        run = 1
        for i in range(1, len(grams)):
            run = run + 1 if grams[i] == grams[i - 1] else 1
            if run > best:
                best, best_gram = run, " ".join(grams[i])
    return best, best_gram


def repetition_loop(text: str) -> str | None:
    """Why ``text`` is a repetition loop (a one-line reason), or ``None`` when it is not."""
    chars = _CHAR_RUN.search(text)
    if chars:
        return f"the character {chars.group(1)!r} repeats {len(chars.group(0))} times"
    words = [w.casefold() for w in _WORD.findall(text)]
    for n in range(1, MAX_NGRAM + 1):
        run, gram = _longest_run(words, n)
        if run >= MIN_REPEATS and run * n >= MIN_SHARE * len(words):
            return f"{gram!r} repeats {run} times in a row"
    return None
