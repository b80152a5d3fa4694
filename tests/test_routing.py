"""Router, LLM router with fallback, routing chain with step limit."""

import pytest
from langchain_core.runnables import Runnable, RunnableLambda

from aya_lab.agents.routing import (
    FINISH,
    KeywordRouter,
    LLMRouter,
    RouterOutput,
    RoutingChain,
    RoutingTranscript,
    Step,
    ToolConfig,
    TranscriptRouter,
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
    assert "Request: <request>anything</request>" in model.prompts[0]


def test_llm_router_garbage_falls_back_and_says_so():
    model = FakeChatModel(responses=["¯\\_(ツ)_/¯ bananas"])
    out = LLMRouter(model, load_prompt("supervisor/baseline")).route("please summarize everything")
    assert out.tool == "summarize"
    assert "unparseable router answer" in out.log and "KeywordRouter" in out.log
    assert out.fallback  # typed: nobody needs to search the log


def test_llm_router_reads_action_format():
    model = FakeChatModel(responses=["Thought: a policy question\nAction: query\nAction Input: per-diem Berlin"])
    out = LLMRouter(model, load_prompt("supervisor/baseline")).route("what is the per-diem for Berlin?")
    assert (out.tool, out.tool_input, out.fallback) == ("query", "per-diem Berlin", False)


def test_chain_runs_one_tool_then_finishes():
    calls = []
    chain = RoutingChain(KeywordRouter(), {t: (lambda x, t=t: calls.append(t) or f"{t} done") for t in TOOLS})
    result = chain.invoke("summarize the chat")
    assert result.output == "summarize done" and calls == ["summarize"]
    assert [s.output.tool for s in result.steps] == ["summarize", FINISH] and FINISH == "Final Answer"
    assert result.intermediate_steps == [(result.steps[0].output, "summarize done")]
    assert isinstance(result.steps[0].output, RouterOutput)
    assert result.tool == "summarize" and not result.stopped_by_limit


class Stubborn(TranscriptRouter):
    tools = ("chat",)

    def route(self, transcript):
        return RouterOutput("chat", "hi", "never finishes")


def test_step_limit_stops_a_looping_router():
    chain = RoutingChain(Stubborn(), {"chat": lambda x: "again"}, max_steps=2)
    result = chain.invoke("hi")
    assert result.stopped_by_limit and result.output == "again"
    assert len(result.intermediate_steps) == 2 and result.steps[-1].stopped_by_limit


def test_chain_refuses_missing_tools():
    with pytest.raises(ValueError, match=r"router can choose \['remember'\]"):
        RoutingChain(KeywordRouter(), {"query": str, "summarize": str, "chat": str})


class Recorder(TranscriptRouter):
    """Finishes after two tools; records the transcripts it was handed."""

    tools = ("a", "b")
    observation_prefix, router_prefix, starter_string = "Obs: ", "Next: ", "\nBegin.\n"

    def __init__(self):
        self.seen = []

    def route(self, transcript):
        self.seen.append(transcript.text)
        n = len(transcript.steps)
        if n == 2:
            return self.finish(" + ".join(transcript.observations))
        return RouterOutput("ab"[n], f"in{n}", f"log{n}")


def test_router_reads_the_chained_transcript_as_the_design_writes_it():
    # the design starts with input + starter_string + router_prefix (issue 27: the prefix was missing)
    router = Recorder()
    result = RoutingChain(
        router, [ToolConfig("a", lambda x: "A:" + x, "first"), ToolConfig("b", lambda x: "B:" + x)]
    ).invoke({"input": "go"})
    assert result.output == "A:in0 + B:in1" and result.tools == ["a", "b"]
    assert router.seen == [
        "go\nBegin.\nNext: ",
        "go\nBegin.\nNext: log0\nObs: A:in0\nNext: ",
        "go\nBegin.\nNext: log0\nObs: A:in0\nNext: log1\nObs: B:in1\nNext: ",
    ]


def test_chain_is_a_runnable_batch_stream_and_compose():
    chain = RoutingChain(KeywordRouter(), {t: RunnableLambda(lambda x, t=t: f"{t}:{x}") for t in TOOLS})
    assert isinstance(chain, Runnable)
    results = chain.batch(["summarize it", "thanks!"])
    assert [r.tools for r in results] == [["summarize"], ["chat"]]
    steps = list(chain.stream("remember that x"))
    assert all(isinstance(s, Step) for s in steps) and [s.output.tool for s in steps] == ["remember", FINISH]
    only_answer = RunnableLambda(lambda x: x.strip()) | RoutingChain(
        KeywordRouter(), {t: (lambda x, t=t: t) for t in TOOLS}, return_intermediate_steps=False
    )
    assert only_answer.invoke("  what is the travel policy ") == "query"


def test_chain_refuses_a_non_text_input():
    chain = RoutingChain(KeywordRouter(), {t: str for t in TOOLS})
    with pytest.raises(TypeError, match="request string"):
        chain.invoke(3)


def test_keyword_router_finishes_with_the_first_observation():
    router = KeywordRouter()
    t = RoutingTranscript.start("summarize", router).add(Step(RouterOutput("summarize", "summarize"), "done"), router)
    assert router.route(t) == RouterOutput(FINISH, "done", "finish with the tool's answer")
