"""The package's shape: imports run one way (core -> models -> rag -> agents -> room -> eval -> faces;
graph and datasets on core only; tune beside eval, on agents, models and datasets), no import circles,
no aya_lab import inside a function, and no module
or function past the size a reader takes in at one sitting. Parsed with ``ast``; nothing is imported."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "aya_lab"
CORE = {"aya_lab", "aya_lab.paths", "aya_lab.languages", "aya_lab.messages", "aya_lab.prompts"}
CORE |= {"aya_lab.spotlight", "aya_lab.langid", "aya_lab.text_safety", "aya_lab.settings", "aya_lab.errors"}
CORE |= {"aya_lab.sqlite_file", "aya_lab.refs", "aya_lab.cli_groups", "aya_lab.whole_files", "aya_lab.sentence_chrf"}
CORE |= {"aya_lab.memo", "aya_lab.json_record"}
FACES = {
    "aya_lab.cli",
    "aya_lab.demo",
    "aya_lab.notebook",
    "aya_lab.notebook_report",
    "aya_lab.attacks",
    "aya_lab.room_cli",
}
ALLOWED = {
    "core": {"core"},
    "graph": {"core", "graph"},
    "datasets": {"core", "datasets"},
    "models": {"core", "models"},
    "rag": {"core", "models", "rag"},
    "agents": {"core", "models", "rag", "agents"},
    "room": {"core", "models", "rag", "agents", "graph", "room"},
    "eval": {"core", "models", "rag", "agents", "datasets", "eval"},
    "tune": {"core", "models", "rag", "agents", "datasets", "tune"},
    "faces": {"core", "models", "rag", "agents", "graph", "datasets", "room", "eval", "tune", "faces"},
}
MAX_MODULE_LINES = 600  # a backstop: a module is one concept, which the other rules here review
MAX_FUNCTION_LINES = 60


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def layer(module: str) -> str:
    if module in CORE or module.startswith("aya_lab.prompts."):  # the prompts package is core, like prompts.py was
        return "core"
    if module in FACES:
        return "faces"
    return module.split(".")[1]


def modules() -> dict[str, ast.Module]:
    return {module_name(p): ast.parse(p.read_text(encoding="utf-8")) for p in sorted(PACKAGE.rglob("*.py"))}


def imported(module: str, node: ast.Import | ast.ImportFrom, is_package: bool) -> list[str]:
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    if node.level:
        base = module.split(".") if is_package else module.split(".")[:-1]
        base = base[: len(base) - node.level + 1]
        return [".".join([*base, node.module] if node.module else base)]
    return [node.module or ""]


def is_type_checking(node: ast.stmt) -> bool:
    """``if TYPE_CHECKING:`` (or ``if typing.TYPE_CHECKING:``)."""
    if not isinstance(node, ast.If):
        return False
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def top_level_imports(tree: ast.Module, type_checking: bool = False) -> list[ast.Import | ast.ImportFrom]:
    """Imports executed when the module is imported; with ``type_checking``, those of its
    ``if TYPE_CHECKING:`` blocks too (a circle the type checker walks is a circle a reader walks)."""
    out: list[ast.Import | ast.ImportFrom] = []
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            out.append(node)
        elif isinstance(node, ast.Try) or (type_checking and is_type_checking(node)):
            out += [n for n in node.body if isinstance(n, (ast.Import, ast.ImportFrom))]
    return out


def internal(names: list[str], known: set[str]) -> list[str]:
    """``aya_lab`` modules named by an import (``from aya_lab.x import y`` names ``aya_lab.x``)."""
    return [n for n in names if n.startswith("aya_lab") and n in known]


@pytest.fixture(scope="module")
def tree() -> dict[str, ast.Module]:
    return modules()


def test_imports_run_one_way(tree):
    known = set(tree)
    upward = []
    for mod, ast_mod in tree.items():
        is_pkg = (PACKAGE.parent / mod.replace(".", "/") / "__init__.py").exists()
        for node in top_level_imports(ast_mod, type_checking=True):
            for target in internal(imported(mod, node, is_pkg), known):
                if layer(target) not in ALLOWED[layer(mod)]:
                    upward.append(f"{mod} ({layer(mod)}) imports {target} ({layer(target)})")
    assert not upward, "imports against the layer order:\n" + "\n".join(upward)


def test_no_import_circles(tree):
    known = set(tree)
    edges: dict[str, set[str]] = {}
    for mod, ast_mod in tree.items():
        is_pkg = (PACKAGE.parent / mod.replace(".", "/") / "__init__.py").exists()
        deps = set()
        for node in top_level_imports(ast_mod, type_checking=True):
            for target in internal(imported(mod, node, is_pkg), known):
                # a package's __init__ importing its own submodules is how packages work, not a circle
                if target != mod and not (is_pkg and target.startswith(mod + ".")):
                    deps.add(target)
        edges[mod] = deps
    state: dict[str, int] = {}
    cycles: list[str] = []

    def visit(node: str, stack: list[str]) -> None:
        state[node] = 1
        for dep in sorted(edges.get(node, ())):
            # importing a submodule imports its package first: a package importing a submodule of a
            # module that imports the package back would show here as a cycle
            if state.get(dep) == 1:
                cycles.append(" -> ".join([*stack[stack.index(dep) :], dep]))
            elif dep not in state:
                visit(dep, [*stack, dep])
        state[node] = 2

    for mod in sorted(edges):
        if mod not in state:
            visit(mod, [mod])
    assert not cycles, "import circles:\n" + "\n".join(cycles)


def test_no_aya_lab_import_inside_a_function(tree):
    found = []
    for mod, ast_mod in tree.items():
        for fn in ast.walk(ast_mod):
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for node in ast.walk(fn):
                    if isinstance(node, (ast.Import, ast.ImportFrom)):
                        names = imported(mod, node, False)
                        if any(n.startswith("aya_lab") for n in names):
                            found.append(f"{mod}.{fn.name}: {', '.join(names)}")
    assert not found, "aya_lab imports inside functions:\n" + "\n".join(found)


def test_modules_and_functions_stay_readable(tree):
    long_modules = []
    long_functions = []
    for path in sorted(PACKAGE.rglob("*.py")):
        n = len(path.read_text(encoding="utf-8").splitlines())
        if n > MAX_MODULE_LINES:
            long_modules.append(f"{module_name(path)}: {n} lines")
        for fn in ast.walk(tree[module_name(path)]):
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = fn.end_lineno - fn.lineno + 1
                if length > MAX_FUNCTION_LINES:
                    long_functions.append(f"{module_name(path)}.{fn.name}: {length} lines")
    assert not long_modules, f"modules over {MAX_MODULE_LINES} lines:\n" + "\n".join(long_modules)
    assert not long_functions, f"functions over {MAX_FUNCTION_LINES} lines:\n" + "\n".join(long_functions)


def test_the_checks_catch_what_they_claim(tmp_path):
    """The analysis itself: an upward import and a circle in a made-up package are both found."""
    a = ast.parse("from aya_lab.room import ChatRoom\n")
    node = top_level_imports(a)[0]
    assert layer(internal(imported("aya_lab.models.base", node, False), {"aya_lab.room"})[0]) == "room"
    assert "room" not in ALLOWED["models"]
    typed = ast.parse(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from aya_lab.room.room import ChatRoom\n"
    )
    assert [n.module for n in top_level_imports(typed)] == ["typing"]
    assert [n.module for n in top_level_imports(typed, type_checking=True)] == ["typing", "aya_lab.room.room"]
    inner = ast.parse("def f():\n    from aya_lab.models import load_model\n")
    assert any(isinstance(n, ast.ImportFrom) for n in ast.walk(inner.body[0]))


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))  # __version__ is public


def private_imports(module: str, tree: ast.Module, is_package: bool) -> list[str]:
    """``name from target`` for every ``_``-prefixed name ``module`` imports from another aya_lab module."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            target = imported(module, node, is_package)[0]
            if target.startswith("aya_lab") and target != module:
                found += [f"{a.name} from {target}" for a in node.names if _private(a.name)]
    return found


def test_no_module_imports_another_modules_private_names(tree):
    """A ``_`` name is its module's own; a name two modules share is public (in ``__all__``) or moves."""
    found = []
    for mod, ast_mod in tree.items():
        is_pkg = (PACKAGE.parent / mod.replace(".", "/") / "__init__.py").exists()
        found += [f"{mod} imports {name}" for name in private_imports(mod, ast_mod, is_pkg)]
    assert not found, "private names imported across modules:\n" + "\n".join(found)


def test_the_private_import_check_finds_what_it_claims():
    code = "from aya_lab.eval.routing import _chat_model, evaluate_routing\nfrom .metrics import _score\n"
    code += "from aya_lab.eval.resampling import percentile_ci as _ci\nfrom pandas import _libs\nfrom aya_lab import __version__\n"
    found = private_imports("aya_lab.eval.summarization", ast.parse(code), False)
    assert found == ["_chat_model from aya_lab.eval.routing", "_score from aya_lab.eval.metrics"]
