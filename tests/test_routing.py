"""Router, LLM router with fallback, routing chain with step limit."""

import pytest

from aya_lab.agents.routing import (
    FINISH,
    KeywordRouter,
    LLMRouter,
    Router,
    RouterOutput,
    RoutingChain,
    parse_tool_choice,
)
from aya_lab.models.fake import FakeChatModel
from aya_lab.prompts import load_prompt

TOOLS = ("query", "summarize", "remember", "chat")


@pytest.mark.parametrize(
    "text,tool",
    [
        ("summarize the last 5 messages", "summarize"),
        ("résume les 4 derniers messages", "summarize"),
        ("Fasse bitte zusammen", "summarize"),
        ("remember that the office closes at 5", "remember"),
        ("what is our travel policy?", "query"),
        ("how many vacation days do I get", "query"),
        ("tell me a joke", "chat"),
    ],
)
def test_keyword_router(text, tool):
    assert KeywordRouter().route(text).tool == tool


@pytest.mark.parametrize(
    "answer,tool",
    [
        ("query", "query"),
        (" Summarize.", "summarize"),
        ("Tool: remember", "remember"),
        ("I think chat", "chat"),
        ("summary", "summarize"),
        ("The answer is: question", "query"),
        ("banana", None),
        ("", None),
    ],
)
def test_parse_tool_choice(answer, tool):
    assert parse_tool_choice(answer, TOOLS) == tool


@pytest.mark.parametrize("tool", TOOLS)
def test_llm_router_each_tool(tool):
    model = FakeChatModel(responses=[tool])
    out = LLMRouter(model, load_prompt("supervisor/baseline")).route("anything")
    assert out.tool == tool and "model answered" in out.log
    assert "Request: anything" in model.prompts[0]


def test_llm_router_garbage_falls_back_and_says_so():
    model = FakeChatModel(responses=["¯\\_(ツ)_/¯ bananas"])
    out = LLMRouter(model, load_prompt("supervisor/baseline")).route("please summarize everything")
    assert out.tool == "summarize"
    assert "unparseable router answer" in out.log and "KeywordRouter" in out.log


def test_chain_runs_one_tool_then_finishes():
    calls = []
    chain = RoutingChain(KeywordRouter(), {t: (lambda x, t=t: calls.append(t) or f"{t} done") for t in TOOLS})
    result = chain.run("summarize the chat")
    assert result.output == "summarize done" and calls == ["summarize"]
    assert [s["tool"] for s in result.steps] == ["summarize", FINISH]
    assert result.tool == "summarize" and not result.stopped_by_limit


class Stubborn(Router):
    tools = ("chat",)

    def route(self, text, observations=()):
        return RouterOutput("chat", text, "never finishes")


def test_step_limit_stops_a_looping_router():
    chain = RoutingChain(Stubborn(), {"chat": lambda x: "again"}, max_steps=2)
    result = chain.run("hi")
    assert result.stopped_by_limit and result.output == "again"
    assert sum(1 for s in result.steps if "observation" in s) == 2


def test_chain_refuses_missing_tools():
    with pytest.raises(ValueError, match=r"router can choose \['remember'\]"):
        RoutingChain(KeywordRouter(), {"query": str, "summarize": str, "chat": str})
