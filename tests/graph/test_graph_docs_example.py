"""The graph page (docs/GRAPHS.md): its example spec, diagram, run, hashes and join error stay true."""

from __future__ import annotations

from pathlib import Path

import pytest
from graph_helpers import EXAMPLES

from aya_lab.graph import SpecError, build_graph, default_registry, draw, load_spec, spec_hash

PAGE = Path(__file__).resolve().parents[2] / "docs" / "GRAPHS.md"


def section() -> str:
    text = PAGE.read_text(encoding="utf-8")
    assert "<!-- section:graph -->" in text, "docs/GRAPHS.md lost its graph section markers"
    return text.split("<!-- section:graph -->", 1)[1].split("<!-- /section:graph -->", 1)[0]


def test_example_runs_as_documented():
    reg = default_registry()
    app = build_graph(load_spec(EXAMPLES / "triage.yaml", registry=reg), reg).compile()
    assert app.invoke({"request": "summarize", "log": []}) == {"request": "summarize", "log": ["intake", "summarize"]}
    assert app.invoke({"request": "hi", "log": []})["log"] == ["intake", "answer"]
    variant = build_graph(load_spec(EXAMPLES / "triage_always_summarize.yaml", registry=reg), reg).compile()
    assert variant.invoke({"request": "hi", "log": []})["log"] == ["intake", "summarize", "answer"]


def test_page_shows_the_current_spec_diagram_and_hashes():
    text = section()
    reg = default_registry()
    spec_text = (EXAMPLES / "triage.yaml").read_text(encoding="utf-8")
    body = "\n".join(line for line in spec_text.splitlines() if not line.startswith("#"))
    assert body.strip() in text
    mermaid = draw(EXAMPLES / "triage.yaml", reg)
    for line in mermaid.splitlines():
        if "-->" in line or "-.->" in line:
            assert line in text
    assert spec_hash(load_spec(EXAMPLES / "triage.yaml", registry=reg)) in text
    assert spec_hash(load_spec(EXAMPLES / "triage_always_summarize.yaml", registry=reg)) in text


def test_page_shows_the_current_starving_join_error():
    """The page's starving-join example: nodes a..e, START -> a, a branches to b / [b, c] / d, a join
    [b, c, d] -> e, e -> END; its error line is the one `graph validate` prints today."""
    pick = {"type": "state_value", "name": "pick"}
    data = {
        "kind": "stategraph",
        "flow_parameter": {"name": "fan-out", "state": [{"field_name": "pick", "type": "str"}]},
        "flows": [{"kind": "node", "flow_parameter": {"name": n, "factory": "const_update.v1"}} for n in "abcde"]
        + [
            {"kind": "edge", "flow_parameter": {"start_key": "START", "end_key": "a"}},
            {
                "kind": "configurable_conditional_edge",
                "flow_parameter": {
                    "start_key": "a",
                    "conditions": [
                        {"expression": {"eq": [pick, "b"]}, "result": "b"},
                        {"expression": {"eq": [pick, "bc"]}, "result": ["b", "c"]},
                        {"default": "d"},
                    ],
                },
            },
            {"kind": "edge", "flow_parameter": {"start_key": ["b", "c", "d"], "end_key": "e", "wait_for": "all"}},
            {"kind": "edge", "flow_parameter": {"start_key": "e", "end_key": "END"}},
        ],
    }
    with pytest.raises(SpecError) as info:
        load_spec(data, registry=default_registry())
    (problem,) = info.value.problems
    assert str(problem) in section()
    del data["flows"][7]["flow_parameter"]["wait_for"]
    assert load_spec(data, registry=default_registry()).name == "fan-out"  # kenkenpa's meaning: no join
