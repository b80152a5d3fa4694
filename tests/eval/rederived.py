"""How a calibration record re-derived from its committed data is compared with the committed one.

The multilingual encoder's scores differ in the third decimal between CPUs (its kernels round differently),
so a re-derivation on another machine can move a quantile, and with it the drafts between the two values.
Measured on 2026-12-06, the records written on an AMD EPYC re-derived on an Intel Xeon (one and two threads
alike): the translator's floor 0.923 -> 0.924, and with it its faithful drafts flagged 0.2475 -> 0.2525, its
partial drafts flagged 0.5091 -> 0.5318 (5 of 220 partial drafts score between the two floors) and partial
and unmarked 0.0949 -> 0.0907; the thresholds' holdout precision 0.9612 -> 0.9565 and withheld share 0.0312 ->
0.0352; every per-language threshold, count, chosen quantile and hash the same. So these measured values may
move within :data:`TOLERANCES` (a little over what was seen); everything else must be equal.
"""

from __future__ import annotations

from typing import Any

TOLERANCES = {"floor": 0.002, "thresholds": 0.002, "partial_unmarked": 0.01, "measured": 0.03, "holdout": 0.01}
"""Top-level keys of a record whose numbers are scores' thresholds or shares, and how far each may move."""


def differences(committed: Any, derived: Any, tolerance: float = 0.0, where: str = "") -> list[str]:
    """Where ``derived`` differs from ``committed`` (two records' ``model_dump``s) beyond ``tolerance``: a
    number under a key of :data:`TOLERANCES` by more than its tolerance, anything else at all."""
    if isinstance(committed, dict) and isinstance(derived, dict):
        if committed.keys() != derived.keys():
            return [f"{where or 'record'}: keys {sorted(committed)} != {sorted(derived)}"]
        out = []
        for key in committed:
            allowed = TOLERANCES.get(key, tolerance) if not where else tolerance
            out += differences(committed[key], derived[key], allowed, f"{where}.{key}" if where else key)
        return out
    if isinstance(committed, list) and isinstance(derived, list) and len(committed) == len(derived):
        return [
            d for i, (a, b) in enumerate(zip(committed, derived)) for d in differences(a, b, tolerance, f"{where}[{i}]")
        ]
    numbers = (int, float)
    if isinstance(committed, float) and isinstance(derived, numbers) and not isinstance(derived, bool):
        return (
            []
            if abs(committed - derived) <= tolerance
            else [f"{where}: {committed} != {derived} (tolerance {tolerance})"]
        )
    return [] if committed == derived else [f"{where}: {committed!r} != {derived!r}"]
