"""A made-up node factory that declares its parameters as a pydantic model, for the parameter-model and
``show`` tests (``--registry parameter_helpers:greet_registry``)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from aya_lab.graph import Registry, default_registry


class GreetParameters(BaseModel):
    model_config = ConfigDict(extra="forbid")

    greeting: str = "hello"
    times: int = 1
    style: Literal["plain", "loud"] = "plain"


RECEIVED: list[Any] = []


def greet(*, factory_parameter: GreetParameters, flow_parameter: dict[str, Any]) -> Any:
    RECEIVED.append(factory_parameter)
    text = factory_parameter.greeting * factory_parameter.times
    text = text.upper() if factory_parameter.style == "loud" else text

    def node(state: dict[str, Any]) -> dict[str, Any]:
        return {"log": [text]}

    return node


def plain(*, factory_parameter: dict[str, Any], flow_parameter: dict[str, Any]) -> Any:
    RECEIVED.append(factory_parameter)
    return lambda state: {"log": [factory_parameter.get("word", "plain")]}


def greet_registry() -> Registry:
    reg = default_registry()
    reg.add_node_factory("greet.v1", greet, parameters=GreetParameters)
    reg.add_node_factory("plain.v1", plain)
    return reg


def greet_spec(greet_params: Any, plain_params: Any = None) -> dict[str, Any]:
    return {
        "kind": "stategraph",
        "flow_parameter": {"name": "G", "state": [{"field_name": "log", "type": "list", "reducer": "append_list.v1"}]},
        "flows": [
            {"kind": "node", "flow_parameter": {"name": "a", "factory": "greet.v1"}, "factory_parameter": greet_params},
            {"kind": "node", "flow_parameter": {"name": "b", "factory": "plain.v1"}, "factory_parameter": plain_params or {}},
            {"kind": "edge", "flow_parameter": {"start_key": "START", "end_key": "a"}},
            {"kind": "edge", "flow_parameter": {"start_key": "a", "end_key": "b"}},
            {"kind": "edge", "flow_parameter": {"start_key": "b", "end_key": "END"}},
        ],
    }  # fmt: skip
