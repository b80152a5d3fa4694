"""kenkenpa's documented examples, ported: build from spec files, run, assert visited nodes and state."""

from __future__ import annotations

import os

import pytest
from graph_helpers import SNAPSHOTS, SPECS, make_registry, run
from langchain_core.messages import HumanMessage

from aya_lab.graph import build_graph, draw, load_spec
from aya_lab.models.fake import FakeChatModel

EXAMPLE_SPECS = [
    "react_agent.yaml",
    "routing.yaml",
    "fan_out.yaml",
    "map_reduce.yaml",
    "subgraph.yaml",
    "config_routing.json",
]


def compile_spec(name: str, registry):
    spec = load_spec(SPECS / name, registry=registry)
    return build_graph(spec, registry).compile()


def test_react_agent_with_scripted_model():
    model = FakeChatModel(responses=["ACTION: search: weather in sf", "It's 60 degrees and foggy in SF."])
    app = compile_spec("react_agent.yaml", make_registry(model))
    visited, final = run(app, {"messages": [HumanMessage(content="what is the weather in sf")]})
    assert visited == ["agent", "tools", "agent"]
    assert [m.type for m in final["messages"]] == ["human", "ai", "tool", "ai"]
    assert final["messages"][1].tool_calls[0]["args"] == {"query": "weather in sf"}
    assert final["messages"][2].content == "It's 60 degrees and foggy."
    assert final["messages"][-1].content == "It's 60 degrees and foggy in SF."
    assert len(model.prompts) == 2 and "foggy" in model.prompts[1]


@pytest.mark.parametrize(
    ("next_node", "expected"),
    [
        ("node_a", ["router", "node_a"]),
        ("node_b", ["router", "node_b"]),
        ("node_c", ["router", "node_c"]),
        ("nowhere", ["router"]),
    ],
)
def test_routing_by_state_value(registry, next_node, expected):
    app = compile_spec("routing.yaml", registry)
    visited, final = run(app, {"next_node": next_node, "visited": []})
    assert visited == expected
    assert final["visited"] == expected


@pytest.mark.parametrize(
    ("score", "visited_after_start"),
    [
        (7, [{"node_a", "node_b"}, {"join"}]),  # two conditions hold: both followed, then 'join' once
        (4, [{"node_b"}, {"join"}]),  # one branch: kenkenpa's one edge per start, so 'join' still runs
        (1, [{"node_c"}]),  # nothing holds: the default
        (-20, [{"node_c"}]),  # the 'or' holds
    ],
)
def test_multi_result_fan_out(registry, score, visited_after_start):
    app = compile_spec("fan_out.yaml", registry)
    visited, final = run(app, {"score": score, "visited": []})
    assert steps_of(visited, [{"start"}, *visited_after_start])
    assert sorted(final["visited"]) == sorted(visited)


def steps_of(visited: list[str], steps: list[set[str]]) -> bool:
    """True when ``visited`` is the given steps in order (nodes within a step in any order)."""
    i = 0
    for step in steps:
        if set(visited[i : i + len(step)]) != step:
            return False
        i += len(step)
    return i == len(visited)


def test_send_map_reduce(registry):
    app = compile_spec("map_reduce.yaml", registry)
    visited, final = run(app, {"topic": "animals"})
    assert visited == ["generate_topics", "generate_joke", "generate_joke", "generate_joke", "best_joke"]
    assert sorted(final["jokes"]) == [f"a joke about animals-{s}" for s in ("cat", "dog", "owl")]
    assert final["best_selected_joke"] == "a joke about animals-owl"


def test_subgraph_runs_as_one_node(registry):
    app = compile_spec("subgraph.yaml", registry)
    visited, final = run(app, {"messages": [HumanMessage(content="hi")]})
    assert visited == ["React-Agent", "wrap_up"]
    assert final["messages"][-1].content == "This is a dummy message"
    inner = {n for n in app.get_graph(xray=1).nodes}
    assert {"React-Agent:agent", "React-Agent:tools"} <= inner


@pytest.mark.parametrize(
    ("configurable", "expected"),
    [
        ({"mode": "fast"}, [{"fast"}]),
        ({"mode": "careful"}, [{"careful", "review"}]),
        ({"mode": "other", "fallback": "review"}, [{"review"}]),
        ({"fallback": "END"}, []),
    ],
)
def test_config_value_routing_entry_point(registry, configurable, expected):
    app = compile_spec("config_routing.json", registry)
    visited, _ = run(app, {"visited": []}, {"configurable": configurable})
    assert steps_of(visited, expected)


@pytest.mark.parametrize("name", EXAMPLE_SPECS)
def test_mermaid_snapshot(registry, name):
    text = draw(load_spec(SPECS / name, registry=registry), registry, format="mermaid")
    snapshot = SNAPSHOTS / (name.rsplit(".", 1)[0] + ".mmd")
    if os.environ.get("UPDATE_SNAPSHOTS"):
        snapshot.write_text(text, encoding="utf-8")
    assert snapshot.exists(), f"{name}: no committed snapshot {snapshot.name}; create it with UPDATE_SNAPSHOTS=1"
    assert text == snapshot.read_text(encoding="utf-8"), (
        f"{name}: graph shape changed; rerun with UPDATE_SNAPSHOTS=1 if intended"
    )


def test_ascii_drawing(registry):
    text = draw(SPECS / "react_agent.yaml", registry, format="ascii")
    assert "agent" in text and "tools" in text and "__end__" in text
