"""Aya's agents and the per-user translation agent. Each is a small class with its own prompt files."""

from aya_lab.agents.query import AyaQuery
from aya_lab.agents.summarizer import OneCallSummarizer, SummaryResult, TwoCallSummarizer, make_summarizer
from aya_lab.agents.supervisor import AyaChat, AyaRemember, AyaSupervisor
from aya_lab.agents.translator import AyaTranslator
from aya_lab.agents.user import UserAgent, clean_translation

__all__ = [
    "AyaChat",
    "AyaQuery",
    "AyaRemember",
    "AyaSupervisor",
    "AyaTranslator",
    "OneCallSummarizer",
    "SummaryResult",
    "TwoCallSummarizer",
    "UserAgent",
    "clean_translation",
    "make_summarizer",
]
