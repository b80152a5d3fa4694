"""A bounded, thread-safe memo: what a key's value was, kept while the key is among the last ``size`` used.

:class:`LRUMemo.get` returns the kept value, or computes it (outside the lock, so a slow computation does not
hold other threads; two threads missing the same key at once may both compute it, and the later one is kept)
and keeps it, dropping the least recently used keys beyond ``size``. Values are returned as kept: a caller that
hands them out copies them.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

__all__ = ["LRUMemo"]

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class LRUMemo(Generic[K, V]):
    """At most ``size`` values by key, the least recently used dropped first (see the module docstring)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._values: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: K, compute: Callable[[], V]) -> V:
        """The value kept for ``key``, or ``compute()`` kept for it."""
        with self._lock:
            if key in self._values:
                self._values.move_to_end(key)
                return self._values[key]
        value = compute()
        with self._lock:
            self._values[key] = value
            while len(self._values) > self.size:
                self._values.popitem(last=False)
        return value

    def keys(self) -> list[K]:
        """The kept keys, least recently used first."""
        with self._lock:
            return list(self._values)
