"""Validation: every problem located, with the fix, all reported at once; nothing evaluated as code."""

from __future__ import annotations

import copy
import os

import pytest
import yaml

from aya_lab.graph import SpecError, build_graph, load_spec
from aya_lab.graph.errors import COMPAT_HINT


def base() -> dict:
    return {
        "kind": "stategraph",
        "flow_parameter": {
            "name": "Aya",
            "state": [
                {"field_name": "messages", "type": "list", "reducer": "append_list.v1"},
                {"field_name": "route", "type": "str"},
            ],
        },
        "flows": [
            {"kind": "node", "flow_parameter": {"name": "supervise", "factory": "test.record.v1"}},
            {"kind": "node", "flow_parameter": {"name": "summarize", "factory": "test.record.v1"}},
            {"kind": "node", "flow_parameter": {"name": "answer", "factory": "test.record.v1"}},
            {"kind": "edge", "flow_parameter": {"start_key": "START", "end_key": "supervise"}},
            {
                "kind": "configurable_conditional_edge",
                "flow_parameter": {
                    "start_key": "supervise",
                    "conditions": [
                        {
                            "expression": {"eq": [{"type": "state_value", "name": "route"}, "summarize"]},
                            "result": "summarize",
                        },
                        {
                            "expression": {"eq": [{"type": "function", "name": "is_tool_message.v1"}, True]},
                            "result": "answer",
                        },
                        {"default": "END"},
                    ],
                },
            },
            {"kind": "edge", "flow_parameter": {"start_key": "summarize", "end_key": "END"}},
            {"kind": "edge", "flow_parameter": {"start_key": "answer", "end_key": "END"}},
        ],
    }


def problems(data, registry) -> list[str]:
    with pytest.raises(SpecError) as info:
        load_spec(data, registry=registry)
    return [str(p) for p in info.value.problems]


def test_base_is_valid(registry):
    spec = load_spec(base(), registry=registry)
    assert spec.node_names() == ["supervise", "summarize", "answer"]
    build_graph(spec, registry).compile()


def test_unknown_function_is_located_with_suggestion(registry):
    data = base()
    data["flows"][4]["flow_parameter"]["conditions"][1]["expression"]["eq"][0]["name"] = "is_tool_msg"
    registry.add_evaluation_function("is_tool_message", lambda state, config: False)
    assert problems(data, registry) == [
        "flows[4].flow_parameter.conditions[1].expression.eq[0]: unknown function 'is_tool_msg' (did you mean 'is_tool_message'?)"
    ]


def test_unknown_key_and_unknown_node_reported_together(registry):
    data = base()
    data["flows"][0]["factory_paramter"] = {}
    data["flows"][5]["flow_parameter"]["start_key"] = "sumarize"
    assert problems(data, registry) == [
        "flows[0].factory_paramter: unknown key (did you mean 'factory_parameter'?)" + COMPAT_HINT,
        "flows[5].flow_parameter.start_key: unknown node 'sumarize' (did you mean 'summarize'?)",
    ]


def test_error_message_shape(registry):
    data = base()
    data["flows"][6]["flow_parameter"]["end_key"] = "ENDD"
    data["flows"][1]["flow_parameter"]["factory"] = "test.recrod.v1"
    with pytest.raises(SpecError) as info:
        load_spec(data, registry=registry)
    lines = str(info.value).splitlines()
    assert lines[0] == "graph spec has 2 problems:"
    assert (
        lines[1].strip()
        == "flows[1].flow_parameter.factory: unknown factory 'test.recrod.v1' (did you mean 'test.record.v1'?)"
    )
    assert lines[2].strip().startswith("flows[6].flow_parameter.end_key: unknown node 'ENDD'")
    assert isinstance(info.value, ValueError)


