"""Remembered facts: who wrote them, when, in which run, whether that run committed; removal with an audit row.

The knowledge base's ``kb_facts`` table and ``kb_fact_audit`` table, as plain functions on a SQLite
connection (:class:`~aya_lab.rag.knowledge_base.KnowledgeBase` is the front that calls them).

* A fact has an id (a decimal string such as ``"7"``, never reused), its ``text``, an ``author`` (who asked to
  remember it), ``created_at`` (ISO 8601, UTC) and, when it was written by a room run, that ``run_id``.
* A fact written with a ``run_id`` is **pending** (``committed = 0``): it is invisible to search,
  :func:`facts` and the vector store until :func:`commit_run`; :func:`discard_run` deletes it, and
  :func:`discard_uncommitted` deletes every pending fact (recovery after a killed process). A fact
  written without a run id is committed at once.
* :func:`forget` deletes a fact and writes an audit row (fact id, text, author, created_at, removed_by,
  reason, removed_at) in the same transaction; :func:`audit` reads them back.
* A store written before facts had authors and runs (no ``committed`` column) is migrated in place on
  open, in one transaction: its facts are kept, committed, with author ``unknown`` where none was stored.

Simplified, and why: identical text is stored once among committed facts (a pending copy of a committed
fact is dropped at commit), so two people remembering the same sentence keep the first author.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import numpy as np

from aya_lab.errors import InputError
from aya_lab.rag.documents import KnowledgeBaseError
from aya_lab.rag.store import FACT_SECTION, StoredRow, to_blob

__all__ = [
    "Fact",
    "FactsMixin",
    "audit",
    "commit_run",
    "discard_run",
    "discard_uncommitted",
    "ensure_schema",
    "find_fact",
    "forget",
    "insert_fact",
    "list_facts",
    "pending_runs",
    "schema_is_current",
]

_FACTS_TABLE = """
CREATE TABLE IF NOT EXISTS kb_facts (
    id INTEGER PRIMARY KEY AUTOINCREMENT, text TEXT NOT NULL, source TEXT NOT NULL, author TEXT NOT NULL,
    created_at TEXT NOT NULL, run_id TEXT, committed INTEGER NOT NULL DEFAULT 1, embedding BLOB NOT NULL);
"""
_AUDIT_TABLE = """
CREATE TABLE IF NOT EXISTS kb_fact_audit (
    id INTEGER PRIMARY KEY, fact_id TEXT NOT NULL, text TEXT NOT NULL, author TEXT NOT NULL,
    created_at TEXT NOT NULL, removed_by TEXT NOT NULL, reason TEXT NOT NULL, removed_at TEXT NOT NULL);
