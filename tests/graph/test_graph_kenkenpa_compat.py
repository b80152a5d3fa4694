"""kenkenpa compatibility suite: each feature of kenkenpa's README, as a kenkenpa user writes it, run in
strict mode and in ``compat="kenkenpa"``, checked node by node through LangGraph's stream of updates
against what kenkenpa's documentation says the graph does."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from kenkenpa_helpers import (
    MODES,
    assert_steps,
    branch,
    compile_in,
    edge,
    entry,
    kenkenpa_registry,
    logged,
    node,
    state_is,
    stategraph,
    updates,
)
from langgraph.checkpoint.memory import MemorySaver
from langgraph.runtime import Runtime

from aya_lab.graph import build_graph, load_spec

pytestmark = pytest.mark.parametrize("mode", MODES)


def test_nodes_from_function_and_class_factories(mode):
    data = stategraph(
        "Nodes",
        [
            node("a", update={"note": "from a"}),
            node("b", "counter", step=5),
            edge("START", "a"),
            edge("a", "b"),
            edge("b", "END"),
        ],
        {"field_name": "note", "type": "str"},
        {"field_name": "count", "type": "int"},
    )
    got = updates(compile_in(mode, data), {"log": []})
    assert_steps(got, [[("a", {"log": ["a"], "note": "from a"})], [("b", {"log": ["b"], "count": 5})]])


def test_list_end_key_fans_out_and_list_start_key_fans_in(mode):
    data = stategraph(
        "Parallel",
        [node(n) for n in "abcd"]
        + [edge("START", "a"), edge("a", ["b", "c"]), edge(["b", "c"], "d"), edge("d", "END")],
    )
    assert_steps(updates(compile_in(mode, data), {"log": []}), [logged("a"), logged("b", "c"), logged("d")])


def test_list_start_key_is_one_edge_per_start(mode):
    """kenkenpa adds one edge per start: after branches of unequal length the end runs once per arrival;
    ``wait_for: all`` makes it LangGraph's join, which runs once after both."""
    flows = [node(n) for n in ("a", "b", "b2", "c", "d")]
    flows += [edge("START", "a"), edge("a", ["b", "c"]), edge("b", "b2"), edge("d", "END")]
    per_start = stategraph("Fan-In", [*flows, edge(["b2", "c"], "d")])
    steps = [logged("a"), logged("b", "c"), logged("b2", "d"), logged("d")]
    assert_steps(updates(compile_in(mode, per_start), {"log": []}), steps)
    join = stategraph("Join", [*flows, edge(["b2", "c"], "d", wait_for="all")])
    assert_steps(
        updates(compile_in(mode, join), {"log": []}), [logged("a"), logged("b", "c"), logged("b2"), logged("d")]
    )


def fan_out_then_list(entry_point: bool) -> dict:
    """The issue's pattern: a conditional step runs some of [b, c, d]; then an edge [b, c, d] -> e."""
    conditions = [
        {"expression": state_is("pick", "b"), "result": "b"},
        {"expression": state_is("pick", "bc"), "result": ["b", "c"]},
        {"default": "d"},
    ]
    flows = [node(n) for n in "abcde"] + [edge(["b", "c", "d"], "e"), edge("e", "END")]
    if entry_point:
        flows += [entry(conditions), edge("START", "a"), edge("a", "END")]
    else:
        flows += [edge("START", "a"), branch("a", conditions)]
    return stategraph("Fan-Out", flows, {"field_name": "pick", "type": "str"})


@pytest.mark.parametrize("entry_point", [False, True])
@pytest.mark.parametrize(("pick", "chosen"), [("b", ["b"]), ("bc", ["b", "c"]), ("zzz", ["d"])])
def test_the_end_of_a_list_start_key_runs_after_whichever_branch_ran(mode, entry_point, pick, chosen):
    got = updates(compile_in(mode, fan_out_then_list(entry_point)), {"log": [], "pick": pick})
    first = logged("a", *chosen) if entry_point else logged("a")
    rest = [logged("e")] if entry_point else [logged(*chosen), logged("e")]
    assert_steps(got, [first, *rest])


