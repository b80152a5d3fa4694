"""Model errors: each message names the bad value and the fix, on one line."""

from __future__ import annotations

__all__ = ["ModelSpecError", "ModelNotFoundError", "NoChatTemplateError", "ModelInputError"]


class ModelSpecError(ValueError):
    """A model spec string that cannot be parsed (unknown prefix, empty target)."""


class ModelNotFoundError(FileNotFoundError):
    """Weights that are not on this machine (missing path, hub id not cached, package not installed)."""


class NoChatTemplateError(ValueError):
    """A causal LM whose tokenizer has no chat template."""


class ModelInputError(ValueError):
    """Input a model cannot take (empty list, unsupported language for an NMT model)."""
