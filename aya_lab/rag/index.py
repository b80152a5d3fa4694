"""The vector index: LangChain's ``FAISS`` store, exact cosine (``IndexFlatIP`` over unit vectors),
built in memory from the stored vectors (nothing is embedded on reopening)."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from langchain_core.documents import Document
from langchain_core.embeddings import Embeddings

from aya_lab.rag.store import StoredRow

if TYPE_CHECKING:
    from langchain_community.vectorstores import FAISS

__all__ = ["FACT_PENALTY", "Retrieved", "add_rows", "new_vectorstore", "rank_score", "to_retrieved"]

FACT_PENALTY = 0.05
"""Subtracted from a remembered fact's cosine score when it is ranked against document chunks, so a
document outranks a fact of equal relevance (set by judgement; see data/rag/README.md). The scores
reported stay the cosine similarities."""


@dataclass(frozen=True)
class Retrieved:
    """One retrieved chunk (or remembered fact), with its cosine ``score`` in [-1, 1]."""

    text: str
    source: str
    section: str
    score: float
    kind: str = "doc"  # "doc" (a chunk of a KB file) or "fact" (added by add_fact)
    author: str | None = None


def _faiss_classes() -> tuple[Any, Any, Any]:
    """LangChain's FAISS, its docstore and DistanceStrategy, imported on first use.

    Importing ``langchain_community`` warns that the package is being sunset; that one warning is
    silenced here (the FAISS integration still works, and it is the one LangChain vector store that
    runs on this Python, see the module docstring).
    """
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="`langchain-community` is being sunset", category=DeprecationWarning)
        from langchain_community.docstore.in_memory import InMemoryDocstore
        from langchain_community.vectorstores import FAISS
        from langchain_community.vectorstores.utils import DistanceStrategy
    return FAISS, InMemoryDocstore, DistanceStrategy


def new_vectorstore(embeddings: Embeddings, dim: int) -> FAISS:
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


def add_rows(store: FAISS, rows: Sequence[StoredRow]) -> None:
    """Add stored vectors to ``store`` as they are (nothing is embedded)."""
    if rows:
        store.add_embeddings(
            [(row.text, row.vector.tolist()) for row in rows],
            metadatas=[row.metadata for row in rows],
            ids=[row.key for row in rows],
        )


def rank_score(score: float, kind: str) -> float:
    """The score a hit is ranked by: its cosine score, less :data:`FACT_PENALTY` for a fact."""
    return score - FACT_PENALTY if kind == "fact" else score


def to_retrieved(doc: Document, score: float) -> Retrieved:
    meta = doc.metadata
    return Retrieved(
        text=doc.page_content,
        source=meta["source"],
        section=meta["section"],
        score=min(max(float(score), -1.0), 1.0),  # float32 rounding can give 1.0000002
        kind=meta["kind"],
        author=meta["author"],
    )
