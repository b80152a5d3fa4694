"""Docstrings state contracts; history belongs to git and docs/*.md. No docstring in ``aya_lab/`` (module,
class or function) holds a date written ``YYYY-MM-DD`` or an ``issue N`` reference: a measurement's date
and the issue that asked for a change go to the docs page that covers the topic."""

from __future__ import annotations

import ast
import re

from tests.architecture.package_scan import PACKAGE, parsed_modules

HISTORY = re.compile(r"\b\d{4}-\d{2}-\d{2}\b|\bissues?\s+#?\d+", re.IGNORECASE)

# files exempt from the rule, each with its reason (none: every module follows it)
ALLOWED: set[str] = set()

DOCUMENTED = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)


def history_in_docstrings(tree: ast.Module) -> list[tuple[int, str]]:
    """``(line, match)`` for every date or issue reference in a docstring of ``tree``."""
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, DOCUMENTED) or ast.get_docstring(node, clean=False) is None:
            continue
        doc = node.body[0]
        text = ast.get_docstring(node, clean=False) or ""
        for match in HISTORY.finditer(text):
            found.append((doc.lineno + text.count("\n", 0, match.start()), match.group(0)))
    return found


def test_no_dates_or_issue_numbers_in_docstrings():
    found = [
        f"{rel}:{line}: {match!r}"
        for path, tree in parsed_modules()
        if (rel := str(path.relative_to(PACKAGE.parent))) not in ALLOWED
        for line, match in history_in_docstrings(tree)
    ]
    assert not found, (
        "history in docstrings (move it to docs/*.md or drop it; docstrings state contracts):\n" + "\n".join(found)
    )


def test_allowed_files_exist():
    """An allow-list entry for a file that no longer exists hides nothing and should go."""
    assert all((PACKAGE.parent / rel).exists() for rel in ALLOWED), sorted(
        rel for rel in ALLOWED if not (PACKAGE.parent / rel).exists()
    )


def test_the_check_finds_dates_and_issue_numbers_only_in_docstrings():
    source = '''"""Added 2026-12-02 after the run."""
X = "2026-12-02 in a string is data"
# issue 25 in a comment is not a docstring
class A:
    """Chosen in issue 25, part 5."""
    def f(self):
        """Line one.

        Since Issues #7 and 8 (was 0.75)."""
def g():
    """``"note from kofi, YYYY-MM-DD"``: a placeholder, not a date; 2026 alone is a year."""
'''
    assert history_in_docstrings(ast.parse(source)) == [(1, "2026-12-02"), (5, "issue 25"), (9, "Issues #7")]
