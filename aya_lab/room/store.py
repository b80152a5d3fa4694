"""The room file's schema, and every SQL statement the room runs on it: :class:`RoomStore`.

One room file (``runs/demo.sqlite``) holds three groups of tables, all opened here:

* the room's own: ``aya_room_users`` (id, languages comma-joined as :mod:`aya_lab.room.readers` keeps
  them, join order), ``aya_room_runs`` (one row per committed run: its report and trace as JSON) and
  ``aya_room_meta`` (the open-run marker);
* the memory policy and pending notes, ``aya_memory_meta`` and ``aya_memory_pending``, whose schema
  :class:`~aya_lab.agents.memory.RoomMemory` keeps (it also serves a file that is no room); the store
  makes it on its connection;
* LangGraph's checkpointer (:class:`~langgraph.checkpoint.sqlite.SqliteSaver`): ``checkpoints`` and
  ``writes``, made by its ``setup()``.

Each is created once (``CREATE TABLE IF NOT EXISTS``: reopening a room writes no schema). The room's
tables are made in one transaction with the project's marker (:data:`~aya_lab.sqlite_file.ROOM_FILE`:
``PRAGMA application_id`` and ``user_version``), so a file is a room exactly when it carries the marker.
A file from before the marker is taken as a room when it holds only a room's tables
(:func:`is_legacy_room`), and stamped when the store opens it. ``aya_room_meta`` row ``created_by``
(:data:`ORIGIN`) names what created the room (``demo`` for ``aya-lab demo``: :func:`room_origin`).

**The open-run marker** (``aya_room_meta`` row ``open_run``: run id and the checkpoint before it) is
written when a run starts and removed in the transaction that records the run (:meth:`RoomStore.record_run`).
A marker found under the room's lock means a writer died mid-run (:mod:`aya_lab.room.integrity`).

**LangGraph's private tables.** Rolling back a failed run deletes exactly the checkpoints it wrote
(:meth:`RoomStore.delete_since`). The checkpointer's public API cannot: langgraph-checkpoint-sqlite 3.1
implements ``delete_thread`` (the whole room) and not ``delete_for_runs`` (``BaseCheckpointSaver``
declares it; ``SqliteSaver`` raises ``NotImplementedError``). So this module deletes rows of
``checkpoints`` and ``writes`` with SQL, relying on the columns in :data:`CHECKPOINT_COLUMNS`; no other
module names those tables (``tests/architecture``), and ``tests/room/test_store.py`` pins their schema
as a fresh ``SqliteSaver`` makes it, so an upgrade that changes it fails there, loudly.

Simplified, and why: the room's graphs have no subgraphs, so only the root checkpoint namespace
(``checkpoint_ns = ''``) is rolled back.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path

from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
from langgraph.checkpoint.sqlite import SqliteSaver

from aya_lab.agents.memory import RoomMemory
from aya_lab.room.errors import RoomError
from aya_lab.room.readers import from_stored, stored
from aya_lab.room.runs import RunReport
from aya_lab.room.state import CHECKPOINTED_TYPES, NodeVisit
from aya_lab.sqlite_file import ROOM_FILE, SqliteFile, ensure_marked_schema, read_only

__all__ = [
    "CHECKPOINT_COLUMNS",
    "OPEN_RUN",
    "ORIGIN",
    "ROOM_SCHEMA",
    "RoomStore",
    "is_legacy_room",
    "is_room_table",
    "room_origin",
]

ROOM_SCHEMA = """
CREATE TABLE IF NOT EXISTS aya_room_users (user_id TEXT PRIMARY KEY, lang TEXT NOT NULL, position INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS aya_room_runs (run_id TEXT PRIMARY KEY, message_id TEXT NOT NULL, sender TEXT NOT NULL,
    created_at REAL NOT NULL, report TEXT NOT NULL, trace TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS aya_room_meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
"""
"""The room's own tables (the memory's are :class:`~aya_lab.agents.memory.RoomMemory`'s, LangGraph's its own)."""

CHECKPOINT_COLUMNS: dict[str, tuple[str, ...]] = {
    "checkpoints": ("thread_id", "checkpoint_ns", "checkpoint_id", "parent_checkpoint_id"),
    "writes": ("thread_id", "checkpoint_ns", "checkpoint_id"),
}
"""LangGraph's private tables and the columns :meth:`RoomStore.delete_since` reads or filters on."""

OPEN_RUN = "open_run"
ORIGIN = "created_by"


def is_room_table(name: str) -> bool:
    """Whether a table named ``name`` belongs in a room file (the room's, the memory's, LangGraph's, SQLite's)."""
    return name in CHECKPOINT_COLUMNS or name.startswith(("aya_", "sqlite_"))


def is_legacy_room(found: SqliteFile) -> bool:
    """Whether an unmarked SQLite file is a room from before the marker: only a room's tables, at least one
    of the room's own (``aya_room_*``), and LangGraph's tables with the columns :data:`CHECKPOINT_COLUMNS`."""
    fits = all(set(CHECKPOINT_COLUMNS.get(t, ())) <= set(cols) for t, cols in found.tables.items())
    own = any(t.startswith("aya_room_") for t in found.tables)
    return own and fits and all(is_room_table(t) for t in found.tables)


def room_origin(path: Path) -> str | None:
    """What created the room file ``path`` (its ``created_by`` row, e.g. ``demo``), read without writing or
    creating anything; ``None`` when it records none (``sqlite3.DatabaseError`` when it is no SQLite file)."""
    with read_only(path) as conn:
        try:
            row = conn.execute("SELECT value FROM aya_room_meta WHERE name = ?", (ORIGIN,)).fetchone()
        except sqlite3.OperationalError:  # no aya_room_meta: no room
            return None
    return None if row is None else str(row[0])


class RoomStore:
    """One open room file: its connection (autocommit; explicit transactions where several rows must
    change together), the room's tables, the memory and the checkpointer (see the module docstring).

    :class:`RoomError` when the file cannot be written (a read-only file the access check could not see).
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.conn = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self.conn.execute("PRAGMA busy_timeout = 30000")
        try:
            ensure_marked_schema(self.conn, ROOM_SCHEMA, ROOM_FILE)  # tables and marker in one transaction
        except sqlite3.OperationalError as exc:
            self.conn.close()
            if "readonly" not in str(exc):
                raise
            raise RoomError(
                f"room file {path} cannot be written ({exc}): make it and its folder writable, "
                "or open a copy at a new path"
            ) from None
        self.memory = RoomMemory(self.conn)  # memory policy and pending notes (aya_lab.agents.memory)
        self.checkpointer = SqliteSaver(self.conn, serde=JsonPlusSerializer(allowed_msgpack_modules=CHECKPOINTED_TYPES))
        self.checkpointer.setup()

    def close(self) -> None:
        self.conn.close()

    def record_origin(self, created_by: str) -> None:
        """Record what created this room (``demo``): :func:`room_origin` reads it."""
        self.conn.execute("INSERT OR REPLACE INTO aya_room_meta (name, value) VALUES (?, ?)", (ORIGIN, created_by))

    # -- users --------------------------------------------------------------------------------------------
    def readers(self) -> dict[str, tuple[str, ...]]:
        """User id -> the language codes they read, in order of preference; users in the order they joined."""
        rows = self.conn.execute("SELECT user_id, lang FROM aya_room_users ORDER BY position").fetchall()
        return {user: from_stored(langs) for user, langs in rows}

    def users(self) -> dict[str, str]:
        """User id -> their first language's code, in the order they joined."""
        return {user: langs[0] for user, langs in self.readers().items()}

    def add_user(self, user_id: str, languages: str | Sequence[str]) -> None:
        """Add a user reading ``languages`` (codes, in order of preference; kept comma-joined in ``lang``)."""
        self.conn.execute(
            "INSERT INTO aya_room_users VALUES (?, ?, (SELECT COUNT(*) FROM aya_room_users))",
            (user_id, stored(languages)),
        )

    # -- runs ---------------------------------------------------------------------------------------------
    def record_run(self, report: RunReport, trace: list[NodeVisit]) -> None:
        """Record a run (its report and its node visits, as JSON) and remove the open-run marker in one
        transaction: from here on the run is committed."""
        run_id, message_id, sender = report.run_id, report.message_id, report.sender
        visits = [asdict(v) for v in trace]
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            self.conn.execute(
                "INSERT INTO aya_room_runs VALUES (?, ?, ?, ?, ?, ?)",
                (
                    run_id,
                    message_id,
                    sender,
                    time.time(),
                    json.dumps(asdict(report)),
                    json.dumps(visits, ensure_ascii=False),
                ),
            )
            self.clear_open_run()
            self.conn.execute("COMMIT")
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise

    def reports(self) -> list[RunReport]:
        """Every recorded run's report, oldest first."""
        rows = self.conn.execute("SELECT report FROM aya_room_runs ORDER BY created_at").fetchall()
        return [RunReport(**json.loads(r[0])) for r in rows]

    def trace(self, run_id: str) -> list[NodeVisit] | None:
        """The node visits recorded for ``run_id``, or ``None`` when no such run was recorded."""
        row = self.conn.execute("SELECT trace FROM aya_room_runs WHERE run_id = ?", (run_id,)).fetchone()
        return None if row is None else [NodeVisit(**v) for v in json.loads(row[0])]

    def run_ids(self) -> list[str]:
        """The recorded runs' ids, oldest first."""
        return [r[0] for r in self.conn.execute("SELECT run_id FROM aya_room_runs ORDER BY created_at")]

    def is_recorded(self, run_id: str) -> bool:
        return self.conn.execute("SELECT 1 FROM aya_room_runs WHERE run_id = ?", (run_id,)).fetchone() is not None

    # -- the open-run marker -----------------------------------------------------------------------------
    def start_open_run(self, run_id: str, before: str | None) -> None:
        """Mark ``run_id`` as running (with the newest checkpoint before it) until :meth:`clear_open_run`."""
        self.conn.execute(
            "INSERT OR REPLACE INTO aya_room_meta (name, value) VALUES (?, ?)",
            (OPEN_RUN, json.dumps({"run_id": run_id, "before": before})),
        )

    def open_run(self) -> tuple[str, str | None] | None:
        """The run a writer started and never finished (``(run_id, checkpoint before it)``), or ``None``."""
        row = self.conn.execute("SELECT value FROM aya_room_meta WHERE name = ?", (OPEN_RUN,)).fetchone()
        if row is None:
            return None
        data = json.loads(row[0])
        return str(data["run_id"]), data["before"]

    def clear_open_run(self) -> None:
        self.conn.execute("DELETE FROM aya_room_meta WHERE name = ?", (OPEN_RUN,))

    # -- LangGraph's checkpoints -------------------------------------------------------------------------
    def delete_since(self, thread: str, before: str | None) -> list[str]:
        """Delete the checkpoints of ``thread`` descending from ``before`` (all of them when ``None``: there
        was no checkpoint yet) and their writes, in one transaction; returns the deleted ids.

        Descendants through ``parent_checkpoint_id``, never "every id above it", which could hit
        checkpoints another writer or namespace made. Call with the room lock held; the checkpointer's
        lock is taken here (the connection is shared).
        """
        with self.checkpointer.lock:
            rows = self.conn.execute(
                "SELECT checkpoint_id, parent_checkpoint_id FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = ''",
                (thread,),
            ).fetchall()
            children: dict[str | None, list[str]] = {}
            for cid, parent in rows:
                children.setdefault(parent, []).append(cid)
            ids: list[str] = []
            todo = list(children.get(before, []))
            while todo:
                cid = todo.pop()
                ids.append(cid)
                todo += children.get(cid, [])
            if ids:
                self._delete_checkpoints(thread, ids)
        return ids

    def _delete_checkpoints(self, thread: str, ids: list[str]) -> None:
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            for table in ("writes", "checkpoints"):
                self.conn.executemany(
                    f"DELETE FROM {table} WHERE thread_id = ? AND checkpoint_ns = '' AND checkpoint_id = ?",
                    [(thread, cid) for cid in ids],
                )
            self.conn.execute("COMMIT")
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
