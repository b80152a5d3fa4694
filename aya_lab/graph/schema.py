"""The JSON Schema (draft 2020-12) of a spec file: a ``stategraph`` spec or an overlay."""

from __future__ import annotations

from typing import Any

from aya_lab.graph.conditions import CONDITION_DEFS, CONDITION_REF
from aya_lab.graph.overlay import OverlaySpec
from aya_lab.graph.spec import _CONDITION_MARK, GraphSpec

__all__ = ["json_schema"]


def json_schema() -> dict[str, Any]:
    """JSON Schema (draft 2020-12) for a spec file: a ``stategraph`` spec or an overlay."""
    graph = GraphSpec.model_json_schema(ref_template="#/$defs/{model}")
    overlay = OverlaySpec.model_json_schema(ref_template="#/$defs/{model}")
    defs: dict[str, Any] = {**graph.pop("$defs", {}), **overlay.pop("$defs", {}), **CONDITION_DEFS}
    for name, schema in (("GraphSpec", graph), ("OverlaySpec", overlay)):
        if "$ref" not in schema:  # a recursive model's schema is only a $ref into $defs
            defs[name] = schema

    def fix(node: Any) -> Any:
        if node == _CONDITION_MARK:
            return dict(CONDITION_REF)
        if isinstance(node, dict):
            return {k: fix(v) for k, v in node.items()}
        if isinstance(node, list):
            return [fix(v) for v in node]
        return node

    defs = fix(defs)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://aya-lab/graph-spec.schema.json",
        "title": "aya_lab graph spec",
        "description": "A LangGraph StateGraph as data (kenkenpa format), or an overlay on a base spec.",
        "anyOf": [{"$ref": "#/$defs/GraphSpec"}, {"$ref": "#/$defs/OverlaySpec"}],
        "$defs": defs,
    }
