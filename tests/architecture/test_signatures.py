"""No ``Any`` in the public signatures of the models, the agents, the room, the graph package, the tuner
and the evaluations: the contracts between them are protocols (``aya_lab.agents.protocols``; the models, below the agents, define
their own), concrete types (a third-party object's own class; the graph's parsed spec data is
``aya_lab.graph.spec.SpecData``), ``object`` where anything goes, type variables, or precise unions and typed
dicts (a JSON object is ``dict[str, object]``). Parsed with ``ast``; nothing is imported.

Public: a module, class or function whose name has no leading underscore; dunder methods (``__init__``,
``__call__``, ``__new__``) are public too, they are how a class is made and called. Checked in a public
function or method: each parameter (``*args`` and ``**kwargs`` too) and the return; in a public class:
its bases (a generic base's parameters are the class's contract, such as a Runnable's input and output)
and each annotated public attribute (dataclass, pydantic and NamedTuple fields). ``Any`` counts however
it is spelled: ``Any``, ``typing.Any``, an ``import ... as`` name, a quoted annotation, or a type alias
of the same module that holds one. Functions inside functions, and local variables, are not signatures.
A finding reads ``module:qualname what`` (``what``: a parameter's name, ``return``, ``field``, ``base``);
the few that are allowed are in :data:`ALLOWED`, each with its reason.
"""

from __future__ import annotations

import ast

import pytest

from tests.architecture.package_scan import PACKAGE, module_name, parsed_modules

ALLOWED = {
    "aya_lab.agents.routing_chain:RoutingChain base": (
        "LangChain's RunnableSerializable[Input, Output]: invoke gives a RoutingResult, a dict or a str and "
        "stream yields Steps, which no one Output describes; the overriding methods' own signatures are typed"
    ),
}
TYPING = {"typing", "typing_extensions"}


def _is_public(name: str) -> bool:
    return not name.startswith("_") or (name.startswith("__") and name.endswith("__"))


class _AnyFinder:
    """Whether an annotation mentions ``Any``, given how the module spells it."""

    def __init__(self, tree: ast.Module) -> None:
        self.names: set[str] = set()  # what names typing.Any here
        self.modules: set[str] = set()  # what names the typing module here
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module in TYPING:
                self.names |= {a.asname or a.name for a in node.names if a.name == "Any"}
            elif isinstance(node, ast.Import):
                self.modules |= {a.asname or a.name for a in node.names if a.name in TYPING}
        self.aliases: set[str] = set()  # module-level names bound to a type that holds Any
        bound: dict[str, ast.expr] = {}
        for node in tree.body:
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                bound[node.targets[0].id] = node.value
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
                bound[node.target.id] = node.value
            elif isinstance(node, getattr(ast, "TypeAlias", ())):  # ``type X = ...`` (Python 3.12)
                bound[node.name.id] = node.value
        while grown := {name for name, value in bound.items() if name not in self.aliases and self.mentions(value)}:
            self.aliases |= grown  # an alias of an alias too

    def mentions(self, node: ast.AST | None) -> bool:
        if node is None:
            return False
        if isinstance(node, ast.Name):
            return node.id in self.names or node.id in self.aliases
        if isinstance(node, ast.Attribute) and node.attr == "Any":
            return isinstance(node.value, ast.Name) and node.value.id in self.modules
        if isinstance(node, ast.Constant) and isinstance(node.value, str):  # a quoted annotation
            try:
                return self.mentions(ast.parse(node.value, mode="eval").body)
            except SyntaxError:
                return False
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == "Literal":
            return False  # Literal["Any"] is a string value, not a type
        return any(self.mentions(child) for child in ast.iter_child_nodes(node))


