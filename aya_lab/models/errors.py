"""Model errors: each message names the bad value and the fix, on one line."""

from __future__ import annotations

from aya_lab.errors import AyaLabError

__all__ = [
    "AdapterError",
    "GenerationSettingsError",
    "ModelInputError",
    "ModelNotFoundError",
    "ModelSpecError",
    "NoChatTemplateError",
]


class ModelSpecError(AyaLabError, ValueError):
    """A model spec string that cannot be parsed (unknown prefix, empty target)."""


class ModelNotFoundError(AyaLabError, FileNotFoundError):
    """Weights that are not on this machine (missing path, hub id not cached, package not installed)."""


class NoChatTemplateError(AyaLabError, ValueError):
    """A causal LM whose tokenizer has no chat template."""


class ModelInputError(AyaLabError, ValueError):
    """Input a model cannot take (empty list, unsupported language for an NMT model)."""


class GenerationSettingsError(AyaLabError, ValueError):
    """A generation setting out of its range (``max_new_tokens=0``), named with the accepted values."""


class AdapterError(AyaLabError, ValueError):
    """A LoRA adapter folder that cannot be used: incomplete, corrupted, or trained on another base model."""
