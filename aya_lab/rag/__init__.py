"""Aya's knowledge base: documents -> chunks -> embeddings -> SQLite rows -> a FAISS index.

Modules, in import order: :mod:`~.embeddings` (the embedder), :mod:`~.documents` (reading,
splitting), :mod:`~.store` (SQLite rows), :mod:`~.facts` (remembered facts), :mod:`~.readonly` (a
read-only view of a store), :mod:`~.index` (the FAISS adapter) and :mod:`~.knowledge_base`
(:class:`KnowledgeBase`, the front).

Simplified, and why
-------------------
* Persistence and search are two parts. The SQLite file is the store: texts, metadata and unit-length
  float32 vectors as blobs. Search runs in LangChain's ``FAISS`` vector store, built in memory from
  those stored vectors, so reopening embeds nothing. LangChain's ``SQLiteVec`` would do both in one
  file, but it needs the ``sqlite-vec`` loadable extension, and the Python on these machines is built without ``sqlite3.Connection.enable_load_extension`` (it raises ``AttributeError``),
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

from aya_lab.rag.documents import DEFAULT_CHUNK_OVERLAP, DEFAULT_CHUNK_SIZE, KnowledgeBaseError
from aya_lab.rag.embeddings import default_embeddings, embeddings_fingerprint
from aya_lab.rag.facts import Fact
from aya_lab.rag.index import Retrieved
from aya_lab.rag.knowledge_base import DEFAULT_MIN_SCORE, KnowledgeBase, KnowledgeBaseRetriever
from aya_lab.rag.readonly import ReadOnlyKnowledgeBase

__all__ = [
    "DEFAULT_CHUNK_OVERLAP",
    "DEFAULT_CHUNK_SIZE",
    "DEFAULT_MIN_SCORE",
    "Fact",
    "KnowledgeBase",
    "KnowledgeBaseError",
    "KnowledgeBaseRetriever",
    "ReadOnlyKnowledgeBase",
    "Retrieved",
    "default_embeddings",
    "embeddings_fingerprint",
]