def any_in_signatures(module: str, tree: ast.Module) -> list[str]:
    """``module:qualname what`` for every ``Any`` in a public signature of ``module`` (see the docstring)."""
    if not all(_is_public(part) for part in module.split(".")):
        return []
    finder, found = _AnyFinder(tree), []

    def function(node: ast.FunctionDef | ast.AsyncFunctionDef, qualname: str) -> None:
        a = node.args
        params = [(p.arg, p.annotation) for p in (*a.posonlyargs, *a.args, *a.kwonlyargs)]
        params += [(stars + p.arg, p.annotation) for p, stars in ((a.vararg, "*"), (a.kwarg, "**")) if p is not None]
        found.extend(f"{module}:{qualname} {name}" for name, annotation in params if finder.mentions(annotation))
        if finder.mentions(node.returns):
            found.append(f"{module}:{qualname} return")

    def body(statements: list[ast.stmt], prefix: str, in_class: bool) -> None:
        for node in statements:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and _is_public(node.name):
                function(node, prefix + node.name)
            elif isinstance(node, ast.ClassDef) and _is_public(node.name):
                qualname = prefix + node.name
                if any(finder.mentions(b) for b in node.bases):
                    found.append(f"{module}:{qualname} base")
                body(node.body, qualname + ".", in_class=True)
            elif in_class and isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                if _is_public(node.target.id) and finder.mentions(node.annotation):
                    found.append(f"{module}:{prefix}{node.target.id} field")
            elif isinstance(node, ast.If | ast.Try):  # definitions under ``if``/``try`` are still the module's
                for block in (node.body, node.orelse, getattr(node, "finalbody", [])):
                    body(block, prefix, in_class)

    body(tree.body, "", in_class=False)
    return found


def any_in_package(package: str) -> list[str]:
    return [
        hit for path, tree in parsed_modules(PACKAGE / package) for hit in any_in_signatures(module_name(path), tree)
    ]


@pytest.mark.parametrize(
    "package",
    ["models", "agents", "room", "graph", "tune", "eval"],
)
def test_no_any_in_public_signatures(package):
    found = any_in_package(package)
    loose = [hit for hit in found if hit not in ALLOWED]
    assert not loose, (
        f"Any in public signatures of aya_lab/{package}; use a protocol (of aya_lab.agents.protocols, or for the "
        "models one of their own), a concrete type, object or a TypeVar (or, mirroring a base class you override, "
        "add it to ALLOWED with the reason):\n" + "\n".join(loose)
    )
    stale = [hit for hit in ALLOWED if hit.startswith(f"aya_lab.{package}.") and hit not in found]
    assert not stale, "ALLOWED names exceptions that are gone; remove them:\n" + "\n".join(stale)


PLANTED = """
from typing import Any
from typing import Any as Anything
import typing as t

Payload = dict[str, Any]
Nested = list[Payload]

def tool(x: Any, *rest: int, **extra: Any) -> list[Any]: ...
def quoted() -> "dict[str, Any]": ...
def via_alias(p: Nested) -> None: ...
def renamed(p: Anything) -> t.Any: ...

class Agent(Base[Any, str]):
    kb: Any
    def __init__(self, model: Any | None = None) -> None: ...
    @property
    def seen(self) -> dict[str, Any]: ...
    class Inner:
        x: Any

if True:
    def guarded(y: Any) -> None: ...
"""
CLEAN = """
from typing import Any, Literal

def _private(x: Any) -> Any: ...

class _Hidden:
    x: Any
    def run(self, x: Any) -> Any: ...

class Open:
    _state: Any
    def _helper(self, x: Any) -> Any: ...
    def ok(self, x: object, mode: Literal["Any"] = "Any") -> int:
        box: dict[str, Any] = {}  # a local variable, not a signature
        def inner(y: Any) -> Any: ...
        return 0
"""


def test_the_rule_finds_a_planted_any_however_it_is_spelled():
    found = any_in_signatures("aya_lab.agents.planted", ast.parse(PLANTED))
    expected = [
        "tool x", "tool **extra", "tool return", "quoted return", "via_alias p", "renamed p", "renamed return",
        "Agent base", "Agent.kb field", "Agent.__init__ model", "Agent.seen return", "Agent.Inner.x field",
        "guarded y",
    ]  # fmt: skip
    assert found == [f"aya_lab.agents.planted:{hit}" for hit in expected]
    assert any_in_signatures("aya_lab.agents.planted", ast.parse(CLEAN)) == []
    assert any_in_signatures("aya_lab.agents._private", ast.parse(PLANTED)) == []  # a private module's are its own
