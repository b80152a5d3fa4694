"""Routing chains as designed: routers written from LangChain's routing-chain design run unchanged.

Three routers: the design's own example (LangChain's ``SelfAskWithSearchRouter`` on the design's
``LLMRouter``, from ``langchain/routing_chains/router.py`` and ``self_ask_with_search/base.py``, Nov 2022,
MIT licence; only its ``LLMChain`` is a local fake) and two written from the design's text alone, one
that reads ``text`` with ``str`` methods and one that puts ``text`` into a model prompt with an f-string.
Each test checks the exact strings the router received. Then every bad input ends the chain with one
error naming the router or tool and the step.
"""

from __future__ import annotations

import threading
import time
from abc import ABC, abstractmethod
from pathlib import Path
from typing import Any, List, Optional, Tuple  # noqa: UP035 (the design's own annotations)

import pytest
from langchain_core.messages import HumanMessage
from langchain_core.runnables import RunnableLambda
from pydantic import BaseModel

from aya_lab.agents.routing import (
    ChainedInput,
    Router,
    RouterOutput,
    RouterOutputError,
    RouterTimeoutError,
    RoutingChain,
    StepLimitError,
    ToolConfig,
    ToolOutputError,
    UnknownToolError,
)
from aya_lab.models.fake import FakeChatModel


# -- the design's example router ---------------------------------------------------------------------------
class LLMChain(BaseModel):
    """Stand-in for LangChain's 2022 ``LLMChain``: answers in order, records every call."""

    llm: Any = None
    prompt: Any = None
    answers: List[str] = []  # noqa: UP006
    calls: List[dict] = []  # noqa: UP006

    @property
    def input_keys(self) -> List[str]:  # noqa: UP006
        return ["input"]

    def predict(self, **inputs: Any) -> str:
        self.calls.append(inputs)
        return self.answers[len(self.calls) - 1]


LLM = Any
PROMPT = "(the self-ask prompt)"


# Copied from the design (langchain/routing_chains/router.py), unchanged but for the abstract
# ``from_llm_and_tools`` of a later version, which the self-ask router below predates.
class LLMRouter(Router, BaseModel, ABC):
    """Router that uses an LLM."""

    llm_chain: LLMChain

    @abstractmethod
    def _extract_tool_and_input(self, text: str) -> Optional[Tuple[str, str]]:  # noqa: UP006, UP045
        """Extract tool and tool input from llm output."""

    def _fix_text(self, text: str) -> str:
        """Fix the text."""
        raise ValueError("fix_text not implemented for this router.")

    @property
    def _stop(self) -> List[str]:  # noqa: UP006
        return [f"\n{self.observation_prefix}"]

    def route(self, text: str) -> RouterOutput:
        input_key = self.llm_chain.input_keys[0]
        inputs = {input_key: text, "stop": self._stop}
        full_output = self.llm_chain.predict(**inputs)
        parsed_output = self._extract_tool_and_input(full_output)
        while parsed_output is None:
            full_output = self._fix_text(full_output)
            inputs = {input_key: text + full_output, "stop": self._stop}
            output = self.llm_chain.predict(**inputs)
            full_output += output
            parsed_output = self._extract_tool_and_input(full_output)
        tool, tool_input = parsed_output
        return RouterOutput(tool, tool_input, full_output)


# Copied from the design (langchain/routing_chains/self_ask_with_search/base.py), unchanged.
class SelfAskWithSearchRouter(LLMRouter):
    """Router for the self-ask-with-search paper."""

    def __init__(self, llm: LLM, **kwargs: Any):
        """Initialize with an LLM."""
        llm_chain = LLMChain(llm=llm, prompt=PROMPT)
        super().__init__(llm_chain=llm_chain, **kwargs)

    def _extract_tool_and_input(self, text: str) -> Tuple[str, str]:  # noqa: UP006
        followup = "Follow up:"
        if "\n" not in text:
            last_line = text
        else:
            last_line = text.split("\n")[-1]

        if followup not in last_line:
            finish_string = "So the final answer is: "
            if finish_string not in last_line:
                raise ValueError("We should probably never get here")
            return "Final Answer", text[len(finish_string) :]

        if ":" not in last_line:
            after_colon = last_line
        else:
            after_colon = text.split(":")[-1]

        if " " == after_colon[0]:
            after_colon = after_colon[1:]
        if "?" != after_colon[-1]:
            print("we probably should never get here..." + text)

        return "Intermediate Answer", after_colon

    @property
    def observation_prefix(self) -> str:
        """Prefix to append the observation with."""
        return "Intermediate answer: "

    @property
    def router_prefix(self) -> str:
        """Prefix to append the router call with."""
        return ""

    @property
    def starter_string(self) -> str:
        """Put this string after user input but before first router call."""
        return "\nAre follow up questions needed here:"


