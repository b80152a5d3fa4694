"""AyaSummarizer: summarize the **last** N messages, with sender names, and list action items.

Two variants behind one interface (:meth:`summarize(request, history) -> SummaryResult`):

- **two-call**: call 1 asks how many messages (a number; 0 = all), call 2 summarizes exactly the last
  N messages and lists action items;
- **one-call**: one prompt with the recent history and the request; the structured answer states the
  count it used (``COUNT:``), the summary (``SUMMARY:``) and the action items (``ACTIONS:``).

The original design took the *first* N messages and only English history; here the history is given
in English (each message's English translation) and the window is the last N. A malformed count is
recorded in ``notes`` and treated as "all" — never a crash.

A summary that copies the transcript or leaks a prompt tag is withheld (:mod:`aya_lab.agents.summary_checks`):
``text`` becomes :data:`~aya_lab.agents.summary_checks.SUMMARY_WITHHELD`, ``withheld`` says why, and the
draft goes to ``notes`` (the run report); ``summary`` and ``action_items`` keep the draft, for the evaluators.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from aya_lab.agents.numbers import ENGLISH_NUMBER_WORDS
from aya_lab.agents.protocols import TextModel
from aya_lab.agents.summarizer_names import SUMMARIZER_VARIANTS, SummarizerVariant
from aya_lab.agents.summary_checks import SUMMARY_WITHHELD, summary_problem
from aya_lab.errors import InputError
from aya_lab.messages import ChatMessage
from aya_lab.models.base import record_generations
from aya_lab.models.result import usage
from aya_lab.prompts import PromptFile, load_prompt
from aya_lab.spotlight import delimiter_tags

__all__ = [
    "SUMMARIZER_VARIANTS",
    "SummarizerVariant",
    "SummaryResult",
    "TwoCallSummarizer",
    "OneCallSummarizer",
    "make_summarizer",
    "parse_count",
    "parse_action_items",
    "render_transcript",
    "checked_summary",
    "prompt_text",
    "SUMMARIZER_PROMPTS",
]


_WORDS = {w: i for w, i in ENGLISH_NUMBER_WORDS.items() if i <= 20}
_ALL = re.compile(r"\b(all|everything|whole|entire)\b", re.I)
MAX_HISTORY = 40  # messages shown to the one-call variant
SUMMARIZER_PROMPTS = ("summarizer_count/baseline", "summarizer_summary/baseline", "summarizer_onecall/baseline")
"""The prompt files the two variants render (a draft is checked against their text)."""


@dataclass
class SummaryResult:
    """A summary and its accounting (what the evaluators score)."""

    text: str  # the reply Aya sends
    summary: str
    action_items: list[tuple[str, str]]  # (owner, task)
    count_requested: int | None  # parsed count; 0 = all; None = unparseable (treated as all)
    message_ids: list[str]  # the messages summarized (for the two-call variant: exactly the last N)
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_s: float = 0.0
    notes: list[str] = field(default_factory=list)
    withheld: str = ""  # why the draft was not sent (aya_lab.agents.summary_checks), or ""

    def __post_init__(self) -> None:  # a checkpoint read back gives the pairs as lists
        self.action_items = [(owner, task) for owner, task in self.action_items]


def parse_count(text: str) -> int | None:
    """The first number in ``text`` (digits or English number words); 0 for "all"; None if none."""
    m = re.search(r"\d+", text)
    if m:
        return int(m.group())
    for word in re.findall(r"[a-z]+", text.lower()):
        if word in _WORDS:
            return _WORDS[word]
    return 0 if _ALL.search(text) else None


def parse_action_items(text: str) -> list[tuple[str, str]]:
    """``- owner: task`` lines -> ``[(owner, task)]`` (lowercased owner); ``- none`` gives ``[]``."""
    items = []
    for line in text.splitlines():
        m = re.match(r"^\s*(?:[-*•]|\d+[.)])\s*([^:]{1,40}):\s*(.+)$", line)
        if m and m.group(1).strip().lower() not in {"none", "summary", "count"}:
            items.append((m.group(1).strip().lower(), m.group(2).strip()))
    return items


def render_transcript(messages: Sequence[ChatMessage]) -> str:
    return "\n".join(f"{m.sender}: {m.english}" for m in messages)


def _window(history: Sequence[ChatMessage], count: int | None) -> list[ChatMessage]:
    return list(history) if not count else list(history)[-count:]


def _compose(summary: str, items: list[tuple[str, str]]) -> str:
    lines = [summary.strip() or "(no summary)"]
    lines += [f"- {owner}: {task}" for owner, task in items] or ["- no action items"]
    return "\n".join(lines)


def _tags(*prompts: PromptFile) -> frozenset[str]:
    return delimiter_tags(*(t for p in prompts for t in (p.system or "", p.user)))


def prompt_text(*prompts: PromptFile) -> str:
    """The fixed text of ``prompts`` (system and user templates, ``{variables}`` cut out)."""
    return "\n".join(re.sub(r"\{\w+\}", " ", t) for p in prompts for t in (p.system or "", p.user))


def checked_summary(result: SummaryResult, transcript: str, tags: frozenset[str], prompt: str = "") -> SummaryResult:
    """``result``, withheld when its draft copies ``transcript`` or the ``prompt``'s text, or leaks one of
    ``tags`` (see the module docstring); a result with no summary (nothing to summarize) is returned as it is."""
    if not result.summary:
        return result
    problem = summary_problem(result.summary, transcript, tags, prompt=prompt) or summary_problem(
        result.text, "", tags, 2.0
    )
    if problem is None:
        return result
    note = f"summary withheld, {problem}: {result.summary[:160]!r}"
    return replace(result, text=SUMMARY_WITHHELD, withheld=problem, notes=[*result.notes, note])


class _Base:
    variant = ""
    tags: frozenset[str] = frozenset()  # the delimiter tags of the variant's prompts
    prompt_text = ""  # the fixed text of the variant's prompts (a draft must not repeat it)

    def __init__(self, model: TextModel) -> None:
        self.model = model

    def summarize(self, request: str, history: Sequence[ChatMessage]) -> SummaryResult:
        with record_generations() as records:
            result = self._summarize(request, list(history))
        checked = checked_summary(
            replace(result, **usage(records)), render_transcript(history), self.tags, self.prompt_text
        )
        return checked

    def __call__(self, request: str, history: Sequence[ChatMessage]) -> str:
        return self.summarize(request, history).text

    def _summarize(self, request: str, history: list[ChatMessage]) -> SummaryResult:  # pragma: no cover
        raise NotImplementedError


class TwoCallSummarizer(_Base):
    variant: SummarizerVariant = "two_call"

    def __init__(self, model: TextModel) -> None:
        super().__init__(model)
        self.count_prompt = load_prompt("summarizer_count/baseline")
        self.summary_prompt = load_prompt("summarizer_summary/baseline")
        self.tags = _tags(self.count_prompt, self.summary_prompt)
        self.prompt_text = prompt_text(self.count_prompt, self.summary_prompt)

    def _summarize(self, request: str, history: list[ChatMessage]) -> SummaryResult:
        notes = []
        (count_out,) = self.model.generate_texts([self.count_prompt.render(request=request)])
        count = parse_count(count_out.text)
        if count is None:
            notes.append(f"malformed count {count_out.text[:40]!r}: summarizing all messages")
        elif count > len(history):
            notes.append(f"count {count} > {len(history)} messages: summarizing all")
        window = _window(history, count)
        if not window:
            return SummaryResult("There are no messages to summarize yet.", "", [], count, [], notes=notes)
        (out,) = self.model.generate_texts([self.summary_prompt.render(transcript=render_transcript(window))])
        summary = out.text.split("\n-", 1)[0].strip()
        items = parse_action_items(out.text)
        return SummaryResult(_compose(summary, items), summary, items, count, [m.id for m in window], notes=notes)


class OneCallSummarizer(_Base):
    variant: SummarizerVariant = "one_call"

    def __init__(self, model: TextModel) -> None:
        super().__init__(model)
        self.prompt = load_prompt("summarizer_onecall/baseline")
        self.tags = _tags(self.prompt)
        self.prompt_text = prompt_text(self.prompt)

    def _summarize(self, request: str, history: list[ChatMessage]) -> SummaryResult:
        notes: list[str] = []
        if not history:
            return SummaryResult("There are no messages to summarize yet.", "", [], 0, [], notes=notes)
        shown = history[-MAX_HISTORY:]
        (out,) = self.model.generate_texts([self.prompt.render(transcript=render_transcript(shown), request=request)])
        text = out.text
        m = re.search(r"COUNT\s*:\s*([^\n]*)", text, re.I)
        count = parse_count(m.group(1)) if m else None
        if count is None:
            notes.append(f"malformed COUNT in {text[:40]!r}: treated as all")
        s = re.search(r"SUMMARY\s*:\s*(.*?)(?:\n\s*ACTIONS\s*:|\Z)", text, re.I | re.S)
        summary = (s.group(1) if s else text.split("\n-", 1)[0]).strip()
        a = re.search(r"ACTIONS\s*:(.*)", text, re.I | re.S)
        items = parse_action_items(a.group(1) if a else text)
        window = _window(history, count)
        return SummaryResult(_compose(summary, items), summary, items, count, [m.id for m in window], notes=notes)


def make_summarizer(variant: str, model: TextModel) -> TwoCallSummarizer | OneCallSummarizer:
    """The summarizer ``variant`` names (one of :data:`SUMMARIZER_VARIANTS`) on ``model``."""
    variants: dict[str, type[TwoCallSummarizer] | type[OneCallSummarizer]] = {
        "two_call": TwoCallSummarizer,
        "one_call": OneCallSummarizer,
    }
    if variant not in variants:
        raise InputError(f"unknown summarizer variant {variant!r}; use one of {', '.join(SUMMARIZER_VARIANTS)}")
    return variants[variant](model)
