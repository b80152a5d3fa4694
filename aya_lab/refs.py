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

__all__ = ["lazy", "lazy_exports", "resolve_ref"]


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


def lazy_exports(package: str, homes: dict[str, tuple[str, ...]]) -> Callable[[str], object]:
    """A package's module ``__getattr__`` (PEP 562) that imports each name of ``homes`` (module -> the names
    it defines) from its module on first use, so importing the package imports none of them."""
    home = {name: module for module, names in homes.items() for name in names}

    def __getattr__(name: str) -> object:
        if name in home:
            return getattr(importlib.import_module(home[name]), name)
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    return __getattr__
