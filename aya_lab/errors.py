"""One base for the errors aya_lab raises on purpose: :class:`AyaLabError`.

An ``AyaLabError`` means the input was refused (a model spec that does not parse, a file that is no
room, a setting with a bad value, an unknown language), and its message is one line naming the value
and the fix. The command line catches this base and prints that line; anything else (a ``TypeError``,
a ``KeyError`` from a bug) keeps its traceback, so a bug shows as a bug.

Every exception class of the package derives from it and keeps the builtin base it had before
(``class DatasetError(AyaLabError, ValueError)``), so callers that catch ``ValueError`` still work.
:class:`InputError` is the plain case, for a value that no more specific class describes.
"""

from __future__ import annotations

__all__ = ["AyaLabError", "InputError"]


class AyaLabError(Exception):
    """Base of every error aya_lab raises on purpose: refused input, with a one-line message naming the fix."""


class InputError(AyaLabError, ValueError):
    """A value given to aya_lab (an argument, a command-line option, a file's content) that it does not accept."""
