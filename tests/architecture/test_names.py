"""No public name is defined in two modules of the package: a reader (and a search) that finds ``report`` or
``COLUMNS`` finds one thing. Where two modules mean the same thing, one defines it and the other imports it;
where they mean different things, each name says which.

Public: no leading underscore (so a dunder such as ``__all__`` or a package's ``__getattr__`` is not a
name here). Defined: at the top level of a module (also inside a top-level ``if``, ``try`` or ``with``),
by ``def``, ``class``, an assignment (plain, annotated, or a ``type`` alias) or a tuple of assignment
targets. A re-export by import is not a definition. Parsed with ``ast``; nothing is imported.
"""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Iterable, Iterator

from tests.architecture.package_scan import PACKAGE, parsed_modules

_BLOCKS = (ast.If, ast.Try, ast.With, *((ast.TryStar,) if hasattr(ast, "TryStar") else ()))


def _statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """The statements of ``body`` and of the blocks it opens (``if``, ``try``, ``with``), not of its
    functions and classes."""
    for node in body:
        yield node
        if isinstance(node, _BLOCKS):
            for part in ("body", "orelse", "finalbody"):
                yield from _statements(getattr(node, part, []))
            for handler in getattr(node, "handlers", []):
                yield from _statements(handler.body)


def _targets(node: ast.stmt) -> list[ast.expr]:
    if isinstance(node, ast.Assign):
        return node.targets
    if isinstance(node, ast.AnnAssign):
        return [node.target]
    if isinstance(node, getattr(ast, "TypeAlias", ())):  # ``type X = ...`` (Python 3.12)
        return [node.name]
    return []


def defined_names(tree: ast.Module) -> dict[str, int]:
    """The public names ``tree`` defines at its top level, each with the line of its first definition."""
    names: dict[str, int] = {}
    for node in _statements(tree.body):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            found = [node.name]
        else:
            found = [n.id for t in _targets(node) for n in ast.walk(t) if isinstance(n, ast.Name)]
        for name in found:
            if not name.startswith("_"):
                names.setdefault(name, node.lineno)
    return names


def defined_twice(modules: Iterable[tuple[str, ast.Module]]) -> dict[str, list[str]]:
    """Each public name defined in more than one of ``modules`` (``(where, tree)`` pairs), with the
    ``where:line`` of every definition."""
    places: dict[str, list[str]] = {}
    for where, tree in modules:
        for name, line in defined_names(tree).items():
            places.setdefault(name, []).append(f"{where}:{line}")
    return {name: found for name, found in sorted(places.items()) if len(found) > 1}


def test_no_public_name_is_defined_twice():
    modules = [(str(path.relative_to(PACKAGE.parent)), tree) for path, tree in parsed_modules()]
    found = defined_twice(modules)
    assert not found, (
        "public names defined in more than one module (keep one definition and import it, or give each a "
        "name that says what it is; a logger or a TypeVar is private):\n"
        + "\n".join(f"{name}: {', '.join(where)}" for name, where in found.items())
    )


PLANTED_A = """
import logging
from typing import TypeVar

from aya_lab.b import Imported

__all__ = ["ROWS", "report", "Record"]
_log = logging.getLogger(__name__)
_T = TypeVar("_T")
ROWS = [1]
LIMIT: int = 3
first, (second, third) = 1, (2, 3)


def report(): ...


class Record: ...
"""

PLANTED_B = """
import logging
from typing import TYPE_CHECKING, Protocol

from aya_lab.a import report  # a re-export, not a definition

if TYPE_CHECKING:
    from aya_lab.a import first

__all__ = ["report", "ROWS", "Imported"]
__getattr__ = None
_log = logging.getLogger(__name__)
ROWS = (2,)
third = 4
try:
    import yaml
except ImportError:
    yaml = None


class Record(Protocol):
    LIMIT = 5  # a class attribute, not a module's name

    def report(self): ...


def Imported(): ...


def _private(): ...
"""


def test_the_rule_finds_a_planted_duplicate_and_ignores_imports_privates_and_dunders():
    modules = [("a.py", ast.parse(PLANTED_A)), ("b.py", ast.parse(PLANTED_B))]
    assert defined_names(modules[1][1]) == {"ROWS": 13, "third": 14, "yaml": 18, "Record": 21, "Imported": 27}
    assert defined_twice(modules) == {
        "ROWS": ["a.py:10", "b.py:13"],
        "Record": ["a.py:18", "b.py:21"],
        "third": ["a.py:12", "b.py:14"],
    }


def test_no_module_defines_a_top_level_name_twice():
    """A name bound twice at a module's top level (two functions, or a constant reassigned) silently keeps the
    last: what merging two modules into one can do. ``@overload`` stubs are declarations, not bindings."""
    twice = []
    for path, tree in parsed_modules():
        defs = [n for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)]
        names = [n.name for n in defs if not any("overload" in ast.unparse(d) for d in n.decorator_list)]
        names += [t.id for n in tree.body if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)]
        names += [n.target.id for n in tree.body if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)]
        twice += [f"{path.name}: {name}" for name, k in Counter(names).items() if k > 1]
    assert not twice, twice