def test_conditional_edge_with_list_results_and_a_list_default(mode):
    data = stategraph(
        "Routing",
        [node(n) for n in ("router", "a", "b", "c", "d")]
        + [
            edge("START", "router"),
            branch(
                "router",
                [
                    {"expression": {"gt": [{"type": "state_value", "name": "score"}, 5]}, "result": ["a", "b"]},
                    {"expression": {"gte": [{"type": "state_value", "name": "score"}, 3]}, "result": "b"},
                    {"default": ["c", "d"]},
                ],
            ),
            edge(["a", "b", "c", "d"], "END"),
        ],
        {"field_name": "score", "type": "int"},
    )
    app = compile_in(mode, data)
    assert_steps(updates(app, {"log": [], "score": 7}), [logged("router"), logged("a", "b")])  # both true: a, b once
    assert_steps(updates(app, {"log": [], "score": 4}), [logged("router"), logged("b")])
    assert_steps(updates(app, {"log": [], "score": 0}), [logged("router"), logged("c", "d")])


def test_conditional_entry_point_with_logic_and_config_values(mode):
    tool_ok = {"eq": [{"type": "config_value", "name": "tool_permission"}, True]}
    data = stategraph(
        "Entry",
        [node(n) for n in ("tools", "chat", "audit")]
        + [
            entry(
                [
                    {"expression": {"and": [tool_ok, {"not": state_is("mode", "chat")}]}, "result": ["tools", "audit"]},
                    {"expression": {"or": [state_is("mode", "chat"), {"eq": ["10", "10"]}]}, "result": "chat"},
                    {"default": "END"},
                ]
            ),
            edge(["tools", "chat", "audit"], "END"),
        ],
        {"field_name": "mode", "type": "str"},
    )
    app = compile_in(mode, data)
    allowed = {"configurable": {"tool_permission": True}}
    assert_steps(updates(app, {"log": [], "mode": "x"}, allowed), [logged("tools", "audit", "chat")])
    assert_steps(updates(app, {"log": [], "mode": "chat"}, allowed), [logged("chat")])


def test_result_from_state_config_and_function_values(mode):
    data = stategraph(
        "Targets",
        [node(n) for n in ("start", "a", "b")]
        + [
            edge("START", "start"),
            branch(
                "start",
                [
                    {"expression": state_is("via", "state"), "result": {"type": "state_value", "name": "target"}},
                    {"expression": state_is("via", "config"), "result": {"type": "config_value", "name": "target"}},
                    {"default": "END"},
                ],
            ),
            edge(["a", "b"], "END"),
        ],
        {"field_name": "via", "type": "str"},
        {"field_name": "target", "type": "str"},
    )
    app = compile_in(mode, data)
    assert_steps(updates(app, {"log": [], "via": "state", "target": "a"}), [logged("start"), logged("a")])
    got = updates(app, {"log": [], "via": "config"}, {"configurable": {"target": "b"}})
    assert_steps(got, [logged("start"), logged("b")])


def test_functions_as_operands_with_args(mode):
    data = stategraph(
        "Loop",
        [
            node("count", "counter", step=2),
            edge("START", "count"),
            branch(
                "count",
                [
                    {
                        "expression": {"eq": [{"type": "function", "name": "count_over", "args": {"limit": 3}}, True]},
                        "result": "END",
                    },
                    {"default": "count"},
                ],
            ),
        ],
        {"field_name": "count", "type": "int"},
    )
    got = updates(compile_in(mode, data), {"log": [], "count": 0})
    assert got == [("count", {"log": ["count"], "count": 2}), ("count", {"log": ["count"], "count": 4})]