def test_the_designs_self_ask_router_runs_unchanged_and_reads_the_designs_strings():
    router = SelfAskWithSearchRouter(llm=None)
    router.llm_chain.answers = [
        " Yes.\nFollow up: How old was Ada Lovelace when she died?",
        "So the final answer is: 36",
    ]
    searched = []
    search = ToolConfig(tool_name="Intermediate Answer", tool=lambda q: searched.append(q) or "36 years")
    chain = RoutingChain(router=router, tool_configs=[search])
    assert chain.run("How old was Ada Lovelace?") == "36"
    question = "How old was Ada Lovelace?\nAre follow up questions needed here:"
    first_log = " Yes.\nFollow up: How old was Ada Lovelace when she died?"
    assert [c["input"] for c in router.llm_chain.calls] == [
        question,
        question + first_log + "\nIntermediate answer: 36 years\n",
    ]
    assert all(type(c["input"]) is not dict and isinstance(c["input"], str) for c in router.llm_chain.calls)
    assert router.llm_chain.calls[0]["stop"] == ["\nIntermediate answer: "]
    assert searched == ["How old was Ada Lovelace when she died?"]


# -- two routers written from the design's text alone -------------------------------------------------------
class CalculatorRouter(Router):
    """Reads ``text`` as a string: the question is its first line; after an observation, finish with it."""

    @property
    def observation_prefix(self) -> str:
        return "Observation: "

    @property
    def router_prefix(self) -> str:
        return "Thought:"

    def route(self, text: str) -> RouterOutput:
        assert text.endswith(self.router_prefix)
        if self.observation_prefix not in text:
            question = text.split("\n")[0]
            return RouterOutput("Calculator", question.removeprefix("What is ").rstrip("?"), " use the calculator")
        answer = text.rsplit(self.observation_prefix, 1)[1].split("\n")[0]
        return RouterOutput("Final Answer", answer, " I know the answer")


def test_a_router_reading_text_with_str_methods():
    seen: list[str] = []

    class Recording(CalculatorRouter):
        def route(self, text: str) -> RouterOutput:
            seen.append(text)
            return super().route(text)

    calc = ToolConfig("Calculator", lambda expr: str(sum(int(x) for x in expr.split("+"))))
    chain = RoutingChain(tools=[calc], router=Recording())
    assert chain({"question": "What is 2+3?"}) == {"question": "What is 2+3?", "answer": "5"}
    assert seen == [
        "What is 2+3?\nThought:",
        "What is 2+3?\nThought: use the calculator\nObservation: 5\nThought:",
    ]
    tool, tool_input, log = CalculatorRouter().route("What is 1+1?\nThought:")  # a NamedTuple unpacks
    assert (tool, tool_input, log) == ("Calculator", "1+1", " use the calculator")


class PromptRouter(Router):
    """Puts ``text`` into a model prompt with an f-string; parses ``Action: X`` / ``Action Input: Y``."""

    def __init__(self, model: FakeChatModel) -> None:
        self.model = model

    observation_prefix = "Observation: "  # a class attribute satisfies the abstract property
    router_prefix = "Thought:"

    def route(self, text: str) -> RouterOutput:
        (answer,) = self.model.generate_texts([[HumanMessage(f"Pick a tool (lookup) or answer.\n\n{text}")]])
        lines = dict(line.split(": ", 1) for line in answer.text.strip().splitlines() if ": " in line)
        if "Final Answer" in lines:
            return RouterOutput("Final Answer", lines["Final Answer"], answer.text)
        return RouterOutput(lines["Action"], lines["Action Input"], answer.text)


def test_a_router_prompting_a_model_with_an_f_string_sends_the_text_itself(capsys):
    model = FakeChatModel(responses=[" look it up\nAction: lookup\nAction Input: Lagos", " done\nFinal Answer: 4pm"])
    chain = RoutingChain(
        tools=[ToolConfig("lookup", lambda q: f"{q} closes at 4pm")], router=PromptRouter(model), verbose=True
    )
    assert chain.run("When does the Lagos office close?") == "4pm"
    first = "When does the Lagos office close?\nThought:"
    steps = " look it up\nAction: lookup\nAction Input: Lagos\nObservation: Lagos closes at 4pm\nThought:"
    assert first in model.prompts[0] and steps not in model.prompts[0] and (first + steps) in model.prompts[1]
    assert "RoutingTranscript(" not in "".join(model.prompts)
    printed = capsys.readouterr().out
    assert printed.startswith(first) and "\x1b[" in printed and "Lagos closes at 4pm" in printed


def test_chained_input_prints_in_colour_only_when_verbose(capsys):
    quiet = ChainedInput("a", verbose=False)
    quiet.add("b", color="green")
    loud = ChainedInput("x", verbose=True)
    loud.add("y", color="green")
    assert (quiet.input, loud.input) == ("ab", "xy")
    assert capsys.readouterr().out == "x\x1b[32;1m\x1b[1;3my\x1b[0m"


def test_keys_runnable_batch_and_stream():
    calc = ToolConfig("Calculator", lambda expr: "5")
    chain = RoutingChain(tools=[calc], router=CalculatorRouter(), input_key="q", output_key="a")
    assert chain.invoke({"q": "What is 2+3?"}) == {"q": "What is 2+3?", "a": "5"}
    assert [r.output for r in chain.batch(["What is 2+3?", "What is 1+4?"])] == ["5", "5"]
    assert [s.output.tool for s in chain.stream("What is 2+3?")] == ["Calculator", "Final Answer"]
    assert (
        RunnableLambda(str.strip) | RoutingChain(CalculatorRouter(), [calc], return_intermediate_steps=False)
    ).invoke(" What is 2+3? ") == "5"


