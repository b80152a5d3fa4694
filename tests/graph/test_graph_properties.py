"""Property-based: random valid specs build and compile; random mutations of valid specs either build
or fail with a located SpecError — never another exception type."""

from __future__ import annotations

import copy
from typing import Any

from graph_helpers import make_registry
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from aya_lab.graph import SpecError, build_graph, load_spec, spec_hash

REGISTRY = make_registry()
POOL = ["alpha", "beta", "gamma", "delta", "eps", "zeta", "eta"]
FIELD_TYPES = ["int", "float", "str", "list", "dict", "bool", "any", "set", "tuple"]
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def operands(fields: list[str]) -> st.SearchStrategy[Any]:
    return st.one_of(
        st.integers(-5, 5),
        st.sampled_from(["x", "y", "alpha"]),
        st.booleans(),
        st.none(),
        st.sampled_from(fields).map(lambda f: {"type": "state_value", "name": f}),
        st.sampled_from(["mode", "n"]).map(lambda n: {"type": "config_value", "name": n}),
        st.just({"type": "function", "name": "len.v1", "args": {"field": "visited"}}),
    )


def expressions(fields: list[str]) -> st.SearchStrategy[dict[str, Any]]:
    ops = ["eq", "equals", "==", "neq", "!=", "not_equals", "gt", ">", "gte", "lt", "lte", "<="]
    leaf = st.builds(lambda op, a, b: {op: [a, b]}, st.sampled_from(ops), operands(fields), operands(fields))
    return st.recursive(
        leaf,
        lambda inner: st.one_of(
            st.lists(inner, min_size=1, max_size=3).map(lambda xs: {"and": xs}),
            st.lists(inner, min_size=1, max_size=3).map(lambda xs: {"or": xs}),
            inner.map(lambda x: {"not": x}),
        ),
        max_leaves=6,
    )


@st.composite
def graphs(draw: st.DrawFn, name: str = "G", depth: int = 0) -> dict[str, Any]:
    n = draw(st.integers(1, 5))
    names = draw(st.permutations(POOL))[:n]
    extra = draw(
        st.lists(
            st.tuples(st.sampled_from(["x", "y", "z"]), st.sampled_from(FIELD_TYPES)),
            max_size=3,
            unique_by=lambda t: t[0],
        )
    )
    state = [
        {"field_name": "visited", "type": "list", "reducer": draw(st.sampled_from(["operator.add", "append_list.v1"]))}
    ]
    state += [{"field_name": f, "type": t} for f, t in extra]
    fields = [s["field_name"] for s in state]
    flows: list[dict[str, Any]] = []
    for node in names:
        if depth == 0 and draw(st.integers(0, 9)) == 0:
            sub = draw(graphs(name=node, depth=1))
            flows.append(sub)
        else:
            factory = draw(st.sampled_from(["test.record.v1", "const_update.v1"]))
            flows.append(
                {"kind": "node", "flow_parameter": {"name": node, "factory": factory}, "factory_parameter": {}}
            )
    children: dict[str, list[str]] = {}
    for i, node in enumerate(names[1:], start=1):
        children.setdefault(names[draw(st.integers(0, i - 1))], []).append(node)
    if draw(st.booleans()):
        flows.append({"kind": "edge", "flow_parameter": {"start_key": "START", "end_key": names[0]}})
    else:
        flows.append(
            {"kind": "configurable_conditional_entry_point", "flow_parameter": {"conditions": [{"default": names[0]}]}}
        )
    for node in names:
        kids = children.get(node, [])
        if not kids:
            if draw(st.booleans()):
                flows.append({"kind": "edge", "flow_parameter": {"start_key": node, "end_key": "END"}})
            continue
        if draw(st.booleans()):
            end: Any = kids[0] if len(kids) == 1 else kids
            flows.append({"kind": "edge", "flow_parameter": {"start_key": node, "end_key": end}})
        else:
            conds = [{"expression": draw(expressions(fields)), "result": kid} for kid in kids[:-1]]
            conds.append({"default": kids[-1] if draw(st.booleans()) else [kids[-1], "END"]})
            flows.append(
                {"kind": "configurable_conditional_edge", "flow_parameter": {"start_key": node, "conditions": conds}}
            )
    draw(st.randoms()).shuffle(flows)
    return {"kind": "stategraph", "flow_parameter": {"name": name, "state": state}, "flows": flows}


@given(graphs())
@SETTINGS
def test_random_valid_specs_build_and_compile(data):
    check_valid(data)


def check_valid(data: dict[str, Any]) -> None:
    spec = load_spec(data, registry=REGISTRY)
    app = build_graph(spec, REGISTRY).compile()
    assert app.get_graph().nodes
    assert load_spec(spec.to_dict(), registry=REGISTRY) == spec
    assert spec_hash(spec) == spec_hash(copy.deepcopy(data))


def paths(tree: Any, prefix: tuple = ()) -> list[tuple]:
    out = [prefix]
    if isinstance(tree, dict):
        for k, v in tree.items():
            out += paths(v, (*prefix, k))
    elif isinstance(tree, list):
        for i, v in enumerate(tree):
            out += paths(v, (*prefix, i))
    return out


JUNK = [
    None,
    0,
    -1,
    1.5,
    True,
    "",
    "zzz",
    "sumarize",
    "START",
    "END",
    "__end__",
    "a:b",
    [],
    {},
    [1],
    {"x": 1},
    ["alpha", "beta"],
    {"type": "function", "name": "nope"},
]


@st.composite
def mutated(draw: st.DrawFn) -> dict[str, Any]:
    data = copy.deepcopy(draw(graphs()))
    for _ in range(draw(st.integers(1, 3))):
        candidates = paths(data)
        path = draw(st.sampled_from(candidates))
        if not path:
            continue
        parent = data
        for part in path[:-1]:
            parent = parent[part]
        key = path[-1]
        action = draw(st.sampled_from(["delete", "replace", "typo", "insert", "duplicate"]))
        if action == "delete":
            del parent[key]
        elif action == "replace":
            parent[key] = copy.deepcopy(draw(st.sampled_from(JUNK)))
        elif action == "typo" and isinstance(parent, dict):
            parent[str(key) + draw(st.sampled_from(["_", "s", "x"]))] = parent.pop(key)
        elif action == "insert" and isinstance(parent, dict):
            parent[draw(st.sampled_from(["extra", "kind", "default", "result", "name"]))] = copy.deepcopy(
                draw(st.sampled_from(JUNK))
            )
        elif action == "duplicate" and isinstance(parent, list):
            parent.append(copy.deepcopy(parent[key]))
    return data


@given(mutated())
@SETTINGS
def test_mutations_build_or_fail_with_a_located_error(data):
    check_mutation(data)


def check_mutation(data: dict[str, Any]) -> None:
    try:
        spec = load_spec(data, registry=REGISTRY)
        build_graph(spec, REGISTRY).compile()
    except SpecError as exc:
        assert exc.problems
        for problem in exc.problems:
            assert problem.path and problem.message, problem
        lines = str(exc).splitlines()
        one = len(exc.problems) == 1  # one problem is one line; more are a summary line and one line each
        assert lines[0].startswith("graph spec") and len(lines) == (1 if one else len(exc.problems) + 1)
