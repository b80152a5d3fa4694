"""``module:attr`` references: code named by a string and imported when it is first needed.

The CLI's parsers are built from light modules only and name each command's code this way
(:func:`lazy`), so ``aya-lab ... --help`` imports no model stack; the translation-system registry names
its built-in factories this way too. Imports nothing from the package, so any layer may use it.
"""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Callable
from typing import Any

__all__ = ["lazy", "resolve_ref"]


def resolve_ref(ref: str) -> Any:
    """The object a ``module:attr`` reference names (the module is imported now)."""
    module, _, attr = ref.partition(":")
    return getattr(importlib.import_module(module), attr)


def lazy(ref: str) -> Callable[[argparse.Namespace], int]:
    """A command handler named by ``module:function``, imported only when the command runs."""

    def run(args: argparse.Namespace) -> int:
        return int(resolve_ref(ref)(args) or 0)

    run.__qualname__ = run.__name__ = f"lazy[{ref}]"
    return run
