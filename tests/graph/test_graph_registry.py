"""Registries: constructor maps, add_* methods (and decorators), clashes, signatures, copy/merge, providers."""

from __future__ import annotations

import operator
import sys
import types
from typing import TypedDict

import pytest

from aya_lab.graph import Registry, RegistryError, build_graph, default_registry, load_spec
from aya_lab.graph.registry import ReducerError, append_list, load_registry_ref, merge_dict, registry_from_refs


class Point(TypedDict):
    x: int


def node_factory(*, factory_parameter, flow_parameter):
    return lambda state: {"p": {"x": factory_parameter.get("x", 1)}, "log": [flow_parameter["name"]]}


SPEC = {
    "kind": "stategraph",
    "flow_parameter": {
        "name": "G",
        "state": [
            {"field_name": "p", "type": "point.v1"},
            {"field_name": "log", "type": "list", "reducer": "concat.v1"},
        ],
    },
    "flows": [
        {"kind": "node", "flow_parameter": {"name": "a", "factory": "point_node.v1"}, "factory_parameter": {"x": 7}},
        {"kind": "edge", "flow_parameter": {"start_key": "START", "end_key": "a"}},
        {"kind": "edge", "flow_parameter": {"start_key": "a", "end_key": "END"}},
    ],
}


def test_constructor_maps():
    reg = Registry(
        types={"point.v1": Point}, reducers={"concat.v1": operator.add}, node_factories={"point_node.v1": node_factory}
    )
    app = build_graph(load_spec(SPEC, registry=reg), reg).compile()
    assert app.invoke({"log": ["start"]}) == {"p": {"x": 7}, "log": ["start", "a"]}
    assert set(Registry().names("types")) >= {
        "int",
        "float",
        "complex",
        "str",
        "list",
        "tuple",
        "dict",
        "set",
        "frozenset",
        "bool",
    }


def test_add_methods_and_decorators():
    reg = Registry()
    reg.add_type("point.v1", Point)
    reg.add_reducer("concat.v1", operator.add)

    @reg.add_node_factory("point_node.v1")
    def factory(*, factory_parameter, flow_parameter):
        return node_factory(factory_parameter=factory_parameter, flow_parameter=flow_parameter)

    @reg.add_evaluation_function("always.v1")
    def always(state, config, **kwargs):
        return True

    assert reg.node_factories["point_node.v1"] is factory and reg.evaluation_functions["always.v1"] is always
    build_graph(SPEC, reg).compile()


def test_state_typeddict_has_annotated_reducers():
    reg = Registry(
        types={"point.v1": Point}, reducers={"concat.v1": operator.add}, node_factories={"point_node.v1": node_factory}
    )
    graph = build_graph(SPEC, reg)
    hints = graph.state_schema.__annotations__
    assert hints["p"] is Point
    assert hints["log"].__metadata__ == (operator.add,)


def test_clash_needs_replace_and_same_object_is_fine():
    reg = Registry(reducers={"r.v1": operator.add})
    reg.add_reducer("r.v1", operator.add)
    with pytest.raises(RegistryError, match="already registered.*new version"):
        reg.add_reducer("r.v1", append_list)
    reg.add_reducer("r.v1", append_list, replace=True)
    assert reg.reducers["r.v1"] is append_list


def test_signatures_are_checked_at_registration():
    reg = Registry()
    with pytest.raises(RegistryError, match="node factory 'bad.v1'"):
        reg.add_node_factory("bad.v1", lambda params: None)
    with pytest.raises(RegistryError, match="evaluation function"):
        reg.add_evaluation_function("bad.v1", lambda state: True)
    with pytest.raises(RegistryError, match="must be callable"):
        reg.add_reducer("bad.v1", 3)

    class Node:
        def __init__(self, *, factory_parameter, flow_parameter):
            pass

        def __call__(self, state):
            return {}

    reg.add_node_factory("class.v1", Node)


def test_copy_merge_update_are_independent():
    base = default_registry()
    extra = Registry(node_factories={"point_node.v1": node_factory})
    merged = base.merge(extra)
    assert "point_node.v1" in merged.node_factories and "point_node.v1" not in base.node_factories
    copy = merged.copy()
    copy.add_type("point.v1", Point)
    assert "point.v1" not in merged.types
    assert base.copy().update(extra).has("node_factories", "point_node.v1")
    assert set(default_registry().describe()["reducers"]) == {
        "operator.add",
        "append_list.v1",
        "merge_dict.v1",
        "add_messages",
    }


def test_builtin_reducers():
    assert append_list([1], [2, 3]) == [1, 2, 3]
    assert append_list(None, "x") == []  # a string update passes through
    with pytest.raises(ReducerError):
        append_list([1], None)
    assert merge_dict({"a": 1}, {"b": 2}) == {"a": 1, "b": 2}
    with pytest.raises(ReducerError):
        merge_dict({"a": 1}, None)


def test_registry_refs(monkeypatch):
    module = types.ModuleType("fake_room_registry")
    module.graph_registry = lambda: Registry(node_factories={"room.v1": node_factory})
    module.REG = Registry(node_factories={"room2.v1": node_factory})
    monkeypatch.setitem(sys.modules, "fake_room_registry", module)
    assert load_registry_ref("fake_room_registry:graph_registry").has("node_factories", "room.v1")
    reg = registry_from_refs(["fake_room_registry:REG"])
    assert reg.has("node_factories", "room2.v1") and reg.has("reducers", "operator.add")
    with pytest.raises(RegistryError, match="not a Registry"):
        module.BAD = 3
        load_registry_ref("fake_room_registry:BAD")
    with pytest.raises(RegistryError, match="has no 'REGG'.*did you mean 'REG'"):
        load_registry_ref("fake_room_registry:REGG")
    with pytest.raises(RegistryError, match="is not MODULE:ATTR"):
        load_registry_ref("fake_room_registry")
    with pytest.raises(RegistryError, match="cannot import 'no_such_module_xyz'"):
        load_registry_ref("no_such_module_xyz:REG")


def test_factories_receive_keyword_parameters():
    seen = {}

    def factory(*, factory_parameter, flow_parameter):
        seen.update(factory_parameter=factory_parameter, flow_parameter=flow_parameter)
        return lambda state: {}

    reg = default_registry()
    reg.add_node_factory("spy.v1", factory)
    spec = {"kind": "stategraph", "flow_parameter": {"name": "G", "state": [{"field_name": "x", "type": "int"}]},
            "flows": [{"kind": "node", "flow_parameter": {"name": "n", "factory": "spy.v1"}, "factory_parameter": {"k": [1, 2]}},
                      {"kind": "edge", "flow_parameter": {"start_key": "START", "end_key": "n"}}]}  # fmt: skip
    build_graph(spec, reg)
    assert seen == {"factory_parameter": {"k": [1, 2]}, "flow_parameter": {"name": "n", "factory": "spy.v1"}}