@pytest.mark.parametrize(
    ("mutate", "expected"),
    [
        (
            lambda d: d["flow_parameter"]["state"][0].update(type="lst"),
            "flow_parameter.state[0].type: unknown type 'lst' (did you mean 'list'?)",
        ),
        (
            lambda d: d["flow_parameter"]["state"][0].update(reducer="append_lists.v1"),
            "flow_parameter.state[0].reducer: unknown reducer 'append_lists.v1' (did you mean 'append_list.v1'?)",
        ),
        (
            lambda d: d["flows"][4]["flow_parameter"]["conditions"].pop(),
            "flows[4].flow_parameter.conditions: no default: add a last condition like {default: END} (the target when no condition holds)"
            + COMPAT_HINT,
        ),
        (
            lambda d: d["flows"][5]["flow_parameter"].update(start_key=["summarize", "answer"], end_key=["END"]),
            "flows[5].flow_parameter: start_key and end_key are both lists; make one side a single node (split it into several edges)",
        ),
        (lambda d: d["flows"][0].update(kind="nod"), "flows[0].kind: unknown kind 'nod' (did you mean 'node'?)"),
        (
            lambda d: d["flows"][4]["flow_parameter"]["conditions"][0]["expression"].update({"equal": 1}),
            "flows[4].flow_parameter.conditions[0].expression: an expression is a mapping with exactly one operator, e.g. {eq: [a, b]}; got 2 keys (combine several with 'and' or 'or')"
            + COMPAT_HINT,
        ),
        (
            lambda d: d["flows"][4]["flow_parameter"]["conditions"][0].update(expression={"equal": [1, 1]}),
            "flows[4].flow_parameter.conditions[0].expression.equal: unknown operator 'equal' (did you mean 'equals'?)",
        ),
        (
            lambda d: d["flows"][4]["flow_parameter"]["conditions"][0].update(expression={"gt": [1]}),
            "flows[4].flow_parameter.conditions[0].expression.gt: 'gt' takes a list of exactly two operands, e.g. gt: [{type: state_value, name: x}, 1]",
        ),
        (
            lambda d: d["flows"][4]["flow_parameter"]["conditions"][0]["expression"]["eq"][0].update(name="rout"),
            "flows[4].flow_parameter.conditions[0].expression.eq[0].name: unknown state field 'rout' (did you mean 'route'?)"
            + COMPAT_HINT,
        ),
        (
            lambda d: d["flows"][4]["flow_parameter"]["conditions"][0]["expression"]["eq"][0].update(type="state"),
            "flows[4].flow_parameter.conditions[0].expression.eq[0].type: unknown operand type 'state' (did you mean 'state_value'?)",
        ),
        (
            lambda d: d["flows"][4]["flow_parameter"]["conditions"][0].update(result="sumarize"),
            "flows[4].flow_parameter.conditions[0].result: unknown node 'sumarize' (did you mean 'summarize'?)",
        ),
        (
            lambda d: d["flows"][4]["flow_parameter"].update(path_map=["summarize", "END"]),
            "flows[4].flow_parameter.conditions[1].result: 'answer' is not in this edge's path_map",
        ),
        (
            lambda d: d["flows"][1]["flow_parameter"].update(name="supervise"),
            "flows[1].flow_parameter.name: duplicate node name 'supervise' (also flows[0]); rename one",
        ),
        (
            lambda d: d["flows"][0]["flow_parameter"].update(name="a:b"),
            "flows[0].flow_parameter.name: invalid node name 'a:b': use a non-empty name without ':' or '|'",
        ),
        (
            lambda d: d["flows"][3]["flow_parameter"].update(end_key="START"),
            "flows[3].flow_parameter.end_key: START cannot be an edge's end",
        ),
        (
            lambda d: d.update(flows=d["flows"][:3] + d["flows"][4:]),
            "flows: graph 'Aya' has no entry: add an edge from START (or a configurable_conditional_entry_point)",
        ),
        (
            lambda d: d["flow_parameter"]["state"][1].update(field_name="__start__"),
            "flow_parameter.state[1].field_name: invalid state field name '__start__': use a non-empty name not starting with '__' (LangGraph reserves those)",
        ),
        (
            lambda d: d["flow_parameter"].update(nmae="x"),
            "flow_parameter.nmae: unknown key (did you mean 'name'?)" + COMPAT_HINT,
        ),
        (lambda d: d["flows"][2].pop("flow_parameter"), "flows[2].flow_parameter: missing required key"),
        (
            lambda d: d["flows"][2]["flow_parameter"].update(name=3),
            "flows[2].flow_parameter.name: expected a string, got int 3",
        ),
        (
            lambda d: d["flows"][2].update(factory_parameter=[1]),
            "flows[2].factory_parameter: expected a mapping, got a list",
        ),
        (
            lambda d: d["flows"][5]["flow_parameter"].update(end_key={"a": 1}),
            "flows[5].flow_parameter.end_key: expected a string or a list of strings, got a mapping",
        ),
    ],
)
def test_located_problems(registry, mutate, expected):
    data = base()
    mutate(data)
    assert expected in problems(data, registry)


def test_unreachable_node(registry):
    data = base()
    data["flows"].insert(3, {"kind": "node", "flow_parameter": {"name": "orphan", "factory": "test.record.v1"}})
    assert problems(data, registry) == [
        "flows[3]: node 'orphan' is unreachable from START (add an edge to it, or remove it)" + COMPAT_HINT
    ]


def test_join_reachability_needs_all_starts(registry):
    data = base()
    data["flows"].insert(3, {"kind": "node", "flow_parameter": {"name": "orphan", "factory": "test.record.v1"}})
    data["flows"].insert(3, {"kind": "node", "flow_parameter": {"name": "after", "factory": "test.record.v1"}})
    edge = {"start_key": ["summarize", "orphan"], "end_key": "after", "wait_for": "all"}
    data["flows"].append({"kind": "edge", "flow_parameter": edge})
    assert sorted(problems(data, registry)) == [
        "flows[3]: node 'after' is unreachable from START (add an edge to it, or remove it)" + COMPAT_HINT,
        "flows[4]: node 'orphan' is unreachable from START (add an edge to it, or remove it)" + COMPAT_HINT,
    ]


