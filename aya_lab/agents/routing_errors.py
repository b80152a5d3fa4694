"""Errors of a routing chain: one per bad input, each a single line naming the step, the router or the
tool, and the fix. A router's or a tool's own exception is not wrapped: it keeps its type (callers, the
room and the generation cache's cache-only mode handle those types) and gains a note naming the step.
:func:`call_with_timeout` is how a router call that hangs becomes a :class:`RouterTimeoutError`."""

from __future__ import annotations

import contextvars
import threading
from collections.abc import Callable
from typing import TypeVar

from aya_lab.errors import AyaLabError

_T = TypeVar("_T")

__all__ = [
    "RoutingError",
    "RouterOutputError",
    "UnknownToolError",
    "ToolOutputError",
    "StepLimitError",
    "RouterTimeoutError",
    "note_step",
    "call_with_timeout",
]


class RoutingError(AyaLabError):
    """Base class: a routing chain stopped because a router or a tool broke its contract."""


class RouterOutputError(RoutingError, TypeError):
    """A router returned something other than a ``RouterOutput``."""


class UnknownToolError(RoutingError, KeyError):
    """A router chose a tool the chain does not have (the design's ``KeyError``)."""

    def __str__(self) -> str:  # KeyError quotes its argument; this is a sentence
        return str(self.args[0]) if self.args else ""


class ToolOutputError(RoutingError, TypeError):
    """A tool returned something other than a string observation."""


class StepLimitError(RoutingError):
    """The router did not finish within ``max_steps`` tool runs (raised where only the answer is returned)."""


class RouterTimeoutError(RoutingError, TimeoutError):
    """``route`` did not return within ``route_timeout`` seconds."""


def note_step(exc: BaseException, note: str) -> None:
    """Add ``note`` to ``exc`` once (PEP 678); the caller re-raises ``exc`` unchanged."""
    if note not in getattr(exc, "__notes__", ()):
        exc.add_note(note)


def call_with_timeout(route: Callable[[str], _T], text: str, timeout: float, where: str) -> _T:
    """``route(text)`` in a daemon thread; :class:`RouterTimeoutError` after ``timeout`` seconds (the
    thread cannot be killed: a hung call runs on in the background, its result discarded)."""
    box: dict[str, _T] = {}
    failed: list[BaseException] = []
    done = threading.Event()

    def target() -> None:
        try:
            box["value"] = route(text)
        except BaseException as exc:  # handed back to the caller's thread
            failed.append(exc)
        finally:
            done.set()

    ctx = contextvars.copy_context()
    threading.Thread(target=ctx.run, args=(target,), daemon=True, name="routing-chain-route").start()
    if not done.wait(timeout):
        raise RouterTimeoutError(
            f"{where}: route() did not return within route_timeout={timeout:g} s (a hung model call?); "
            "fix the model call or raise route_timeout"
        )
    if failed:
        raise failed[0]
    return box["value"]
