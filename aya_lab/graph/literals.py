"""Two checks on a parsed spec's literals, made before any value is built from them:

- a **duplicate key** in a YAML mapping (YAML's loaders keep the last value silently, so a spec with
  ``end_key: END`` twice, or ``flows:`` twice, would mean something its author did not read);
- an **integer literal** with more than :data:`MAX_INT_DIGITS` digits (a spec's numbers are counts,
  limits and thresholds; Python refuses to convert more than 4,300 digits, with a traceback).

Each finds the first problem and returns ``(mark, message)``: :mod:`aya_lab.graph.reader` turns it
into one located :class:`~aya_lab.graph.errors.SpecFileError` line ``FILE:LINE:COL: message``.
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable

import yaml

from aya_lab.graph.errors import PathPart, format_path

__all__ = ["MAX_INT_DIGITS", "int_literal_problem", "json_int_offset", "yaml_node_problem"]

MAX_INT_DIGITS = 18
"""The most digits an integer literal in a spec may have (``999999999999999999`` fits in 64 bits)."""

_INT_TAG = "tag:yaml.org,2002:int"
_RADIX = re.compile(r"^[-+]?(0[xXoObB])?")
_JSON_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?')


def _digits(literal: str) -> int:
    return sum(ch in string.hexdigits for ch in _RADIX.sub("", literal, count=1))


def int_literal_problem(literal: str, where: str = "") -> str | None:
    """The message refusing integer ``literal`` (``where``: the key path it is at), or None if short enough."""
    n = _digits(literal)
    if n <= MAX_INT_DIGITS:
        return None
    shown = literal if len(literal) <= 24 else f"{literal[:12]}...{literal[-4:]}"
    at = f" at {where}" if where else ""
    return (
        f"integer {shown}{at} has {n} digits, over the limit of {MAX_INT_DIGITS} for a number in a graph spec; "
        "write a smaller number, or quote it to make it a string"
    )


def yaml_node_problem(root: yaml.Node | None, construct: Callable[[yaml.Node], object]) -> tuple[yaml.Mark, str] | None:
    """The first duplicate mapping key or too long integer literal under ``root`` (a composed YAML
    document, walked without recursion), as ``(mark, message)``; ``construct`` builds a scalar key, so
    that keys equal once built (``1`` and ``01``, ``yes`` and ``true``) count as duplicates."""
    stack: list[tuple[yaml.Node, tuple[PathPart, ...]]] = [(root, ())] if root is not None else []
    while stack:
        node, path = stack.pop()
        if isinstance(node, yaml.ScalarNode):
            problem = int_literal_problem(node.value, format_path(path)) if node.tag == _INT_TAG else None
            if problem:
                return node.start_mark, problem
        elif isinstance(node, yaml.SequenceNode):
            stack.extend((child, (*path, i)) for i, child in reversed(list(enumerate(node.value))))
        elif isinstance(node, yaml.MappingNode):
            found = _duplicate_key(node, path, construct)
            if found:
                return found
            for key, value in reversed(node.value):  # popped in document order: a key, then its value
                stack.append((value, (*path, _key_name(key))))
                stack.append((key, path))
    return None


def _key_name(key: yaml.Node) -> str:
    return key.value if isinstance(key, yaml.ScalarNode) else "<key>"


def _duplicate_key(
    node: yaml.MappingNode, path: tuple[PathPart, ...], construct: Callable[[yaml.Node], object]
) -> tuple[yaml.Mark, str] | None:
    first: dict[object, yaml.Node] = {}
    for key, _ in node.value:
        if not isinstance(key, yaml.ScalarNode):
            continue  # a list or mapping as a key: the constructor refuses it, located
        problem = int_literal_problem(key.value, format_path(path)) if key.tag == _INT_TAG else None
        if problem:
            return key.start_mark, problem
        built = construct(key)  # the key as the mapping will hold it: 1, 1.0 and true are one key
        if built in first:
            where = format_path((*path, str(key.value)))
            line = first[built].start_mark.line + 1
            return key.start_mark, (
                f"duplicate key {where} (first at line {line}); YAML keeps only the last silently: "
                "keep one of them and remove the other"
            )
        first[built] = key
    return None


def json_int_offset(text: str) -> int | None:
    """The offset of the first JSON integer (outside strings) with more than :data:`MAX_INT_DIGITS` digits."""
    for match in _JSON_TOKEN.finditer(text):
        token = match.group()
        if not token.startswith('"') and not any(c in token for c in ".eE") and _digits(token) > MAX_INT_DIGITS:
            return match.start()
    return None