"""
_OLD_COLUMNS = "id, text, source, author, created_at, embedding"


@dataclass(frozen=True)
class Fact:
    """One committed remembered fact: its id (for ``forget``), text, author and creation time (ISO UTC)."""

    id: str
    text: str
    author: str
    created_at: str


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _columns(conn: sqlite3.Connection) -> set[str]:
    return {row[1] for row in conn.execute("PRAGMA table_info(kb_facts)")}


def schema_is_current(conn: sqlite3.Connection) -> bool:
    """Whether the facts and audit tables are there in their current form (no migration needed)."""
    return "committed" in _columns(conn) and bool(
        conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'kb_fact_audit'").fetchone()
    )


def ensure_schema(conn: sqlite3.Connection) -> None:
    """Create the facts and audit tables, migrating an old ``kb_facts`` table (one transaction).

    Writes nothing when the schema is current (a store opened read-only stays byte-identical)."""
    if schema_is_current(conn):
        return
    conn.execute("BEGIN IMMEDIATE")
    try:
        columns = _columns(conn)
        if columns and "committed" not in columns:
            _migrate(conn)
        conn.execute(_FACTS_TABLE)
        conn.execute(_AUDIT_TABLE)
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


def _migrate(conn: sqlite3.Connection) -> None:
    """Old facts (no run or committed flag) -> the current table, same ids; author ``unknown`` where missing."""
    old = conn.execute(f"SELECT {_OLD_COLUMNS} FROM kb_facts ORDER BY id").fetchall()
    conn.execute("ALTER TABLE kb_facts RENAME TO kb_facts_old")
    conn.execute(_FACTS_TABLE)
    conn.executemany(
        "INSERT INTO kb_facts (id, text, source, author, created_at, run_id, committed, embedding) "
        "VALUES (?, ?, ?, ?, ?, NULL, 1, ?)",
        [(i, text, source, (author or "").strip() or "unknown", created, emb)
         for i, text, source, author, created, emb in old],
    )  # fmt: skip
    conn.execute("DROP TABLE kb_facts_old")


def _as_id(fact_id: object) -> int | None:
    """``"7"``, ``7`` or ``"#7"`` -> 7; anything else -> None."""
    text = str(fact_id).strip().lstrip("#")
    return int(text) if text.isdigit() else None


def find_fact(conn: sqlite3.Connection, text: str, run_id: str | None) -> str | None:
    """The id of an identical committed fact, or of an identical pending fact of the same run."""
    row = conn.execute(
        "SELECT id FROM kb_facts WHERE text = ? AND (committed = 1 OR run_id IS ?) ORDER BY committed DESC, id",
        (text, run_id),
    ).fetchone()
    return None if row is None else str(row[0])


def insert_fact(
    conn: sqlite3.Connection, text: str, source: str, author: str, run_id: str | None, vector: np.ndarray
) -> tuple[str, StoredRow | None]:
    """Store a fact in one transaction: its id, and its row when it was stored committed (to index it now).

    An identical fact already there (see :func:`find_fact`) is not stored again: its id, and ``None``.
    """
    conn.execute("BEGIN IMMEDIATE")
    try:
        existing = find_fact(conn, text, run_id)
        if existing is not None:
            conn.execute("COMMIT")
            return existing, None
        blob, committed = to_blob(vector), run_id is None
        cur = conn.execute(
            "INSERT INTO kb_facts (text, source, author, created_at, run_id, committed, embedding) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (text, source, author, _now(), run_id, int(committed), blob),
        )
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    row_id = cur.lastrowid
    assert row_id is not None, "INSERT sets lastrowid"
    return str(row_id), StoredRow("fact", row_id, text, source, FACT_SECTION, author, blob) if committed else None


def commit_run(conn: sqlite3.Connection, run_id: str) -> int:
    """Make the run's pending facts visible; returns how many (a copy of a committed fact is dropped)."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        conn.execute(
            "DELETE FROM kb_facts WHERE run_id = ? AND committed = 0 AND "
            "text IN (SELECT text FROM kb_facts WHERE committed = 1)",
            (run_id,),
        )
        n = conn.execute("UPDATE kb_facts SET committed = 1 WHERE run_id = ? AND committed = 0", (run_id,)).rowcount
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return n


def discard_run(conn: sqlite3.Connection, run_id: str) -> int:
    """Delete the run's pending facts; returns how many."""
    return conn.execute("DELETE FROM kb_facts WHERE run_id = ? AND committed = 0", (run_id,)).rowcount


def discard_uncommitted(conn: sqlite3.Connection) -> int:
    """Delete every pending fact, whatever its run; returns how many."""
    return conn.execute("DELETE FROM kb_facts WHERE committed = 0").rowcount


def pending_runs(conn: sqlite3.Connection) -> list[str]:
    """Run ids with pending facts, oldest first."""
    rows = conn.execute("SELECT run_id FROM kb_facts WHERE committed = 0 GROUP BY run_id ORDER BY min(id)")
    return [str(r[0]) for r in rows]


def list_facts(conn: sqlite3.Connection) -> list[Fact]:
    """The committed facts, oldest first."""
    rows = conn.execute("SELECT id, text, author, created_at FROM kb_facts WHERE committed = 1 ORDER BY id")
    return [Fact(str(i), text, author, created) for i, text, author, created in rows]


def forget(conn: sqlite3.Connection, where: str, fact_id: str, *, by: str, reason: str = "") -> None:
    """Delete the fact ``fact_id`` and write its audit row, in one transaction (``where``: the store, for errors)."""
    if not isinstance(by, str) or not by.strip():
        raise InputError("forget() needs who removes the fact (by='user id')")
    key = _as_id(fact_id)
    conn.execute("BEGIN IMMEDIATE")
    try:
        row = conn.execute("SELECT text, author, created_at FROM kb_facts WHERE id = ?", (key,)).fetchone()
        if row is None:
            known = [str(r[0]) for r in conn.execute("SELECT id FROM kb_facts WHERE committed = 1 ORDER BY id")]
            raise KnowledgeBaseError(
                f"no fact {fact_id!r} in {where}: see the fact ids with KnowledgeBase.facts() "
                f"(ids now: {', '.join(known[-10:]) or 'none'})"
            )
        conn.execute(
            "INSERT INTO kb_fact_audit (fact_id, text, author, created_at, removed_by, reason, removed_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (str(key), *row, by.strip(), " ".join(str(reason).split()), _now()),
        )
        conn.execute("DELETE FROM kb_facts WHERE id = ?", (key,))
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


