"""Overlays: a variant is a few lines over a base; resolved spec and content hash identify it."""

from __future__ import annotations

import pytest
import yaml
from graph_helpers import SPECS, run

from aya_lab.graph import SpecError, build_graph, load_spec, read_spec_data, spec_hash


def visited_of(path, registry, route):
    app = build_graph(load_spec(path, registry=registry), registry).compile()
    return run(app, {"route": route, "visited": []})[0]


def test_one_call_summarizer_variant(registry):
    base = load_spec(SPECS / "aya_like.yaml", registry=registry)
    variant = load_spec(SPECS / "one_call_summarizer.yaml", registry=registry)
    assert base.node_names() == ["translate", "supervise", "summarize", "write_summary", "answer"]
    assert variant.name == "Aya-like-one-call"
    assert variant.node_names() == ["translate", "supervise", "summarize", "answer"]
    assert variant.node("summarize").factory_parameter == {"label": "one_call_summary"}
    assert visited_of(SPECS / "aya_like.yaml", registry, "summarize") == [
        "translate",
        "supervise",
        "summarize",
        "write_summary",
    ]
    assert visited_of(SPECS / "one_call_summarizer.yaml", registry, "summarize") == [
        "translate",
        "supervise",
        "summarize",
    ]
    assert spec_hash(base) != spec_hash(variant)
    assert variant.lineage == (str(SPECS / "aya_like.yaml"), str(SPECS / "one_call_summarizer.yaml"))


def test_chained_overlay_rewires_and_deep_merges(registry):
    spec = load_spec(SPECS / "route_then_translate.yaml", registry=registry)
    assert spec.node("translate").factory_parameter == {"context_window": 3, "options": {"beam": 4, "style": "plain"}}
    assert visited_of(SPECS / "route_then_translate.yaml", registry, "other") == ["supervise", "answer", "translate"]
    assert len(spec.lineage) == 3


def test_resolved_spec_hash_equals_the_plain_spec_hash(registry, tmp_path):
    variant = load_spec(SPECS / "one_call_summarizer.yaml", registry=registry)
    plain = tmp_path / "plain.yaml"
    plain.write_text(yaml.safe_dump(variant.to_dict()))
    assert spec_hash(load_spec(plain, registry=registry)) == spec_hash(variant)
    data, lineage = read_spec_data(SPECS / "one_call_summarizer.yaml")
    assert data == variant.to_dict() or load_spec(data, registry=registry) == variant


def overlay(tmp_path, changes, base="aya_like.yaml"):
    (tmp_path / "aya_like.yaml").write_text((SPECS / "aya_like.yaml").read_text())
    path = tmp_path / "variant.yaml"
    path.write_text(yaml.safe_dump({"base": base, "changes": changes}))
    return path


def test_every_operation(registry, tmp_path):
    path = overlay(
        tmp_path,
        [
            {"add_node": {"name": "critic", "factory": "test.record.v1"}},
            {"add_edge": {"start_key": "write_summary", "end_key": "critic"}},
            {"remove_edge": {"start_key": "write_summary", "end_key": "END"}},
            {"add_flow": {"kind": "edge", "flow_parameter": {"start_key": "critic", "end_key": "END"}}},
            {"remove_conditional_edge": "supervise"},
            {
                "add_flow": {
                    "kind": "configurable_conditional_edge",
                    "flow_parameter": {
                        "start_key": "supervise",
                        "conditions": [
                            {
                                "expression": {"neq": [{"type": "state_value", "name": "route"}, "answer"]},
                                "result": "summarize",
                            },
                            {"default": "answer"},
                        ],
                    },
                }
            },
            {"add_state_field": {"field_name": "notes", "type": "list", "reducer": "operator.add"}},
            {
                "replace_node": "answer",
                "factory": "const_update.v1",
                "factory_parameter": {"update": {"notes": ["answered"]}},
            },
        ],
    )
    spec = load_spec(path, registry=registry)
    assert spec.node_names()[-1] == "critic"
    app = build_graph(spec, registry).compile()
    assert run(app, {"route": "x", "visited": []})[0] == [
        "translate",
        "supervise",
        "summarize",
        "write_summary",
        "critic",
    ]
    visited, final = run(app, {"route": "answer", "visited": [], "notes": []})
    assert visited == ["translate", "supervise", "answer"] and final["notes"] == ["answered"]


