"""What the architecture rules share: every module of the package but one, parsed, and the lines a rule
finds in each, named ``aya_lab/...py:LINE``."""

from __future__ import annotations

import ast
from collections.abc import Callable
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "aya_lab"


def lines_outside(exempt: Path, find: Callable[[ast.Module], list[int]]) -> list[str]:
    """``path:line`` of every line ``find`` reports in a package module other than ``exempt``."""
    return [
        f"{path.relative_to(PACKAGE.parent)}:{line}"
        for path in sorted(PACKAGE.rglob("*.py"))
        if path != exempt
        for line in find(ast.parse(path.read_text(encoding="utf-8")))
    ]
