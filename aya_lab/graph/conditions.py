"""Conditions: a tiny expression language for conditional edges, checked and compiled, never ``eval``ed.

A conditional edge (or entry point) has a list of conditions::

    conditions:
      - expression: {eq: [{type: state_value, name: route}, summarize]}
        result: summarize
      - expression: {and: [{gt: [{type: function, name: len.v1, args: {field: messages}}, 3]},
                           {not: {eq: [{type: config_value, name: mode}, quick]}}]}
        result: [a, b]                       # several nodes: fan-out
      - default: END

- comparisons: ``eq``/``equals``/``==``, ``neq``/``not_equals``/``!=``, ``gt``/``greater_than``/``>``,
  ``gte``/``greater_than_or_equals``/``>=``, ``lt``/``less_than``/``<``,
  ``lte``/``less_than_or_equals``/``<=``, each with exactly two operands;
- logic: ``and``/``or`` (a list), ``not`` (one expression), nested to any depth;
- operands: ``{type: state_value, name}``, ``{type: config_value, name}`` (from
  ``config["configurable"]``), ``{type: function, name, args}`` (a registered evaluation function called
  as ``fn(state, config, **args)``), or a literal scalar.

**Every** true condition's ``result`` is followed; the ``default`` only when none is true (in
kenkenpa's compatibility mode a missing default fails at run time, and several defaults are all
followed). A result or
default is a node name (``END`` allowed), a list of them, or an operand whose value is a node name,
a list of names, or ``Send`` objects (map-reduce). Simplification versus a general language: no
arithmetic, no attribute access, no ``in``; write an evaluation function for anything richer.

This module checks conditions; :mod:`aya_lab.graph.condition_compile` turns checked ones into the routing
function of a conditional edge.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from langgraph.constants import END, START

from aya_lab.graph.errors import COMPAT_HINT, PathPart, Problems, did_you_mean, format_path

if TYPE_CHECKING:
    from aya_lab.graph.spec import SpecData

__all__ = [
    "COMPARISONS",
    "OPERATOR_ALIASES",
    "OPERAND_TYPES",
    "CheckContext",
    "check_conditions",
    "literal_targets",
    "dynamic_targets",
]

COMPARISONS: dict[str, Callable[[Any, Any], Any]] = {
    "eq": operator.eq,
    "neq": operator.ne,
    "gt": operator.gt,
    "gte": operator.ge,
    "lt": operator.lt,
    "lte": operator.le,
}
OPERATOR_ALIASES: dict[str, str] = {
    **{k: k for k in COMPARISONS},
    "equals": "eq", "==": "eq",
    "not_equals": "neq", "!=": "neq",
    "greater_than": "gt", ">": "gt",
    "greater_than_or_equals": "gte", ">=": "gte",
    "less_than": "lt", "<": "lt",
    "less_than_or_equals": "lte", "<=": "lte",
}  # fmt: skip
LOGICAL = ("and", "or", "not")
OPERAND_TYPES = ("state_value", "config_value", "function")
_SCALARS = (str, int, float, bool, type(None))
SPECIAL_NAMES = {"END": END, "START": START, END: END, START: START}


@dataclass
class CheckContext:
    """What a condition may refer to: the graph's nodes and state fields, the registry's functions."""

    nodes: set[str]
    state_fields: set[str] | None = None
    functions: set[str] | None = None  # None: do not check function names (drawing with placeholders)
    path_map: list[str] | dict[str, str] | None = None
    compat: bool = False  # kenkenpa's compatibility mode: some problems become warnings
    warnings: Problems = field(default_factory=Problems)

    def refuse(self, path: list[PathPart], message: str, problems: Problems, *, warning: str) -> None:
        """Strict: a problem naming the compatibility mode. Compat: ``warning`` (what happens instead)."""
        if self.compat:
            self.warnings.add(path, f"{warning} (compat: kenkenpa)")
        else:
            problems.add(path, message + COMPAT_HINT)


# -- checking ------------------------------------------------------------------------------------------
def check_conditions(conditions: object, path: list[PathPart], ctx: CheckContext, problems: Problems) -> None:
    """Check a ``conditions`` list: each item's grammar, names, targets, and exactly one default."""
    if not isinstance(conditions, list):
        return  # the structural check reported it
    defaults = []
    for i, cond in enumerate(conditions):
        p = [*path, i]
        if not isinstance(cond, dict):
            continue  # reported structurally
        keys = set(cond)
        if "default" in keys:
            defaults.append(i)
            for extra in sorted(keys - {"default"}):
                problems.add(
                    [*p, extra], "unknown key: a default case has only 'default' (put it in its own list item)"
                )
            check_target(cond["default"], [*p, "default"], ctx, problems)
            continue
        for extra in sorted(keys - {"expression", "result"}):
            problems.add([*p, extra], f"unknown key{did_you_mean(extra, ['expression', 'result', 'default'])}")
        for required in ("expression", "result"):
            if required not in keys:
                problems.add([*p, required], "missing required key (a condition is {expression, result}; or {default})")
        if "expression" in keys:
            check_expression(cond["expression"], [*p, "expression"], ctx, problems)
        if "result" in keys:
            check_target(cond["result"], [*p, "result"], ctx, problems)
    if not defaults:
        ctx.refuse(
            path,
            "no default: add a last condition like {default: END} (the target when no condition holds)",
            problems,
            warning="no default: a run where no condition holds fails there",
        )
    for i in defaults[1:]:
        ctx.refuse(
            [*path, i, "default"],
            f"a second default (the first is {format_path([*path, defaults[0]])}); keep one",
            problems,
            warning="several defaults: all of them are followed when no condition holds",
        )


