"""The knowledge base's SQLite rows: document chunks and remembered facts with unit-length float32
vectors as blobs. The SQLite file is the one source of truth (nothing is pickled).

The file carries the project's marker (:data:`~aya_lab.sqlite_file.KNOWLEDGE_BASE`), set in the
transaction that makes its tables; :func:`connect` refuses, before writing anything, a file that is not
a knowledge base (:func:`kb_file_problem`; an unmarked file holding only ``kb_*`` tables is a store from
before the marker, and is stamped). :func:`written_or_unchanged` turns a failed write (a full disk) into
one line, with the store as it was.
"""

from __future__ import annotations

import errno
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from aya_lab.rag.documents import KnowledgeBaseError
from aya_lab.sqlite_file import KNOWLEDGE_BASE, SqliteFile, ensure_marked_schema, file_problem

__all__ = [
    "FACT_SECTION",
    "SCHEMA_VERSION",
    "StoredRow",
    "connect",
    "count_rows",
    "kb_file_problem",
    "load_rows",
    "read_meta",
    "list_sources",
    "unit_vectors",
    "to_blob",
    "written_or_unchanged",
]

SCHEMA_VERSION = "1"
FACT_SECTION = "remembered fact"


def unit_vectors(vectors: Sequence[Sequence[float]]) -> np.ndarray:
    """Rows as float32 unit vectors (a zero vector stays zero), so a dot product is cosine similarity."""
    arr = np.asarray(vectors, dtype=np.float32)
    if arr.ndim != 2:
        raise KnowledgeBaseError(f"the embedder returned vectors of shape {arr.shape}: expected one row per text")
    norms = np.linalg.norm(arr, axis=1, keepdims=True)
    return arr / np.where(norms > 0, norms, 1.0)


def to_blob(vector: np.ndarray) -> bytes:
    return np.asarray(vector, dtype="<f4").tobytes()


class StoredRow(NamedTuple):
    """One retrievable item as stored: a document chunk (``kind="doc"``) or a remembered fact."""

    kind: str
    id: int
    text: str
    source: str
    section: str
    author: str | None
    embedding: bytes  # little-endian float32, unit length

    @property
    def key(self) -> str:  # the vector store's document id, "doc:12" or "fact:3"
        return f"{self.kind}:{self.id}"

    @property
    def metadata(self) -> dict[str, Any]:
        return {"source": self.source, "section": self.section, "kind": self.kind, "author": self.author}

    @property
    def vector(self) -> np.ndarray:
        return np.frombuffer(self.embedding, dtype="<f4")


_SCHEMA = """
CREATE TABLE IF NOT EXISTS kb_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS kb_chunks (
    id INTEGER PRIMARY KEY, source TEXT NOT NULL, section TEXT NOT NULL, text TEXT NOT NULL,
    metadata TEXT NOT NULL, embedding BLOB NOT NULL);
"""  # the facts tables: aya_lab.rag.facts


def _only_kb_tables(found: SqliteFile) -> bool:
    return all(t.startswith(("kb_", "sqlite_")) for t in found.tables)


def kb_file_problem(path: Path, fix: str = "move it aside, or pass another db_path") -> str | None:
    """Why the file ``path`` cannot be opened as a knowledge base (one line naming it and ``fix``), or ``None``
    (no file, an empty one, or a knowledge base). Reads only, creating nothing beside it."""
    if not path.exists():
        return None
    return file_problem(path, KNOWLEDGE_BASE, fix, _only_kb_tables)


def connect(db_path: Path | str) -> sqlite3.Connection:
    """A connection to the store at ``db_path`` with its tables (and the marker), or :class:`KnowledgeBaseError`
    before anything is written when the file is not a knowledge base."""
    if str(db_path) != ":memory:":
        problem = kb_file_problem(Path(db_path))
        if problem:
            raise KnowledgeBaseError(problem)
        Path(db_path).parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(str(db_path), isolation_level=None, check_same_thread=False, timeout=30)
    try:
        ensure_marked_schema(conn, _SCHEMA, KNOWLEDGE_BASE)
    except BaseException:
        conn.close()
        raise
    return conn


def _failure(path: Path | str, exc: BaseException) -> str:
    full = getattr(exc, "errno", None) == errno.ENOSPC or "full" in str(exc)
    why, fix = ("disk full", "free space") if full else ("a write failed", "fix the cause")
    return (
        f"could not build the knowledge base at {path}: {why} ({exc}); nothing was changed: {fix} and open the room "
        "(or the knowledge base) again"
    )


@contextmanager
def written_or_unchanged(db_path: Path | str) -> Iterator[None]:
    """Run a block that opens and writes the store at ``db_path``. When a write fails (``sqlite3.OperationalError``,
    such as a full disk, or an ``OSError``), its transaction has rolled back, a file the block created is
    removed (with its journal), and a :class:`KnowledgeBaseError` says so in one line."""
    path = Path(db_path)
    new = str(db_path) != ":memory:" and not path.exists()
    try:
        yield
    except (sqlite3.OperationalError, OSError) as exc:
        if new:
            for p in (path, *(Path(f"{path}{s}") for s in ("-journal", "-wal", "-shm"))):
                p.unlink(missing_ok=True)
        raise KnowledgeBaseError(_failure(path, exc)) from None


def load_rows(conn: sqlite3.Connection) -> list[StoredRow]:
    """Every stored chunk and committed fact with its vector: chunks first, each kind in id order."""
    rows = conn.execute(
        "SELECT 'doc', id, text, source, section, NULL, embedding FROM kb_chunks "
        "UNION ALL SELECT 'fact', id, text, source, ?, author, embedding FROM kb_facts WHERE committed = 1 ORDER BY 1, 2",
        (FACT_SECTION,),
    ).fetchall()
    return [StoredRow(*row) for row in rows]


def read_meta(conn: sqlite3.Connection) -> dict[str, str]:
    """The store's build metadata (index key, documents hash, embedder, dim, chunking, built_at)."""
    return dict(conn.execute("SELECT key, value FROM kb_meta").fetchall())


def list_sources(conn: sqlite3.Connection) -> list[str]:
    """Sorted names of everything retrievable: document file names, and fact sources of committed facts."""
    rows = conn.execute(
        "SELECT source FROM kb_chunks UNION SELECT source FROM kb_facts WHERE committed = 1 ORDER BY 1"
    ).fetchall()
    return [r[0] for r in rows]


def count_rows(conn: sqlite3.Connection) -> int:
    """Document chunks plus committed facts (what search can return)."""
    chunks = conn.execute("SELECT count(*) FROM kb_chunks").fetchone()[0]
    return int(chunks + conn.execute("SELECT count(*) FROM kb_facts WHERE committed = 1").fetchone()[0])
