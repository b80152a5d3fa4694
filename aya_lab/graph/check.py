"""What a resolved spec means: registered names, node references, a default on every condition,
reachability and an entry. :func:`check_spec` returns every located problem at once."""

from __future__ import annotations

from typing import Any

from langgraph.graph import END, START

from aya_lab.graph.conditions import CheckContext, check_conditions, dynamic_targets, literal_targets
from aya_lab.graph.errors import PathPart, Problems, did_you_mean, format_path
from aya_lab.graph.registry import Registry
from aya_lab.graph.spec import NODE_KINDS, SPECIAL, check_structure, flow_parameter, key_list

__all__ = ["check_spec"]


def check_spec(data: Any, registry: Registry | None) -> Problems:
    """Every structural and semantic problem of resolved spec ``data`` (registry None: skip names)."""
    problems = Problems()
    check_structure(data, problems)
    if isinstance(data, dict):
        _check_graph(data, [], registry, problems)
    return problems


def _check_graph(g: dict[str, Any], path: list[PathPart], reg: Registry | None, problems: Problems) -> None:
    fp = flow_parameter(g)
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
                problems.add(
                    [*p, "field_name"],
                    f"invalid state field name {name!r}: use a non-empty name not starting with '__' (LangGraph reserves those)",
                )
            fields.add(name)
        for key, table, how in (("type", "types", "add_type"), ("reducer", "reducers", "add_reducer")):
            value = f.get(key)
            if reg is not None and isinstance(value, str) and not reg.has(table, value):
                hint = did_you_mean(value, reg.names(table)) or f" (register it with Registry.{how})"
                problems.add([*p, key], f"unknown {key} {value!r}{hint}")

    flows = g.get("flows") if isinstance(g.get("flows"), list) else []
    nodes: dict[str, int] = {}
    for i, flow in enumerate(flows):
        if not isinstance(flow, dict) or flow.get("kind") not in NODE_KINDS:
            continue
        p = [*path, "flows", i]
        name = flow_parameter(flow).get("name")
        if isinstance(name, str):
            if name in nodes:
                problems.add(
                    [*p, "flow_parameter", "name"],
                    f"duplicate node name {name!r} (also {format_path([*path, 'flows', nodes[name]])}); rename one",
                )
            elif name in SPECIAL:
                problems.add([*p, "flow_parameter", "name"], f"{name!r} is reserved; choose another node name")
            elif not name.strip() or ":" in name or "|" in name:
                problems.add(
                    [*p, "flow_parameter", "name"],
                    f"invalid node name {name!r}: use a non-empty name without ':' or '|'",
                )
            else:
                nodes[name] = i
        if flow.get("kind") == "node":
            factory = flow_parameter(flow).get("factory")
            if reg is not None and isinstance(factory, str) and not reg.has("node_factories", factory):
                hint = (
                    did_you_mean(factory, reg.names("node_factories"))
                    or " (register it with Registry.add_node_factory)"
                )
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
            hint = (
                did_you_mean(name, node_set | {special})
                or f" (nodes: {', '.join(sorted(node_set)) or 'none'}; or {special})"
            )
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
        kind, ffp, p = flow.get("kind"), flow_parameter(flow), [*path, "flows", i, "flow_parameter"]
        if kind == "edge":
            sk, ek = ffp.get("start_key"), ffp.get("end_key")
            if isinstance(sk, list) and isinstance(ek, list):
                problems.add(
                    p, "start_key and end_key are both lists; make one side a single node (split it into several edges)"
                )
                continue
            ok = True
            for j, s in enumerate(key_list(sk)):
                sp = [*p, "start_key", j] if isinstance(sk, list) else [*p, "start_key"]
                ok = node_ref(s, sp, as_start=True) and ok
                if isinstance(sk, list) and s in ("START", START):
                    problems.add(sp, "START cannot be part of a join (a list start_key); use a separate edge")
                    ok = False
            for j, e in enumerate(key_list(ek)):
                ok = node_ref(e, [*p, "end_key", j] if isinstance(ek, list) else [*p, "end_key"], as_start=False) and ok
            if isinstance(sk, list) and not sk or isinstance(ek, list) and not ek:
                problems.add(p, "an empty list of keys; name at least one node")
                ok = False
            if ok:
                starts = [SPECIAL.get(s, s) for s in key_list(sk)]
                ends = [SPECIAL.get(e, e) for e in key_list(ek)]
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
            ctx = CheckContext(
                nodes=node_set,
                state_fields=fields,
                functions=functions,
                path_map=path_map if isinstance(path_map, (list, dict)) else None,
            )
            check_conditions(ffp.get("conditions"), [*p, "conditions"], ctx, problems)
            if isinstance(source, str):
                adjacency.setdefault(SPECIAL.get(source, source), set()).update(
                    branch_targets(ffp.get("conditions"), path_map)
                )

    if not node_set and not any(isinstance(f, dict) and f.get("kind") in NODE_KINDS for f in flows):
        problems.add([*path, "flows"], f"graph {fp.get('name')!r} has no nodes; add a node flow")
        return
    if not has_entry:
        problems.add(
            [*path, "flows"],
            f"graph {fp.get('name')!r} has no entry: add an edge from START (or a configurable_conditional_entry_point)",
        )
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
            problems.add(
                [*path, "flows", i], f"node {name!r} is unreachable from START (add an edge to it, or remove it)"
            )
