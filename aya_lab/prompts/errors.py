"""The one error of the prompt package: a prompt file or few-shot pool that is missing or invalid, or a
rendering with wrong variables. Its message is one line that names the file, the variable or the fix."""

from __future__ import annotations

from aya_lab.errors import AyaLabError

__all__ = ["PromptError"]


class PromptError(AyaLabError, ValueError):
    """A prompt file that is missing or invalid, or a rendering with wrong variables."""
