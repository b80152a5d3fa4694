"""Models named by spec strings: ``smollm2``, ``hf:...``, ``seq2seq:...``, ``fake:...`` (tests).

The names below are imported from their modules on first use (PEP 562), not with the package, so that
:mod:`~.registry` (the spec grammar, which every ``--model`` help is generated from) is importable without
the model stack (LangChain, torch); imports of torch/transformers are further deferred until a real model
is loaded.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from aya_lab.refs import lazy_exports

if TYPE_CHECKING:
    from aya_lab.models.base import GenerationRecord, GenerationResult, LocalChatModel, record_generations
    from aya_lab.models.cache import CacheCorruptError, CacheMissError, GenerationCache, default_cache_path
    from aya_lab.models.errors import ModelInputError, ModelNotFoundError, ModelSpecError, NoChatTemplateError
    from aya_lab.models.llama_chat import LlamaCppChatModel
    from aya_lab.models.loader import DEFAULT_SPEC, default_model_spec, load_chat_model, load_model, parse_spec
    from aya_lab.models.settings import GenerationSettings

_HOMES: dict[str, tuple[str, ...]] = {
    "aya_lab.models.base": ("GenerationRecord", "GenerationResult", "LocalChatModel", "record_generations"),
    "aya_lab.models.cache": ("CacheCorruptError", "CacheMissError", "GenerationCache", "default_cache_path"),
    "aya_lab.models.llama_chat": ("LlamaCppChatModel",),
    "aya_lab.models.errors": ("ModelInputError", "ModelNotFoundError", "ModelSpecError", "NoChatTemplateError"),
    "aya_lab.models.loader": ("DEFAULT_SPEC", "default_model_spec", "load_chat_model", "load_model", "parse_spec"),
    "aya_lab.models.settings": ("GenerationSettings",),
}

__all__ = [
    "LlamaCppChatModel",
    "default_cache_path",
    "DEFAULT_SPEC",
    "CacheCorruptError",
    "CacheMissError",
    "GenerationCache",
    "GenerationRecord",
    "GenerationResult",
    "GenerationSettings",
    "LocalChatModel",
    "ModelInputError",
    "ModelNotFoundError",
    "ModelSpecError",
    "NoChatTemplateError",
    "default_model_spec",
    "load_chat_model",
    "load_model",
    "parse_spec",
    "record_generations",
]


__getattr__ = lazy_exports(__name__, _HOMES)
