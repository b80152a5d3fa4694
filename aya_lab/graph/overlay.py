"""Overlays: a variant spec is a base spec plus a short list of changes.

::

    # one_call_summarizer.yaml
    base: aya.yaml                      # relative to this file; may itself be an overlay
    name: Aya-one-call                  # optional: rename the top-level graph
    changes:
      - replace_node: supervisor        # swap the factory and/or its parameters
        factory: aya_supervisor.v1
        factory_parameter: {summarizer: one_call}
      - update_node: translate_lena     # deep-merge into factory_parameter
        factory_parameter: {context_window: 3}
      - remove_edge: {start_key: translate, end_key: route}
      - add_edge: {start_key: route, end_key: translate}
      - add_node: {name: critic, factory: const_update.v1, factory_parameter: {update: {}}}
      - remove_node: critic             # also drops plain edges touching it
      - remove_conditional_edge: route  # START removes the conditional entry point
      - add_flow: {kind: configurable_conditional_edge, flow_parameter: {...}}
      - add_state_field: {field_name: notes, type: list, reducer: operator.add}

``base`` must lie in the overlay's own folder (or a subfolder) or in the packaged ``aya_lab/graphs``;
any other path is refused before it is opened (:func:`aya_lab.graph.reader.confine_base`).
Every change may name a subgraph with ``graph: Sub`` (``Sub/Inner`` for deeper ones). Changes apply
in order to plain data; the result is then validated like any spec, and its content hash is the
variant's identity. Errors in the changes themselves are located (``changes[2].replace_node: ...``).
"""

from __future__ import annotations

import copy
from typing import Any, cast

from pydantic import BaseModel, ConfigDict

from aya_lab.graph.errors import PathPart, Problems, did_you_mean
from aya_lab.graph.spec import EdgeParameter, SpecData, StateFieldSpec
from aya_lab.graph.structure import check_model

