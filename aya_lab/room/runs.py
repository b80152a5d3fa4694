"""One run's account: :class:`RunReport`, and the check that a run reached every user exactly once.

:func:`check_run` reads the state a run left and raises :class:`RunSemanticsError` unless every user got
the translated original once and, when Aya was addressed, her one reply once; else it builds the report.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from aya_lab.errors import AyaLabError
from aya_lab.messages import AYA, ChatMessage, Delivery
from aya_lab.models.result import usage
from aya_lab.room.state import AyaRuntime, AyaState, StepRecord, step_record

__all__ = ["RunReport", "RunSemanticsError", "check_run"]


class RunSemanticsError(AyaLabError, RuntimeError):
    """A run ended without every user receiving every related message exactly once."""


@dataclass
class RunReport:
    """What one send did: who got what, Aya's reply, node visits, model calls, tokens and timings."""

    run_id: str
    message_id: str
    sender: str
    delivered: dict[str, str]  # user -> text of the original in their language
    aya_reply: dict[str, str] | None  # user -> Aya's reply in their language (None: Aya not addressed)
    aya_tool: str | None
    nodes: list[str]
    model_calls: int
    cached_calls: int
    prompt_tokens: int
    completion_tokens: int
    seconds: float
    node_seconds: dict[str, float] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    aya_tools: list[str] = field(default_factory=list)  # every tool Aya ran, in order
    aya_fallback: bool = False  # the router's model answer was unparseable; the keyword router decided
    aya_steps: list[StepRecord] = field(default_factory=list)  # tool, input, log, observation per step
    guard_notes: list[str] = field(default_factory=list)  # translations withheld by the guard (agents.guard)
    reader_notes: list[str] = field(default_factory=list)  # who got which language and why (room.delivery)

    def __str__(self) -> str:
        lines = [
            f"run {self.run_id}: {self.sender}'s message reached {len(self.delivered)} users in "
            f"{self.seconds:.2f} s; nodes {' -> '.join(self.nodes)}; {self.model_calls} model calls "
            f"({self.cached_calls} cached), {self.prompt_tokens}+{self.completion_tokens} tokens"
        ]
        if self.aya_reply is not None:
            used = f"tool {self.aya_tool!r}" if len(self.aya_tools) < 2 else f"tools {' -> '.join(self.aya_tools)}"
            lines.append(f"  aya used {used}; her reply reached {len(self.aya_reply)} users")
        lines += [f"  note: {n}" for n in self.notes]
        lines += [f"  guard: {n}" for n in self.guard_notes]
        lines += [f"  reader: {n}" for n in self.reader_notes]
        return "\n".join(lines)


def check_run(
    values: AyaState,
    run_id: str,
    message: ChatMessage,
    users: dict[str, str],
    runtime: AyaRuntime,
    seconds: float,
) -> RunReport:
    """The run's report, read from the state ``values`` it left (Aya's typed result included) and the
    run context's trace; :class:`RunSemanticsError` if a user
    missed (or got twice) the original or Aya's reply, or Aya replied when not addressed (or twice)."""
    deliveries = values.get("deliveries") or []
    got = [d for d in deliveries if d.message_id == message.id]
    _exactly_once(got, users, f"message {message.id}")
    addressed = runtime.request is not None
    reply: ChatMessage | None = values.get("aya_reply") if addressed else None
    replies = [m for m in values.get("messages") or [] if m.sender == AYA and m.reply_to == message.id]
    if addressed:
        if reply is None or len(replies) != 1:
            raise RunSemanticsError(f"run {run_id}: Aya was addressed but sent {len(replies)} replies (expected 1)")
        _exactly_once([d for d in deliveries if d.message_id == reply.id], users, "Aya's reply")
    elif replies:
        raise RunSemanticsError(f"run {run_id}: Aya replied without being addressed")
    gens = [g for v in runtime.visits for g in v.generations]
    cost = usage(gens)
    aya = values.get("aya_result") if addressed else None
    node_seconds: dict[str, float] = {}
    for v in runtime.visits:
        node_seconds[v.node] = round(node_seconds.get(v.node, 0.0) + v.seconds, 4)
    return RunReport(
        run_id=run_id,
        message_id=message.id,
        sender=message.sender,
        delivered={d.user: d.text for d in got},
        aya_reply={d.user: d.text for d in deliveries if reply is not None and d.message_id == reply.id}
        if addressed
        else None,
        aya_tool=aya.tool if aya else None,
        nodes=[v.node for v in runtime.visits],
        model_calls=cost["calls"],
        cached_calls=sum(1 for g in gens if g.cached),
        prompt_tokens=cost["prompt_tokens"],
        completion_tokens=cost["completion_tokens"],
        seconds=round(seconds, 4),
        node_seconds=node_seconds,
        notes=list(aya.notes) if aya else [],
        aya_tools=list(aya.tools) if aya else [],
        aya_fallback=aya.fallback if aya else False,
        guard_notes=list(runtime.guard_notes),
        reader_notes=list(runtime.reader_notes),
        aya_steps=[step_record(st) for st in (aya.steps if aya else [])],
    )


def _exactly_once(got: list[Delivery], users: dict[str, str], what: str) -> None:
    counts = {u: sum(1 for d in got if d.user == u) for u in users}
    bad = {u: c for u, c in counts.items() if c != 1}
    if bad or len(got) != len(users):
        raise RunSemanticsError(f"{what} was not delivered exactly once to every user: {bad or counts}")