def audit(conn: sqlite3.Connection) -> list[dict[str, Any]]:
    """Every removal, oldest first: fact_id, text, author, created_at, removed_by, reason, removed_at."""
    cur = conn.execute(
        "SELECT fact_id, text, author, created_at, removed_by, reason, removed_at FROM kb_fact_audit ORDER BY id"
    )
    names = [d[0] for d in cur.description]
    return [dict(zip(names, row)) for row in cur.fetchall()]


class FactsMixin:
    """The knowledge base's fact API (mixed into :class:`~aya_lab.rag.knowledge_base.KnowledgeBase`,
    which provides the connection, the lock, the live index and the embedder)."""

    path: Any
    _lock: threading.RLock
    _store: Any

    @property
    def _db(self) -> sqlite3.Connection:
        raise NotImplementedError

    def meta(self) -> dict[str, str]:
        raise NotImplementedError

    def _embed_documents(self, texts: list[str]) -> np.ndarray:
        raise NotImplementedError

    def _index(self, store: Any, rows: Sequence[StoredRow]) -> None:
        raise NotImplementedError

    def facts(self) -> list[Fact]:
        """The committed remembered facts, oldest first (id for :meth:`forget`, text, author, created_at)."""
        with self._lock:
            return list_facts(self._db)

    def audit(self) -> list[dict[str, Any]]:
        """Every :meth:`forget`, oldest first: fact_id, text, author, created_at, removed_by, reason, removed_at."""
        with self._lock:
            return audit(self._db)

    def pending_runs(self) -> list[str]:
        """Run ids that have pending (uncommitted) facts, oldest first."""
        with self._lock:
            return pending_runs(self._db)

    def add_fact(self, text: str, *, author: str, run_id: str | None = None, source: str = "remembered") -> str:
        """Store ``text`` as a fact by ``author``; returns its id (an identical fact is kept once).

        Without ``run_id`` it is committed (searchable) at once; with one it is pending, invisible to
        search and :meth:`facts`, until :meth:`commit_run` (or dropped by :meth:`discard_run`).
        """
        if not isinstance(text, str) or not text.strip():
            raise InputError("add_fact() needs a fact to remember; got an empty or whitespace-only text")
        if not isinstance(author, str) or not author.strip():
            raise InputError(f"add_fact() needs the author (who asked to remember it); got {author!r}")
        if run_id is not None and (not isinstance(run_id, str) or not run_id.strip()):
            raise InputError(f"add_fact() run_id must be a non-empty string or None; got {run_id!r}")
        if not isinstance(source, str) or not source.strip():
            raise InputError("add_fact() needs a non-empty source name, such as 'remembered'")
        text, source, author = text.strip(), source.strip(), author.strip()
        with self._lock:
            found = find_fact(self._db, text, run_id)
            if found is not None:
                return found
            vector = self._embed_documents([text])[0]
            dim = int(self.meta().get("dim", vector.shape[0]))
            if vector.shape[0] != dim:
                raise KnowledgeBaseError(
                    f"{self.path} holds {dim}-d vectors but the embedder gives {vector.shape[0]}-d: "
                    "reopen with the embeddings it was built with"
                )
            fact_id, stored = insert_fact(self._db, text, source, author, run_id, vector)
            if stored is not None and self._store is not None:  # searchable at once: joins the live index
                self._index(self._store, [stored])
            return fact_id

    def commit_run(self, run_id: str) -> int:
        """Make the pending facts of ``run_id`` searchable; returns how many were committed."""
        with self._lock:
            n = commit_run(self._db, run_id)
            if n:
                self._store = None  # rebuilt from the file on the next search
            return n

    def discard_run(self, run_id: str) -> int:
        """Delete the pending facts of ``run_id`` (a failed run); returns how many."""
        with self._lock:
            return discard_run(self._db, run_id)

    def discard_uncommitted(self) -> int:
        """Delete every pending fact, whatever its run (recovery after a killed writer); returns how many."""
        with self._lock:
            return discard_uncommitted(self._db)

    def forget(self, fact_id: str, *, by: str, reason: str = "") -> None:
        """Remove a fact from the store and from search, writing an audit row (see :meth:`audit`).

        An unknown id raises :class:`KnowledgeBaseError` (one line: how to see the ids).
        """
        with self._lock:
            forget(self._db, str(self.path), fact_id, by=by, reason=reason)
            self._store = None  # rebuilt without it on the next search
