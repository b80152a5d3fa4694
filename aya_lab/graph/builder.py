"""Load, check and build: spec data -> validated :class:`GraphSpec` -> uncompiled ``StateGraph``.

``load_spec`` reads YAML (safe loader) or JSON files, or dicts; resolves overlays; checks structure
(unknown keys, types) and meaning (registered names, node references, a default on every condition,
reachability, an entry) and raises one :class:`SpecError` listing every located problem.
``build_graph`` then turns the spec into a LangGraph ``StateGraph``: a ``TypedDict`` state with
``Annotated`` reducers, factory-built nodes, compiled subgraphs, edges and routers compiled from the
condition language. Anything LangGraph still rejects is reported as a located ``SpecError`` too.
"""

from __future__ import annotations

import hashlib
import json
import keyword
import re
from collections.abc import Callable, Mapping
from os import PathLike
from pathlib import Path
from typing import Annotated, Any, TypedDict

import yaml
from langchain_core.runnables import Runnable
from langgraph.graph import END, START, StateGraph
from pydantic import ValidationError

from aya_lab.graph.conditions import (
    CheckContext,
    check_conditions,
    compile_conditions,
    dynamic_targets,
    literal_targets,
)
from aya_lab.graph.errors import PathPart, Problem, Problems, SpecError, did_you_mean, format_path
from aya_lab.graph.overlay import apply_changes, check_overlay_structure, is_overlay, resolve_base_path
from aya_lab.graph.registry import Registry, registry_with_providers
from aya_lab.graph.spec import (
    ConditionalEdgeSpec,
    ConditionalEntryPointSpec,
    EdgeSpec,
    GraphSpec,
    NodeSpec,
    check_structure,
    normalize_aliases,
)

__all__ = ["load_spec", "read_spec_data", "build_graph", "spec_hash", "to_spec", "draw", "check_spec"]

Source = str | PathLike[str] | Mapping[str, Any] | GraphSpec
SPECIAL = {"START": START, "END": END, START: START, END: END}
_NODE_KINDS = ("node", "stategraph")


# -- reading ------------------------------------------------------------------------------------------
def _read_file(path: Path) -> Any:
    text = path.read_text(encoding="utf-8")
    try:
        if path.suffix.lower() == ".json":
            return json.loads(text)
        return yaml.safe_load(text)
    except (yaml.YAMLError, json.JSONDecodeError) as exc:
        raise SpecError([Problem("<file>", f"cannot parse {path.name}: {exc}".replace("\n", " "))], str(path)) from None


def read_spec_data(source: Source, *, base_dir: str | PathLike[str] | None = None) -> tuple[dict[str, Any], tuple[str, ...]]:
    """The resolved spec data (overlays applied) and its lineage (files, base first).

    Only overlay problems are raised here; the resolved data is not yet checked.
    """
    return _resolve(source, Path(base_dir) if base_dir else None, ())


def _resolve(source: Source, base_dir: Path | None, seen: tuple[str, ...]) -> tuple[dict[str, Any], tuple[str, ...]]:
    label: str | None = None
    if isinstance(source, GraphSpec):
        data: Any = source.to_dict()
    elif isinstance(source, Mapping):
        data = dict(source)
    elif not isinstance(source, (str, PathLike)):
        data = source  # not a mapping: the structural check reports it
    else:
        path = Path(source)
        label = str(path)
        if label in seen:
            raise SpecError([Problem("base", f"overlay cycle: {' -> '.join([*seen, label])}")], label)
        data = _read_file(path)
        base_dir = path.parent
    data = normalize_aliases(data)
    if not is_overlay(data):
        return data, ((label,) if label else ())
    problems = Problems()
    check_overlay_structure(data, problems)
    problems.raise_if_any(label)
    base_path = resolve_base_path(data["base"], base_dir or Path.cwd())
    if not base_path.is_file():
        problems.add(["base"], f"base spec {str(base_path)!r} not found (a base path is relative to the overlay file)")
        problems.raise_if_any(label)
    base, lineage = _resolve(base_path, None, (*seen, *((label,) if label else ())))
    resolved = normalize_aliases(apply_changes(base, data, problems))
    problems.raise_if_any(label)
    return resolved, (*lineage, *((label,) if label else ("<overlay>",)))


