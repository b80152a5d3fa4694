"""Stable fingerprints of model weights.

A fingerprint identifies *what produced a text*: the weights (content hash of local weight files, or the
hub revision a snapshot was taken at) plus the generation settings. File hashes are memoised in
``<cache dir>/file_hashes.json`` by (path, size, mtime) so large checkpoints are read once.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from pathlib import Path

from aya_lab.paths import cache_dir

__all__ = ["file_sha256", "weights_id", "combine"]

_LOCK = threading.Lock()
_WEIGHT_SUFFIXES = (".safetensors", ".bin", ".gguf", ".pt", ".model", ".json", ".spm", ".txt")


def _memo_path() -> Path:
    return cache_dir() / "file_hashes.json"


def file_sha256(path: str | os.PathLike[str]) -> str:
    """SHA-256 hex digest of a file, memoised by (resolved path, size, mtime)."""
    p = Path(path).resolve()
    st = p.stat()
    key = f"{p}|{st.st_size}|{st.st_mtime_ns}"
    with _LOCK:
        memo_file = _memo_path()
        try:
            memo = json.loads(memo_file.read_text())
        except (OSError, ValueError):
            memo = {}
        if key in memo:
            return memo[key]
        h = hashlib.sha256()
        with p.open("rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                h.update(block)
        memo[key] = h.hexdigest()
        tmp = memo_file.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(memo, indent=0, sort_keys=True))
        tmp.replace(memo_file)
        return memo[key]


def weights_id(model_dir: str | os.PathLike[str]) -> str:
    """Identity of a checkpoint directory.

    A hub snapshot (``.../snapshots/<commit>``) is identified by its revision; any other directory by a
    hash over the content hashes of its weight, config and tokenizer files.
    """
    d = Path(model_dir).resolve()
    if d.parent.name == "snapshots" and len(d.name) >= 7:
        repo = d.parent.parent.name.removeprefix("models--").replace("--", "/")
        return f"hub:{repo}@{d.name}"
    files = sorted(f for f in d.iterdir() if f.is_file() and f.suffix in _WEIGHT_SUFFIXES)
    h = hashlib.sha256()
    for f in files:
        if f.name == "aya_lab_converted.json":
            continue
        h.update(f.name.encode())
        h.update(file_sha256(f).encode())
    return f"sha256:{h.hexdigest()[:24]}"


def combine(weights: str, settings_key: str, extra: str = "") -> str:
    """The fingerprint string: weights identity + a short hash of the settings (and any extra)."""
    tail = hashlib.sha256((settings_key + "|" + extra).encode()).hexdigest()[:12]
    return f"{weights}#{tail}"
