"""Helpers for the kenkenpa compatibility suite: specs written the way kenkenpa's README writes them
(``graph_type``, plain registry names, factories taking ``factory_parameter, flow_parameter``), a
registry holding the README's kinds of factories, functions, types and reducers, and a runner that
returns LangGraph's stream of updates grouped by step."""

from __future__ import annotations

import operator
import warnings
from typing import Any, TypedDict

from langchain_core.runnables import RunnableConfig
from langgraph.types import Send

from aya_lab.graph import Registry, SpecWarning, build_graph, default_registry, load_spec

MODES = [None, "kenkenpa"]  # strict (the default), and kenkenpa's compatibility mode


class Ticket(TypedDict):
    """A custom state type, registered as ``ticket_type`` like kenkenpa's ``SomeType_Key``."""

    title: str
    priority: int


def keep_unless_empty(left: list | None, right: list) -> list:
    """A custom reducer in the style of kenkenpa's README: an empty update clears the list."""
    if not right:
        return []
    return (left or []) + right


def gen_tracer(factory_parameter: dict[str, Any], flow_parameter: dict[str, Any]) -> Any:
    """A function factory: the node logs its name and adds ``factory_parameter['update']``. (LangGraph 1.x
    passes ``config`` to a node only when the parameter is typed ``RunnableConfig``.)"""
    name, extra = flow_parameter["name"], dict(factory_parameter.get("update") or {})

    def node(state: dict[str, Any], config: RunnableConfig) -> dict[str, Any]:
        return {"log": [name], **extra}

    return node


class Counter:
    """A class factory (kenkenpa accepts one): instantiated once, then called as the node."""

    def __init__(self, factory_parameter: dict[str, Any], flow_parameter: dict[str, Any]) -> None:
        self.name = flow_parameter["name"]
        self.step = factory_parameter.get("step", 1)

    def __call__(self, state: dict[str, Any], config: RunnableConfig) -> dict[str, Any]:
        return {"log": [self.name], "count": (state.get("count") or 0) + self.step}


def gen_from_config(factory_parameter: dict[str, Any], flow_parameter: dict[str, Any]) -> Any:
    """A node reading a config value, as kenkenpa's 'pass config to tools' example does."""
    key = factory_parameter["key"]

    def node(state: dict[str, Any], config: RunnableConfig) -> dict[str, Any]:
        return {"log": [f"{flow_parameter['name']}:{config['configurable'].get(key)}"]}

    return node


def gen_topics(factory_parameter: dict[str, Any], flow_parameter: dict[str, Any]) -> Any:
    return lambda state: {"subjects": [f"{state['topic']}-{s}" for s in ("cat", "dog")]}


def gen_joke(factory_parameter: dict[str, Any], flow_parameter: dict[str, Any]) -> Any:
    return lambda state: {"jokes": [f"joke about {state['subject']}"]}


def count_over(state: dict[str, Any], config: Any, **kwargs: Any) -> bool:
    """An evaluation function with arguments (``args: {limit: ...}``)."""
    return (state.get("count") or 0) > kwargs.get("limit", 0)


def continue_to_jokes(state: dict[str, Any], config: Any, **kwargs: Any) -> list[Send]:
    return [Send("generate_joke", {"subject": s}) for s in state["subjects"]]


def kenkenpa_registry() -> Registry:
    reg = default_registry()
    reg.add_type("ticket_type", Ticket)
    reg.add_reducer("operator_add", operator.add)
    reg.add_reducer("reducer_a_key", keep_unless_empty)
    reg.add_node_factory("tracer", gen_tracer)
    reg.add_node_factory("counter", Counter)
    reg.add_node_factory("from_config", gen_from_config)
    reg.add_node_factory("generate_topics", gen_topics)
    reg.add_node_factory("generate_joke", gen_joke)
    reg.add_evaluation_function("count_over", count_over)
    reg.add_evaluation_function("continue_to_jokes", continue_to_jokes)
    return reg


# -- specs, spelled as kenkenpa's README spells them ----------------------------------------------------
def node(name: str, factory: str = "tracer", **factory_parameter: Any) -> dict[str, Any]:
    return {
        "graph_type": "node",
        "flow_parameter": {"name": name, "factory": factory},
        "factory_parameter": factory_parameter,
    }


def edge(start: str | list[str], end: str | list[str], **extra: Any) -> dict[str, Any]:
    return {"graph_type": "edge", "flow_parameter": {"start_key": start, "end_key": end, **extra}}


def branch(start: str, conditions: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {
        "graph_type": "configurable_conditional_edge",
        "flow_parameter": {"start_key": start, "conditions": conditions, **extra},
    }


def entry(conditions: list[dict[str, Any]]) -> dict[str, Any]:
    return {"graph_type": "configurable_conditional_entry_point", "flow_parameter": {"conditions": conditions}}


def state_is(field: str, value: Any) -> dict[str, Any]:
    return {"eq": [{"type": "state_value", "name": field}, value]}


LOG = {"field_name": "log", "type": "list", "reducer": "operator_add"}


def stategraph(name: str, flows: list[dict[str, Any]], *state: dict[str, Any]) -> dict[str, Any]:
    return {
        "graph_type": "stategraph",
        "flow_parameter": {"name": name, "state": [LOG, *state]},
        "flows": flows,
    }


# -- running -------------------------------------------------------------------------------------------
def compile_in(mode: str | None, data: dict[str, Any], reg: Registry | None = None, **compile_kw: Any) -> Any:
    """Load ``data`` in ``mode`` (its warnings are checked elsewhere), build and compile it."""
    reg = reg or kenkenpa_registry()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SpecWarning)
        spec = load_spec(data, reg, compat=mode)
    return build_graph(spec, reg).compile(**compile_kw)


def updates(app: Any, inputs: dict[str, Any], config: dict[str, Any] | None = None) -> list[tuple[str, Any]]:
    """LangGraph's ``stream_mode="updates"``: one (node, update) pair per node run, in order."""
    return [(n, u) for chunk in app.stream(inputs, config=config, stream_mode="updates") for n, u in chunk.items()]


def by_step(got: list[tuple[str, Any]], steps: list[list[tuple[str, Any]]]) -> list[list[tuple[str, Any]]]:
    """``got`` cut into the sizes of the expected ``steps``, each step sorted (parallel nodes in any order)."""
    out, i = [], 0
    for step in steps:
        out.append(sorted(got[i : i + len(step)], key=repr))
        i += len(step)
    if i < len(got):
        out.append(sorted(got[i:], key=repr))
    return out


def assert_steps(got: list[tuple[str, Any]], steps: list[list[tuple[str, Any]]]) -> None:
    assert by_step(got, steps) == [sorted(s, key=repr) for s in steps]


def logged(*names: str) -> list[tuple[str, Any]]:
    """One step in which each named tracer node ran (its update is ``{'log': [name]}``)."""
    return [(n, {"log": [n]}) for n in names]
