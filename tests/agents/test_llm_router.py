"""The looping LLM router: strict parsing, the keyword fallback, the step limit, a hung model call, the
exact chained input the model reads at each step, and Aya's supervisor choosing it by name."""

from __future__ import annotations

import threading
from collections.abc import Sequence

import pytest

from aya_lab.agents.llm_router import Decision, LoopRouter, parse_decision
from aya_lab.agents.routing import FINISH, RouterTimeoutError, RoutingChain, StepLimitError
from aya_lab.agents.supervisor import AyaSupervisor
from aya_lab.errors import InputError
from aya_lab.messages import ChatMessage
from aya_lab.models.fake import FakeChatModel
from aya_lab.models.result import GenerationResult
from aya_lab.room.parameters import SupervisorParameters
from tests.fakes import FakeKnowledgeBase

TOOLS = ("query", "summarize", "remember", "chat")
ECHO = {t: (lambda x, t=t: f"[{t} done]") for t in TOOLS}
REQUEST = "summarize the last 5 messages and remember the action items"


class Recording(LoopRouter):
    """Records the exact string the chain hands ``route`` at each call."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.seen: list[str] = []

    def route(self, text: str):
        self.seen.append(text)
        return super().route(text)


@pytest.mark.parametrize(
    "answer, expected",
    [
        ("Action: query\nAction Input: hotel limit in Nairobi", Decision("query", "hotel limit in Nairobi")),
        ("  Decision: Action: remember\nAction Input: I leave Monday  ", Decision("remember", "I leave Monday")),
        ("Action: chat\nAction Input: hi\nObservation: (made up)\nDecision: ...", Decision("chat", "hi")),
        ("Final Answer: done", Decision(FINISH, "done")),
        ("Final Answer: two lines\nof answer", Decision(FINISH, "two lines\nof answer")),
    ],
)
def test_parse_success(answer, expected):
    assert parse_decision(answer, TOOLS) == expected


@pytest.mark.parametrize(
    "answer, why",
    [
        ("", "empty answer"),
        ("summarize", "not 'Action: TOOL'"),
        ("I think you want a summary. Action: summarize\nAction Input: x", "not 'Action: TOOL'"),
        ("Action: summarize", "not 'Action: TOOL'"),
        ("Action: summarize\nAction Input: x\nAction: remember\nAction Input: y", "not 'Action: TOOL'"),
        ("Action: translate\nAction Input: x", "unknown tool 'translate'"),
        ("Action: query\nAction Input:   ", "empty Action Input for query"),
        ("action: query\naction input: x", "not 'Action: TOOL'"),
    ],
)
def test_parse_failure_says_why(answer, why):
    d = parse_decision(answer, TOOLS)
    assert d.tool is None and d.error.startswith(why)


def test_the_model_decides_each_step_reading_the_exact_chained_input():
    model = FakeChatModel(
        responses=[
            "Action: summarize\nAction Input: the last 5 messages",
            "Action: remember\nAction Input: that Kofi books the room",
            "Final Answer: done",
        ]
    )
    router = Recording(model)
    result = RoutingChain(router, ECHO, max_steps=3).invoke(REQUEST)
    first = REQUEST + "\nDecision:"
    second = first + " Action: summarize\nAction Input: the last 5 messages\nObservation: [summarize done]\nDecision:"
    third = (
        second + " Action: remember\nAction Input: that Kofi books the room\nObservation: [remember done]\nDecision:"
    )
    assert router.seen == [first, second, third]
    assert all(f"<transcript>{s}</transcript>" in p for s, p in zip(router.seen, model.prompts, strict=True))
    assert result.tools == ["summarize", "remember"] and not result.fallback
    assert [s.output.explicit for s in result.steps] == [True, True, True]  # the model chose every step
    assert result.output == "[summarize done]\n\n[remember done]"  # composed from the observations
    assert (router.calls, router.failures) == (3, 0)


def test_an_unparseable_answer_falls_back_to_the_keyword_router_naming_router_and_step():
    model = FakeChatModel(default="Sure! Here is a summary of the chat.")
    router = Recording(model)
    result = RoutingChain(router, ECHO, max_steps=3).invoke("summarize the last 5 messages")
    assert result.tools == ["summarize"] and result.fallback
    first, finish = result.steps[0].output, result.steps[-1].output
    assert first.fallback and not first.explicit and finish.fallback and finish.tool == FINISH
    assert "step 1: router Recording: unparseable answer 'Sure! Here is a summary" in first.log
    assert "fallback KeywordRouter: keyword 'summar' -> summarize" in first.log
    assert "step 2: router Recording" in finish.log and "fallback finishes" in finish.log
    assert result.output == "[summarize done]" and (router.calls, router.failures) == (2, 2)
    # the fallback's decision is in the chained input the model reads next, as its own earlier log line
    assert router.seen[1].startswith("summarize the last 5 messages\nDecision: Action: summarize\n")


def test_the_step_limit_bounds_a_model_that_never_finishes():
    model = FakeChatModel(default="Action: query\nAction Input: the hotel limit")
    chain = RoutingChain(LoopRouter(model), ECHO, max_steps=2)
    result = chain.invoke("what is the hotel limit?")
    assert result.stopped_by_limit and result.tools == ["query", "query"] and len(model.prompts) == 3
    with pytest.raises(StepLimitError, match=r"^router LoopRouter did not finish within max_steps=2 tool runs"):
        chain.run("what is the hotel limit?")


def test_finishing_before_any_tool_ran_sends_the_request_to_chat():
    model = FakeChatModel(responses=["Final Answer: hello!", "Final Answer: done"])
    result = RoutingChain(LoopRouter(model), ECHO).invoke("good morning Aya")
    assert result.tools == ["chat"] and result.output == "[chat done]"  # not the router model's own text


class HangingModel(FakeChatModel):
    """Hangs on the second router call (after the first observation) until released."""

    release: threading.Event = threading.Event()

    def generate_texts(self, conversations: Sequence, *, repeat: int = 0) -> list[GenerationResult]:
        if "Observation: [query done]" in str(conversations[0][-1].content):
            self.release.wait(10)
        return super().generate_texts(conversations, repeat=repeat)


def test_a_hung_model_call_ends_the_chain_with_one_error_naming_router_and_step():
    model = HangingModel(default="Action: query\nAction Input: x")
    chain = RoutingChain(LoopRouter(model), ECHO, route_timeout=0.3)
    try:
        with pytest.raises(RouterTimeoutError, match=r"^step 2: router LoopRouter: route\(\) did not return"):
            chain.invoke("what is the per diem?")
    finally:
        model.release.set()


HISTORY = [ChatMessage(sender="lena", content="Meeting moved to Friday.", lang="eng")]


def test_the_supervisor_runs_two_tools_the_model_chose_after_reading_the_first_observation():
    model = FakeChatModel(
        rules=[
            ("Observation: Noted: lena: send the report\nDecision:</transcript>", "Final Answer: done"),
            ("- lena: send the report\nDecision:</transcript>", "Action: remember\nAction Input: the action items"),
            ("Decision:</transcript>", "Action: summarize\nAction Input: the last 2 messages"),
            ("Number:", "2"),
            ("Summary:", "Plans changed.\n- lena: send the report"),
        ],
        default="ok",
    )
    kb = FakeKnowledgeBase()
    history = [ChatMessage(sender="lena", content="Meeting moved to Friday. I'll send the report.", lang="eng")]
    result = AyaSupervisor(model, kb, router="loop").handle(REQUEST, history, author="kofi")
    assert result.tools == ["summarize", "remember"] and not result.fallback
    assert list(kb.rows.values()) == [("lena: send the report", "kofi", None)]  # the back-reference resolved
    window, rest = result.reply.split("\n", 1)
    assert window == "The last message (lena):"
    assert rest == "Plans changed.\nAction items:\n- lena: send the report\n\nNoted: lena: send the report"


def test_the_supervisor_keyword_fallback_never_writes():
    kb = FakeKnowledgeBase()
    result = AyaSupervisor(FakeChatModel(default="banana"), kb, router="loop").handle(
        "remember that the door code is 42", HISTORY, author="kofi"
    )
    assert result.tools == ["decline"] and result.fallback and not kb.rows
    assert any("step 1: router LoopRouter: unparseable answer 'banana'" in n for n in result.notes)


def test_routers_are_selectable_by_name_and_the_old_spelling_still_reads():
    assert SupervisorParameters().router == "re_deciding"
    assert SupervisorParameters(router="loop").router == "loop"
    assert SupervisorParameters.model_validate({"multi_intent": False}).router == "single"
    with pytest.raises(ValueError, match="not both"):
        SupervisorParameters.model_validate({"multi_intent": True, "router": "loop"})
    with pytest.raises(ValueError, match="no router_loop prompt variant 'nope'"):
        SupervisorParameters(loop_prompt="nope")
    with pytest.raises(InputError, match="unknown router 'sideways'; use one of single, re_deciding, loop"):
        AyaSupervisor(FakeChatModel(default="x"), FakeKnowledgeBase(), router="sideways")
