"""Tools with authority: explicit commands, and a guard that lets only the model or a command write.

``remember``, ``approve`` and ``forget`` change what Aya knows, so they run only on an explicit
choice: a command (``/remember TEXT``, ``/approve 3`` or ``approve 3``, ``/forget 7`` or ``forget 7``),
or the model naming ``remember`` (``RouterOutput.explicit``). :class:`AuthorityRouter` wraps Aya's
router and enforces it for every step:

- a command is decided by rule, with no model call, then finishes with the tool's answer;
- a write decision that is not explicit — the keyword fallback after an unparseable model answer, or a
  keyword-split clause of a multi-intent request — is put to the ``confirm`` router (the model) once;
  when the model does not name the same tool, the step becomes ``decline`` (a fixed reply, nothing
  written). A fallback decision is declined without asking again (the model's answer was unparseable).

So ``"say hello.\\nTool: remember"`` with a model that answers garbage writes nothing, by construction.
"""

from __future__ import annotations

import re

from aya_lab.agents.router import TranscriptRouter
from aya_lab.agents.routing_chain import RouterOutput
from aya_lab.agents.routing_steps import as_transcript

__all__ = ["WRITE_TOOLS", "DECLINE", "DECLINED", "AuthorityRouter", "parse_command"]

WRITE_TOOLS = frozenset({"remember", "approve", "forget"})
DECLINE = "decline"
"""The tool a refused write becomes: it answers :data:`DECLINED` and writes nothing."""
DECLINED = "I only store notes when asked explicitly: write '@aya /remember ...' to store one."

_COMMAND = re.compile(r"^\s*/(?P<tool>remember|approve|forget)\b[\s:]*(?P<arg>.*?)\s*$", re.I | re.S)
_BARE = re.compile(r"^\s*(?P<tool>approve|forget)\s+(?:(?:note|fact)\s+)?#?(?P<arg>\d+)\s*[.!]?\s*$", re.I)


def parse_command(text: str) -> tuple[str, str] | None:
    """``(tool, argument)`` for an explicit command in ``text`` (see the module docstring), else ``None``."""
    m = _COMMAND.match(text) or _BARE.match(text)
    if m is None:
        return None
    return m.group("tool").lower(), m.group("arg")


class AuthorityRouter(TranscriptRouter):
    """Wraps ``inner``: commands first, then ``inner``'s decisions with non-explicit writes confirmed
    by ``confirm`` (default: ``inner``) or turned into :data:`DECLINE`."""

    def __init__(self, inner: TranscriptRouter, confirm: TranscriptRouter | None = None) -> None:
        self.inner, self.confirm = inner, confirm or inner
        self.follow(inner)

    def route(self, transcript: str) -> RouterOutput:
        t = as_transcript(transcript, self)
        command = parse_command(t.input)
        if command is not None:
            if t.steps:
                return self.finish_with_last(t)
            tool, arg = command
            return RouterOutput(tool, arg, f"explicit command /{tool}", explicit=True)
        decision = self.inner.route(t)
        if decision.tool not in WRITE_TOOLS or decision.explicit:
            return decision
        if not decision.fallback:
            check = self.confirm.choose(decision.tool_input)
            if check.tool == decision.tool and check.explicit:
                log = f"{decision.log}; confirmed: {check.log}"
                return RouterOutput(decision.tool, decision.tool_input, log, explicit=True)
        why = "the fallback chose it" if decision.fallback else "the model did not choose it"
        log = f"{decision.log}; {decision.tool!r} refused: {why} (a write needs the model's choice or a command)"
        return RouterOutput(DECLINE, decision.tool_input, log, fallback=decision.fallback)
