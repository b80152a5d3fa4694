"""Node factories that declare their parameters as a pydantic model: the registry API, located problems
through load_spec, ``aya-lab graph validate`` and building, and the model instance the factory receives."""

from __future__ import annotations

import json
from typing import Any

import pytest
from parameter_helpers import RECEIVED, GreetParameters, greet, greet_registry, greet_spec, plain
from pydantic import BaseModel, ConfigDict

from aya_lab.graph import Registry, RegistryError, SpecError, build_graph, default_registry, load_spec
from aya_lab.graph import cli as graph_cli

BAD = {
    "wrong type": (
        {"times": "many"},
        "flows[0].factory_parameter.times: Input should be a valid integer, unable to parse string as an integer (got 'many')",
    ),
    "bad enum value": (
        {"style": "quiet"},
        "flows[0].factory_parameter.style: Input should be 'plain' or 'loud' (got 'quiet')",
    ),
    "unknown key": (
        {"tiems": 2},
        "flows[0].factory_parameter.tiems: unknown key 'tiems' (did you mean 'times'?); allowed keys: greeting, times, style",
    ),
}  # fmt: skip


@pytest.fixture(autouse=True)
def _clear_received():
    RECEIVED.clear()


def test_valid_parameters_reach_the_factory_as_the_model():
    reg = greet_registry()
    app = build_graph(load_spec(greet_spec({"greeting": "hi", "times": 2}, {"word": "w"}), reg), reg).compile()
    assert app.invoke({"log": []}) == {"log": ["hihi", "w"]}
    model, as_dict = RECEIVED
    assert model == GreetParameters(greeting="hi", times=2) and model.style == "plain"
    assert as_dict == {"word": "w"} and type(as_dict) is dict  # a factory without a model: the dict, as before


@pytest.mark.parametrize("case", sorted(BAD))
def test_a_bad_parameter_is_one_located_problem_when_loading(case):
    params, line = BAD[case]
    with pytest.raises(SpecError) as err:
        load_spec(greet_spec(params), greet_registry())
    assert [str(p) for p in err.value.problems] == [line]


@pytest.mark.parametrize("case", sorted(BAD))
def test_a_bad_parameter_is_one_located_problem_when_building(case):
    params, line = BAD[case]
    unchecked = load_spec(greet_spec(params), check_registry=False)  # building checks the parameters itself
    with pytest.raises(SpecError) as err:
        build_graph(unchecked, greet_registry())
    assert [str(p) for p in err.value.problems] == [line]
    assert RECEIVED == []  # the factory was never called


@pytest.mark.parametrize("case", sorted(BAD))
def test_validate_reports_a_bad_parameter_among_the_other_problems(case, capsys, tmp_path):
    params, line = BAD[case]
    data = greet_spec(params)
    data["flows"][4]["flow_parameter"]["end_key"] = "ENDD"
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    code = graph_cli.graph_main(["graph", "validate", str(path), "--registry", "parameter_helpers:greet_registry"])
    err = capsys.readouterr().err
    assert code == 2 and f"  {line}\n" in err and "flows[4].flow_parameter.end_key: unknown node 'ENDD'" in err
    assert "has 2 problems" in err


def test_nested_models_missing_fields_and_every_error_at_once():
    class Inner(BaseModel):
        model_config = ConfigDict(extra="forbid")
        k: int

    class Outer(BaseModel):
        model_config = ConfigDict(extra="forbid")
        inner: Inner
        items: list[Inner] = []

    reg = default_registry()
    reg.add_node_factory("outer.v1", lambda *, factory_parameter, flow_parameter: lambda s: {}, parameters=Outer)
    data = greet_spec({})
    data["flows"][0]["flow_parameter"]["factory"] = "outer.v1"
    data["flows"][0]["factory_parameter"] = {"inner": {"k": 1, "kk": 2}, "items": [{"k": "x"}], "extra": 0}
    data["flows"][1]["flow_parameter"]["factory"] = "const_update.v1"
    with pytest.raises(SpecError) as err:
        load_spec(data, reg)
    assert [str(p) for p in err.value.problems] == [
        "flows[0].factory_parameter.inner.kk: unknown key 'kk' (did you mean 'k'?); allowed keys: k",
        "flows[0].factory_parameter.items[0].k: Input should be a valid integer, unable to parse string as an integer (got 'x')",
        "flows[0].factory_parameter.extra: unknown key 'extra'; allowed keys: inner, items",
    ]  # fmt: skip
    data["flows"][0]["factory_parameter"] = {}
    with pytest.raises(SpecError, match=r"flows\[0\].factory_parameter.inner: required parameter 'inner' is missing"):
        load_spec(data, reg)


def test_registry_api():
    reg = greet_registry()
    assert reg.node_parameters("greet.v1") is GreetParameters and reg.node_parameters("plain.v1") is None
    with pytest.raises(KeyError, match="did you mean 'greet.v1'"):
        reg.node_parameters("gret.v1")
    reg.add_node_factory("greet.v1", greet, parameters=GreetParameters)  # the same again: a no-op
    with pytest.raises(RegistryError, match="already registered with parameters"):
        reg.add_node_factory("greet.v1", greet)
    with pytest.raises(RegistryError, match="pydantic BaseModel subclass"):
        reg.add_node_factory("bad.v1", greet, parameters=dict)  # type: ignore[arg-type]

    @reg.add_node_factory("deco.v1", parameters=GreetParameters)
    def deco(*, factory_parameter: GreetParameters, flow_parameter: dict[str, Any]) -> Any:
        return lambda state: {}

    assert reg.node_factories["deco.v1"] is deco and reg.node_parameters("deco.v1") is GreetParameters
    copied = reg.copy()
    assert copied.node_parameters("greet.v1") is GreetParameters and copied.parameter_models is not reg.parameter_models
    merged = reg.merge(Registry(node_factories={"greet.v1": plain}))  # the factory replaced, without a model
    assert merged.node_parameters("greet.v1") is None and reg.node_parameters("greet.v1") is GreetParameters
    reg.add_node_factory("greet.v1", plain, replace=True)
    assert reg.node_parameters("greet.v1") is None
