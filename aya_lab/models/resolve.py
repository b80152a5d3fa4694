"""Resolve ``hf:``/``seq2seq:`` targets to a local checkpoint directory, never downloading silently.

A target is a local path (absolute, ``./``, ``~`` or an existing directory) or a hub id
(``org/name``). Hub ids are looked up in the local Hugging Face cache; when ``HF_HUB_OFFLINE`` is set
(or nothing is cached and the hub cannot be reached) the error says how to make the weights available.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from aya_lab.models.errors import ModelNotFoundError

__all__ = ["resolve_checkpoint", "hub_offline"]

_HUB_ID = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")


def hub_offline() -> bool:
    return os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in {"1", "true", "yes", "on"}


def resolve_checkpoint(target: str, spec: str) -> Path:
    """Return the local directory holding ``target``'s weights (see module docstring)."""
    expanded = Path(os.path.expanduser(target))
    if expanded.is_dir():
        return expanded.resolve()
    looks_like_path = target.startswith(("/", ".", "~")) or target.count("/") != 1 or expanded.exists()
    if looks_like_path or not _HUB_ID.match(target):
        raise ModelNotFoundError(
            f"model path {target!r} (from spec {spec!r}) does not exist or is not a directory; "
            "pass a checkpoint directory or a hub id like 'org/name'"
        )
    from huggingface_hub import snapshot_download

    try:
        return Path(snapshot_download(target, local_files_only=True))
    except Exception:
        if hub_offline():
            raise ModelNotFoundError(
                f"hub model {target!r} is not in the local Hugging Face cache and HF_HUB_OFFLINE is set; "
                f"run `huggingface-cli download {target}` on a machine with network, or pass a local path"
            ) from None
    try:
        return Path(snapshot_download(target))
    except Exception as exc:
        raise ModelNotFoundError(
            f"hub model {target!r} could not be found or downloaded ({type(exc).__name__}); "
            "check the id, or download it and pass its local path"
        ) from None
