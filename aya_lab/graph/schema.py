"""The JSON Schema (draft 2020-12) of a spec file: a ``stategraph`` spec or an overlay."""

from __future__ import annotations

from typing import Any

from aya_lab.graph.conditions import OPERAND_TYPES, OPERATOR_ALIASES
from aya_lab.graph.overlay import OverlaySpec
from aya_lab.graph.spec import CONDITION_MARK, GraphSpec

__all__ = ["json_schema", "CONDITION_DEFS", "CONDITION_REF"]

CONDITION_REF = {"$ref": "#/$defs/Condition"}
_SCALAR_TYPES = ["string", "number", "integer", "boolean", "null"]
CONDITION_DEFS: dict[str, Any] = {
    "Condition": {
        "description": "{expression, result} (followed when true; every true one is followed) or {default}.",
        "oneOf": [
            {
                "type": "object",
                "properties": {"expression": {"$ref": "#/$defs/Expression"}, "result": {"$ref": "#/$defs/Target"}},
                "required": ["expression", "result"],
                "additionalProperties": False,
            },
            {
                "type": "object",
                "properties": {"default": {"$ref": "#/$defs/Target"}},
                "required": ["default"],
                "additionalProperties": False,
            },
        ],
    },
    "Expression": {
        "description": "Exactly one operator: a comparison of two operands, or and/or/not.",
        "type": "object",
        "minProperties": 1,
        "maxProperties": 1,
        "properties": {
            "and": {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/Expression"}},
            "or": {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/Expression"}},
            "not": {"$ref": "#/$defs/Expression"},
            **{
                op: {"type": "array", "minItems": 2, "maxItems": 2, "items": {"$ref": "#/$defs/Operand"}}
                for op in OPERATOR_ALIASES
            },
        },
        "additionalProperties": False,
    },
    "Operand": {
        "anyOf": [
            {"$ref": "#/$defs/ValueRef"},
            {"type": _SCALAR_TYPES},
            {"type": "array", "items": {"type": _SCALAR_TYPES}},
        ]
    },
    "ValueRef": {
        "type": "object",
        "properties": {
            "type": {"enum": list(OPERAND_TYPES)},
            "name": {"type": "string", "minLength": 1},
            "args": {"type": "object", "description": "keyword arguments (functions only)"},
        },
        "required": ["type", "name"],
        "additionalProperties": False,
    },
    "Target": {
        "description": "A node name (or END), a list of names (fan-out), or a value returning names or Sends.",
        "anyOf": [
            {"type": "string"},
            {"type": "array", "minItems": 1, "items": {"type": "string"}},
            {"$ref": "#/$defs/ValueRef"},
        ],
    },
}


def json_schema() -> dict[str, object]:
    """JSON Schema (draft 2020-12) for a spec file: a ``stategraph`` spec or an overlay."""
    graph = GraphSpec.model_json_schema(ref_template="#/$defs/{model}")
    overlay = OverlaySpec.model_json_schema(ref_template="#/$defs/{model}")
    defs: dict[str, Any] = {**graph.pop("$defs", {}), **overlay.pop("$defs", {}), **CONDITION_DEFS}
    for name, schema in (("GraphSpec", graph), ("OverlaySpec", overlay)):
        if "$ref" not in schema:  # a recursive model's schema is only a $ref into $defs
            defs[name] = schema

    def fix(node: Any) -> Any:
        if node == CONDITION_MARK:
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
