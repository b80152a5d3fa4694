"""The one router protocol, :class:`TranscriptRouter`, which every kind of router implements (the kinds by
name: :data:`~aya_lab.agents.routing.ROUTER_KINDS`; Aya's routers composed from them:
:func:`~aya_lab.agents.routing.aya_router`).
"""

from __future__ import annotations

from collections.abc import Sequence

from aya_lab.agents.routing_chain import Router, RouterOutput
from aya_lab.agents.routing_steps import APOLOGY, FINISH, RoutingTranscript, as_transcript

__all__ = ["ROUTER_TOOLS", "TranscriptRouter"]

ROUTER_TOOLS = ("query", "summarize", "remember", "chat")
"""The tools Aya's routers choose among (a write command or ``decline`` comes from the authority rule)."""


class TranscriptRouter(Router):
    """The design's :class:`~aya_lab.agents.routing_chain.Router` with the design's prefixes as defaults (plain
    attributes a kind or an instance may set), the ``tools`` it may choose (a chain checks them against its
    own), and two ways to ask it; a kind overrides one of the two:

    - :meth:`route`, the design's call: the next decision for the chained input, which a chain hands over as
      a :class:`~aya_lab.agents.routing_steps.RoutingTranscript` (a plain string: a transcript holding only
      that request). By default one step, then finish: :meth:`choose`'s decision, then the observation (each
      of Aya's tools produces a complete answer).
    - :meth:`choose`: the first decision for a request (``original``: the request as its author wrote it,
      when ``text`` is its translation); how one router consults another, for a fallback, a confirmation or
      a clause. By default :meth:`route` on a new transcript.

    Contract: both return a :class:`RouterOutput` naming one of :attr:`tools` or :attr:`finish_tool_name`;
    with the finish tool, ``tool_input`` is the final answer.
    """

    tools: Sequence[str] = ()
    finish_tool_name: str = FINISH  # type: ignore[assignment]
    observation_prefix: str = "Observation: "  # type: ignore[assignment]
    router_prefix: str = "Router: "  # type: ignore[assignment]
    starter_string: str = "\n"  # type: ignore[assignment]

    def route(self, transcript: str) -> RouterOutput:
        """One step, then finish: :meth:`choose` for the request, then :meth:`finish_with_last`."""
        t = as_transcript(transcript, self)
        if t.steps:
            return self.finish_with_last(t)
        return self.choose(t.input, t.original)

    def choose(self, text: str, original: str | None = None) -> RouterOutput:
        """The first decision for the request ``text`` (``original``: as its author wrote it)."""
        if type(self).route is TranscriptRouter.route:
            raise NotImplementedError(f"{type(self).__name__} must override route or choose")
        return self.route(RoutingTranscript.start(text, self, original))

    def finish(self, answer: str, log: str = "finish with the tool's answer") -> RouterOutput:
        return RouterOutput(self.finish_tool_name, answer, log)

    def finish_with_last(self, transcript: RoutingTranscript) -> RouterOutput:
        """Finish with the last observation (:data:`~aya_lab.agents.routing_steps.APOLOGY` when none)."""
        return self.finish(transcript.observations[-1] if transcript.observations else APOLOGY)

    def follow(self, inner: TranscriptRouter) -> None:
        """Take ``inner``'s tools, finish tool and prefixes: a router that hands steps to ``inner`` reads
        and writes the transcript as ``inner`` does."""
        self.tools, self.finish_tool_name = tuple(inner.tools), inner.finish_tool_name
        self.observation_prefix, self.router_prefix = inner.observation_prefix, inner.router_prefix
        self.starter_string = inner.starter_string