def check_expression(expr: object, path: list[PathPart], ctx: CheckContext, problems: Problems) -> None:
    if isinstance(expr, dict) and len(expr) > 1:  # compat: kenkenpa reads the first operator only
        first, *rest = (repr(str(k)) for k in expr)
        one = f"an expression is a mapping with exactly one operator, e.g. {{eq: [a, b]}}; got {len(expr)} keys"
        only = f"{len(expr)} operators in one expression: only the first, {first}, is evaluated (as kenkenpa does)"
        ctx.refuse(
            path, one + " (combine several with 'and' or 'or')", problems, warning=f"{only}; {', '.join(rest)} ignored"
        )
        if not ctx.compat:
            return
    if not isinstance(expr, dict) or not expr:
        got = f"{len(expr)} keys" if isinstance(expr, dict) else type(expr).__name__
        problems.add(path, f"an expression is a mapping with exactly one operator, e.g. {{eq: [a, b]}}; got {got}")
        return
    op, args = next(iter(expr.items()))  # several (compat: kenkenpa): the first, as kenkenpa reads them
    p = [*path, op]
    if op in ("and", "or"):
        if not isinstance(args, list) or not args:
            problems.add(p, f"'{op}' takes a non-empty list of expressions")
            return
        for i, sub in enumerate(args):
            check_expression(sub, [*p, i], ctx, problems)
    elif op == "not":
        check_expression(args, p, ctx, problems)
    elif op in OPERATOR_ALIASES:
        if not isinstance(args, list) or len(args) != 2:
            problems.add(
                p, f"'{op}' takes a list of exactly two operands, e.g. {op}: [{{type: state_value, name: x}}, 1]"
            )
            return
        for i, operand in enumerate(args):
            check_operand(operand, [*p, i], ctx, problems)
    else:
        ops = [*LOGICAL, *OPERATOR_ALIASES]
        hint = did_you_mean(op, ops) or f" (one of: {', '.join(LOGICAL)}, {', '.join(COMPARISONS)})"
        problems.add(p, f"unknown operator {op!r}{hint}")


def check_operand(value: object, path: list[PathPart], ctx: CheckContext, problems: Problems) -> None:
    if isinstance(value, dict):
        check_value_ref(value, path, ctx, problems)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            if not isinstance(item, _SCALARS):
                problems.add([*path, i], "a literal list may hold only scalars (strings, numbers, booleans, null)")
    elif not isinstance(value, _SCALARS):
        problems.add(
            path,
            f"an operand is a scalar or {{type: state_value|config_value|function, name: ...}}; got {type(value).__name__}",
        )


