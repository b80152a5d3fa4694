"""What a resolved spec means: registered names, node references, each node's ``factory_parameter``
against its factory's parameters model (:mod:`~aya_lab.graph.parameters`), a default on every condition,
reachability, an entry, a way to END from every node, and joins that cannot starve.
:func:`check_spec` returns every located problem at once; in kenkenpa's compatibility mode
(:mod:`~aya_lab.graph.compat`) what kenkenpa accepts becomes a warning instead."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from langgraph.constants import END, START

from aya_lab.graph.compat import explain_strict
from aya_lab.graph.conditions import CheckContext, check_conditions, dynamic_targets, literal_targets
from aya_lab.graph.errors import COMPAT_HINT, PathPart, Problems, did_you_mean, format_path, hidden_characters
from aya_lab.graph.joins import FlowGraph, Join
from aya_lab.graph.parameters import check_parameters
from aya_lab.graph.registry import Registry
from aya_lab.graph.spec import NODE_KINDS, SPECIAL, flow_parameter, key_list
from aya_lab.graph.structure import check_structure

__all__ = ["check_spec"]

BRANCH_KINDS = ("configurable_conditional_edge", "configurable_conditional_entry_point")


def check_spec(
    data: object, registry: Registry | None, *, compat: bool = False, warnings: Problems | None = None
) -> Problems:
    """Every structural and semantic problem of resolved spec ``data`` (registry None: skip names).

    ``compat=True`` reads it as kenkenpa does: what kenkenpa accepts is added to ``warnings``.
    """
    problems, structure = Problems(), Problems()
    check_structure(data, structure)
    if not compat:
        explain_strict(structure)
    problems.items.extend(structure.items)
    if isinstance(data, dict):
        _check_graph(data, _Level([], registry, problems, compat, warnings if warnings is not None else Problems()))
    return problems


@dataclass
class _Level:
    """One graph level being checked (the top level, or a subgraph at ``path``)."""

    path: list[PathPart]
    reg: Registry | None
    problems: Problems
    compat: bool
    warnings: Problems
    fields: set[str] = field(default_factory=set)
    nodes: dict[str, int] = field(default_factory=dict)
    flow: FlowGraph = field(default_factory=FlowGraph)
    has_entry: bool = False

    def sub(self, path: list[PathPart]) -> _Level:
        return _Level(path, self.reg, self.problems, self.compat, self.warnings)


def _hidden(name: Any, what: str, path: list[PathPart], lvl: _Level) -> bool:
    """Refuse a name holding invisible, control or bidi characters (it can pass for another name)."""
    found = hidden_characters(name) if isinstance(name, str) else ""
    if found:
        why = "invisible or control characters make names look alike or reorder what is shown"
        lvl.problems.add(path, f"{what} {name!r} holds {found}: {why}; use visible characters only")
    return bool(found)


def _check_graph(g: dict[str, Any], lvl: _Level) -> None:
    fp = flow_parameter(g)
    if not lvl.path:  # a subgraph's name is its node name, checked with the nodes
        _hidden(fp.get("name"), "graph name", [*lvl.path, "flow_parameter", "name"], lvl)
    if lvl.path and "compat" in g:
        lvl.problems.add([*lvl.path, "compat"], "compat applies to the whole spec; put it at the top level only")
    _check_state(fp, lvl)
    raw_flows = g.get("flows")
    flows: list[Any] = raw_flows if isinstance(raw_flows, list) else []
    _check_nodes(flows, lvl)
    for i, flow in enumerate(flows):
        if not isinstance(flow, dict):
            continue
        p = [*lvl.path, "flows", i, "flow_parameter"]
        if flow.get("kind") == "edge":
            _check_edge(flow_parameter(flow), p, lvl)
        elif flow.get("kind") in BRANCH_KINDS:
            _check_branch(flow.get("kind"), flow_parameter(flow), p, lvl)
    if not any(isinstance(f, dict) and f.get("kind") in NODE_KINDS for f in flows):
        lvl.problems.add([*lvl.path, "flows"], f"graph {fp.get('name')!r} has no nodes; add a node flow")
    elif not lvl.has_entry:
        lvl.problems.add(
            [*lvl.path, "flows"],
            f"graph {fp.get('name')!r} has no entry: add an edge from START (or a configurable_conditional_entry_point)",
        )
    else:
        _check_flow(lvl)


def _check_state(fp: dict[str, Any], lvl: _Level) -> None:
    raw_state = fp.get("state")
    state: list[Any] = raw_state if isinstance(raw_state, list) else []
    for i, f in enumerate(state):
        if not isinstance(f, dict):
            continue
        p = [*lvl.path, "flow_parameter", "state", i]
        name = f.get("field_name")
        if isinstance(name, str):
            if name in lvl.fields:
                lvl.problems.add([*p, "field_name"], f"duplicate state field {name!r}")
            elif not name.strip() or name.startswith("__"):
                lvl.problems.add(
                    [*p, "field_name"],
                    f"invalid state field name {name!r}: use a non-empty name not starting with '__' (LangGraph reserves those)",
                )
            else:
                _hidden(name, "state field name", [*p, "field_name"], lvl)
            lvl.fields.add(name)
        for key, table, how in (("type", "types", "add_type"), ("reducer", "reducers", "add_reducer")):
            value = f.get(key)
            if lvl.reg is not None and isinstance(value, str) and not lvl.reg.has(table, value):
                hint = did_you_mean(value, lvl.reg.names(table)) or f" (register it with Registry.{how})"
                lvl.problems.add([*p, key], f"unknown {key} {value!r}{hint}")


def _check_nodes(flows: list[Any], lvl: _Level) -> None:
    for i, flow in enumerate(flows):
        if not isinstance(flow, dict) or flow.get("kind") not in NODE_KINDS:
            continue
        p = [*lvl.path, "flows", i]
        name = flow_parameter(flow).get("name")
        if isinstance(name, str):
            where = [*p, "flow_parameter", "name"]
            if name in lvl.nodes:
                also = format_path([*lvl.path, "flows", lvl.nodes[name]])
                lvl.problems.add(where, f"duplicate node name {name!r} (also {also}); rename one")
            elif name in SPECIAL:
                lvl.problems.add(where, f"{name!r} is reserved; choose another node name")
            elif not name.strip() or ":" in name or "|" in name:
                lvl.problems.add(where, f"invalid node name {name!r}: use a non-empty name without ':' or '|'")
            else:
                lvl.nodes[name] = i
                _hidden(name, "node name", where, lvl)
        if flow.get("kind") == "stategraph":
            _check_graph(flow, lvl.sub(p))
            continue
        _check_factory(flow, p, lvl)


def _check_factory(flow: dict[str, Any], p: list[PathPart], lvl: _Level) -> None:
    """The node's factory is registered, and its factory_parameter fits the factory's parameters model."""
    factory = flow_parameter(flow).get("factory")
    if lvl.reg is None or not isinstance(factory, str):
        return
    if not lvl.reg.has("node_factories", factory):
        hint = did_you_mean(factory, lvl.reg.names("node_factories")) or " (register it with Registry.add_node_factory)"
        lvl.problems.add([*p, "flow_parameter", "factory"], f"unknown factory {factory!r}{hint}")
        return
    model = lvl.reg.node_parameters(factory)
    params = flow.get("factory_parameter", {})
    if model is not None and isinstance(params, dict):  # not a dict: a structural problem, already reported
        check_parameters(model, params, [*p, "factory_parameter"], lvl.problems)


def _node_ref(name: Any, p: list[PathPart], lvl: _Level, *, as_start: bool) -> bool:
    if not isinstance(name, str):
        return False  # structural problem already reported
    if name in ("START", START) or name in ("END", END):
        bad = (name in ("END", END)) == as_start
        if bad:
            lvl.problems.add(p, "END cannot be an edge's start" if as_start else "START cannot be an edge's end")
        return not bad
    if name not in lvl.nodes:
        special = "START" if as_start else "END"
        nodes = set(lvl.nodes)
        hint = "" if lvl.problems.busy else did_you_mean(name, nodes | {special})
        hint = hint or f" (nodes: {', '.join(sorted(nodes)[:20]) or 'none'}{', ...' * (len(nodes) > 20)}; or {special})"
        lvl.problems.add(p, f"unknown node {name!r}{hint}")
        return False
    return True


def _check_edge(ffp: dict[str, Any], p: list[PathPart], lvl: _Level) -> None:
    sk, ek, join = ffp.get("start_key"), ffp.get("end_key"), ffp.get("wait_for") == "all"
    if isinstance(sk, list) and isinstance(ek, list):
        lvl.problems.add(
            p, "start_key and end_key are both lists; make one side a single node (split it into several edges)"
        )
        return
    if join and not (isinstance(sk, list) and len(sk) > 1):
        lvl.problems.add([*p, "wait_for"], "wait_for: all needs a list start_key of two or more nodes to wait for")
        return
    ok = True
    for j, s in enumerate(key_list(sk)):
        sp = [*p, "start_key", j] if isinstance(sk, list) else [*p, "start_key"]
        ok = _node_ref(s, sp, lvl, as_start=True) and ok
        if isinstance(sk, list) and s in ("START", START):
            ok = _start_in_list(sp, ek, join, lvl) and ok
    for j, e in enumerate(key_list(ek)):
        ok = _node_ref(e, [*p, "end_key", j] if isinstance(ek, list) else [*p, "end_key"], lvl, as_start=False) and ok
    if isinstance(sk, list) and not sk or isinstance(ek, list) and not ek:
        lvl.problems.add(p, "an empty list of keys; name at least one node")
        ok = False
    if not ok:
        return
    starts = [SPECIAL.get(s, s) for s in key_list(sk)]
    ends = [SPECIAL.get(e, e) for e in key_list(ek)]
    lvl.has_entry = lvl.has_entry or START in starts
    if join:
        lvl.flow.joins.append(Join(tuple(starts), ends[0], tuple(p)))
        return
    for s in starts:
        for e in ends:
            lvl.flow.add_edge(s, e)


def _start_in_list(sp: list[PathPart], ek: Any, join: bool, lvl: _Level) -> bool:
    """START inside a list start_key: refused in a join; otherwise refused (strict) or accepted (compat),
    its meaning (an edge from START) kept either way so nothing downstream is reported unreachable."""
    if join:
        lvl.problems.add(sp, "START cannot be part of a join (wait_for: all); use a separate edge from START")
        return False
    if lvl.compat:
        lvl.warnings.add(sp, f"START in a list start_key: an edge START -> {ek} (compat: kenkenpa)")
        return True
    lvl.problems.add(
        sp, f"START inside a list start_key; write a separate edge {{start_key: START, end_key: {ek}}}{COMPAT_HINT}"
    )
    return True


def _check_branch(kind: Any, ffp: dict[str, Any], p: list[PathPart], lvl: _Level) -> None:
    source: Any = START
    if kind == "configurable_conditional_edge":
        source = ffp.get("start_key")
        if source in ("START", START):
            lvl.problems.add([*p, "start_key"], "use a configurable_conditional_entry_point to route from START")
            return
        if not _node_ref(source, [*p, "start_key"], lvl, as_start=True):
            source = None
    else:
        lvl.has_entry = True
    path_map = ffp.get("path_map")
    if isinstance(path_map, (list, dict)):
        entries = path_map.items() if isinstance(path_map, dict) else enumerate(path_map)
        for key, target in entries:
            _node_ref(target, [*p, "path_map", key], lvl, as_start=False)
    else:
        path_map = None
    ctx = CheckContext(
        nodes=set(lvl.nodes),
        state_fields=lvl.fields,
        functions=set(lvl.reg.evaluation_functions) if lvl.reg is not None else None,
        path_map=path_map,
        compat=lvl.compat,
        warnings=lvl.warnings,
    )
    conditions = ffp.get("conditions")
    check_conditions(conditions, [*p, "conditions"], ctx, lvl.problems)
    if isinstance(source, str):
        possible, certain = _branch_targets(conditions, path_map, set(lvl.nodes))
        lvl.flow.add_branch(SPECIAL.get(source, source), possible, certain)


def _branch_targets(conds: Any, path_map: Any, nodes: set[str]) -> tuple[set[str], set[str]]:
    """The targets a conditional edge may go to, and those it goes to whatever holds."""
    if isinstance(path_map, dict):
        return {SPECIAL.get(v, v) for v in path_map.values() if isinstance(v, str)}, set()
    if isinstance(path_map, list):
        return {SPECIAL.get(v, v) for v in path_map if isinstance(v, str)}, set()
    if dynamic_targets(conds) or not isinstance(conds, list):
        return nodes | {END}, set()
    outcomes = [
        {SPECIAL.get(t, t) for t in (c[k] if isinstance(c[k], list) else [c[k]]) if isinstance(t, str)}
        for c in conds
        if isinstance(c, dict)
        for k in ("result", "default")
        if k in c
    ]
    certain = set.intersection(*outcomes) if outcomes else set()
    return {SPECIAL.get(t, t) for t in literal_targets(conds)}, certain


def _check_flow(lvl: _Level) -> None:
    reached = lvl.flow.reached()
    for name, i in lvl.nodes.items():
        if name not in reached and lvl.compat:
            lvl.warnings.add(
                [*lvl.path, "flows", i],
                f"node {name!r} is unreachable from START: built, never runs (compat: kenkenpa)",
            )
        elif name not in reached:
            lvl.problems.add(
                [*lvl.path, "flows", i],
                f"node {name!r} is unreachable from START (add an edge to it, or remove it){COMPAT_HINT}",
            )
    stuck = lvl.flow.cannot_finish()
    if stuck:
        names = ", ".join(repr(n) for n in sorted(stuck))
        lvl.problems.add(
            [*lvl.path, "flows"],
            f"{'nodes' if len(stuck) > 1 else 'node'} {names} can never reach END: a run that enters them loops "
            "until the step limit; add an edge or a condition from the loop to END (or to a node that reaches END)",
        )
    for s in lvl.flow.starving():
        starts = ", ".join(repr(m) for m in s.join.starts)
        missing = ", ".join(repr(m) for m in s.missing)
        after = "START" if s.after == START else repr(s.after)
        lvl.problems.add(
            [*s.join.path, "wait_for"],
            f"this join can starve: after {after} a conditional edge decides which of {starts} run "
            f"(not always: {missing}), so one may run without the others and then {s.join.end!r} never runs "
            f"(LangGraph waits for every start). Fix: drop wait_for: all to run {s.join.end!r} after whichever "
            f"start ran (kenkenpa's meaning), or make every branch after {after} reach all of them",
        )