def test_send_map_reduce(mode):
    data = stategraph(
        "Map-Reduce",
        [
            node("generate_topics", "generate_topics"),
            node("generate_joke", "generate_joke"),
            node("best_joke"),
            edge("START", "generate_topics"),
            branch(
                "generate_topics",
                [{"default": {"type": "function", "name": "continue_to_jokes"}}],
                path_map=["generate_joke"],
            ),
            edge("generate_joke", "best_joke"),
            edge("best_joke", "END"),
        ],
        {"field_name": "topic", "type": "str"},
        {"field_name": "subjects", "type": "list"},
        {"field_name": "jokes", "type": "list", "reducer": "operator_add"},
    )
    got = updates(compile_in(mode, data), {"log": [], "topic": "pets"})
    assert_steps(
        got,
        [
            [("generate_topics", {"subjects": ["pets-cat", "pets-dog"]})],
            [
                ("generate_joke", {"jokes": ["joke about pets-cat"]}),
                ("generate_joke", {"jokes": ["joke about pets-dog"]}),
            ],
            logged("best_joke"),
        ],
    )


def test_subgraph_runs_as_one_node_with_its_own_flows(mode):
    inner = stategraph("Inner", [node("x"), node("y"), edge("START", "x"), edge("x", "y"), edge("y", "END")])
    data = stategraph(
        "Parent", [inner, node("after"), edge("START", "Inner"), edge("Inner", "after"), edge("after", "END")]
    )
    app = compile_in(mode, data)
    assert_steps(updates(app, {"log": []}), [[("Inner", {"log": ["x", "y"]})], logged("after")])
    assert {"Inner:x", "Inner:y"} <= set(app.get_graph(xray=1).nodes)


def test_custom_types_and_reducers(mode):
    data = stategraph(
        "Custom",
        [
            node("open", update={"ticket": {"title": "t", "priority": 2}, "tags": ["new"]}),
            node("clear", update={"tags": []}),
            edge("START", "open"),
            edge("open", "clear"),
            edge("clear", "END"),
        ],
        {"field_name": "ticket", "type": "ticket_type"},
        {"field_name": "tags", "type": "list", "reducer": "reducer_a_key"},
    )
    app = compile_in(mode, data)
    values = list(app.stream({"log": [], "tags": ["old"]}, stream_mode="values"))
    assert [v["tags"] for v in values] == [["old"], ["old", "new"], []]  # an empty update clears, as documented
    assert values[-1]["ticket"] == {"title": "t", "priority": 2}


def test_nodes_read_config_values(mode):
    data = stategraph(
        "Config", [node("tool", "from_config", key="user_id"), edge("START", "tool"), edge("tool", "END")]
    )
    got = updates(compile_in(mode, data), {"log": []}, {"configurable": {"user_id": "123"}})
    assert got == [("tool", {"log": ["tool:123"]})]


def test_checkpointer_keeps_state_per_thread(mode):
    data = stategraph("Chat", [node("bot"), edge("START", "bot"), edge("bot", "END")])
    app = compile_in(mode, data, checkpointer=MemorySaver())
    thread = {"configurable": {"thread_id": 42}}
    assert updates(app, {"log": ["hi"]}, thread) == [("bot", {"log": ["bot"]})]
    app.invoke({"log": ["again"]}, thread)
    assert app.get_state(thread).values["log"] == ["hi", "bot", "again", "bot"]
    assert app.get_state({"configurable": {"thread_id": 7}}).values == {}


def test_context_schema_is_passed_to_langgraph(mode):
    @dataclass
    class Ctx:
        user: str

    def gen_greeter(factory_parameter, flow_parameter):
        def greet(state, runtime: Runtime[Ctx]):
            return {"log": [f"hello {runtime.context.user}"]}

        return greet

    reg = kenkenpa_registry()
    reg.add_node_factory("greeter", gen_greeter)
    data = stategraph("Ctx", [node("greet", "greeter"), edge("START", "greet"), edge("greet", "END")])
    graph = build_graph(load_spec(data, reg, compat=mode), reg, context_schema=Ctx)
    assert graph.context_schema is Ctx
    got = list(graph.compile().stream({"log": []}, context=Ctx("amara"), stream_mode="updates"))
    assert got == [{"greet": {"log": ["hello amara"]}}]
