"""Spec strings -> models. ``smollm2`` | ``hf:<path-or-hub-id>`` | ``seq2seq:<path-or-hub-id>`` | ``fake:...``.

Loaded models are memoised per (spec, settings, device) within a process, because loading weights is
the slow part and a notebook asks for the same model many times.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from typing import Any

from aya_lab.models.device import silence_transformers
from aya_lab.models.embedded import embedded_model_dir, embedded_weights_hash
from aya_lab.models.errors import ModelSpecError
from aya_lab.models.fake import FakeChatModel
from aya_lab.models.fingerprint import weights_id
from aya_lab.models.hf_causal import HFChatModel
from aya_lab.models.resolve import resolve_checkpoint
from aya_lab.models.seq2seq import Seq2SeqTranslator
from aya_lab.models.settings import GenerationSettings

__all__ = ["ModelSpec", "parse_spec", "load_model", "load_chat_model", "default_model_spec", "DEFAULT_SPEC"]

DEFAULT_SPEC = "smollm2"
_KINDS = ("smollm2", "hf", "seq2seq", "fake")
_LOCK = threading.Lock()
_LOADED: dict[tuple[str, str, str | None], Any] = {}


@dataclass(frozen=True)
class ModelSpec:
    kind: str  # one of _KINDS
    target: str  # path, hub id or fake script ("" for smollm2)
    text: str  # the spec as written


def default_model_spec() -> str:
    """``AYA_LAB_MODEL`` or ``smollm2``."""
    return os.environ.get("AYA_LAB_MODEL", "").strip() or DEFAULT_SPEC


def parse_spec(spec: str) -> ModelSpec:
    """Parse a spec string; raises :class:`ModelSpecError` naming the value and the accepted forms."""
    text = (spec or "").strip()
    if text == "smollm2":
        return ModelSpec("smollm2", "", text)
    prefix, sep, target = text.partition(":")
    if not sep or prefix not in _KINDS or prefix == "smollm2":
        raise ModelSpecError(
            f"unknown model spec {spec!r}; use smollm2, hf:<path-or-hub-id>, seq2seq:<path-or-hub-id> "
            "or fake:... (tests only)"
        )
    if not target.strip():
        raise ModelSpecError(f"model spec {spec!r} names no model after '{prefix}:'; e.g. {prefix}:org/name")
    return ModelSpec(prefix, target.strip(), text)


def load_model(
    spec: str | None = None,
    *,
    settings: GenerationSettings | dict[str, Any] | None = None,
    device: str | None = None,
    batch_size: int | None = None,
    reuse: bool = True,
) -> Any:
    """Load the model a spec names (default: ``AYA_LAB_MODEL`` or ``smollm2``).

    Returns a :class:`~aya_lab.models.base.LocalChatModel` for ``smollm2``/``hf:``/``fake:`` and a
    :class:`~aya_lab.models.seq2seq.Seq2SeqTranslator` for ``seq2seq:``.
    """
    parsed = parse_spec(spec or default_model_spec())
    if isinstance(settings, dict):
        settings = GenerationSettings(**settings)
    settings = settings or GenerationSettings()
    key = (parsed.text, settings.cache_key(), device)
    with _LOCK:
        if reuse and parsed.kind != "fake" and key in _LOADED:
            model = _LOADED[key]
        else:
            model = _build(parsed, settings, device)
            if parsed.kind != "fake":
                _LOADED[key] = model
    if batch_size is not None:
        model.batch_size = batch_size
    return model


def load_chat_model(spec: str | None = None, **kwargs: Any) -> Any:
    """Like :func:`load_model` but refuses ``seq2seq:`` specs (agents need a chat model)."""
    parsed = parse_spec(spec or default_model_spec())
    if parsed.kind == "seq2seq":
        raise ModelSpecError(
            f"{parsed.text!r} is a seq2seq translation model; agents need a chat model "
            "(smollm2 or hf:<path>); use seq2seq models in translation evaluations"
        )
    return load_model(parsed.text, **kwargs)


def _build(parsed: ModelSpec, settings: GenerationSettings, device: str | None) -> Any:
    if parsed.kind == "fake":
        return FakeChatModel.from_spec(parsed.text, settings=settings)
    silence_transformers()

    if parsed.kind == "smollm2":
        model_dir, weights = embedded_model_dir(), f"gguf-sha256:{embedded_weights_hash()[:24]}"
    else:
        model_dir = resolve_checkpoint(parsed.target, parsed.text)
        weights = weights_id(model_dir)
    if parsed.kind == "seq2seq":
        return Seq2SeqTranslator(parsed.text, str(model_dir), weights, settings=settings, device=device)

    return HFChatModel.load(parsed.text, str(model_dir), weights, settings=settings, device=device)