def load_spec(
    source: Source,
    registry: Registry | None = None,
    *,
    check_registry: bool = True,
    base_dir: str | PathLike[str] | None = None,
) -> GraphSpec:
    """Read, resolve overlays, check everything, return the :class:`GraphSpec`.

    ``source`` is a YAML/JSON file path, a dict or a GraphSpec. ``registry`` (default:
    :func:`~aya_lab.graph.registry.registry_with_providers`) supplies the names a spec may use; with
    ``check_registry=False`` unknown factory/type/reducer/function names are not problems (drawing
    with placeholders). Raises :class:`SpecError` listing all located problems.
    """
    data, lineage = read_spec_data(source, base_dir=base_dir)
    label = lineage[-1] if lineage else None
    reg = registry if registry is not None else (registry_with_providers() if check_registry else None)
    problems = check_spec(data, reg if check_registry else None)
    problems.raise_if_any(f"{label} (resolved)" if len(lineage) > 1 else label)
    try:
        spec = GraphSpec.model_validate(data)
    except ValidationError as exc:  # a safety net: check_structure should have caught it
        raise SpecError([Problem(format_path(list(e["loc"])), e["msg"]) for e in exc.errors()], label) from None
    if isinstance(source, GraphSpec):  # re-checking a loaded spec keeps where it came from
        label, lineage = source.source, source.lineage
    spec._source = label
    spec._lineage = lineage
    return spec


# -- checking meaning ----------------------------------------------------------------------------------
def check_spec(data: Any, registry: Registry | None) -> Problems:
    """Every structural and semantic problem of resolved spec ``data`` (registry None: skip names)."""
    problems = Problems()
    check_structure(data, problems)
    if isinstance(data, dict):
        _check_graph(data, [], registry, problems)
    return problems


def _fp(flow: Any) -> dict[str, Any]:
    fp = flow.get("flow_parameter") if isinstance(flow, dict) else None
    return fp if isinstance(fp, dict) else {}


def _keys(key: Any) -> list[Any]:
    return list(key) if isinstance(key, list) else [key]


