"""The knowledge base's SQLite rows: document chunks and remembered facts with unit-length float32
vectors as blobs. The SQLite file is the one source of truth (nothing is pickled)."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from aya_lab.rag.documents import KnowledgeBaseError

__all__ = [
    "FACT_SECTION",
    "SCHEMA_VERSION",
    "StoredRow",
    "connect",
    "count_rows",
    "load_rows",
    "read_meta",
    "list_sources",
    "unit_vectors",
    "to_blob",
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


def connect(db_path: Path | str) -> sqlite3.Connection:
    if str(db_path) != ":memory:":
        Path(db_path).parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(str(db_path), isolation_level=None, check_same_thread=False, timeout=30)
    try:
        conn.executescript(_SCHEMA)
    except sqlite3.DatabaseError as exc:
        conn.close()
        raise KnowledgeBaseError(
            f"{db_path} is not a knowledge-base store ({exc}): pass another db_path or delete the file to rebuild"
        ) from None
    return conn


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
