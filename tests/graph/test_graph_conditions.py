"""The condition language: operators and aliases, logic, operands, fan-out, Send, run-time errors."""

from __future__ import annotations

import pytest
from langgraph.graph import END
from langgraph.types import Send

from aya_lab.graph import ConditionError
from aya_lab.graph.condition_compile import compile_conditions
from aya_lab.graph.conditions import OPERATOR_ALIASES, literal_targets

FUNCS = {
    "double": lambda state, config, *, field: 2 * state[field],
    "sends": lambda state, config: [Send("work", {"item": i}) for i in state["items"]],
    "pick": lambda state, config: state["pick"],
}


def route(conditions, state, config=None, **kw):
    return compile_conditions(conditions, FUNCS, **kw)(state, config or {})


@pytest.mark.parametrize(
    ("op", "left", "right", "expected"),
    [
        ("eq", 1, 1, True), ("equals", 1, 2, False), ("==", "a", "a", True),
        ("neq", 1, 2, True), ("not_equals", 1, 1, False), ("!=", "a", "b", True),
        ("gt", 2, 1, True), ("greater_than", 1, 1, False), (">", 3, 2, True),
        ("gte", 1, 1, True), ("greater_than_or_equals", 0, 1, False), (">=", 2, 2, True),
        ("lt", 1, 2, True), ("less_than", 2, 2, False), ("<", 1, 3, True),
        ("lte", 2, 2, True), ("less_than_or_equals", 3, 2, False), ("<=", 1, 1, True),
    ],
)  # fmt: skip
def test_every_operator_and_alias(op, left, right, expected):
    conds = [{"expression": {op: [left, right]}, "result": "yes"}, {"default": "no"}]
    assert route(conds, {}) == (["yes"] if expected else ["no"])


def test_alias_table_is_complete():
    assert len(OPERATOR_ALIASES) == 18 and set(OPERATOR_ALIASES.values()) == {"eq", "neq", "gt", "gte", "lt", "lte"}


def test_nested_logic_and_operands():
    expr = {
        "and": [
            {
                "or": [
                    {"eq": [{"type": "state_value", "name": "x"}, 99]},
                    {"gt": [{"type": "function", "name": "double", "args": {"field": "x"}}, 5]},
                ]
            },
            {"not": {"eq": [{"type": "config_value", "name": "mode"}, "off"]}},
            {"and": [{"or": [{"and": [{"eq": ["10", "10"]}]}, {"eq": ["10", "10"]}]}, {"eq": ["10", "10"]}]},
        ]
    }
    conds = [{"expression": expr, "result": "a"}, {"default": "END"}]
    assert route(conds, {"x": 3}, {"configurable": {"mode": "on"}}) == ["a"]
    assert route(conds, {"x": 2}, {"configurable": {"mode": "on"}}) == [END]
    assert route(conds, {"x": 3}, {"configurable": {"mode": "off"}}) == [END]


def test_every_true_condition_is_followed_in_order_without_duplicates():
    conds = [
        {"expression": {"eq": [True, True]}, "result": "b"},
        {"expression": {"eq": [True, False]}, "result": "x"},
        {"expression": {"eq": [1, 1]}, "result": ["a", "b"]},
        {"default": "END"},
    ]
    assert route(conds, {}) == ["b", "a"]


def test_results_from_state_config_and_functions():
    assert route([{"default": {"type": "state_value", "name": "next"}}], {"next": "END"}) == [END]
    assert route([{"default": {"type": "config_value", "name": "n"}}], {}, {"configurable": {"n": ["a", "b"]}}) == [
        "a",
        "b",
    ]
    sends = route([{"default": {"type": "function", "name": "sends"}}], {"items": [1, 2]})
    assert sends == [Send("work", {"item": 1}), Send("work", {"item": 2})]


def test_path_map_dict_keys_are_not_converted():
    conds = [{"expression": {"eq": [1, 1]}, "result": "END"}, {"default": "x"}]
    assert route(conds, {}, path_map_is_dict=True) == ["END"]
    assert route(conds, {}) == [END]


def test_runtime_errors_are_condition_errors_with_location():
    conds = [{"expression": {"gt": [{"type": "state_value", "name": "n"}, 3]}, "result": "a"}, {"default": "END"}]
    with pytest.raises(ConditionError, match=r"conditions\[0\]\.expression: cannot evaluate 'gt' on None and 3"):
        route(conds, {})
    with pytest.raises(ConditionError, match="a target must be a node name or a Send"):
        route([{"default": {"type": "function", "name": "pick"}}], {"pick": 3})


def test_literal_targets():
    conds = [{"expression": {}, "result": ["a", "b"]}, {"expression": {}, "result": "a"}, {"default": "END"}]
    assert literal_targets(conds) == ["a", "b", "END"]


def test_path_map_dict_in_a_built_graph(registry):
    from graph_helpers import run

    from aya_lab.graph import build_graph, load_spec

    spec = {
        "kind": "stategraph",
        "flow_parameter": {"name": "G", "state": [{"field_name": "ok", "type": "bool"}, {"field_name": "visited", "type": "list", "reducer": "operator.add"}]},
        "flows": [
            {"kind": "node", "flow_parameter": {"name": "check", "factory": "test.record.v1"}},
            {"kind": "node", "flow_parameter": {"name": "fix", "factory": "test.record.v1"}},
            {"kind": "edge", "flow_parameter": {"start_key": "START", "end_key": "check"}},
            {"kind": "configurable_conditional_edge", "flow_parameter": {
                "start_key": "check", "path_map": {"broken": "fix", "fine": "END"},
                "conditions": [{"expression": {"eq": [{"type": "state_value", "name": "ok"}, False]}, "result": "broken"}, {"default": "fine"}]}},
            {"kind": "edge", "flow_parameter": {"start_key": "fix", "end_key": "END"}},
        ],
    }  # fmt: skip
    app = build_graph(load_spec(spec, registry=registry), registry).compile()
    assert run(app, {"ok": False, "visited": []})[0] == ["check", "fix"]
    assert run(app, {"ok": True, "visited": []})[0] == ["check"]
    spec["flows"][3]["flow_parameter"]["conditions"][1]["default"] = "fix"
    from aya_lab.graph import SpecError

    with pytest.raises(SpecError, match=r"conditions\[1\]\.default: 'fix' is not in this edge's path_map"):
        load_spec(spec, registry=registry)
