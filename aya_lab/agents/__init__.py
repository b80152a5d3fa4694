"""Aya's agents and the per-user translation agent. Each is a small class with its own prompt files.

The names below are imported from their modules on first use (PEP 562), not with the package, so a
light submodule (the CLI's option definitions, which ``aya-lab ... --help`` reads) is importable
without the model stack.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from aya_lab.refs import lazy_exports

if TYPE_CHECKING:
    from aya_lab.agents.authority import AuthorityRouter, parse_command
    from aya_lab.agents.calibration import translator_record
    from aya_lab.agents.citations import split_fixed
    from aya_lab.agents.faithfulness import translator_floor
    from aya_lab.agents.guard import MARKER, ORIGINAL, UNVERIFIED, TranslationGuard
    from aya_lab.agents.memory import MemoryPolicy, MemoryTools, RoomMemory
    from aya_lab.agents.multi_intent import ReDecidingRouter, split_intents
    from aya_lab.agents.protocols import KnowledgeBaseLike, RoomLike, TextModel
    from aya_lab.agents.query import IDK, AyaQuery, QueryAnswer
    from aya_lab.agents.reply_checks import WITHHELD_ANSWER
    from aya_lab.agents.route_input import RoutedInput, RouteOn, decide_input
    from aya_lab.agents.routing import (
        ChainedInput,
        KeywordRouter,
        LLMRouter,
        LoopRouter,
        Router,
        RouterOutput,
        RoutingChain,
        RoutingResult,
        RoutingTranscript,
        Step,
        ToolConfig,
        TranscriptRouter,
        aya_router,
    )
    from aya_lab.agents.summarizer import OneCallSummarizer, SummaryResult, TwoCallSummarizer, make_summarizer
    from aya_lab.agents.summary_checks import SUMMARY_WITHHELD
    from aya_lab.agents.supervisor import AyaChat, AyaRemember, AyaSupervisor, SupervisorResult
    from aya_lab.agents.translator import AyaTranslator
    from aya_lab.agents.user import UserAgent, clean_translation, message_sentences

_HOMES: dict[str, tuple[str, ...]] = {
    "aya_lab.agents.authority": (
        "AuthorityRouter",
        "parse_command",
    ),
    "aya_lab.agents.memory": (
        "MemoryPolicy",
        "MemoryTools",
        "RoomMemory",
    ),
    "aya_lab.agents.multi_intent": (
        "ReDecidingRouter",
        "split_intents",
    ),
    "aya_lab.agents.protocols": (
        "KnowledgeBaseLike",
        "RoomLike",
        "TextModel",
    ),
    "aya_lab.agents.calibration": ("translator_record",),
    "aya_lab.agents.citations": ("split_fixed",),
    "aya_lab.agents.faithfulness": ("translator_floor",),
    "aya_lab.agents.guard": ("MARKER", "ORIGINAL", "UNVERIFIED", "TranslationGuard"),
    "aya_lab.agents.query": ("IDK", "AyaQuery", "QueryAnswer"),
    "aya_lab.agents.reply_checks": ("WITHHELD_ANSWER",),
    "aya_lab.agents.summary_checks": ("SUMMARY_WITHHELD",),
    "aya_lab.agents.route_input": (
        "RoutedInput",
        "RouteOn",
        "decide_input",
    ),
    "aya_lab.agents.routing": (
        "ChainedInput",
        "KeywordRouter",
        "LLMRouter",
        "LoopRouter",
        "Router",
        "RouterOutput",
        "RoutingChain",
        "RoutingResult",
        "Step",
        "ToolConfig",
        "RoutingTranscript",
        "TranscriptRouter",
        "aya_router",
    ),
    "aya_lab.agents.summarizer": (
        "OneCallSummarizer",
        "SummaryResult",
        "TwoCallSummarizer",
        "make_summarizer",
    ),
    "aya_lab.agents.supervisor": (
        "AyaChat",
        "AyaRemember",
        "AyaSupervisor",
        "SupervisorResult",
    ),
    "aya_lab.agents.translator": ("AyaTranslator",),
    "aya_lab.agents.user": (
        "UserAgent",
        "clean_translation",
        "message_sentences",
    ),
}

__all__ = [
    "split_fixed",
    "translator_record",
    "translator_floor",
    "TranslationGuard",
    "IDK",
    "MARKER",
    "ORIGINAL",
    "QueryAnswer",
    "SUMMARY_WITHHELD",
    "UNVERIFIED",
    "WITHHELD_ANSWER",
    "AuthorityRouter",
    "MemoryPolicy",
    "MemoryTools",
    "RoomMemory",
    "parse_command",
    "AyaChat",
    "AyaQuery",
    "AyaRemember",
    "AyaSupervisor",
    "AyaTranslator",
    "ChainedInput",
    "KeywordRouter",
    "KnowledgeBaseLike",
    "LLMRouter",
    "LoopRouter",
    "OneCallSummarizer",
    "ReDecidingRouter",
    "RoomLike",
    "RoutedInput",
    "RouteOn",
    "Router",
    "RouterOutput",
    "RoutingChain",
    "RoutingResult",
    "Step",
    "SummaryResult",
    "SupervisorResult",
    "TextModel",
    "ToolConfig",
    "RoutingTranscript",
    "TranscriptRouter",
    "TwoCallSummarizer",
    "UserAgent",
    "aya_router",
    "clean_translation",
    "decide_input",
    "make_summarizer",
    "message_sentences",
    "split_intents",
]


__getattr__ = lazy_exports(__name__, _HOMES)
