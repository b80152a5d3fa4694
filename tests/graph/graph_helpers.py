"""Helpers for the graph-as-data tests: a registry of small test factories and a runner."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.tools import tool
from langgraph.prebuilt import ToolNode
from langgraph.types import Send

from aya_lab.graph import Registry, default_registry

SPECS = Path(__file__).parent / "specs"
SNAPSHOTS = Path(__file__).parent / "snapshots"
EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "graphs"


@tool
def search(query: str) -> str:
    """Call to surf the web."""
    if "sf" in query.lower() or "san francisco" in query.lower():
        return "It's 60 degrees and foggy."
    return "It's 90 degrees and sunny."


TOOLS = {"search_function": search}
_ACTION = re.compile(r"^ACTION:\s*(\w+):\s*(.+)$", re.S)


def text_to_tool_calls(message: BaseMessage, counter: list[int]) -> AIMessage:
    """A local model has no tool calling: turn 'ACTION: tool: input' text into an AIMessage tool call."""
    match = _ACTION.match(str(message.content).strip())
    if not match:
        return AIMessage(content=message.content)
    counter[0] += 1
    return AIMessage(
        content="",
        tool_calls=[{"name": match.group(1), "args": {"query": match.group(2).strip()}, "id": f"call_{counter[0]}"}],
    )


def make_registry(model: Any = None) -> Registry:
    """The default registry plus the test factories; ``model`` answers the ``agent`` node."""
    reg = default_registry()
    counter = [0]

    def agent_factory(*, factory_parameter: dict[str, Any], flow_parameter: dict[str, Any]) -> Any:
        tools = [TOOLS[name] for name in factory_parameter["functions"]]
        bound = model.bind_tools(tools) if model is not None else None

        def call_model(state: dict[str, Any]) -> dict[str, Any]:
            if bound is None:
                return {"messages": [AIMessage(content="This is a dummy message")]}
            return {"messages": [text_to_tool_calls(bound.invoke(state["messages"]), counter)]}

        return call_model

    def tool_node_factory(*, factory_parameter: dict[str, Any], flow_parameter: dict[str, Any]) -> Any:
        return ToolNode([TOOLS[name] for name in factory_parameter["functions"]])

    class Record:
        """A class factory: instantiated with the same kwargs, called as a node."""

        def __init__(self, *, factory_parameter: dict[str, Any], flow_parameter: dict[str, Any]) -> None:
            self.label = factory_parameter.get("label", flow_parameter["name"])
            self.update = dict(factory_parameter.get("update", {}))

        def __call__(self, state: dict[str, Any]) -> dict[str, Any]:
            return {"visited": [self.label], **self.update}

    def generate_topics(*, factory_parameter: dict[str, Any], flow_parameter: dict[str, Any]) -> Any:
        return lambda state: {"subjects": [f"{state['topic']}-{s}" for s in ("cat", "dog", "owl")]}

    def generate_joke(*, factory_parameter: dict[str, Any], flow_parameter: dict[str, Any]) -> Any:
        return lambda state: {"jokes": [f"a joke about {state['subject']}"]}

    def best_joke(*, factory_parameter: dict[str, Any], flow_parameter: dict[str, Any]) -> Any:
        return lambda state: {"best_selected_joke": max(state["jokes"])}

    def is_tool_message(state: dict[str, Any], config: Any, **kwargs: Any) -> bool:
        return bool(getattr(state["messages"][-1], "tool_calls", None))

    def continue_to_jokes(state: dict[str, Any], config: Any, *, target: str) -> list[Send]:
        return [Send(target, {"subject": s}) for s in state["subjects"]]

    reg.add_node_factory("test.agent.v1", agent_factory)
    reg.add_node_factory("test.tool_node.v1", tool_node_factory)
    reg.add_node_factory("test.record.v1", Record)
    reg.add_node_factory("test.generate_topics.v1", generate_topics)
    reg.add_node_factory("test.generate_joke.v1", generate_joke)
    reg.add_node_factory("test.best_joke.v1", best_joke)
    reg.add_evaluation_function("is_tool_message.v1", is_tool_message)
    reg.add_evaluation_function("continue_to_jokes.v1", continue_to_jokes)
    return reg


def run(app: Any, inputs: dict[str, Any], config: dict[str, Any] | None = None) -> tuple[list[str], dict[str, Any]]:
    """Run a compiled graph; return the visited nodes (in order of their updates) and the final state."""
    visited: list[str] = []
    final: dict[str, Any] = {}
    for mode, chunk in app.stream(inputs, config=config, stream_mode=["updates", "values"]):
        if mode == "updates":
            visited.extend(chunk)
        else:
            final = chunk
    return visited, final
