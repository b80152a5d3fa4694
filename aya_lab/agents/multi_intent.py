"""Several tools for one request: split it into intents, re-decide after each observation.

``"summarize the last 5 messages and remember the action items"`` needs ``summarize`` then
``remember``; ``"what is the per-diem for Berlin, and remember that I leave Monday"`` needs ``query``
then ``remember``. :func:`split_intents` cuts a request at its conjunctions ("and", "then", ",", "et",
"und", "y", "na", "然后"...) and keeps a cut only where the next clause opens a *different* tool by
its keywords (a remember clause keeps what follows unless it is a question) — rules, no model call,
so a single-intent request costs exactly what it cost before.

:class:`ReDecidingRouter`, the multi-intent kind of router, reads the transcript at every step. A
single-intent request is handed to its ``first`` router whole (e.g. the
:class:`~aya_lab.agents.llm_router.LLMRouter`: the same prompt, the same one model call). For several intents it names the next clause's tool with that clause as input,
resolving a back-reference ("remember the action items", "note that") from the observations so far,
and when every clause has run it finishes with one reply composed of all the observations.

Simplified: the split is keyword-driven, so a second intent phrased without any keyword is missed (it
stays with the previous clause); the measured rates are in ``aya-lab eval run sequences``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from aya_lab.agents.keywords import KeywordRouter, fold, keyword_match
from aya_lab.agents.router import ROUTER_TOOLS, TranscriptRouter
from aya_lab.agents.routing_chain import RouterOutput
from aya_lab.agents.routing_steps import APOLOGY, as_transcript

__all__ = ["Intent", "ReDecidingRouter", "split_intents", "compose_reply"]

_CUT = re.compile(
    r"\s*(?:[,;]\s*(?:and\s+then|and|then|also|plus|et|puis|und|dann|y|luego|na|kisha)?\s+"
    r"|\s+(?:and\s+then|and\s+also|and|then|also|plus|et|puis|und|dann|y|luego|na|kisha)\s+"
    r"|\s*(?:然后|并且|还有|另外|再|，|；)\s*)",
    re.I,
)
_QUESTION = re.compile(
    r"^(what|how|when|where|which|who|why|can|could|do|does|is|are|quel|quelle|combien|comment|est-ce|"
    r"was|wie|wann|welche|wo|qu[eé]|cu[aá]l|cu[aá]nto|c[oó]mo|d[oó]nde|nini|je|ni|gani|ngapi|什么|多少|怎么|哪|"
    r"tell me|dis-moi|dites-moi|sag mir|sagen sie mir|dime|d[ií]game|niambie|告诉我)\b",
    re.I,
)
_BACKREF = re.compile(
    r"^(?:please\s+)?(?:remember|note|keep in mind|store|save)?\s*(?:that|this|it|them|those|these|the)?\s*"
    r"(?:(?P<items>action items?|tasks?|to-?dos?)|summary|answer|it|that|this|them|those|these)\W*$",
    re.I,
)


@dataclass(frozen=True)
class Intent:
    """One intent of a request: the tool it needs and the clause that asks for it."""

    tool: str
    text: str


def _is_question(clause: str) -> bool:
    return "?" in clause or "？" in clause or bool(_QUESTION.match(fold(clause).strip()))


def split_intents(text: str) -> list[Intent]:
    """The intents of ``text`` in order; one intent (the whole text) when it asks for one tool.

    Clauses are routed by their earliest keyword (a question with none is a ``query``); a clause
    with no keyword, or the same tool as the clause before, joins the clause before; after a ``remember`` clause only a question starts a new
    ``query`` intent ("remember that I travel on Monday and ..." stays one fact).
    """
    spans, pos = [], 0
    for cut in _CUT.finditer(text):
        spans.append((pos, cut.start()))
        pos = cut.end()
    spans = [(a, b) for a, b in [*spans, (pos, len(text))] if text[a:b].strip()]
    intents: list[Intent] = []
    bounds: list[list[int]] = []  # [start, end] of each intent in ``text``
    for a, b in spans:
        match = keyword_match(text[a:b], earliest=True)
        tool = match[0] if match else ("query" if _is_question(text[a:b]) else None)
        prev = intents[-1] if intents else None
        new = tool is not None and (prev is None or tool != prev.tool)
        if new and prev is not None and prev.tool == "remember" and tool == "query" and not _is_question(text[a:b]):
            new = False
        if prev is None:
            intents.append(Intent(tool or "chat", ""))
            bounds.append([a, b])
        elif new and tool is not None and prev.tool == "chat" and len(intents) == 1:
            intents[0] = Intent(tool, "")  # a lead-in ("hi Aya, ...") is no intent of its own
            bounds[0][1] = b
        elif new and tool is not None:
            intents.append(Intent(tool, ""))
            bounds.append([a, b])
        else:
            bounds[-1][1] = b
    intents = [Intent(i.tool, text[a:b].strip()) for i, (a, b) in zip(intents, bounds, strict=True)]
    return intents if len(intents) > 1 else [Intent(intents[0].tool if intents else "chat", text)]


def resolve_reference(intent: Intent, observations: Sequence[str]) -> str:
    """The tool input for ``intent``: a ``remember`` clause that points back ("remember the action
    items", "note that") gets what it points at from the last observation; anything else is itself."""
    if intent.tool != "remember" or not observations:
        return intent.text
    m = _BACKREF.match(intent.text.strip())
    if m is None:
        return intent.text
    last = observations[-1].strip()
    if m.group("items"):  # the bullets under "Action items:" when the summary has that heading
        block = last.split("Action items:", 1)[-1]
        items = [line.strip("-•* ").strip() for line in block.splitlines() if line.strip().startswith(("-", "•", "*"))]
        items = [i for i in items if i and i.lower() != "no action items"]
        last = "; ".join(items) or last
    return f"remember that {last}"


def compose_reply(observations: Sequence[str]) -> str:
    """One reply from several observations, in the order the tools ran."""
    return "\n\n".join(o.strip() for o in observations if o.strip()) or APOLOGY


class ReDecidingRouter(TranscriptRouter):
    """Re-decides after each observation: several intents run in order, then one composed reply.

    ``first`` routes single-intent requests (default :class:`KeywordRouter`); ``clause_router``
    names the tool of each clause of a multi-intent request (default: the clause's earliest keyword,
    no model call). ``fallback`` on the outputs is ``first``'s.
    """

    def __init__(self, first: TranscriptRouter | None = None, clause_router: TranscriptRouter | None = None) -> None:
        self.first = first or KeywordRouter()
        self.clause_router = clause_router
        self.follow(self.first)
        self.tools = self.tools or ROUTER_TOOLS
        self._plans: dict[str, list[Intent]] = {}

    def plan(self, text: str) -> list[Intent]:
        """The intents of ``text`` (memoised: the router reads the same input at every step)."""
        if text not in self._plans:
            intents = split_intents(text)
            if len(intents) > 1 and self.clause_router is not None:
                intents = [Intent(self.clause_router.choose(i.text).tool, i.text) for i in intents]
            self._plans[text] = intents
        return self._plans[text]

    def route(self, transcript: str) -> RouterOutput:
        t = as_transcript(transcript, self)
        intents = self.plan(t.input)
        if len(intents) < 2:
            return self.first.route(t)
        done = len(t.steps)
        if done >= len(intents):
            return self.finish(compose_reply(t.observations), f"all {len(intents)} intents answered; compose one reply")
        intent = intents[done]
        tool_input = resolve_reference(intent, t.observations)
        return RouterOutput(
            intent.tool, tool_input, f"intent {done + 1}/{len(intents)} {intent.text[:50]!r} -> {intent.tool}"
        )