def _check_graph(g: dict[str, Any], path: list[PathPart], reg: Registry | None, problems: Problems) -> None:
    fp = _fp(g)
    fields: set[str] = set()
    state = fp.get("state") if isinstance(fp.get("state"), list) else []
    for i, f in enumerate(state):
        if not isinstance(f, dict):
            continue
        p = [*path, "flow_parameter", "state", i]
        name = f.get("field_name")
        if isinstance(name, str):
            if name in fields:
                problems.add([*p, "field_name"], f"duplicate state field {name!r}")
            elif not name.strip() or name.startswith("__"):
                problems.add([*p, "field_name"], f"invalid state field name {name!r}: use a non-empty name not starting with '__' (LangGraph reserves those)")
            fields.add(name)
        for key, table, how in (("type", "types", "add_type"), ("reducer", "reducers", "add_reducer")):
            value = f.get(key)
            if reg is not None and isinstance(value, str) and not reg.has(table, value):
                hint = did_you_mean(value, reg.names(table)) or f" (register it with Registry.{how})"
                problems.add([*p, key], f"unknown {key} {value!r}{hint}")

    flows = g.get("flows") if isinstance(g.get("flows"), list) else []
    nodes: dict[str, int] = {}
    for i, flow in enumerate(flows):
        if not isinstance(flow, dict) or flow.get("kind") not in _NODE_KINDS:
            continue
        p = [*path, "flows", i]
        name = _fp(flow).get("name")
        if isinstance(name, str):
            if name in nodes:
                problems.add([*p, "flow_parameter", "name"], f"duplicate node name {name!r} (also {format_path([*path, 'flows', nodes[name]])}); rename one")
            elif name in SPECIAL:
                problems.add([*p, "flow_parameter", "name"], f"{name!r} is reserved; choose another node name")
            elif not name.strip() or ":" in name or "|" in name:
                problems.add([*p, "flow_parameter", "name"], f"invalid node name {name!r}: use a non-empty name without ':' or '|'")
            else:
                nodes[name] = i
        if flow.get("kind") == "node":
            factory = _fp(flow).get("factory")
            if reg is not None and isinstance(factory, str) and not reg.has("node_factories", factory):
                hint = did_you_mean(factory, reg.names("node_factories")) or " (register it with Registry.add_node_factory)"
                problems.add([*p, "flow_parameter", "factory"], f"unknown factory {factory!r}{hint}")
        else:
            _check_graph(flow, p, reg, problems)

    node_set = set(nodes)
    functions = set(reg.evaluation_functions) if reg is not None else None
    adjacency: dict[str, set[str]] = {}
    joins: list[tuple[list[str], str]] = []
    has_entry = False

    def node_ref(name: Any, p: list[PathPart], *, as_start: bool) -> bool:
        if not isinstance(name, str):
            return False  # structural problem already reported
        if name in ("START", START):
            if not as_start:
                problems.add(p, "START cannot be an edge's end")
                return False
            return True
        if name in ("END", END):
            if as_start:
                problems.add(p, "END cannot be an edge's start")
                return False
            return True
        if name not in node_set:
            special = "START" if as_start else "END"
            hint = did_you_mean(name, node_set | {special}) or f" (nodes: {', '.join(sorted(node_set)) or 'none'}; or {special})"
            problems.add(p, f"unknown node {name!r}{hint}")
            return False
        return True

    def branch_targets(conds: Any, path_map: Any) -> set[str]:
        if isinstance(path_map, dict):
            return {SPECIAL.get(v, v) for v in path_map.values() if isinstance(v, str)}
        if isinstance(path_map, list):
            return {SPECIAL.get(v, v) for v in path_map if isinstance(v, str)}
        if dynamic_targets(conds):
            return node_set | {END}
        return {SPECIAL.get(t, t) for t in literal_targets(conds)}

    for i, flow in enumerate(flows):
        if not isinstance(flow, dict):
            continue
        kind, ffp, p = flow.get("kind"), _fp(flow), [*path, "flows", i, "flow_parameter"]
        if kind == "edge":
            sk, ek = ffp.get("start_key"), ffp.get("end_key")
            if isinstance(sk, list) and isinstance(ek, list):
                problems.add(p, "start_key and end_key are both lists; make one side a single node (split it into several edges)")
                continue
            ok = True
            for j, s in enumerate(_keys(sk)):
                sp = [*p, "start_key", j] if isinstance(sk, list) else [*p, "start_key"]
                ok = node_ref(s, sp, as_start=True) and ok
                if isinstance(sk, list) and s in ("START", START):
                    problems.add(sp, "START cannot be part of a join (a list start_key); use a separate edge")
                    ok = False
            for j, e in enumerate(_keys(ek)):
                ok = node_ref(e, [*p, "end_key", j] if isinstance(ek, list) else [*p, "end_key"], as_start=False) and ok
            if isinstance(sk, list) and not sk or isinstance(ek, list) and not ek:
                problems.add(p, "an empty list of keys; name at least one node")
                ok = False
            if ok:
                starts = [SPECIAL.get(s, s) for s in _keys(sk)]
                ends = [SPECIAL.get(e, e) for e in _keys(ek)]
                if START in starts:
                    has_entry = True
                if len(starts) > 1:
                    joins.append((starts, ends[0]))
                else:
                    adjacency.setdefault(starts[0], set()).update(ends)
        elif kind in ("configurable_conditional_edge", "configurable_conditional_entry_point"):
            if kind == "configurable_conditional_edge":
                source = ffp.get("start_key")
                if source in ("START", START):
                    problems.add([*p, "start_key"], "use a configurable_conditional_entry_point to route from START")
                    continue
                if not node_ref(source, [*p, "start_key"], as_start=True):
                    source = None
            else:
                source, has_entry = START, True
            path_map = ffp.get("path_map")
            if isinstance(path_map, (list, dict)):
                entries = path_map.items() if isinstance(path_map, dict) else enumerate(path_map)
                for key, target in entries:
                    node_ref(target, [*p, "path_map", key], as_start=False)
            ctx = CheckContext(nodes=node_set, state_fields=fields, functions=functions, path_map=path_map if isinstance(path_map, (list, dict)) else None)
            check_conditions(ffp.get("conditions"), [*p, "conditions"], ctx, problems)
            if isinstance(source, str):
                adjacency.setdefault(SPECIAL.get(source, source), set()).update(branch_targets(ffp.get("conditions"), path_map))

    if not node_set and not any(isinstance(f, dict) and f.get("kind") in _NODE_KINDS for f in flows):
        problems.add([*path, "flows"], f"graph {fp.get('name')!r} has no nodes; add a node flow")
        return
    if not has_entry:
        problems.add([*path, "flows"], f"graph {fp.get('name')!r} has no entry: add an edge from START (or a configurable_conditional_entry_point)")
        return
    reached = {START}
    frontier = [START]
    while True:
        while frontier:
            for nxt in adjacency.get(frontier.pop(), ()):
                if nxt not in reached:
                    reached.add(nxt)
                    frontier.append(nxt)
        fresh = [end for starts, end in joins if end not in reached and all(s in reached for s in starts)]
        if not fresh:
            break
        reached.update(fresh)
        frontier.extend(fresh)
    for name, i in nodes.items():
        if name not in reached:
            problems.add([*path, "flows", i], f"node {name!r} is unreachable from START (add an edge to it, or remove it)")


