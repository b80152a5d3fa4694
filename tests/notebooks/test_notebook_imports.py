"""The notebooks import the package through its faces only: at most six modules, all of them public faces."""

from __future__ import annotations

import ast

from aya_lab.paths import project_root

FACES = {"aya_lab.notebook", "aya_lab.eval", "aya_lab.room", "aya_lab.models", "aya_lab.graph", "aya_lab.agents"}


def notebook_imports() -> dict[str, set[str]]:
    """Per notebook (its jupytext ``.py`` pair), the ``aya_lab`` modules it imports from."""
    found: dict[str, set[str]] = {}
    for path in sorted((project_root() / "notebooks").glob("[0-9][0-9]_*.py")):
        tree = ast.parse(
            "\n".join(line for line in path.read_text(encoding="utf-8").splitlines() if not line.startswith("%"))
        )
        modules = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module}
        modules |= {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
        found[path.stem] = {m for m in modules if m == "aya_lab" or m.startswith("aya_lab.")}
    return found


def test_every_notebook_imports_only_the_faces_and_six_modules_in_all():
    found = notebook_imports()
    assert len(found) == 9, sorted(found)
    outside = {nb: sorted(mods - FACES) for nb, mods in found.items() if mods - FACES}
    assert not outside, f"notebooks import below the faces: {outside}"
    assert len(set().union(*found.values())) <= 6
