"""Aya's agents and the per-user translation agent. Each is a small class with its own prompt files."""

from aya_lab.agents.authority import AuthorityRouter, parse_command
from aya_lab.agents.memory import MemoryPolicy, MemoryTools, RoomMemory
from aya_lab.agents.multi_intent import ReDecidingRouter, split_intents
from aya_lab.agents.protocols import KnowledgeBaseLike, RoomLike, TextModel
from aya_lab.agents.query import AyaQuery
from aya_lab.agents.route_input import RoutedInput, RouteOn, decide_input
from aya_lab.agents.routing import (
    ChainedInput,
    KeywordRouter,
    LLMRouter,
    Router,
    RouterOutput,
    RoutingChain,
    RoutingResult,
    Step,
    ToolConfig,
    Transcript,
    TranscriptRouter,
)
from aya_lab.agents.summarizer import OneCallSummarizer, SummaryResult, TwoCallSummarizer, make_summarizer
from aya_lab.agents.supervisor import AyaChat, AyaRemember, AyaSupervisor, SupervisorResult
from aya_lab.agents.translator import AyaTranslator
from aya_lab.agents.user import UserAgent, clean_translation

__all__ = [
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
    "Transcript",
    "TranscriptRouter",
    "TwoCallSummarizer",
    "UserAgent",
    "clean_translation",
    "decide_input",
    "make_summarizer",
    "split_intents",
]
