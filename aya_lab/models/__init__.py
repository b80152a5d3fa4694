"""Models named by spec strings: ``smollm2``, ``hf:...``, ``seq2seq:...``, ``fake:...`` (tests).

Imports of torch/transformers are deferred until a real model is loaded.
"""

from aya_lab.models.base import GenerationRecord, GenerationResult, LocalChatModel, record_generations
from aya_lab.models.cache import CacheCorruptError, CacheMissError, GenerationCache
from aya_lab.models.errors import ModelInputError, ModelNotFoundError, ModelSpecError, NoChatTemplateError
from aya_lab.models.loader import DEFAULT_SPEC, default_model_spec, load_chat_model, load_model, parse_spec
from aya_lab.models.settings import GenerationSettings

__all__ = [
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