def test_dynamic_targets_without_path_map_count_as_reaching_everything(registry):
    data = base()
    data["flow_parameter"]["state"].append({"field_name": "visited", "type": "list", "reducer": "append_list.v1"})
    data["flows"].insert(3, {"kind": "node", "flow_parameter": {"name": "maybe", "factory": "test.record.v1"}})
    static = copy.deepcopy(data)
    data["flows"][5]["flow_parameter"]["conditions"][2] = {"default": {"type": "state_value", "name": "route"}}
    spec = load_spec(data, registry=registry)  # 'maybe' counts as reachable through the dynamic default
    app = build_graph(spec, registry).compile()
    assert app.invoke({"messages": ["hi"], "route": "maybe"})["visited"] == ["supervise", "maybe"]
    assert problems(static, registry) == [
        "flows[3]: node 'maybe' is unreachable from START (add an edge to it, or remove it)" + COMPAT_HINT
    ]


def test_subgraph_problems_are_located_inside(registry):
    data = base()
    sub = copy.deepcopy(base())
    sub["flow_parameter"]["name"] = "inner"
    sub["flows"][6]["flow_parameter"]["start_key"] = "answr"
    data["flows"].insert(0, sub)
    data["flows"].append({"kind": "edge", "flow_parameter": {"start_key": "START", "end_key": "inner"}})
    found = problems(data, registry)
    assert "flows[0].flows[6].flow_parameter.start_key: unknown node 'answr' (did you mean 'answer'?)" in found


def test_non_mapping_spec_and_wrong_top_kind(registry):
    assert problems([1, 2], registry) == ["<spec>: expected a mapping with a 'kind' key, got a list"]
    with pytest.raises(SpecError, match="the top level must be kind 'stategraph'"):
        load_spec({"kind": "node", "flow_parameter": {"name": "a", "factory": "x"}}, registry=registry)


def test_kenkenpa_graph_type_alias(registry):
    data = base()
    data["graph_type"] = data.pop("kind")
    for flow in data["flows"]:
        flow["graph_type"] = flow.pop("kind")
    assert load_spec(data, registry=registry).flows[0].kind == "node"


def test_yaml_is_loaded_safely(tmp_path, registry):
    path = tmp_path / "evil.yaml"
    path.write_text("kind: !!python/object/apply:os.system ['echo pwned']\n")
    with pytest.raises(SpecError, match="cannot parse evil.yaml"):
        load_spec(path, registry=registry)


def test_strings_are_never_evaluated(registry, monkeypatch):
    data = base()
    data["flow_parameter"]["state"].append({"field_name": "visited", "type": "list", "reducer": "append_list.v1"})
    conditions = data["flows"][4]["flow_parameter"]["conditions"]
    route = {"type": "state_value", "name": "route"}
    # evaluated, this string equals the route ("summarize") and would take the summarize branch
    conditions[0]["expression"] = {"eq": [route, "'summ' + 'arize'"]}
    # evaluated, this one would set an environment variable
    conditions[1]["expression"] = {"eq": [route, "__import__('os').environ.setdefault('AYA_LAB_EVALUATED', '1')"]}
    monkeypatch.delenv("AYA_LAB_EVALUATED", raising=False)
    app = build_graph(load_spec(data, registry=registry), registry).compile()
    assert app.invoke({"messages": ["hi"], "route": "summarize"})["visited"] == ["supervise"]  # default: END
    assert "AYA_LAB_EVALUATED" not in os.environ
    conditions[0]["expression"] = {"eq": [route, "summarize"]}  # the plain literal does take the branch
    app = build_graph(load_spec(data, registry=registry), registry).compile()
    assert app.invoke({"messages": ["hi"], "route": "summarize"})["visited"] == ["supervise", "summarize"]


def test_factory_failure_is_located(registry):
    data = base()
    data["flows"][0]["flow_parameter"]["factory"] = "test.tool_node.v1"  # needs factory_parameter.functions
    with pytest.raises(SpecError) as info:
        build_graph(load_spec(data, registry=registry), registry)
    assert str(info.value.problems[0]).startswith(
        "flows[0].factory_parameter: factory 'test.tool_node.v1' failed: KeyError"
    )


def test_unknown_names_are_fine_without_registry_check(registry):
    data = base()
    data["flows"][0]["flow_parameter"]["factory"] = "aya_supervisor.v1"
    spec = load_spec(data, registry=registry, check_registry=False)
    app = build_graph(spec, registry, placeholders=True).compile()
    assert "supervise" in app.get_graph().nodes


def test_yaml_round_trip_of_base(tmp_path, registry):
    path = tmp_path / "g.yaml"
    path.write_text(yaml.safe_dump(base()))
    assert load_spec(path, registry=registry).to_dict() == load_spec(base(), registry=registry).to_dict()