def check_value_ref(ref: SpecData, path: list[PathPart], ctx: CheckContext, problems: Problems) -> None:
    """``{type, name[, args]}``: the type is known, the name exists where it can be checked."""
    allowed = ["type", "name", "args"]
    for key in ref:
        if key not in allowed:
            problems.add(
                [*path, str(key)], f"unknown key{did_you_mean(key, allowed) or ' (valid keys: type, name, args)'}"
            )
    kind, name = ref.get("type"), ref.get("name")
    if "type" not in ref:
        problems.add([*path, "type"], f"missing required key (one of: {', '.join(OPERAND_TYPES)})")
    elif kind not in OPERAND_TYPES:
        hint = did_you_mean(kind, OPERAND_TYPES) or f" (one of: {', '.join(OPERAND_TYPES)})"
        problems.add([*path, "type"], f"unknown operand type {kind!r}{hint}")
    if "name" not in ref:
        problems.add([*path, "name"], "missing required key")
    elif not isinstance(name, str) or not name:
        problems.add([*path, "name"], f"expected a non-empty string, got {name!r}")
    elif kind == "function" and ctx.functions is not None and name not in ctx.functions:
        problems.add(
            path,
            f"unknown function {name!r}{did_you_mean(name, ctx.functions) or ' (register it with add_evaluation_function)'}",
        )
    elif kind == "state_value" and ctx.state_fields is not None and name not in ctx.state_fields:
        hint = (
            did_you_mean(name, ctx.state_fields) or f" (state fields: {', '.join(sorted(ctx.state_fields)) or 'none'})"
        )
        ctx.refuse(
            [*path, "name"],
            f"unknown state field {name!r}{hint}",
            problems,
            warning=f"unknown state field {name!r} is read as None",
        )
    if "args" in ref:
        if kind != "function":
            problems.add([*path, "args"], "only a function operand takes 'args'")
        elif not isinstance(ref["args"], dict) or not all(isinstance(k, str) for k in ref["args"]):
            problems.add([*path, "args"], "expected a mapping of keyword arguments")


def _valid_literal_targets(ctx: CheckContext) -> set[str]:
    if isinstance(ctx.path_map, dict):
        return set(ctx.path_map)
    if isinstance(ctx.path_map, list):
        return {t for t in ctx.path_map if isinstance(t, str)}
    return ctx.nodes | {"END", END}


def check_target(value: object, path: list[PathPart], ctx: CheckContext, problems: Problems) -> None:
    """A result/default: a node name, a list of names, or a value reference."""
    if isinstance(value, dict):
        check_value_ref(value, path, ctx, problems)
        return
    names = value if isinstance(value, list) else [value]
    if isinstance(value, list) and not value:
        problems.add(path, "an empty list of targets; name at least one node (or END)")
    valid = _valid_literal_targets(ctx)
    for i, name in enumerate(names):
        p = [*path, i] if isinstance(value, list) else path
        if not isinstance(name, str):
            problems.add(p, f"a target is a node name, a list of names, or {{type: ..., name: ...}}; got {name!r}")
        elif name in ("START", START):
            problems.add(p, "START cannot be a target")
        elif name not in valid:
            if ctx.path_map is not None:
                problems.add(p, f"{name!r} is not in this edge's path_map{did_you_mean(name, valid)}")
            else:
                hint = did_you_mean(name, valid) or f" (nodes: {', '.join(sorted(ctx.nodes)) or 'none'}; or END)"
                problems.add(p, f"unknown node {name!r}{hint}")


def _targets(conditions: Iterable[Any]) -> Iterable[Any]:
    for cond in conditions:
        if isinstance(cond, dict):
            for key in ("result", "default"):
                if key in cond:
                    yield cond[key]


def dynamic_targets(conditions: object) -> bool:
    """True when some result/default is computed at run time (a value reference)."""
    return isinstance(conditions, list) and any(isinstance(t, dict) for t in _targets(conditions))


def literal_targets(conditions: object) -> list[str]:
    """The literal target names of ``conditions``, in order, without duplicates."""
    out: list[str] = []
    if not isinstance(conditions, list):
        return out
    for t in _targets(conditions):
        for name in t if isinstance(t, list) else [t]:
            if isinstance(name, str) and name not in out:
                out.append(name)
    return out
