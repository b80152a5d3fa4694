"""A bounded, thread-safe memo: what a key's value was, kept while the key is among the last ``size`` used.

:class:`LRUMemo.get` returns the kept value, or computes it (outside the lock, so a slow computation does not
hold other threads; two threads missing the same key at once may both compute it, and the later one is kept)
and keeps it, dropping the least recently used keys beyond ``size``. :meth:`LRUMemo.get_many` does the same for
many keys at once, computing every missing one in one call (a batch: an encoder, a metric's statistics). Values are
returned as kept: a caller that hands them out copies them.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Sequence
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
        self._keep({key: value})
        return value

    def get_many(self, keys: Sequence[K], compute: Callable[[list[K]], Sequence[V]]) -> list[V]:
        """The values kept for ``keys``, in order; the keys not kept are computed by one ``compute(missing)`` call
        (each distinct key once, in first-seen order; it must return one value per key) and kept."""
        found: dict[K, V] = {}
        with self._lock:
            for key in keys:
                if key in self._values:
                    self._values.move_to_end(key)
                    found[key] = self._values[key]
        missing = [key for key in dict.fromkeys(keys) if key not in found]
        if missing:
            values = compute(missing)
            if len(values) != len(missing):
                raise ValueError(f"compute returned {len(values)} values for {len(missing)} keys")
            computed = dict(zip(missing, values))
            self._keep(computed)
            found.update(computed)
        return [found[key] for key in keys]

    def _keep(self, values: dict[K, V]) -> None:
        """Keep ``values`` as the most recently used, dropping the least recently used beyond ``size``."""
        with self._lock:
            self._values.update(values)
            while len(self._values) > self.size:
                self._values.popitem(last=False)

    def clear(self) -> None:
        """Forget every kept value."""
        with self._lock:
            self._values.clear()

    def keys(self) -> list[K]:
        """The kept keys, least recently used first."""
        with self._lock:
            return list(self._values)
