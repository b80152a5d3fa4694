"""Tool cues for routing without a model: multilingual keywords, tool-name synonyms, action parsing.

Shared by the routers in :mod:`aya_lab.agents.routing` and the intent splitter in
:mod:`aya_lab.agents.multi_intent`. Matching is on accent-folded, lowercased text.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

__all__ = ["KEYWORDS", "fold", "keyword_match", "parse_tool_choice", "parse_action"]

# Keywords in several languages; matched on accent-folded, lowercased text.
KEYWORDS: list[tuple[str, tuple[str, ...]]] = [
    (
        "summarize",
        (
            "summar",
            "recap",
            "resum",
            "zusammenfass",
            "fasse",
            "tl;dr",
            "action item",
            "muhtasari",
            "总结",
            "概括",
            "摘要",
            "what did i miss",
            "catch me up",
        ),
    ),
    (
        "remember",
        (
            "remember",
            "note that",
            "keep in mind",
            "store",
            "save this",
            "souviens",
            "retiens",
            "note que",
            "merk",
            "erinner",
            "recuerda",
            "anota",
            "kumbuka",
            "记住",
        ),
    ),
    (
        "query",
        (
            "policy",
            "policies",
            "allowance",
            "per diem",
            "per-diem",
            "reimburs",
            "expense",
            "travel",
            "leave",
            "vacation",
            "holiday",
            "laptop",
            "password",
            "vpn",
            "security",
            "remote",
            "how many days",
            "politique",
            "politik",
            "richtlinie",
            "urlaub",
            "reise",
            "politica",
            "viaje",
            "vacaciones",
            "gastos",
            "sera",
            "likizo",
            "safari",
            "政策",
            "报销",
            "休假",
            "差旅",
        ),
    ),
]


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


_SYNONYMS = {
    "query": "query",
    "question": "query",
    "rag": "query",
    "policy": "query",
    "search": "query",
    "summarize": "summarize",
    "summarise": "summarize",
    "summary": "summarize",
    "summarization": "summarize",
    "remember": "remember",
    "memory": "remember",
    "store": "remember",
    "note": "remember",
    "chat": "chat",
    "smalltalk": "chat",
    "greeting": "chat",
}


def parse_tool_choice(answer: str, tools: Sequence[str]) -> str | None:
    """The tool named first in a model's answer (synonyms accepted), or ``None`` when there is none."""
    for word in re.findall(r"[a-z]+", answer.lower()):
        tool = _SYNONYMS.get(word, word)
        if tool in tools:
            return tool
    return None


_ACTION = re.compile(r"Action\s*:\s*(?P<tool>[^\n]*?)\s*(?:\n\s*Action\s*Input\s*:\s*(?P<input>.*))?\s*$", re.I | re.S)


def parse_action(
    answer: str, tools: Sequence[str], finish_tool_name: str = "Final Answer"
) -> tuple[str, str | None] | None:
    """Parse the ReAct-style ``Action: tool`` / ``Action Input: ...`` answer of a model.

    Returns ``(tool, tool_input)`` (``tool_input`` is ``None`` when the answer gave none) for a tool in
    ``tools`` or the finish tool, or ``None`` when the answer has no ``Action:`` line naming one.
    """
    m = _ACTION.search(answer)
    if m is None:
        return None
    named = m.group("tool").strip().strip("\"'`.")
    if named.lower() == finish_tool_name.lower():
        tool: str | None = finish_tool_name
    else:
        tool = parse_tool_choice(named, tools)
    if tool is None:
        return None
    given = m.group("input")
    return tool, (given.strip().strip('"') if given is not None and given.strip() else None)
