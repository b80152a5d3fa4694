"""Build: a validated spec -> an uncompiled LangGraph ``StateGraph`` (a ``TypedDict`` state with
``Annotated`` reducers, factory-built nodes, compiled subgraphs, edges, and routers compiled from the
condition language); and the spec's identity (hash), round trip and drawing. A factory that declares a
parameters model is called with ``factory_parameter`` validated into an instance of it. Anything
LangGraph still rejects is reported as a located ``SpecError``."""

from __future__ import annotations

import keyword
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from os import PathLike
from typing import Annotated, Any, TypedDict

from langchain_core.runnables import Runnable
from langgraph.graph import START, StateGraph

from aya_lab.errors import InputError
from aya_lab.graph.condition_compile import compile_conditions
from aya_lab.graph.conditions import dynamic_targets, literal_targets
from aya_lab.graph.errors import PathPart, Problem, SpecError, format_path
from aya_lab.graph.load import load_spec
from aya_lab.graph.parameters import validate_parameters
from aya_lab.graph.registry import Registry, default_registry
from aya_lab.graph.spec import (
    SPECIAL,
    ConditionalEdgeSpec,
    ConditionalEntryPointSpec,
    EdgeSpec,
    GraphSpec,
    NodeSpec,
    SpecSource,
    key_list,
)

__all__ = ["build_graph", "to_spec", "draw"]


def _state_name(graph_name: str) -> str:
    ident = re.sub(r"\W+", "_", graph_name).strip("_") or "Graph"
    if ident[0].isdigit() or keyword.iskeyword(ident):
        ident = "G_" + ident
    return ident + "State"


def _placeholder(name: str) -> Callable[[Any], dict[str, Any]]:
    def placeholder(state: Any) -> dict[str, Any]:
        return {}

    placeholder.__name__ = f"placeholder_{name}"
    return placeholder


def build_graph(
    spec: SpecSource,
    registry: Registry | None = None,
    *,
    placeholders: bool = False,
    context_schema: type[object] | None = None,
    compat: str | None = None,
) -> StateGraph:
    """Build the uncompiled ``StateGraph`` for ``spec`` (a GraphSpec, dict or file).

    With ``placeholders=True`` unknown factories become no-op nodes and unknown types/reducers are
    ``Any``/none (enough to draw a graph whose factories live elsewhere). ``context_schema`` (kenkenpa's
    ``config_schema``) is passed to every ``StateGraph`` built, subgraphs included. ``compat`` is given
    to :func:`~aya_lab.graph.load.load_spec` when ``spec`` is not yet loaded. The spec is attached as
    ``graph.aya_spec`` (see :func:`to_spec`).
    """
    reg = registry if registry is not None else default_registry()
    if not isinstance(spec, GraphSpec):
        spec = load_spec(spec, reg, check_registry=not placeholders, compat=compat)
    graph = _build(spec, [], _Options(reg, placeholders, context_schema))
    graph.aya_spec = spec  # type: ignore[attr-defined]
    return graph


@dataclass(frozen=True)
class _Options:
    reg: Registry
    placeholders: bool
    context_schema: type[Any] | None


def _state_type(spec: GraphSpec, path: list[PathPart], opts: _Options) -> Any:
    """The ``TypedDict`` state of one graph level, with ``Annotated`` reducers."""
    annotations: dict[str, Any] = {}
    for i, field in enumerate(spec.flow_parameter.state):
        where = [*path, "flow_parameter", "state", i]
        if field.type in opts.reg.types:
            tp = opts.reg.types[field.type]
        elif opts.placeholders:
            tp = Any
        else:
            raise SpecError([Problem(format_path([*where, "type"]), f"unknown type {field.type!r}")])
        if field.reducer is None or (opts.placeholders and field.reducer not in opts.reg.reducers):
            annotations[field.field_name] = tp
        elif field.reducer in opts.reg.reducers:
            annotations[field.field_name] = Annotated[tp, opts.reg.reducers[field.reducer]]
        else:
            raise SpecError([Problem(format_path([*where, "reducer"]), f"unknown reducer {field.reducer!r}")])
    return TypedDict(_state_name(spec.name), annotations)  # type: ignore[operator]


def _build(spec: GraphSpec, path: list[PathPart], opts: _Options) -> StateGraph:
    graph = StateGraph(_state_type(spec, path, opts), context_schema=opts.context_schema)
    functions = dict(opts.reg.evaluation_functions)
    for i, flow in enumerate(spec.flows):
        where = [*path, "flows", i]
        try:
            if isinstance(flow, GraphSpec):
                graph.add_node(flow.name, _build(flow, where, opts).compile())
            elif isinstance(flow, NodeSpec):
                graph.add_node(flow.flow_parameter.name, _make_node(flow, where, opts.reg, opts.placeholders))
            elif isinstance(flow, EdgeSpec):
                _add_edge(graph, flow)
            elif isinstance(flow, (ConditionalEdgeSpec, ConditionalEntryPointSpec)):
                _add_branch(graph, flow, i, where, functions, opts.placeholders)
        except SpecError:
            raise
        except (ValueError, KeyError, TypeError) as exc:
            raise SpecError([Problem(format_path(where), f"LangGraph rejected this flow: {exc}")]) from exc
    try:
        graph.validate()
    except ValueError as exc:
        raise SpecError(
            [Problem(format_path([*path, "flows"]) if path else "flows", f"LangGraph rejected the graph: {exc}")]
        ) from exc
    graph.compiled = False  # validate() marks it; the caller compiles
    return graph


