"""AyaSupervisor: reads the English request, routes it through a routing chain, emits exactly one reply.

Tools: ``query`` (:class:`~aya_lab.agents.query.AyaQuery`), ``summarize`` (a summarizer variant over
the room history; the reply states its window and the action items by rule, and a withheld draft becomes who
said what: :mod:`aya_lab.agents.digest`), ``remember`` (:class:`AyaRemember`: add a fact to the knowledge base, attributed to
the sender, under the room's memory policy: :mod:`aya_lab.agents.memory`), the explicit commands
``approve`` and ``forget``, ``decline`` (a write no one chose explicitly) and ``chat`` (:class:`AyaChat`: a
short direct answer). The router is one of Aya's routers by name (``single``, ``re_deciding``, ``loop``:
:func:`~aya_lab.agents.routing.aya_router`); ``multi_intent=True`` is the old spelling of
``router="re_deciding"``. Whatever happens, one typed :class:`SupervisorResult` leaves
:meth:`AyaSupervisor.handle`: the reply, the tools in order, every step as a ``RouterOutput`` with its
observation, the notes and whether the fallback router decided. A model-written reply (query, summarize,
chat) that repeats the request is withheld (:mod:`aya_lab.agents.echo_checks`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from aya_lab.agents.authority import DECLINE, DECLINED
from aya_lab.agents.digest import with_digest
from aya_lab.agents.echo_checks import withhold_echoed_answer, withhold_echoed_chat, withhold_echoed_summary
from aya_lab.agents.memory import AyaRemember, MemoryTools, RoomMemory
from aya_lab.agents.protocols import KnowledgeBaseLike, TextModel
from aya_lab.agents.query import AnswerMode, AyaQuery, QueryAnswer
from aya_lab.agents.reply_checks import CHAT_FALLBACK, chat_breach
from aya_lab.agents.routing import (
    LOOP_PROMPT,
    LLMRouter,
    RoutingChain,
    Step,
    ToolConfig,
    TranscriptRouter,
    aya_router,
)
from aya_lab.agents.summarizer import SummaryResult, make_summarizer
from aya_lab.messages import ChatMessage
from aya_lab.prompts import load_prompt

__all__ = ["AyaSupervisor", "AyaChat", "AyaRemember", "SupervisorResult", "TOOL_DESCRIPTIONS"]

TOOL_DESCRIPTIONS = {
    "query": "a question about company policies, answered from the knowledge base with its sources",
    "summarize": "summarize the last N chat messages and list the action items",
    "remember": "store a fact the user states in the knowledge base, attributed to them",
    "chat": "greetings, thanks, small talk or anything else",
    "approve": "approve another user's pending note (memory policy 'confirm'); explicit command only",
    "forget": "remove a remembered note by its number, with an audit row; explicit command only",
    DECLINE: "a write that was not explicitly asked for: a fixed reply, nothing stored",
}


class AyaChat:
    """Small talk: one short model reply, replaced by :data:`CHAT_FALLBACK` when it breaks Aya's identity
    (:func:`~aya_lab.agents.reply_checks.chat_breach`)."""

    def __init__(self, model: TextModel, prompt: str = "chat/baseline") -> None:
        self.model, self.prompt = model, load_prompt(prompt)

    def reply(self, request: str) -> tuple[str, str | None]:
        """The reply to deliver and, when the model's draft was replaced, a one-line note saying why."""
        (result,) = self.model.generate_texts([self.prompt.render(request=request)])
        draft = result.text.strip().split("\n\n")[0] or "Happy to help."
        breach = chat_breach(draft)
        if breach is None:
            return draft, None
        return CHAT_FALLBACK, f"chat: the model's reply was replaced ({breach}): {draft[:120]!r}"

    def __call__(self, request: str) -> str:
        return self.reply(request)[0]


