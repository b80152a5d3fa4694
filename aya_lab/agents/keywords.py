"""The keyword kind of router: multilingual keyword rules, no model call.

:class:`KeywordRouter` decides one tool by the rules (then finishes with its observation); it is the
fallback of the model routers (:mod:`~aya_lab.agents.llm_router`), and :func:`keyword_match` also cuts a
request into intents (:mod:`~aya_lab.agents.multi_intent`). Matching is on accent-folded, lowercased text.
"""

from __future__ import annotations

import unicodedata

from aya_lab.agents.router import ROUTER_TOOLS, TranscriptRouter
from aya_lab.agents.routing_chain import RouterOutput
from aya_lab.agents.routing_steps import as_transcript

__all__ = ["KEYWORDS", "fold", "keyword_match", "KeywordRouter"]

# fmt: off
KEYWORDS: list[tuple[str, tuple[str, ...]]] = [
    ("summarize", (
        "summar", "recap", "resum", "zusammenfass", "fasse", "tl;dr", "action item", "muhtasari", "总结", "概括",
        "摘要", "what did i miss", "catch me up",
    )),
    ("remember", (
        "remember", "note that", "keep in mind", "store", "save this", "souviens", "retiens", "note que", "merk",
        "erinner", "recuerda", "anota", "kumbuka", "记住",
    )),
    ("query", (
        "policy", "policies", "allowance", "per diem", "per-diem", "reimburs", "expense", "travel", "leave",
        "vacation", "holiday", "laptop", "password", "vpn", "security", "remote", "how many days", "politique",
        "politik", "richtlinie", "urlaub", "reise", "politica", "viaje", "vacaciones", "gastos", "sera", "likizo",
        "safari", "政策", "报销", "休假", "差旅",
    )),
]
# fmt: on
"""The keyword rules in order: a tool and its words in several languages, matched on accent-folded,
lowercased text (the first rule that matches wins)."""


def fold(text: str) -> str:
    """Lowercase ``text`` and strip its accents (``"Résumé"`` -> ``"resume"``)."""
    decomposed = unicodedata.normalize("NFKD", text.lower())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def keyword_match(text: str, *, earliest: bool = False) -> tuple[str, str, int] | None:
    """``(tool, keyword, position)`` for ``text``, or ``None`` when no keyword occurs.

    By default the first rule that matches wins (summarize, then remember, then query: the keyword
    router's order); ``earliest=True`` picks the keyword that occurs first in the text instead, which
    is what a clause of a multi-intent request needs ("remember the action items" is a remember).
    """
    folded = fold(text)
    found: list[tuple[int, int, str, str]] = []
    for rank, (tool, words) in enumerate(KEYWORDS):
        for word in words:
            pos = folded.find(fold(word))
            if pos >= 0:
                if not earliest:
                    return tool, word, pos
                found.append((pos, rank, tool, word))
    if not found:
        return None
    pos, _, tool, word = min(found)
    return tool, word, pos


class KeywordRouter(TranscriptRouter):
    """Rule-based router: multilingual keywords, first rule that matches wins; default ``chat``. One step,
    then finish with the observation.

    ``original`` (given to :meth:`choose`, else this router's) is the request as its author wrote it,
    when the routed text is its translation: a text with no keyword is matched again on the original, so
    "Reiserichtlinie" still reaches ``query`` when the translation lost the word.
    """

    tools = ROUTER_TOOLS

    def __init__(self, original: str | None = None) -> None:
        self.original = original

    def route(self, transcript: str) -> RouterOutput:
        """One step, then finish. At the top of a chain the rules read the routed text (and this router's
        ``original``), not the transcript's ``original``: a router that falls back to them hands it over."""
        t = as_transcript(transcript, self)
        return self.finish_with_last(t) if t.steps else self.choose(t.input)

    def choose(self, text: str, original: str | None = None) -> RouterOutput:
        """The tool for ``text`` by its keywords (then by the original's, when there is one)."""
        match = keyword_match(text)
        if match is not None:
            tool, word, _ = match
            return RouterOutput(tool, text, f"keyword {word!r} -> {tool}")
        original = original or self.original
        match = keyword_match(original) if original else None
        if match is not None:
            tool, word, _ = match
            return RouterOutput(tool, text, f"keyword {word!r} in the original request -> {tool}")
        return RouterOutput("chat", text, "no keyword matched -> chat")
