"""Checked conditions (:mod:`aya_lab.graph.conditions`) compiled into the routing function of a conditional
edge: operands become closures over state and config, expressions nested closures, and every true
condition's result is collected; nothing is ``eval``ed."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

from aya_lab.graph.conditions import COMPARISONS, OPERATOR_ALIASES, SPECIAL_NAMES
from aya_lab.graph.errors import ConditionError

if TYPE_CHECKING:
    from langchain_core.runnables import RunnableConfig
    from langgraph.types import Send

    from aya_lab.graph.registry import EvaluationFunction
    from aya_lab.graph.spec import SpecData

__all__ = ["compile_conditions"]

Fn = Callable[[Any, Any], Any]


def _state_get(state: Any, name: str) -> Any:
    if isinstance(state, dict):
        return state.get(name)
    return getattr(state, name, None)


def _compile_operand(value: Any, functions: dict[str, Callable[..., Any]]) -> Fn:
    if isinstance(value, dict):
        kind, name = value["type"], value["name"]
        if kind == "state_value":
            return lambda s, c: _state_get(s, name)
        if kind == "config_value":
            return lambda s, c: ((c or {}).get("configurable") or {}).get(name)
        fn, args = functions[name], dict(value.get("args") or {})
        return lambda s, c: fn(s, c, **args)
    return lambda s, c: value


def _compile_expression(expr: dict[str, Any], functions: dict[str, Callable[..., Any]], where: str) -> Fn:
    op, args = next(iter(expr.items()))  # only the first operator: kenkenpa's reading (a warning at load)
    if op in ("and", "or"):
        subs = [_compile_expression(e, functions, f"{where}.{op}[{i}]") for i, e in enumerate(args)]
        if op == "and":
            return lambda s, c: all(f(s, c) for f in subs)
        return lambda s, c: any(f(s, c) for f in subs)
    if op == "not":
        sub = _compile_expression(args, functions, f"{where}.not")
        return lambda s, c: not sub(s, c)
    compare = COMPARISONS[OPERATOR_ALIASES[op]]
    left, right = (_compile_operand(a, functions) for a in args)

    def evaluate(s: Any, c: Any) -> bool:
        a, b = left(s, c), right(s, c)
        try:
            return bool(compare(a, b))
        except TypeError as exc:
            raise ConditionError(f"{where}: cannot evaluate {op!r} on {a!r} and {b!r} ({exc})") from exc

    return evaluate


def _normalize_targets(value: Any, convert: bool, where: str) -> list[Any]:
    from langgraph.types import Send  # at run time: langgraph.types costs a second that validation skips

    items = list(value) if isinstance(value, (list, tuple)) else [value]
    out: list[Any] = []
    for item in items:
        if isinstance(item, Send):
            out.append(item)
        elif isinstance(item, str):
            out.append(SPECIAL_NAMES.get(item, item) if convert else item)
        else:
            raise ConditionError(f"{where}: a target must be a node name or a Send, got {item!r}")
    return out


def _compile_target(value: Any, functions: dict[str, Callable[..., Any]], convert: bool, where: str) -> Fn:
    if isinstance(value, dict):
        get = _compile_operand(value, functions)
        return lambda s, c: _normalize_targets(get(s, c), convert, where)
    fixed = _normalize_targets(value, convert, where)
    return lambda s, c: list(fixed)


def compile_conditions(
    conditions: list[SpecData],
    functions: dict[str, EvaluationFunction],
    *,
    path_map_is_dict: bool = False,
    where: str = "conditions",
    name: str = "route",
) -> Callable[[object, RunnableConfig], list[str | Send]]:
    """A router ``(state, config) -> [targets]`` for validated ``conditions``."""
    convert = not path_map_is_dict
    cases: list[tuple[Fn, Fn]] = []
    defaults: list[Fn] = []  # several only in compatibility mode: all are followed, like kenkenpa
    for i, cond in enumerate(conditions):
        if "default" in cond:
            defaults.append(_compile_target(cond["default"], functions, convert, f"{where}[{i}].default"))
        else:
            cases.append(
                (
                    _compile_expression(cast("SpecData", cond["expression"]), functions, f"{where}[{i}].expression"),
                    _compile_target(cond["result"], functions, convert, f"{where}[{i}].result"),
                )
            )

    def route(state: Any, config: Any) -> list[Any]:
        out: list[Any] = []
        for test, target in cases:
            if test(state, config):
                out.extend(target(state, config))
        if not out:
            if not defaults:
                raise ConditionError(f"{where}: no condition held and there is no default; add {{default: END}}")
            for default in defaults:
                out.extend(default(state, config))
        seen: set[str] = set()
        unique = []
        for t in out:
            if isinstance(t, str):
                if t in seen:
                    continue
                seen.add(t)
            unique.append(t)
        return unique

    route.__name__ = route.__qualname__ = name
    # LangGraph passes the config to a callable whose 'config' parameter is typed RunnableConfig.
    from langchain_core.runnables import RunnableConfig

    route.__annotations__ = {"state": Any, "config": RunnableConfig, "return": list}
    return route
