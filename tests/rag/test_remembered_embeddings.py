"""The packaged embedder keeps its batches and queries: the same vectors, computed once, under the same name."""

from __future__ import annotations

from langchain_core.embeddings import Embeddings

from aya_lab.rag.embeddings import RememberedEmbeddings, embeddings_fingerprint


class Counting(Embeddings):
    model_name = "counting-embedder"

    def __init__(self) -> None:
        self.documents: list[list[str]] = []
        self.queries: list[str] = []

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.documents.append(list(texts))
        return [[len(t) / 3, 1 / (len(texts) + 0.7)] for t in texts]  # depends on the batch, as padding does

    def embed_query(self, text: str) -> list[float]:
        self.queries.append(text)
        return [len(text) / 7, 0.1]


def test_the_same_batch_and_query_are_served_from_memory_with_the_same_vectors():
    inner = Counting()
    emb = RememberedEmbeddings(inner)
    first = emb.embed_documents(["flights", "expenses"])
    assert emb.embed_documents(["flights", "expenses"]) == first and len(inner.documents) == 1
    assert emb.embed_documents(["flights"]) != first[:1]  # another batch is the embedder's own: computed
    assert len(inner.documents) == 2
    query = emb.embed_query("What is the travel policy?")
    assert emb.embed_query("What is the travel policy?") == query and inner.queries == ["What is the travel policy?"]


def test_the_oldest_go_first_and_the_name_is_the_wrapped_embedders():
    inner = Counting()
    emb = RememberedEmbeddings(inner, batches=1, queries=1)
    emb.embed_documents(["a"]), emb.embed_documents(["b"]), emb.embed_documents(["a"])
    emb.embed_query("x"), emb.embed_query("y"), emb.embed_query("x")
    assert inner.documents == [["a"], ["b"], ["a"]] and inner.queries == ["x", "y", "x"]
    assert embeddings_fingerprint(emb) == embeddings_fingerprint(inner) == "Counting:model_name=counting-embedder"