# -- building ------------------------------------------------------------------------------------------
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
    spec: Source,
    registry: Registry | None = None,
    *,
    placeholders: bool = False,
) -> StateGraph:
    """Build the uncompiled ``StateGraph`` for ``spec`` (a GraphSpec, dict or file).

    With ``placeholders=True`` unknown factories become no-op nodes and unknown types/reducers are
    ``Any``/none (enough to draw a graph whose factories live elsewhere). The spec is attached as
    ``graph.aya_spec`` (see :func:`to_spec`).
    """
    reg = registry if registry is not None else registry_with_providers()
    if not isinstance(spec, GraphSpec):
        spec = load_spec(spec, reg, check_registry=not placeholders)
    graph = _build(spec, [], reg, placeholders)
    graph.aya_spec = spec  # type: ignore[attr-defined]
    return graph


def _build(spec: GraphSpec, path: list[PathPart], reg: Registry, placeholders: bool) -> StateGraph:
    from typing import Any as AnyType

    annotations: dict[str, Any] = {}
    for i, field in enumerate(spec.flow_parameter.state):
        where = [*path, "flow_parameter", "state", i]
        if field.type in reg.types:
            tp = reg.types[field.type]
        elif placeholders:
            tp = AnyType
        else:
            raise SpecError([Problem(format_path([*where, "type"]), f"unknown type {field.type!r}")])
        if field.reducer is None or (placeholders and field.reducer not in reg.reducers):
            annotations[field.field_name] = tp
        elif field.reducer in reg.reducers:
            annotations[field.field_name] = Annotated[tp, reg.reducers[field.reducer]]
        else:
            raise SpecError([Problem(format_path([*where, "reducer"]), f"unknown reducer {field.reducer!r}")])
    state_type = TypedDict(_state_name(spec.name), annotations)  # type: ignore[operator]
    graph = StateGraph(state_type)
    functions = dict(reg.evaluation_functions)

    for i, flow in enumerate(spec.flows):
        where = [*path, "flows", i]
        try:
            if isinstance(flow, GraphSpec):
                graph.add_node(flow.name, _build(flow, where, reg, placeholders).compile())
            elif isinstance(flow, NodeSpec):
                graph.add_node(flow.flow_parameter.name, _make_node(flow, where, reg, placeholders))
            elif isinstance(flow, EdgeSpec):
                starts = [SPECIAL.get(k, k) for k in _keys(flow.flow_parameter.start_key)]
                ends = [SPECIAL.get(k, k) for k in _keys(flow.flow_parameter.end_key)]
                for end in ends:
                    graph.add_edge(starts if len(starts) > 1 else starts[0], end)
            elif isinstance(flow, (ConditionalEdgeSpec, ConditionalEntryPointSpec)):
                fp = flow.flow_parameter
                source = START if isinstance(flow, ConditionalEntryPointSpec) else SPECIAL.get(fp.start_key, fp.start_key)
                if placeholders:
                    missing = [n for n in _function_names(fp.conditions) if n not in functions]
                    for n in missing:
                        functions[n] = lambda state, config, **kw: None
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
        except SpecError:
            raise
        except (ValueError, KeyError, TypeError) as exc:
            raise SpecError([Problem(format_path(where), f"LangGraph rejected this flow: {exc}")]) from exc
    try:
        graph.validate()
    except ValueError as exc:
        raise SpecError([Problem(format_path([*path, "flows"]) if path else "flows", f"LangGraph rejected the graph: {exc}")]) from exc
    graph.compiled = False  # validate() marks it; the caller compiles
    return graph


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
        raise SpecError([Problem(format_path([*where, "flow_parameter", "factory"]), f"unknown factory {factory_name!r}")])
    factory = reg.node_factories[factory_name]
    try:
        node = factory(factory_parameter=dict(flow.factory_parameter), flow_parameter=flow.flow_parameter.model_dump())
    except Exception as exc:  # a bad factory_parameter is a spec problem: locate it
        msg = f"factory {factory_name!r} failed: {type(exc).__name__}: {exc}"
        raise SpecError([Problem(format_path([*where, "factory_parameter"]), msg)]) from exc
    if not (callable(node) or isinstance(node, Runnable)):
        msg = f"factory {factory_name!r} returned {type(node).__name__}, not a node (a callable or a Runnable)"
        raise SpecError([Problem(format_path([*where, "flow_parameter", "factory"]), msg)])
    return node


# -- identity, round trip, drawing ---------------------------------------------------------------------
def spec_hash(spec: Source) -> str:
    """Stable content hash (sha256, 16 hex chars) of the resolved spec's canonical JSON."""
    if not isinstance(spec, GraphSpec):
        spec = load_spec(spec, check_registry=False)
    canonical = json.dumps(spec.to_dict(), sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:16]


def to_spec(obj: Any) -> GraphSpec:
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
    raise TypeError(f"to_spec: expected a GraphSpec, a graph built by build_graph, or spec data; got {type(obj).__name__}")


def draw(
    spec: Source,
    registry: Registry | None = None,
    *,
    format: str = "mermaid",
    placeholders: bool = False,
    xray: bool = False,
) -> str:
    """Mermaid text (``format="mermaid"``) or an ASCII drawing (``"ascii"``, needs grandalf)."""
    graph = build_graph(spec, registry, placeholders=placeholders).compile()
    drawable = graph.get_graph(xray=xray)
    if format == "mermaid":
        return drawable.draw_mermaid()
    if format == "ascii":
        return drawable.draw_ascii()
    raise ValueError(f"unknown format {format!r}: use 'mermaid' or 'ascii'")