@dataclass
class SupervisorResult:
    """Everything the supervisor did for one request, typed (the room reads these fields)."""

    reply: str
    tools: list[str]  # the tools that ran, in order
    steps: list[Step] = field(default_factory=list)  # every RouterOutput with its observation; finish last
    notes: list[str] = field(default_factory=list)  # what a reader should know (fallbacks, malformed counts)
    fallback: bool = False  # a decision came from the fallback router (the model's answer was unparseable)
    stopped_by_limit: bool = False
    summaries: list[SummaryResult] = field(default_factory=list)
    answers: list[QueryAnswer] = field(default_factory=list)

    @property
    def tool(self) -> str | None:
        """The first tool that ran."""
        return self.tools[0] if self.tools else None


class AyaSupervisor:
    """Aya's routing chain over query, summarize, remember and chat (see the module docstring)."""

    def __init__(
        self,
        model: TextModel,
        kb: KnowledgeBaseLike,
        *,
        router_prompt: str = "supervisor/baseline",
        summarizer: str = "two_call",
        query_k: int = 3,
        max_steps: int = 3,
        multi_intent: bool = False,
        route_timeout: float | None = None,
        fallback: TranscriptRouter | None = None,
        router: str | None = None,
        loop_prompt: str = LOOP_PROMPT,
        answers: AnswerMode = "quote",
    ) -> None:
        self.model, self.kb = model, kb
        self.router_name = router or ("re_deciding" if multi_intent else "single")
        self.llm_router = LLMRouter(model, load_prompt(router_prompt), fallback=fallback)
        self.router: TranscriptRouter = aya_router(self.router_name, self.llm_router, loop_prompt=loop_prompt)
        self.summarizer = make_summarizer(summarizer, model)
        self.query = AyaQuery(model, kb, k=query_k, answers=answers)
        self.chat = AyaChat(model)
        self.max_steps, self.route_timeout = max_steps, route_timeout

    def handle(
        self,
        request_en: str,
        history: Sequence[ChatMessage],
        author: str | None = None,
        *,
        run_id: str | None = None,
        memory: RoomMemory | None = None,
        original: str | None = None,
    ) -> SupervisorResult:
        """Route ``request_en`` (tools may run in turn) and return the one reply with its account.

        Writes (remember, approve, forget) act for ``author`` under ``memory``'s policy (no memory: the
        ``anyone`` policy and no pending notes) and store with ``run_id`` (they commit with the run).
        ``original`` (the request as written, when ``request_en`` is its translation:
        :class:`~aya_lab.agents.route_input.RoutedInput`) travels in the chain's transcript and gives the
        keyword fallback a second text to match; the model routes ``request_en`` only. The router's
        ``fallback`` (the constructor's, or one set on ``llm_router``) is used as it is, every call.
        """
        summaries: list[SummaryResult] = []
        answers: list[QueryAnswer] = []
        notes: list[str] = []  # replies the reply checks replaced (agents.reply_checks, agents.echo_checks)
        asked = (request_en, original)  # a model-written reply that repeats these is withheld

        def summarize(text: str) -> str:
            checked = withhold_echoed_summary(self.summarizer.summarize(text, history), asked)
            summaries.append(with_digest(checked, history))
            return summaries[-1].text

        def query(text: str) -> str:
            answers.append(withhold_echoed_answer(self.query.answer(text, original), asked))
            return answers[-1].text

        def chat(text: str) -> str:
            reply, note = withhold_echoed_chat(*self.chat.reply(text), asked)
            notes.extend([note] if note else [])
            return reply

        run: dict[str, Callable[[str], str]] = {"query": query, "summarize": summarize, "chat": chat}
        notes_tools = MemoryTools(self.kb, author, run_id, memory)
        run.update(remember=notes_tools.remember, approve=notes_tools.approve, forget=notes_tools.forget)
        run[DECLINE] = lambda text: DECLINED
        tools = [ToolConfig(name, fn, TOOL_DESCRIPTIONS[name]) for name, fn in run.items()]
        chain = RoutingChain(self.router, tools, self.max_steps, route_timeout=self.route_timeout)
        result = chain.result(request_en, original)
        notes += [n for summary in summaries for n in summary.notes]
        notes += [a.note for a in answers if a.note]
        notes += [s.output.log for s in result.steps if s.output.fallback]
        return SupervisorResult(
            result.output,
            result.tools,
            result.steps,
            notes,
            result.fallback,
            result.stopped_by_limit,
            summaries,
            answers,
        )
