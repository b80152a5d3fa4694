"""Aya's knowledge base: load, split, embed, store, retrieve (the front of :mod:`aya_lab.rag`).

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
  with the packaged all-MiniLM-L6-v2 (how: ``data/rag/README.md``).
* ``sections()`` gives the documents' sections as read at open (:mod:`aya_lab.rag.sections`), which the
  query agent searches with the multilingual encoder and quotes.
* ``add_fact(text, author=..., run_id=None)`` (Aya's ``remember`` tool) stores an attributed fact and
  returns its id: at once without a run id; with one it stays pending (invisible) until
  ``commit_run(run_id)``, and ``discard_run`` / ``discard_uncommitted`` drop it. ``forget(fact_id, by=...)``
  removes a fact with an audit row (``audit()``); ``facts()`` lists the committed ones (:class:`Fact`).
  Facts live in their own table (:mod:`aya_lab.rag.facts`), survive reopening and re-indexing (they are
  re-embedded when the documents are), and are retrieved beside document chunks with ``kind="fact"``.
* ``KnowledgeBase.open_readonly(db_path)`` is a read-only view of a built store (facts, audit rows,
  sources, size, metadata; :mod:`aya_lab.rag.readonly`) for tools that look without changing anything.
* A KB file that cannot be read (not UTF-8, permission denied, empty), a missing or empty KB folder, or
  a file that is not a knowledge-base store raises :class:`KnowledgeBaseError` with one line that names
  the file and the fix. Files are read and validated before the store is touched, and a rebuild is one
  SQLite transaction, so a failure leaves the previous store exactly as it was (a write that fails, such
  as on a full disk, is one line too, and a store the open created is removed: :mod:`aya_lab.rag.store`).

What was simplified, and why: see :mod:`aya_lab.rag`.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import numpy as np
from langchain_core.documents import Document
from langchain_core.embeddings import Embeddings
from langchain_core.retrievers import BaseRetriever

from aya_lab.errors import InputError
from aya_lab.paths import kb_dir
from aya_lab.rag.documents import (
    DEFAULT_CHUNK_OVERLAP,
    DEFAULT_CHUNK_SIZE,
    SPLITTER_VERSION,
    KBDocument,
    KnowledgeBaseError,
    docs_hash,
    read_documents,
    split_documents,
)
from aya_lab.rag.embeddings import default_embeddings, embeddings_fingerprint
from aya_lab.rag.facts import FactsMixin, ensure_schema
from aya_lab.rag.index import Retrieved, add_rows, new_vectorstore, rank_score, to_retrieved
from aya_lab.rag.readonly import ReadOnlyKnowledgeBase
from aya_lab.rag.sections import Section, read_sections
from aya_lab.rag.store import (
    SCHEMA_VERSION,
    StoredRow,
    connect,
    count_rows,
    list_sources,
    load_rows,
    read_meta,
    to_blob,
    unit_vectors,
    written_or_unchanged,
)

if TYPE_CHECKING:
    from langchain_community.vectorstores import FAISS

__all__ = ["DEFAULT_MIN_SCORE", "KnowledgeBase", "KnowledgeBaseRetriever"]

# Relevance threshold on the cosine score of the best chunk (packaged all-MiniLM-L6-v2), chosen on
# data/kb with data/rag/questions.jsonl; how, and the table it was read from: data/rag/README.md.
DEFAULT_MIN_SCORE = 0.35


class KnowledgeBase(FactsMixin):
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
        self._sections: list[Section] = []  # the documents' sections, when this open read them

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
            raise InputError(
                f"chunk_size must be >= 1 and 0 <= chunk_overlap < chunk_size; got {chunk_size}/{chunk_overlap}"
            )
        if docs_dir is None:
            docs_dir = kb_dir()
        emb = embeddings if embeddings is not None else default_embeddings()
        fingerprint = embeddings_fingerprint(emb)
        docs = read_documents(Path(docs_dir)) if refresh else None  # validate before touching the store
        with written_or_unchanged(db_path):  # a failed write (a full disk): one line, the store as it was
            conn = connect(db_path)
            kb = cls(conn, db_path, emb, fingerprint, min_score)
            try:
                ensure_schema(conn)
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
                    key = _index_key(docs_hash(docs), fingerprint, chunk_size, chunk_overlap)
                    if meta.get("index_key") != key:
                        kb._rebuild(docs, key, chunk_size, chunk_overlap)
                    kb._sections = read_sections(docs)
            except BaseException:
                conn.close()
                raise
        return kb

    @classmethod
    def open_readonly(cls, db_path: Path | str) -> ReadOnlyKnowledgeBase:
        """A read-only view of the store in ``db_path`` as it is (facts, audit rows, sources, size, build
        metadata): it reads no documents, loads no embedder and cannot write. :class:`KnowledgeBaseError`
        (one line: the path and the fix) when no built store is there; see :mod:`aya_lab.rag.readonly`."""
        return ReadOnlyKnowledgeBase.open(db_path)

    def _rebuild(self, docs: Sequence[KBDocument], key: str, chunk_size: int, chunk_overlap: int) -> None:
        chunks = split_documents(docs, chunk_size, chunk_overlap)
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
                        (c.source, c.section, c.text, json.dumps(c.metadata, ensure_ascii=False), to_blob(v))
                        for c, v in zip(chunks, vectors)
                    ],
                )
                now_facts = conn.execute("SELECT id, text FROM kb_facts ORDER BY id").fetchall()
                late = [(fid, text) for fid, text in now_facts if fid not in fact_vectors]
                if late:  # remembered by another process while we were embedding
                    fact_vectors.update(zip([f for f, _ in late], self._embed_documents([t for _, t in late])))
                conn.executemany(
                    "UPDATE kb_facts SET embedding = ? WHERE id = ?",
                    [(to_blob(fact_vectors[fid]), fid) for fid, _ in now_facts],
                )
                meta = {
                    "schema_version": SCHEMA_VERSION,
                    "index_key": key,
                    "docs_hash": docs_hash(docs),
                    "embedder": self.fingerprint,
                    "dim": str(vectors.shape[1]),
                    "splitter": SPLITTER_VERSION,
                    "chunk_size": str(chunk_size),
                    "chunk_overlap": str(chunk_overlap),
                    "documents": json.dumps([d.source for d in docs]),
                    "built_at": datetime.now(UTC).isoformat(timespec="seconds"),
                }
                conn.executemany("INSERT OR REPLACE INTO kb_meta (key, value) VALUES (?, ?)", meta.items())
                conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:  # SQLite rolls a full disk's transaction back itself
                    conn.execute("ROLLBACK")
                raise
            self._store = None

    def _embed_documents(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        vectors = unit_vectors(self.embeddings.embed_documents(texts))
        if len(vectors) != len(texts):
            raise KnowledgeBaseError(
                f"the embedder {self.fingerprint} returned {len(vectors)} vectors for {len(texts)} texts"
            )
        return vectors

    # -- reading the store

    def meta(self) -> dict[str, str]:
        """The store's build metadata (index key, documents hash, embedder, dim, chunking, built_at)."""
        with self._lock:
            return read_meta(self._db)

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
        rows = load_rows(self._db)
        dim = len(rows[0].vector) if rows else int(self.meta().get("dim") or 1)
        store = new_vectorstore(self.embeddings, dim)
        self._store, self._order = store, {}
        self._index(store, rows)
        self._data_version = version
        return store

    def _index(self, store: FAISS, rows: Sequence[StoredRow]) -> None:
        """Add stored rows to the search index, remembering their position (to order ties)."""
        add_rows(store, rows)
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
            raise InputError("retrieve() needs a non-empty query string")
        if k < 1:
            raise InputError(f"k must be >= 1; got {k}")
        q = unit_vectors([self.embeddings.embed_query(query)])[0]
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
            # a fact ranks FACT_PENALTY below its score; ties keep the store's order (documents, then facts)
            hits.sort(
                key=lambda hit: (-rank_score(float(hit[1]), hit[0].metadata["kind"]), order[cast(str, hit[0].id)])
            )
        return [to_retrieved(doc, score) for doc, score in hits]

    def relevant(self, query: str, k: int = 4, min_score: float | None = None) -> list[Retrieved]:
        """``retrieve`` keeping only results scoring ``>= min_score`` (default: ``self.min_score``).

        An empty list means the knowledge base has nothing relevant: answer "I don't know".
        """
        threshold = self.min_score if min_score is None else min_score
        return [r for r in self.retrieve(query, k) if r.score >= threshold]

    def sections(self) -> list[Section]:
        """The documents' sections (:mod:`aya_lab.rag.sections`: what Aya quotes), as read when this store was
        opened; empty when it was opened with ``refresh=False`` (no document was read)."""
        return list(self._sections)

    def as_retriever(self, k: int = 4, min_score: float | None = None) -> KnowledgeBaseRetriever:
        """A LangChain retriever over :meth:`relevant` (metadata: source, section, score, kind, author)."""
        return KnowledgeBaseRetriever(kb=self, k=k, min_score=min_score)

    def sources(self) -> list[str]:
        """Sorted names of everything retrievable: KB file names, plus fact sources when facts exist."""
        with self._lock:
            return list_sources(self._db)

    def chunks(self) -> list[tuple[str, str]]:
        """``(source, text)`` of everything search can return (document chunks, then facts), as stored:
        the units the retrieval floors (BM25, random) rank (:mod:`aya_lab.eval.retrieval`)."""
        with self._lock:
            return [(row.source, row.text) for row in load_rows(self._db)]

    def __len__(self) -> int:
        """Document chunks plus committed facts (what search can return)."""
        with self._lock:
            return count_rows(self._db)

    # -- writing

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