def test_subgraph_changes(registry, tmp_path):
    (tmp_path / "subgraph.yaml").write_text((SPECS / "subgraph.yaml").read_text())
    path = tmp_path / "v.yaml"
    path.write_text(yaml.safe_dump({"base": "subgraph.yaml", "changes": [
        {"graph": "React-Agent", "update_node": "agent", "factory_parameter": {"functions": ["search_function"], "temperature": 0}},
        {"graph": "Nope", "remove_node": "agent"},
    ]}))  # fmt: skip
    with pytest.raises(SpecError) as info:
        load_spec(path, registry=registry)
    assert [str(p) for p in info.value.problems] == ["changes[1].graph: no subgraph 'Nope'"]


def test_overlay_errors_are_located(registry, tmp_path):
    path = overlay(
        tmp_path,
        [
            {"replace_node": "sumarize", "factory": "x"},
            {"remove_edge": {"start_key": "translate", "end_key": "answer"}},
            {"add_node": {"name": "answer", "factory": "test.record.v1"}},
            {"remove_conditional_edge": "answer"},
            {"replace_nod": "x"},
            {"add_edge": {"start_key": "a"}},
        ],
    )
    with pytest.raises(SpecError) as info:
        load_spec(path, registry=registry)
    assert [str(p) for p in info.value.problems] == [
        "changes[4]: no operation: a change has exactly one of replace_node, update_node, add_node, remove_node, add_edge, remove_edge, add_flow, remove_conditional_edge, add_state_field (did you mean 'replace_node'?)",
        "changes[5].add_edge.end_key: missing required key",
    ]
    path = overlay(tmp_path, [
        {"replace_node": "sumarize", "factory": "x"},
        {"remove_edge": {"start_key": "translate", "end_key": "answer"}},
        {"add_node": {"name": "answer", "factory": "test.record.v1"}},
        {"remove_conditional_edge": "answer"},
    ])  # fmt: skip
    with pytest.raises(SpecError) as info:
        load_spec(path, registry=registry)
    assert [str(p) for p in info.value.problems] == [
        "changes[0].replace_node: no node 'sumarize' in graph 'Aya-like' (did you mean 'summarize'?)",
        "changes[1].remove_edge: no edge translate -> answer in graph 'Aya-like' (edges from there: translate -> supervise)",
        "changes[2].add_node.name: node 'answer' already exists; use replace_node to change it",
        "changes[3].remove_conditional_edge: no conditional edge from 'answer' in graph 'Aya-like'",
    ]


def test_resolved_spec_is_validated_too(registry, tmp_path):
    path = overlay(tmp_path, [{"remove_node": "summarize"}])
    with pytest.raises(SpecError) as info:
        load_spec(path, registry=registry)
    msgs = [str(p) for p in info.value.problems]
    assert (
        "flows[6].flow_parameter.conditions[0].result: unknown node 'summarize' (nodes: answer, supervise, translate, write_summary; or END)"
        in msgs
    )
    assert "(resolved)" in str(info.value).splitlines()[0]


def test_missing_base_and_cycles(tmp_path, registry):
    path = overlay(tmp_path, [], base="nowhere.yaml")
    with pytest.raises(SpecError, match="base spec .*nowhere.yaml' not found"):
        load_spec(path, registry=registry)
    a, b = tmp_path / "a.yaml", tmp_path / "b.yaml"
    a.write_text("base: b.yaml\n")
    b.write_text("base: a.yaml\n")
    with pytest.raises(SpecError, match="overlay cycle"):
        load_spec(a, registry=registry)


def test_dict_overlay_uses_base_dir(registry):
    spec = load_spec({"base": "aya_like.yaml", "changes": [{"remove_node": "answer"}, {"remove_conditional_edge": "supervise"},
                      {"add_edge": {"start_key": "supervise", "end_key": "summarize"}}]}, registry=registry, base_dir=SPECS)  # fmt: skip
    assert "answer" not in spec.node_names()