__all__ = ["OverlaySpec", "is_overlay", "apply_changes", "check_overlay_structure", "CHANGE_OPS"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class AddNodeBody(_Model):
    name: str
    factory: str
    factory_parameter: SpecData = {}


class ReplaceNode(_Model):
    replace_node: str
    factory: str | None = None
    factory_parameter: SpecData | None = None
    graph: str | None = None


class UpdateNode(_Model):
    update_node: str
    factory_parameter: SpecData
    graph: str | None = None


class AddNode(_Model):
    add_node: AddNodeBody
    graph: str | None = None


class RemoveNode(_Model):
    remove_node: str
    graph: str | None = None


class AddEdge(_Model):
    add_edge: EdgeParameter
    graph: str | None = None


class RemoveEdge(_Model):
    remove_edge: EdgeParameter
    graph: str | None = None


class AddFlow(_Model):
    add_flow: SpecData
    graph: str | None = None


class RemoveConditionalEdge(_Model):
    remove_conditional_edge: str
    graph: str | None = None


class AddStateField(_Model):
    add_state_field: StateFieldSpec
    graph: str | None = None


CHANGE_OPS: dict[str, type[_Model]] = {
    "replace_node": ReplaceNode,
    "update_node": UpdateNode,
    "add_node": AddNode,
    "remove_node": RemoveNode,
    "add_edge": AddEdge,
    "remove_edge": RemoveEdge,
    "add_flow": AddFlow,
    "remove_conditional_edge": RemoveConditionalEdge,
    "add_state_field": AddStateField,
}
Change = (
    ReplaceNode
    | UpdateNode
    | AddNode
    | RemoveNode
    | AddEdge
    | RemoveEdge
    | AddFlow
    | RemoveConditionalEdge
    | AddStateField
)


class OverlaySpec(_Model):
    """A variant: ``base`` (a spec file, relative to the overlay and inside its folder) plus ordered ``changes``."""

    base: str
    name: str | None = None
    description: str | None = None
    changes: list[Change] = []


def is_overlay(data: object) -> bool:
    return isinstance(data, dict) and "base" in data and "kind" not in data


def _op_of(change: dict[str, Any]) -> list[str]:
    return [k for k in change if k in CHANGE_OPS]


def check_overlay_structure(data: SpecData, problems: Problems) -> None:
    """Keys and types of the overlay and of each change (dispatching on the operation key)."""
    top = {k: v for k, v in data.items() if k != "changes"}
    check_model(top, OverlaySpec, [], problems)
    changes = data.get("changes", [])
    if not isinstance(changes, list):
        problems.add(["changes"], "expected a list of changes")
        return
    for i, change in enumerate(changes):
        path: list[PathPart] = ["changes", i]
        if not isinstance(change, dict):
            problems.add(path, f"expected a mapping with one of: {', '.join(CHANGE_OPS)}")
            continue
        ops = _op_of(change)
        if len(ops) != 1:
            unknown = [k for k in change if k not in CHANGE_OPS and k not in ("graph", "factory", "factory_parameter")]
            hint = did_you_mean(unknown[0], CHANGE_OPS) if unknown else ""
            what = "several operations " + ", ".join(ops) if ops else "no operation"
            problems.add(path, f"{what}: a change has exactly one of {', '.join(CHANGE_OPS)}{hint}")
            continue
        check_model(change, CHANGE_OPS[ops[0]], path, problems)


# -- applying -----------------------------------------------------------------------------------------
def _flows(graph: dict[str, Any]) -> list[Any]:
    flows = graph.get("flows")
    if not isinstance(flows, list):
        flows = graph["flows"] = []
    return flows


def _name(flow: Any) -> Any:
    return (
        flow.get("flow_parameter", {}).get("name")
        if isinstance(flow, dict) and isinstance(flow.get("flow_parameter"), dict)
        else None
    )


def _find_graph(
    root: dict[str, Any], where: str | None, path: list[PathPart], problems: Problems
) -> dict[str, Any] | None:
    graph = root
    for part in [p for p in (where or "").split("/") if p]:
        subs = {_name(f): f for f in _flows(graph) if isinstance(f, dict) and f.get("kind") == "stategraph"}
        if part not in subs:
            problems.add(
                [*path, "graph"], f"no subgraph {part!r}{did_you_mean(part, [s for s in subs if isinstance(s, str)])}"
            )
            return None
        graph = subs[part]
    return graph


def _node_index(graph: dict[str, Any], name: str) -> int | None:
    for i, f in enumerate(_flows(graph)):
        if isinstance(f, dict) and f.get("kind") in ("node", "stategraph") and _name(f) == name:
            return i
    return None


def _node_names(graph: dict[str, Any]) -> list[str]:
    return [
        n
        for f in _flows(graph)
        if isinstance(f, dict) and f.get("kind") in ("node", "stategraph") and isinstance(n := _name(f), str)
    ]


def _deep_merge(base: Any, update: Any) -> Any:
    if isinstance(base, dict) and isinstance(update, dict):
        out = dict(base)
        for k, v in update.items():
            out[k] = _deep_merge(base.get(k), v)
        return out
    return copy.deepcopy(update)


def _as_list(key: Any) -> list[Any]:
    return list(key) if isinstance(key, list) else [key]


def _same_edge(flow: Any, edge: dict[str, Any] | None) -> bool:
    """Is ``flow`` a plain edge (``edge`` None), or the edge with ``edge``'s start and end keys?"""
    if not (isinstance(flow, dict) and flow.get("kind") == "edge" and isinstance(flow.get("flow_parameter"), dict)):
        return False
    if edge is None:
        return True
    fp = flow["flow_parameter"]
    return _as_list(fp.get("start_key")) == _as_list(edge["start_key"]) and _as_list(fp.get("end_key")) == _as_list(
        edge["end_key"]
    )


def _insert_node(graph: dict[str, Any], flow: dict[str, Any]) -> None:
    flows = _flows(graph)
    last = max(
        (i for i, f in enumerate(flows) if isinstance(f, dict) and f.get("kind") in ("node", "stategraph")), default=-1
    )
    flows.insert(last + 1, flow)


def apply_changes(base: SpecData, overlay: SpecData, problems: Problems) -> SpecData:
    """Apply a structurally valid overlay's changes to a copy of the resolved ``base`` spec data."""
    spec = copy.deepcopy(base)
    if overlay.get("name") is not None and isinstance(top := spec.get("flow_parameter"), dict):
        top["name"] = overlay["name"]
    for i, change in enumerate(cast("list[SpecData]", overlay.get("changes", []))):
        (op,) = _op_of(change)
        path: list[PathPart] = ["changes", i]
        graph = _find_graph(spec, cast("str | None", change.get("graph")), path, problems)
        if graph is not None:
            _APPLY[op](graph, change, [*path, op], problems)
    return spec


def _change_node(graph: dict[str, Any], change: dict[str, Any], p: list[PathPart], problems: Problems) -> None:
    """``replace_node``, ``update_node`` and ``remove_node``."""
    op = str(p[-1])
    arg = change[op]
    idx = _node_index(graph, arg)
    if idx is None:
        problems.add(p, f"no node {arg!r} in graph {_name(graph)!r}{did_you_mean(arg, _node_names(graph))}")
        return
    flow = _flows(graph)[idx]
    if op == "remove_node":
        _remove_node(graph, idx, arg)
    elif flow.get("kind") != "node":
        problems.add(p, f"{arg!r} is a subgraph; change its nodes with graph: {arg}")
    elif op == "update_node":
        flow["factory_parameter"] = _deep_merge(flow.get("factory_parameter") or {}, change["factory_parameter"])
    else:
        if change.get("factory") is None and change.get("factory_parameter") is None:
            problems.add(p, "nothing to replace: give factory and/or factory_parameter")
        if change.get("factory") is not None:
            flow.setdefault("flow_parameter", {})["factory"] = change["factory"]
        if change.get("factory_parameter") is not None:
            flow["factory_parameter"] = copy.deepcopy(change["factory_parameter"])


def _add_node(graph: dict[str, Any], change: dict[str, Any], p: list[PathPart], problems: Problems) -> None:
    arg = change["add_node"]
    if _node_index(graph, arg["name"]) is not None:
        problems.add([*p, "name"], f"node {arg['name']!r} already exists; use replace_node to change it")
        return
    _insert_node(
        graph,
        {
            "kind": "node",
            "flow_parameter": {"name": arg["name"], "factory": arg["factory"]},
            "factory_parameter": copy.deepcopy(arg.get("factory_parameter") or {}),
        },
    )


def _add_edge(graph: dict[str, Any], change: dict[str, Any], p: list[PathPart], problems: Problems) -> None:
    _flows(graph).append({"kind": "edge", "flow_parameter": copy.deepcopy(change["add_edge"])})


def _remove_edge(graph: dict[str, Any], change: dict[str, Any], p: list[PathPart], problems: Problems) -> None:
    arg = change["remove_edge"]
    flows = _flows(graph)
    hits = [j for j, f in enumerate(flows) if _same_edge(f, arg)]
    if not hits:
        starts = set(_as_list(arg["start_key"]))
        near = [
            f"{f['flow_parameter'].get('start_key')} -> {f['flow_parameter'].get('end_key')}"
            for f in flows
            if _same_edge(f, None) and set(_as_list(f["flow_parameter"].get("start_key"))) & starts
        ]
        hint = f" (edges from there: {'; '.join(near)})" if near else ""
        problems.add(p, f"no edge {arg['start_key']} -> {arg['end_key']} in graph {_name(graph)!r}{hint}")
    for j in reversed(hits):
        del flows[j]


def _add_flow(graph: dict[str, Any], change: dict[str, Any], p: list[PathPart], problems: Problems) -> None:
    arg = change["add_flow"]
    if arg.get("kind") not in ("node", "stategraph"):
        _flows(graph).append(copy.deepcopy(arg))
    elif isinstance(n := _name(arg), str) and _node_index(graph, n) is not None:
        problems.add(p, f"node {n!r} already exists; use replace_node to change it")
    else:
        _insert_node(graph, copy.deepcopy(arg))


def _remove_branch(graph: dict[str, Any], change: dict[str, Any], p: list[PathPart], problems: Problems) -> None:
    arg = change["remove_conditional_edge"]
    flows = _flows(graph)
    if arg in ("START", "__start__"):
        hits = [
            j
            for j, f in enumerate(flows)
            if isinstance(f, dict) and f.get("kind") == "configurable_conditional_entry_point"
        ]
    else:
        hits = [
            j for j, f in enumerate(flows)
            if isinstance(f, dict) and f.get("kind") == "configurable_conditional_edge"
            and isinstance(f.get("flow_parameter"), dict) and f["flow_parameter"].get("start_key") == arg
        ]  # fmt: skip
    if not hits:
        problems.add(p, f"no conditional edge from {arg!r} in graph {_name(graph)!r}")
    for j in reversed(hits):
        del flows[j]


def _add_state_field(graph: dict[str, Any], change: dict[str, Any], p: list[PathPart], problems: Problems) -> None:
    arg = change["add_state_field"]
    state = graph.setdefault("flow_parameter", {}).setdefault("state", [])
    if any(isinstance(f, dict) and f.get("field_name") == arg["field_name"] for f in state):
        problems.add([*p, "field_name"], f"state field {arg['field_name']!r} already exists")
        return
    state.append(copy.deepcopy(arg))


_APPLY = {
    "replace_node": _change_node,
    "update_node": _change_node,
    "remove_node": _change_node,
    "add_node": _add_node,
    "add_edge": _add_edge,
    "remove_edge": _remove_edge,
    "add_flow": _add_flow,
    "remove_conditional_edge": _remove_branch,
    "add_state_field": _add_state_field,
}


def _remove_node(graph: dict[str, Any], idx: int, name: str) -> None:
    """Remove a node and the plain edges (and conditional edges) that start or end at it."""
    flows = _flows(graph)
    del flows[idx]
    keep = []
    for f in flows:
        if not isinstance(f, dict) or not isinstance(f.get("flow_parameter"), dict):
            keep.append(f)
            continue
        fp = f["flow_parameter"]
        if f.get("kind") == "edge":
            starts = [k for k in _as_list(fp.get("start_key")) if k != name]
            ends = [k for k in _as_list(fp.get("end_key")) if k != name]
            if not starts or not ends:
                continue
            fp["start_key"] = starts if isinstance(fp.get("start_key"), list) else starts[0]
            fp["end_key"] = ends if isinstance(fp.get("end_key"), list) else ends[0]
        elif f.get("kind") == "configurable_conditional_edge" and fp.get("start_key") == name:
            continue
        keep.append(f)
    flows[:] = keep
