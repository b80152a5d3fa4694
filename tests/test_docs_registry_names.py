"""Docs name only registry entries that exist: the README, the docs/ pages and every docstring of the package.

A registry name is versioned (``something.v1``). It is read where it is written as a name: in quotes or
backticks, or as the value of a spec key (``factory: x.v1``, ``reducer: x.v1``, ``name: x.v1``).
Each must resolve in the Aya registry (``aya_lab.room.nodes.aya_registry``, which includes the graph
default registry) unless the same text registers it (``reg.add_node_factory("echo.v1", ...)``).
Registry references ``aya_lab.MODULE:ATTR`` must import.
"""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import pytest

from aya_lab.graph.registry import default_registry
from aya_lab.room.nodes import aya_registry

ROOT = Path(__file__).resolve().parent.parent
NAME = r"[a-z_][a-z0-9_]*(?:\.[a-z0-9_]+)*\.v\d+"
WRITTEN_AS_NAME = re.compile(rf"[`'\"]({NAME})[`'\"]|\b(?:factory|reducer|name):\s*({NAME})\b")
REGISTERED_HERE = re.compile(rf"\.add_\w+\(\s*[\"']({NAME})[\"']")
REGISTRY_REF = re.compile(r"`(aya_lab(?:\.\w+)*):(\w+)`")


def _texts() -> list[tuple[str, str]]:
    """(where, text) for the README, each docs/*.md page and every module, class and function docstring
    of aya_lab."""
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    out = [(p.relative_to(ROOT).as_posix(), p.read_text(encoding="utf-8")) for p in pages]
    for path in sorted((ROOT / "aya_lab").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                doc = ast.get_docstring(node)
                if doc:
                    where = path.relative_to(ROOT).as_posix() + (
                        "" if isinstance(node, ast.Module) else f":{node.name}"
                    )
                    out.append((where, doc))
    return out


def _known() -> set[str]:
    names: set[str] = set()
    for reg in (aya_registry(), default_registry()):
        for table in reg.describe().values():
            names |= set(table)
    return names


def test_the_scan_finds_the_names_it_should():
    found = {m.group(1) or m.group(2) for _, text in _texts() for m in WRITTEN_AS_NAME.finditer(text)}
    assert {"aya_supervisor.v1", "append_list.v1", "const_update.v1"} <= found
    assert WRITTEN_AS_NAME.search("add_node: {name: critic, factory: aya_critic.v1}").group(2) == "aya_critic.v1"


def test_every_registry_name_in_the_docs_exists():
    known = _known()
    missing = []
    for where, text in _texts():
        local = set(REGISTERED_HERE.findall(text))
        for m in WRITTEN_AS_NAME.finditer(text):
            name = m.group(1) or m.group(2)
            if name not in known and name not in local:
                missing.append(f"{where}: {name}")
    assert missing == [], f"docs name registry entries that do not exist: {missing}; known: {sorted(known)}"


@pytest.mark.parametrize(
    "where,module,attr",
    [(where, m.group(1), m.group(2)) for where, text in _texts() for m in REGISTRY_REF.finditer(text)],
)
def test_every_registry_reference_in_the_docs_imports(where, module, attr):
    assert hasattr(importlib.import_module(module), attr), f"{where} names {module}:{attr}, which does not exist"
