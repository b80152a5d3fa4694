"""Routing, one face: the design, the router protocol, its kinds, and Aya's routers composed from them.

- The design (LangChain's routing-chain design, :mod:`~aya_lab.agents.routing_chain`): ``Router.route(text:
  str) -> RouterOutput(tool, tool_input, log)``, ``ToolConfig``, ``ChainedInput``, ``RoutingChain``; its typed
  steps (:mod:`~aya_lab.agents.routing_steps`) and errors (:mod:`~aya_lab.agents.routing_errors`).
- The router protocol every kind implements: :class:`TranscriptRouter` (:mod:`~aya_lab.agents.router`).
- The kinds by name (:data:`ROUTER_KINDS`): keyword rules, one model decision, a model decision every step,
  several intents in turn, explicit commands with the write rule. Each works with local models that have
  no tool calling; called with a plain string (outside a chain), each reads it as the request.
- Aya's routers by name (:data:`AYA_ROUTERS`), composed from the kinds by :func:`aya_router`: the one
  place where a router is put around another.
"""

from __future__ import annotations

from collections.abc import Callable

from aya_lab.agents.authority import AuthorityRouter
from aya_lab.agents.keywords import KeywordRouter
from aya_lab.agents.llm_router import LOOP_PROMPT, LLMRouter, LoopRouter, parse_action, parse_tool_choice
from aya_lab.agents.multi_intent import ReDecidingRouter
from aya_lab.agents.router import ROUTER_TOOLS, TranscriptRouter
from aya_lab.agents.routing_chain import ChainedInput, Router, RouterOutput, RoutingChain, ToolConfig
from aya_lab.agents.routing_errors import (
    RouterOutputError,
    RouterTimeoutError,
    RoutingError,
    StepLimitError,
    ToolOutputError,
    UnknownToolError,
)
from aya_lab.agents.routing_steps import APOLOGY, FINISH, RoutingResult, RoutingTranscript, Step, as_transcript
from aya_lab.errors import InputError
from aya_lab.prompts import PromptFile

__all__ = [
    "FINISH",
    "APOLOGY",
    "RouterOutput",
    "Router",
    "ToolConfig",
    "ChainedInput",
    "RoutingChain",
    "Step",
    "RoutingTranscript",
    "RoutingResult",
    "as_transcript",
    "ROUTER_TOOLS",
    "TranscriptRouter",
    "KeywordRouter",
    "LLMRouter",
    "LoopRouter",
    "ReDecidingRouter",
    "AuthorityRouter",
    "ROUTER_KINDS",
    "AYA_ROUTERS",
    "aya_router",
    "RoutingError",
    "RouterOutputError",
    "UnknownToolError",
    "ToolOutputError",
    "StepLimitError",
    "RouterTimeoutError",
    "parse_action",
    "parse_tool_choice",
]

ROUTER_KINDS: dict[str, type[TranscriptRouter]] = {
    "keyword": KeywordRouter,
    "llm": LLMRouter,
    "loop": LoopRouter,
    "re_deciding": ReDecidingRouter,
    "authority": AuthorityRouter,
}
"""The kinds of router by name, each an implementation of :class:`TranscriptRouter`."""

AYA_ROUTERS: dict[str, Callable[[LLMRouter, str | PromptFile], TranscriptRouter]] = {
    "single": lambda llm, loop_prompt: llm,
    "re_deciding": lambda llm, loop_prompt: ReDecidingRouter(llm),
    "loop": lambda llm, loop_prompt: LoopRouter(llm.model, loop_prompt, fallback=llm.fallback),
}
"""Aya's routers by name (the supervisor's ``router``): the router that decides, given the LLM router and
the loop prompt. ``single``: the LLM router, one tool; ``re_deciding``: the intents of a request in turn,
a single-intent request handed to the LLM router (the same model calls as ``single``); ``loop``: the model
decides every step, with the LLM router's fallback. :func:`aya_router` puts the authority rule around it."""


def aya_router(name: str, llm: LLMRouter, *, loop_prompt: str | PromptFile = LOOP_PROMPT) -> AuthorityRouter:
    """Aya's router ``name`` (:data:`AYA_ROUTERS`) inside the :class:`AuthorityRouter`: commands run without
    a model call, and a write no one chose explicitly is put to ``llm`` once, or declined."""
    if name not in AYA_ROUTERS:
        raise InputError(f"unknown router {name!r}; use one of {', '.join(AYA_ROUTERS)}")
    return AuthorityRouter(AYA_ROUTERS[name](llm, loop_prompt), confirm=llm)
