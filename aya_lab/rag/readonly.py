"""A read-only view of a knowledge-base store: :class:`ReadOnlyKnowledgeBase` (``KnowledgeBase.open_readonly``).

For tools that look at a store without changing it (``aya-lab kb facts|audit``): the committed facts, the
audit rows, the sources, the size and the build metadata, read through an SQLite connection opened with
``mode=ro`` (and ``PRAGMA query_only``), so the view cannot write, not even a schema migration: the file
stays byte-identical. It reads no documents and loads no embedder; :attr:`~ReadOnlyKnowledgeBase.embedder`
names the one the store was built with, for a caller that must reopen it for writing.

A path with no file, a file that is no knowledge-base store, a store never built, or one whose facts
tables predate runs (a writable open migrates them) raise :class:`KnowledgeBaseError`: one line naming
the path and the fix.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any
from urllib.parse import quote

from aya_lab.rag.documents import KnowledgeBaseError
from aya_lab.rag.facts import Fact, audit, list_facts, schema_is_current
from aya_lab.rag.store import count_rows, list_sources, read_meta

__all__ = ["ReadOnlyKnowledgeBase"]


def _connect_readonly(path: Path) -> sqlite3.Connection:
    """A connection that cannot write ``path``; :class:`KnowledgeBaseError` when there is no file."""
    if not path.is_file():
        what = "a folder" if path.is_dir() else "no file"
        raise KnowledgeBaseError(
            f"no knowledge base at {path} ({what}): open its room once, or KnowledgeBase.open with a docs_dir, "
            "to build it"
        )
    return sqlite3.connect(f"file:{quote(str(path.resolve()))}?mode=ro", uri=True, timeout=30)


class ReadOnlyKnowledgeBase:
    """A built knowledge-base store, read-only (see the module docstring). Make one with :meth:`open` or
    :meth:`~aya_lab.rag.knowledge_base.KnowledgeBase.open_readonly`; close it (or use ``with``)."""

    def __init__(self, conn: sqlite3.Connection, path: Path) -> None:
        self._conn: sqlite3.Connection | None = conn
        self.path = path

    @classmethod
    def open(cls, db_path: Path | str) -> ReadOnlyKnowledgeBase:
        path = Path(db_path)
        conn = _connect_readonly(path)
        try:
            try:
                conn.execute("PRAGMA query_only = 1")
                meta = read_meta(conn)
                current = schema_is_current(conn)
            except sqlite3.DatabaseError as exc:
                raise KnowledgeBaseError(
                    f"{path} is not a knowledge-base store ({exc}): give the .kb.sqlite file beside a room"
                ) from None
            if "index_key" not in meta:
                raise KnowledgeBaseError(f"{path} has never been built: open its room once to build it")
            if not current:
                raise KnowledgeBaseError(
                    f"{path} holds facts in an older layout: open its room (or KnowledgeBase.open) once to migrate it"
                )
        except BaseException:
            conn.close()
            raise
        return cls(conn, path)

    @property
    def _db(self) -> sqlite3.Connection:
        if self._conn is None:
            raise KnowledgeBaseError(f"knowledge base {self.path} is closed: open it again with open_readonly")
        return self._conn

    def meta(self) -> dict[str, str]:
        """The store's build metadata (index key, documents hash, embedder, dim, chunking, built_at)."""
        return read_meta(self._db)

    @property
    def embedder(self) -> str:
        """The fingerprint of the embedder the store was built with."""
        return self.meta()["embedder"]

    def documents(self) -> list[str]:
        """The document files the store was built from, as listed when it was built."""
        return list(json.loads(self.meta().get("documents") or "[]"))

    def sources(self) -> list[str]:
        """Sorted names of everything retrievable: document file names, plus fact sources when facts exist."""
        return list_sources(self._db)

    def facts(self) -> list[Fact]:
        """The committed remembered facts, oldest first (id, text, author, created_at)."""
        return list_facts(self._db)

    def audit(self) -> list[dict[str, Any]]:
        """Every removal, oldest first: fact_id, text, author, created_at, removed_by, reason, removed_at."""
        return audit(self._db)

    def __len__(self) -> int:
        """Document chunks plus committed facts (what search can return)."""
        return count_rows(self._db)

    def close(self) -> None:
        """Close the connection (idempotent)."""
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def __enter__(self) -> ReadOnlyKnowledgeBase:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self._conn is None else f"{len(self)} items"
        return f"ReadOnlyKnowledgeBase({str(self.path)!r}, {state})"