def _add_edge(graph: StateGraph, flow: EdgeSpec) -> None:
    """A join (``wait_for: all``) is one LangGraph edge from all starts; otherwise, as in kenkenpa,
    one edge per start and end."""
    starts = [SPECIAL.get(k, k) for k in key_list(flow.flow_parameter.start_key)]
    ends = [SPECIAL.get(k, k) for k in key_list(flow.flow_parameter.end_key)]
    if flow.flow_parameter.wait_for == "all":
        graph.add_edge(starts, ends[0])
        return
    for end in ends:
        for start in starts:
            graph.add_edge(start, end)


def _add_branch(
    graph: StateGraph,
    flow: ConditionalEdgeSpec | ConditionalEntryPointSpec,
    i: int,
    where: list[PathPart],
    functions: dict[str, Callable[..., Any]],
    placeholders: bool,
) -> None:
    fp = flow.flow_parameter
    source = (
        START
        if isinstance(flow, ConditionalEntryPointSpec)
        else SPECIAL.get(flow.flow_parameter.start_key, flow.flow_parameter.start_key)
    )
    if placeholders:
        for n in _function_names(fp.conditions):
            functions.setdefault(n, lambda state, config, **kw: None)
    path_map: Any = fp.path_map
    if isinstance(path_map, list):
        path_map = [SPECIAL.get(t, t) for t in path_map]
    elif isinstance(path_map, dict):
        path_map = {k: SPECIAL.get(v, v) for k, v in path_map.items()}
    elif not dynamic_targets(fp.conditions):
        path_map = [SPECIAL.get(t, t) for t in literal_targets(fp.conditions)]
    router = compile_conditions(
        fp.conditions,
        functions,
        path_map_is_dict=isinstance(path_map, dict),
        where=format_path([*where, "flow_parameter", "conditions"]),
        name=f"condition_{i}",
    )
    graph.add_conditional_edges(source, router, path_map)


def _function_names(conditions: list[dict[str, Any]]) -> list[str]:
    names: list[str] = []

    def walk(x: Any) -> None:
        if isinstance(x, dict):
            if x.get("type") == "function" and isinstance(x.get("name"), str):
                names.append(x["name"])
            for v in x.values():
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)

    walk(conditions)
    return names


def _make_node(flow: NodeSpec, where: list[PathPart], reg: Registry, placeholders: bool) -> Any:
    name, factory_name = flow.flow_parameter.name, flow.flow_parameter.factory
    if factory_name not in reg.node_factories:
        if placeholders:
            return _placeholder(name)
        raise SpecError(
            [Problem(format_path([*where, "flow_parameter", "factory"]), f"unknown factory {factory_name!r}")]
        )
    factory, model = reg.node_factories[factory_name], reg.node_parameters(factory_name)
    params: Any = dict(flow.factory_parameter)
    if model is not None:  # the factory declared its parameters: it gets the validated model instance
        params = validate_parameters(model, params, [*where, "factory_parameter"])
    try:
        node = factory(factory_parameter=params, flow_parameter=flow.flow_parameter.model_dump())
    except Exception as exc:  # a bad factory_parameter is a spec problem: locate it
        msg = f"factory {factory_name!r} failed: {type(exc).__name__}: {exc}"
        raise SpecError([Problem(format_path([*where, "factory_parameter"]), msg)]) from exc
    if not (callable(node) or isinstance(node, Runnable)):
        msg = f"factory {factory_name!r} returned {type(node).__name__}, not a node (a callable or a Runnable)"
        raise SpecError([Problem(format_path([*where, "flow_parameter", "factory"]), msg)])
    return node


def to_spec(obj: object) -> GraphSpec:
    """The spec behind ``obj``: a GraphSpec (copied), a graph from :func:`build_graph` (compiled or
    not), or spec data/a file (loaded without registry checks)."""
    if isinstance(obj, GraphSpec):
        return GraphSpec.model_validate(obj.to_dict())
    for candidate in (obj, getattr(obj, "builder", None)):
        spec = getattr(candidate, "aya_spec", None)
        if isinstance(spec, GraphSpec):
            return GraphSpec.model_validate(spec.to_dict())
    if isinstance(obj, (str, PathLike, Mapping)):
        return load_spec(obj, check_registry=False)
    raise TypeError(
        f"to_spec: expected a GraphSpec, a graph built by build_graph, or spec data; got {type(obj).__name__}"
    )


def draw(
    spec: SpecSource,
    registry: Registry | None = None,
    *,
    format: str = "mermaid",
    placeholders: bool = False,
    xray: bool = False,
    compat: str | None = None,
) -> str:
    """Mermaid text (``format="mermaid"``) or an ASCII drawing (``"ascii"``, needs grandalf)."""
    graph = build_graph(spec, registry, placeholders=placeholders, compat=compat).compile()
    drawable = graph.get_graph(xray=xray)
    if format == "mermaid":
        return drawable.draw_mermaid()
    if format == "ascii":
        return drawable.draw_ascii()
    raise InputError(f"unknown format {format!r}: use 'mermaid' or 'ascii'")
