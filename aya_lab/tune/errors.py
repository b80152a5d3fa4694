"""Errors of ``aya-lab tune``: each message is one line naming the file (or option) and the fix."""

from __future__ import annotations

from aya_lab.errors import AyaLabError, InputError

__all__ = ["TrainingDataError", "TuneError"]


class TuneError(AyaLabError, ValueError):
    """A training run that cannot start or resume as asked (an output folder in the way, a checkpoint of
    another run, a base model that cannot be trained here)."""


class TrainingDataError(InputError):
    """Training data that cannot be used for the task: misaligned lines, an empty split, a file whose records
    are another task's format."""