# -- bad input: one error naming the router or tool and the step -------------------------------------------
class Scripted(Router):
    observation_prefix, router_prefix = "Observation: ", "Thought:"

    def __init__(self, *outputs: Any) -> None:
        self.outputs = list(outputs)

    def route(self, text: str) -> Any:
        return self.outputs.pop(0) if len(self.outputs) > 1 else self.outputs[0]


def test_an_unknown_tool_is_the_designs_key_error():
    chain = RoutingChain(tools=[ToolConfig("a", str)], router=Scripted(RouterOutput("b", "x", "")))
    with pytest.raises(KeyError) as info:
        chain.run("q")
    assert isinstance(info.value, UnknownToolError)
    assert (
        str(info.value)
        == "step 1: router Scripted chose tool 'b', which this chain does not have; tools: a (or 'Final Answer' to finish)"
    )


def test_a_router_returning_something_else():
    chain = RoutingChain(tools=[ToolConfig("a", str)], router=Scripted(RouterOutput("a", "x", ""), ("a", "x")))
    with pytest.raises(
        RouterOutputError,
        match=r"^step 2: router Scripted returned tuple \('a', 'x'\), not a RouterOutput; return RouterOutput\(tool, tool_input, log\)$",
    ):
        chain.run("q")


def test_a_tool_that_raises_keeps_its_type_and_names_the_step():
    def broken(text: str) -> str:
        raise ZeroDivisionError("boom")

    chain = RoutingChain(tools=[ToolConfig("calc", broken)], router=Scripted(RouterOutput("calc", "1/0", "")))
    with pytest.raises(ZeroDivisionError) as info:
        chain.run("q")
    assert info.value.__notes__ == ["step 1: tool 'calc' raised this"]


def test_a_tool_returning_a_non_string():
    chain = RoutingChain(tools=[ToolConfig("n", lambda x: 42)], router=Scripted(RouterOutput("n", "x", "")))
    with pytest.raises(
        ToolOutputError, match=r"^step 1: tool 'n' returned int 42, not a str; return the observation as text$"
    ):
        chain.run("q")


def test_a_loop_that_never_finishes():
    chain = RoutingChain(tools=[ToolConfig("a", str)], router=Scripted(RouterOutput("a", "x", "")), max_steps=2)
    with pytest.raises(StepLimitError, match=r"^router Scripted did not finish within max_steps=2 tool runs"):
        chain.run("q")
    result = chain.invoke("q")  # the typed layer finishes with the last observation, flagged
    assert result.stopped_by_limit and result.tools == ["a", "a"] and result.output == "x"


def test_a_route_that_hangs_in_a_model_call():
    release = threading.Event()

    class Hanging(Scripted):
        def route(self, text: str) -> Any:
            release.wait(10)
            return RouterOutput("Final Answer", "late", "")

    chain = RoutingChain(tools=[], router=Hanging(), route_timeout=0.2)
    started = time.monotonic()
    with pytest.raises(
        RouterTimeoutError, match=r"^step 1: router Hanging: route\(\) did not return within route_timeout=0.2 s"
    ):
        chain.run("q")
    assert time.monotonic() - started < 5
    release.set()
    fast = RoutingChain(tools=[], router=Scripted(RouterOutput("Final Answer", "ok", "")), route_timeout=5)
    assert fast.run("q") == "ok"


def test_a_route_that_raises_keeps_its_type_and_names_the_step():
    class Failing(Scripted):
        def route(self, text: str) -> Any:
            raise ConnectionError("model server down")

    with pytest.raises(ConnectionError) as info:
        RoutingChain(tools=[], router=Failing()).run("q")
    assert info.value.__notes__ == ["step 1: router Failing: route() raised this"]


def test_a_design_router_must_name_its_prefixes():
    class NoPrefixes(Router):
        def route(self, text: str) -> RouterOutput:
            return RouterOutput("Final Answer", text, "")

    with pytest.raises(TypeError, match="abstract"):
        NoPrefixes()  # type: ignore[abstract]


def test_the_routing_page_example_runs_as_shown(capsys):
    page = (Path(__file__).resolve().parents[1] / "docs" / "ROUTING.md").read_text(encoding="utf-8")
    assert page.startswith("# Routing chains"), "docs/ROUTING.md should open with the routing-chain example"
    code = page.split("```python\n", 1)[1].split("```", 1)[0]
    scope: dict[str, Any] = {}
    exec(compile(code, "docs/ROUTING.md (routing chains)", "exec"), scope)
    assert scope["chain"]({"question": "What is 2+3?"}) == {"question": "What is 2+3?", "answer": "5"}
    assert scope["chain"].run("What is 2+3?") == "5"
    assert "What is 2+3?\nThought:" in capsys.readouterr().out
