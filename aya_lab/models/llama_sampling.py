"""Choosing the next token from llama.cpp's logits, in numpy (see :mod:`aya_lab.models.llama_engine`).

Greedy (argmax) by default; with ``temperature > 0``: temperature, then top-p, then a draw from a numpy
generator seeded with ``seed + repeat``. The repetition penalty follows transformers' rule (the logits of
tokens already in the prompt or the output are divided by the penalty when positive, multiplied when
negative), and end-of-generation tokens are masked until ``min_new_tokens`` are out.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

import numpy as np

__all__ = ["Sampling", "choose_token"]


@dataclass(frozen=True)
class Sampling:
    """The decoding knobs the engine reads (a view of :class:`~aya_lab.models.settings.GenerationSettings`)."""

    max_new_tokens: int
    min_new_tokens: int = 0
    temperature: float = 0.0
    top_p: float = 1.0
    repetition_penalty: float = 1.0
    seed: int = 0


def choose_token(
    logits: np.ndarray,
    prompt: list[int],
    new: list[int],
    s: Sampling,
    step: int,
    eog_ids: Collection[int],
    rng: np.random.Generator,
) -> int:
    """The next token of a sequence at ``step`` (0 = its first new token) from its ``logits`` (not modified)."""
    if s.repetition_penalty != 1.0 or step < s.min_new_tokens:
        logits = logits.copy()
    if s.repetition_penalty != 1.0:
        seen = np.fromiter(set(prompt) | set(new), dtype=np.int64)
        values = logits[seen]
        logits[seen] = np.where(values < 0, values * s.repetition_penalty, values / s.repetition_penalty)
    if step < s.min_new_tokens:
        logits[list(eog_ids)] = -np.inf
    if s.temperature == 0.0:
        return int(np.argmax(logits))
    return _sample(logits / s.temperature, s.top_p, rng)


def _sample(scaled: np.ndarray, top_p: float, rng: np.random.Generator) -> int:
    """A draw from softmax(``scaled``) restricted to the smallest set of tokens with mass >= ``top_p``."""
    order = np.argsort(-scaled)
    probs = np.exp(scaled[order] - scaled[order[0]])
    probs /= probs.sum()
    if top_p < 1.0:
        keep = int(np.searchsorted(np.cumsum(probs), top_p) + 1)
        probs = probs[:keep] / probs[:keep].sum()
        order = order[:keep]
    return int(order[rng.choice(len(probs), p=probs)])
