"""Aya's knowledge base: documents -> chunks -> embeddings -> SQLite rows -> a FAISS index.

Modules, in import order: :mod:`~.embeddings` (the embedder), :mod:`~.documents` (reading,
splitting), :mod:`~.store` (SQLite rows), :mod:`~.index` (the FAISS adapter) and
:mod:`~.knowledge_base` (:class:`KnowledgeBase`, the front).
"""

from aya_lab.rag.documents import DEFAULT_CHUNK_OVERLAP, DEFAULT_CHUNK_SIZE, KnowledgeBaseError
from aya_lab.rag.embeddings import default_embeddings, embeddings_fingerprint
from aya_lab.rag.index import Retrieved
from aya_lab.rag.knowledge_base import DEFAULT_MIN_SCORE, KnowledgeBase, KnowledgeBaseRetriever

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
