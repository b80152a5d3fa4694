"""Every exception class of the package derives from ``aya_lab.errors.AyaLabError`` (directly or through
another of the package's classes), so the CLI can catch refused input with one ``except`` and let a
bug (any other exception) show as a bug. Parsed with ``ast``; nothing is imported."""

from __future__ import annotations

import ast
import builtins
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "aya_lab"
BUILTIN_EXCEPTIONS = {n for n, v in vars(builtins).items() if isinstance(v, type) and issubclass(v, BaseException)}
BUILTIN_EXCEPTIONS -= {n for n, v in vars(builtins).items() if isinstance(v, type) and issubclass(v, Warning)}


def base_names(node: ast.ClassDef) -> list[str]:
    return [
        b.attr if isinstance(b, ast.Attribute) else b.id for b in node.bases if isinstance(b, ast.Name | ast.Attribute)
    ]


def exception_classes(sources: dict[str, str]) -> dict[str, list[str]]:
    """``{"module:Class": base names}`` for every class whose bases reach a builtin exception."""
    classes = {}
    for module, text in sources.items():
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.ClassDef):
                classes[f"{module}:{node.name}"] = base_names(node)
    by_name: dict[str, list[str]] = {}
    for key, bases in classes.items():
        by_name.setdefault(key.split(":")[1], []).extend(bases)

    def reaches(name: str, goal: set[str], seen: frozenset[str] = frozenset()) -> bool:
        if name in goal:
            return True
        return any(reaches(b, goal, seen | {name}) for b in by_name.get(name, []) if b not in seen)

    return {k: v for k, v in classes.items() if any(reaches(b, BUILTIN_EXCEPTIONS) for b in v)}


def without_base(sources: dict[str, str]) -> list[str]:
    found = exception_classes(sources)
    by_name = {k.split(":")[1]: v for k, v in found.items()}

    def derives(name: str, seen: frozenset[str] = frozenset()) -> bool:
        return name == "AyaLabError" or any(derives(b, seen | {name}) for b in by_name.get(name, []) if b not in seen)

    return sorted(k for k, bases in found.items() if k.split(":")[1] != "AyaLabError" and not any(map(derives, bases)))


def test_every_exception_class_derives_from_aya_lab_error():
    sources = {str(p.relative_to(PACKAGE.parent)): p.read_text(encoding="utf-8") for p in sorted(PACKAGE.rglob("*.py"))}
    assert len(exception_classes(sources)) >= 28
    assert without_base(sources) == [], "exception classes without AyaLabError as a base"


def test_the_rule_sees_a_class_without_the_base():
    sources = {
        "errors.py": "class AyaLabError(Exception): ...\n",
        "a.py": "class GoodError(AyaLabError, ValueError): ...\nclass Sub(GoodError): ...\nclass BadError(KeyError): ...\n",
        "b.py": "class Loose(BadError): ...\nclass NotAnError: ...\nclass Warned(UserWarning): ...\n",
    }
    assert without_base(sources) == ["a.py:BadError", "b.py:Loose"]
