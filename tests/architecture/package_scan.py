"""What the architecture rules share: the package's modules, parsed (all, or those under one folder), and
the lines a rule finds in each, named ``aya_lab/...py:LINE``."""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "aya_lab"


def parsed_modules(folder: Path = PACKAGE) -> Iterator[tuple[Path, ast.Module]]:
    """Every module under ``folder`` (the whole package by default), in path order, parsed."""
    for path in sorted(folder.rglob("*.py")):
        yield path, ast.parse(path.read_text(encoding="utf-8"))


def module_name(path: Path) -> str:
    """``aya_lab/agents/memory.py`` -> ``aya_lab.agents.memory`` (a package's ``__init__`` is the package)."""
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def lines_outside(exempt: Path, find: Callable[[ast.Module], list[int]]) -> list[str]:
    """``path:line`` of every line ``find`` reports in a package module other than ``exempt``."""
    return [
        f"{path.relative_to(PACKAGE.parent)}:{line}"
        for path, tree in parsed_modules()
        if path != exempt
        for line in find(tree)
    ]
