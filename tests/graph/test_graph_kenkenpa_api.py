"""kenkenpa's Python API (``StateGraphBuilder``) over the loader, and the two spec forms kenkenpa runs
that strict mode refuses: two operators in one expression, and a node unreachable from START.
(kenkenpa's own tests, ported with only the import changed, are in ``kenkenpa_port/``.)"""

from __future__ import annotations

import pytest
from kenkenpa_helpers import edge, gen_tracer, logged, node, stategraph, updates

from aya_lab.graph import SpecError, SpecWarning, load_spec
from aya_lab.graph.errors import COMPAT_HINT
from aya_lab.graph.kenkenpa import StateGraphBuilder


def two_operators() -> dict:
    """START -> a, then b when ``pick == 'b'``: the expression has a second operator, ``neq``."""
    expression = {"eq": [{"type": "state_value", "name": "pick"}, "b"], "neq": [1, 1]}
    return stategraph(
        "Two",
        [
            node("a"),
            node("b"),
            edge("START", "a"),
            {
                "graph_type": "configurable_conditional_edge",
                "flow_parameter": {
                    "start_key": "a",
                    "conditions": [{"expression": expression, "result": "b"}, {"default": "END"}],
                },
            },
            edge("b", "END"),
        ],
        {"field_name": "pick", "type": "str"},
    )


def unreachable() -> dict:
    return stategraph(
        "Orphan", [node("a"), node("orphan"), edge("START", "a"), edge("a", "END"), edge("orphan", "END")]
    )


def builder(data: dict, **kw) -> StateGraphBuilder:
    b = StateGraphBuilder(data, **kw)
    b.add_node_factory("tracer", gen_tracer)
    b.add_reducer("operator_add", list.__add__)
    return b


def test_two_operators_are_refused_strictly_and_read_by_the_first_in_compat():
    where = "flows[3].flow_parameter.conditions[0].expression"
    with pytest.raises(SpecError) as info:
        load_spec(two_operators(), builder(two_operators()).registry)
    assert [str(p) for p in info.value.problems] == [
        f"{where}: an expression is a mapping with exactly one operator, e.g. {{eq: [a, b]}}; got 2 keys "
        "(combine several with 'and' or 'or')" + COMPAT_HINT
    ]
    b = builder(two_operators())
    with pytest.warns(SpecWarning, match="only the first, 'eq', is evaluated"):
        app = b.gen_stategraph().compile()
    # kenkenpa evaluates the first operator and returns: neq [1, 1] (false) is never read
    assert updates(app, {"log": [], "pick": "b"}) == [*logged("a"), *logged("b")]
    assert updates(app, {"log": [], "pick": "x"}) == logged("a")


def test_an_unreachable_node_is_refused_strictly_and_built_in_compat():
    with pytest.raises(
        SpecError, match=r"flows\[1\]: node 'orphan' is unreachable from START \(add an edge to it, or remove it\)"
    ):
        builder(unreachable(), compat="strict").gen_stategraph()
    with pytest.warns(SpecWarning, match=r"flows\[1\]: node 'orphan' is unreachable from START: built, never runs"):
        graph = builder(unreachable()).gen_stategraph()
    assert "orphan" in graph.nodes
    assert updates(graph.compile(), {"log": []}) == logged("a")


def test_the_builder_keeps_located_errors():
    data = stategraph("G", [node("a", factory="tracr"), edge("START", "a"), edge("a", "END")])
    with pytest.raises(
        SpecError, match=r"flows\[0\]\.flow_parameter\.factory: unknown factory 'tracr' \(did you mean 'tracer'\?\)"
    ):
        builder(data).gen_stategraph()
    with pytest.raises(SpecError, match=r"flows\[1\]\.flow_parameter\.end_key: unknown node 'b'"):
        StateGraphBuilder(stategraph("G", [node("a"), edge("START", "b")]))  # structure: at construction


def test_constructor_keywords_and_registered_names():
    b = StateGraphBuilder(
        graph_settings=stategraph("G", [node("a"), edge("START", "a"), edge("a", "END")]),
        node_factorys={"tracer": gen_tracer},
        reducers={"operator_add": list.__add__},
        types={"ticket": dict},
        evaluete_functions={"yes": lambda state, config, **kw: True},
    )
    assert b.statebuilder.type_list == {"ticket": dict} and set(b.evaluete_functions) == {"yes"}
    graph = b.gen_stategraph()
    assert b.stategraph is graph and not graph.compiled
    assert updates(graph.compile(), {"log": []}) == logged("a")
