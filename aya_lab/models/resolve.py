"""Resolve ``hf:``/``seq2seq:`` targets to a local checkpoint directory; offline unless the user opts in.

A target is a local path (absolute, ``./``, ``~`` or an existing directory) or a hub id
(``org/name``). Hub ids are looked up in the local Hugging Face cache only (``local_files_only``: no
network call). A hub id missing from the cache is downloaded only when the user opted in with
``AYA_LAB_ALLOW_DOWNLOADS=1`` and ``HF_HUB_OFFLINE`` is not set; otherwise the error names the id and
how to make the weights available. An unset ``HF_HUB_OFFLINE`` does not mean "go online": a run never
reaches the network by surprise.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from aya_lab.models.errors import ModelNotFoundError
from aya_lab.settings import settings

__all__ = ["resolve_checkpoint", "resolve_gguf", "hub_offline", "downloads_allowed", "ALLOW_DOWNLOADS_ENV"]

ALLOW_DOWNLOADS_ENV = "AYA_LAB_ALLOW_DOWNLOADS"
"""Set to ``1`` to let a hub id missing from the local cache be downloaded."""

_HUB_ID = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")
_HUB_GGUF = re.compile(r"^([A-Za-z0-9][\w.-]*/[\w.-]+)/([\w.-]+\.gguf)$")


def hub_offline() -> bool:
    """``HF_HUB_OFFLINE`` is set to a true value."""
    return settings().hf_hub_offline


def downloads_allowed() -> bool:
    """The user opted in to downloads (``AYA_LAB_ALLOW_DOWNLOADS=1``) and ``HF_HUB_OFFLINE`` is not set."""
    current = settings()
    return current.allow_downloads and not current.hf_hub_offline


def _not_cached(target: str) -> ModelNotFoundError:
    if hub_offline():
        return ModelNotFoundError(
            f"hub model {target!r} is not in the local Hugging Face cache and HF_HUB_OFFLINE is set; "
            f"run `huggingface-cli download {target}` on a machine with network, or pass a local path"
        )
    return ModelNotFoundError(
        f"hub model {target!r} is not in the local Hugging Face cache and downloads are off by default; "
        f"set {ALLOW_DOWNLOADS_ENV}=1 to download it, run `huggingface-cli download {target}`, or pass a local path"
    )


def resolve_checkpoint(target: str, spec: str) -> Path:
    """Return the local directory holding ``target``'s weights (see module docstring).

    Raises :class:`ModelNotFoundError` (one line) for a missing path, or for a hub id that is not
    cached when downloads are not allowed (:func:`downloads_allowed`) or fail.
    """
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
        if not downloads_allowed():
            raise _not_cached(target) from None
    try:
        return Path(snapshot_download(target))
    except Exception as exc:
        raise ModelNotFoundError(
            f"hub model {target!r} could not be found or downloaded ({type(exc).__name__}); "
            "check the id, or download it and pass its local path"
        ) from None


def resolve_gguf(target: str, spec: str) -> Path:
    """The local GGUF file ``target`` names: a path to a ``.gguf`` file, or ``org/name/FILE.gguf`` (a file of a
    hub repository, from the local Hugging Face cache; downloaded only as :func:`resolve_checkpoint` allows).

    Raises :class:`ModelNotFoundError` (one line) naming the target and the fix.
    """
    expanded = Path(os.path.expanduser(target))
    if expanded.is_file():
        return expanded.resolve()
    hub = _HUB_GGUF.match(target)
    if expanded.exists() or hub is None or target.startswith(("/", ".", "~")):
        raise ModelNotFoundError(
            f"GGUF file {target!r} (from spec {spec!r}) does not exist or is not a regular file; "
            "pass a path to a .gguf file, or org/name/FILE.gguf for a file in the local Hugging Face cache"
        )
    from huggingface_hub import hf_hub_download

    repo, filename = hub.groups()
    try:
        return Path(hf_hub_download(repo, filename, local_files_only=True))
    except Exception:
        if not downloads_allowed():
            raise _not_cached(f"{repo}/{filename}") from None
    try:
        return Path(hf_hub_download(repo, filename))
    except Exception as exc:
        raise ModelNotFoundError(
            f"GGUF {filename!r} of hub model {repo!r} could not be found or downloaded ({type(exc).__name__}); "
            "check the names, or download the file and pass its local path"
        ) from None
