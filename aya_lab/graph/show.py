"""``aya-lab graph show SPEC`` (``python -m aya_lab.graph show SPEC``): a loaded spec as plain text.

What a reader needs to see the structure without reading YAML: the graph's name, kind and hash; its
state fields (name, type, reducer); each node in spec order with its factory and ``factory_parameter``
and, where the factory declares a parameters model, every field of the model (type, default, and the
value the spec set, or ``-``); then the edges and conditional edges. Subgraphs are shown the same way,
indented. Nothing is built: the text comes from the spec and the registry alone, so showing the room's
graph imports no model.
"""

from __future__ import annotations

import typing
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel
from pydantic.fields import FieldInfo

from aya_lab.graph.load import spec_hash
from aya_lab.graph.registry import LazyFactory, Registry
from aya_lab.graph.spec import (
    ConditionalEdgeSpec,
    ConditionalEntryPointSpec,
    EdgeSpec,
    GraphSpec,
    NodeSpec,
    key_list,
)

__all__ = ["show_spec"]

INDENT = "  "


def show_spec(spec: GraphSpec, registry: Registry | None = None) -> str:
    """The text of ``aya-lab graph show``: header, then :func:`graph_lines` of the top level."""
    mode = f", compat {spec.compat_mode}" if spec.compat_mode != "strict" else ""
    head = [f"graph {spec.name} ({spec.kind}{mode}), spec hash {spec_hash(spec)}"]
    files = [_relative(f) for f in spec.lineage]
    if files:
        over = f" (an overlay on {' <- '.join(reversed(files[:-1]))})" if len(files) > 1 else ""
        head.append(f"file {files[-1]}{over}")
    return "\n".join([*head, *graph_lines(spec, registry, "")]) + "\n"


def _relative(file: str) -> str:
    """A file as given, or relative to the working directory when it lies inside it."""
    path = Path(file)
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except (ValueError, OSError):
        return file


def _inline(value: Any) -> str:
    """A value as one line of flow-style YAML (as a spec writes it)."""
    text = yaml.safe_dump(value, default_flow_style=True, sort_keys=False, allow_unicode=True, width=10**9)
    return text.strip().removesuffix("...").strip()


def _table(rows: Sequence[Sequence[str]], indent: str) -> list[str]:
    """Rows as left-aligned columns (the last column is not padded)."""
    if not rows:
        return []
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]) - 1)]
    return [indent + "  ".join([*(c.ljust(w) for c, w in zip(r, widths, strict=False)), r[-1]]).rstrip() for r in rows]


def graph_lines(spec: GraphSpec, registry: Registry | None, indent: str) -> list[str]:
    """The state fields, nodes, edges and conditional edges of one graph level."""
    state = [
        [f.field_name, f.type, f"reducer {f.reducer}" if f.reducer else "(last value wins)"]
        for f in spec.flow_parameter.state
    ]
    lines = [f"{indent}state fields ({len(state)}):", *_table(state, indent + INDENT)]
    lines.append(f"{indent}nodes ({len(spec.nodes())}):")
    for node in spec.nodes():
        if isinstance(node, GraphSpec):
            lines.append(f"{indent}{INDENT}{node.name}  subgraph")
            lines += graph_lines(node, registry, indent + INDENT * 2)
        else:
            lines += _node_lines(node, registry, indent + INDENT)
    edges = [_edge(f) for f in spec.flows if isinstance(f, EdgeSpec)]
    lines += [f"{indent}edges ({len(edges)}):", *(f"{indent}{INDENT}{e}" for e in edges)]
    branches = [f for f in spec.flows if isinstance(f, (ConditionalEdgeSpec, ConditionalEntryPointSpec))]
    lines.append(f"{indent}conditional edges ({len(branches)}):")
    for flow in branches:
        lines += _branch_lines(flow, indent + INDENT)
    return lines


def _factory_ref(factory: Any) -> str:
    """Where a factory's code is: ``module:attr``."""
    if isinstance(factory, LazyFactory):
        return factory.ref
    module, name = getattr(factory, "__module__", None), getattr(factory, "__qualname__", None)
    return f"{module}:{name}" if module and name else repr(factory)


def _node_lines(node: NodeSpec, registry: Registry | None, indent: str) -> list[str]:
    name, factory = node.flow_parameter.name, node.flow_parameter.factory
    params = node.factory_parameter
    if registry is None or not registry.has("node_factories", factory):
        return [
            f"{indent}{name}  factory {factory} (not registered)",
            f"{indent}{INDENT}factory_parameter: {_inline(params)}",
        ]
    lines = [f"{indent}{name}  factory {factory} ({_factory_ref(registry.node_factories[factory])})"]
    lines.append(f"{indent}{INDENT}factory_parameter: {_inline(params)}")
    model = registry.node_parameters(factory)
    if model is None:
        return [*lines, f"{indent}{INDENT}parameters: no model declared (the factory takes the dict as it is)"]
    lines.append(f"{indent}{INDENT}parameters ({model.__name__}):")
    rows = [["field", "type", "default", "set in spec"]]
    rows += [_field_row(key, field, params) for key, field in _fields(model)]
    return [*lines, *_table(rows, indent + INDENT * 2)]


def _fields(model: type[BaseModel]) -> list[tuple[str, FieldInfo]]:
    return [(field.alias or name, field) for name, field in model.model_fields.items()]


def _type_name(annotation: Any) -> str:
    if isinstance(annotation, type) and not typing.get_args(annotation):
        return annotation.__name__
    return repr(annotation).replace("typing.", "")


def _field_row(key: str, field: FieldInfo, params: dict[str, Any]) -> list[str]:
    if field.is_required():
        default = "required"
    elif field.default_factory is not None:
        default = f"{getattr(field.default_factory, '__name__', 'factory')}()"
    else:
        default = _inline(field.default)
    return [key, _type_name(field.annotation), default, _inline(params[key]) if key in params else "-"]


def _edge(flow: EdgeSpec) -> str:
    fp = flow.flow_parameter
    starts, ends = key_list(fp.start_key), key_list(fp.end_key)
    start = " + ".join(starts) if fp.wait_for == "all" else ", ".join(starts)
    join = "  (join: waits for all of them)" if fp.wait_for == "all" else ""
    return f"{start} -> {', '.join(ends)}{join}"


def _branch_lines(flow: ConditionalEdgeSpec | ConditionalEntryPointSpec, indent: str) -> list[str]:
    fp = flow.flow_parameter
    source = flow.flow_parameter.start_key if isinstance(flow, ConditionalEdgeSpec) else "START"
    lines = [f"{indent}after {source} (every true condition is followed):"]
    for cond in fp.conditions:
        if "default" in cond:
            lines.append(f"{indent}{INDENT}otherwise -> {_inline(cond['default'])}")
        else:
            lines.append(f"{indent}{INDENT}if {_inline(cond.get('expression'))} -> {_inline(cond.get('result'))}")
    if fp.path_map is not None:
        lines.append(f"{indent}{INDENT}path_map: {_inline(fp.path_map)}")
    return lines
