"""One module owns LangGraph's SQLite checkpointer and touches its private tables: ``aya_lab.room.store``.
No other module of the package imports ``langgraph.checkpoint.sqlite`` or names ``checkpoints`` or
``writes`` as an SQL table (in a statement, or as a bare table name a statement is built from); the
others go through ``RoomStore`` or the checkpointer's public API. Documentation (docstrings and other
bare string statements) may name them. Parsed with ``ast``; nothing is imported."""

from __future__ import annotations

import ast
import re

from tests.architecture.package_scan import PACKAGE, lines_outside

STORE_MODULE = PACKAGE / "room" / "store.py"
PRIVATE_TABLES = ("checkpoints", "writes")
_NAMES = "|".join(PRIVATE_TABLES)
SQL_MENTION = re.compile(
    rf"\b(?:from|into|update|table|join|exists)\s+[\"'`\[]?(?:{_NAMES})\b|table_info\(\s*[\"'`]?(?:{_NAMES})\b",
    re.IGNORECASE,
)


def private_table_mentions(tree: ast.Module) -> list[int]:
    """Lines of string literals (not documentation) that use a private table in SQL or are its bare name."""
    docs = {
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
    }
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
            if node.value.strip().lower() in PRIVATE_TABLES or SQL_MENTION.search(node.value):
                lines.append(node.lineno)
    return lines


def test_only_the_store_names_langgraphs_private_tables():
    found = lines_outside(STORE_MODULE, private_table_mentions)
    assert not found, (
        "LangGraph's private tables (checkpoints, writes) named outside aya_lab/room/store.py; "
        "go through RoomStore or the checkpointer's public API:\n" + "\n".join(found)
    )


def test_only_the_store_makes_the_sqlite_checkpointer():
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            names += [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            if path != STORE_MODULE and any(n.startswith("langgraph.checkpoint.sqlite") for n in names):
                found.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno}")
    assert not found, "langgraph.checkpoint.sqlite imported outside aya_lab/room/store.py:\n" + "\n".join(found)


def test_the_rule_sees_statements_and_table_names():
    for code in (
        "conn.execute('DELETE FROM checkpoints WHERE thread_id = ?', (t,))",
        'conn.execute("select * from writes")',
        "SCHEMA = 'CREATE TABLE IF NOT EXISTS writes (thread_id TEXT)'",
        "for table in ('writes', 'checkpoints'):\n    conn.execute(f'DELETE FROM {table}')",
        "conn.execute(f'UPDATE checkpoints SET type = {x!r}')",
        "conn.execute('PRAGMA table_info(checkpoints)')",
        "TABLES = {'checkpoints', 'writes'}",
    ):
        assert private_table_mentions(ast.parse(code)), code
    for code in (
        '"""Deletes FROM checkpoints, as documentation may say."""',
        "def f():\n    '''the checkpoints it wrote'''\n    return 1",
        "msg = f'the room writes {name}-wal beside it'",
        "msg = 'exactly the checkpoints a run wrote are deleted'",
        "conn.execute('SELECT * FROM aya_room_runs')",
    ):
        assert not private_table_mentions(ast.parse(code)), code
    assert private_table_mentions(ast.parse(STORE_MODULE.read_text(encoding="utf-8")))  # the one place that does
