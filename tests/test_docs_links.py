"""The README stays short and the docs stay connected.

- README.md is at most 250 lines, and its first screen holds the two examples a newcomer reads: a room
  (``ChatRoom.open``) and an evaluation (``evaluate_translation``).
- Every relative link in README.md and docs/*.md (inline, image or reference-style, outside code)
  names an existing file, without an ``#anchor``: headings get renamed, files rarely do, and a file link
  is checkable.
- The Python examples of those pages parse, their ``from aya_lab... import`` lines name what exists, and
  each call of an imported aya_lab function or class method binds to its signature (no model is loaded).
"""

from __future__ import annotations

import ast
import importlib
import inspect
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
MAX_README_LINES = 250
FIRST_SCREEN = 70

PENDING: set[str] = set()
"""Pages another branch is writing: a link to one is accepted while it is missing. Drop an entry once the
page exists (docs/SETTINGS.md, the generated settings table, now does)."""

FENCE = re.compile(r"^(```|~~~).*?^\1[ \t]*$", re.S | re.M)
CODE_SPAN = re.compile(r"`+[^`\n]*`+")
INLINE = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
REFERENCE = re.compile(r"^ {0,3}\[[^\]]+\]:[ \t]*(\S+)", re.M)
EXTERNAL = re.compile(r"^[a-z][a-z0-9+.-]*:", re.I)  # https:, mailto:, ...
PYTHON_BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


def _rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def links(text: str) -> list[str]:
    """Link targets of a Markdown text, code blocks and code spans left out."""
    prose = CODE_SPAN.sub("", FENCE.sub("", text))
    return INLINE.findall(prose) + REFERENCE.findall(prose)


def test_the_link_scan_finds_what_it_should():
    text = (
        'See [a](docs/A.md), ![img](panel.png "a title"), [`b`](../b.md) and [c](https://x.org/y).\n'
        "`[not](a link)` and\n```\n[nor](this.md)\n```\n[ref]: ../data/README.md\n"
    )
    assert links(text) == ["docs/A.md", "panel.png", "../b.md", "https://x.org/y", "../data/README.md"]


def test_the_readme_is_short():
    n = len((ROOT / "README.md").read_text(encoding="utf-8").splitlines())
    assert n <= MAX_README_LINES, (
        f"README.md has {n} lines (at most {MAX_README_LINES}): move reference material to docs/"
    )


def test_the_first_screen_shows_a_room_and_an_evaluation():
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()[:FIRST_SCREEN]
    blocks = PYTHON_BLOCK.findall("\n".join(lines) + "\n")
    assert len(blocks) >= 2, f"README.md's first {FIRST_SCREEN} lines should hold two whole Python examples"
    assert "ChatRoom.open(" in blocks[0] and "run(" in blocks[1] and '"translation"' in blocks[1]
    assert all(len(b.splitlines()) <= 12 for b in blocks[:2]), "the first-screen examples are about ten lines each"


@pytest.mark.parametrize("page", PAGES, ids=_rel)
def test_every_relative_link_names_an_existing_file(page):
    problems = []
    for target in links(page.read_text(encoding="utf-8")):
        if EXTERNAL.match(target):
            continue
        if "#" in target:
            problems.append(f"{target}: link to the file, not an anchor in it")
            continue
        resolved = (page.parent / target).resolve()
        if resolved.is_relative_to(ROOT) and _rel(resolved) in PENDING and not resolved.exists():
            continue
        if not resolved.exists():
            problems.append(f"{target}: no such file")
    assert problems == [], f"{_rel(page)}: {problems}"


def test_the_docs_pages_are_linked_from_the_readme():
    readme = set(links((ROOT / "README.md").read_text(encoding="utf-8")))
    unlinked = [_rel(p) for p in PAGES[1:] if _rel(p) not in readme]
    assert unlinked == [], f"docs pages the README's map does not link: {unlinked}"


def _examples() -> list[tuple[str, str]]:
    out = []
    for page in PAGES:
        for i, code in enumerate(PYTHON_BLOCK.findall(page.read_text(encoding="utf-8"))):
            out.append((f"{_rel(page)}#{i + 1}", code))
    return out


def _callable(scope: dict[str, object], func: ast.expr) -> object | None:
    """The aya_lab function or class method a call names (``f(...)``, ``Cls.meth(...)``), else None."""
    if isinstance(func, ast.Name):
        return scope.get(func.id)
    if (
        isinstance(func, ast.Attribute)
        and isinstance(func.value, ast.Name)
        and inspect.isclass(scope.get(func.value.id))
    ):
        return getattr(scope[func.value.id], func.attr, None)
    return None


@pytest.mark.parametrize("where,code", _examples(), ids=[w for w, _ in _examples()])
def test_python_examples_name_what_exists(where, code):
    tree = ast.parse(code, filename=where)
    scope: dict[str, object] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("aya_lab"):
            module = importlib.import_module(node.module)
            for alias in node.names:
                assert hasattr(module, alias.name), f"{where}: {node.module} has no {alias.name}"
                scope[alias.asname or alias.name] = getattr(module, alias.name)
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or any(isinstance(a, ast.Starred) for a in node.args):
            continue
        target = _callable(scope, node.func)
        if target is None or any(k.arg is None for k in node.keywords):
            continue
        try:
            inspect.signature(target).bind(*node.args, **{k.arg: k.value for k in node.keywords})
        except TypeError as exc:
            pytest.fail(f"{where}, line {node.lineno}: {ast.unparse(node.func)}(...) does not fit its signature: {exc}")
