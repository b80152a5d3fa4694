"""From examples to token batches: the split, the tokens the model sees, the order of the batches.

- **Split** (:func:`split_indices`): one seeded permutation of the examples; the first
  ``round(validation × n)`` (at least 1, at most ``max_validation``) are held out for the validation loss,
  the next ``max_train`` are the training pool. Both splits must be non-empty.
- **Tokens** (:func:`tokenize`): the prompt exactly as the model renders it at inference
  (:meth:`render`: chat template, or a completion prompt's text after BOS), tokenized alone as the engine
  tokenizes it, then the answer: after a completion prompt, a space (unless the prompt ends in one), the
  answer and the prompt's first stop string (the end of the line); after a chat prompt, the answer and
  the tokenizer's end-of-sequence token. Only the answer's tokens carry a loss. A prompt too long for
  ``max_tokens`` loses its oldest tokens (as generation truncates from the left); an example whose
  answer alone takes more than half of ``max_tokens`` is dropped and counted.
- **Order** (:func:`batch_rows`): batch ``s`` holds positions ``s·B … s·B+B−1`` of an endless stream of
  epochs, each epoch its own seeded permutation of the pool, so the batch of any step is known without
  running the steps before it, and a resumed run sees the batches an unbroken one would.
- **Loss** (:func:`answer_loss`): the mean cross-entropy over the answer tokens, with the vocabulary
  projection computed only at the positions that predict one (``logits_to_keep`` as a boolean mask).
  The value equals the model's own ``labels=`` loss; the time and memory do not: with Gemma's
  262,144-token vocabulary the projection of every prompt position dominated a step on a CPU.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from aya_lab.prompts import completion_request
from aya_lab.tune.errors import TrainingDataError
from aya_lab.tune.examples import Example

if TYPE_CHECKING:
    import torch

    from aya_lab.models.hf_causal import HFChatModel

__all__ = ["Tokenized", "answer_loss", "batch_rows", "collate", "split_indices", "target_text", "tokenize"]


@dataclass(frozen=True)
class Tokenized:
    """One example's token ids; ids from ``answer_from`` on are the answer (the rest carries no loss)."""

    ids: list[int]
    answer_from: int
    id: str


def split_indices(n: int, *, validation: float, max_validation: int, max_train: int, seed: int, source: str) -> tuple[list[int], list[int]]:  # fmt: skip
    """``(train, validation)`` example indices (see the module docstring); one-line error when a split is empty."""
    n_val = min(max_validation, max(1, round(validation * n)))
    if n - n_val < 1:
        raise TrainingDataError(
            f"{source} has {n} usable example(s): too few for a training and a validation split; give at least "
            "2 (better dozens), or a larger file"
        )
    perm = np.random.default_rng(seed).permutation(n).tolist()
    return perm[n_val : n_val + max_train], perm[:n_val]


def target_text(prompt_text: str, example: Example, eos: str) -> str:
    """What follows the rendered prompt in a training sequence (see the module docstring)."""
    completion = completion_request(example.prompt)
    if completion is None:
        return example.target + eos
    stops = completion[1]
    sep = "" if prompt_text[-1:].isspace() else " "
    return sep + example.target + (stops[0] if stops else eos)


def tokenize(model: HFChatModel, examples: Sequence[Example], max_tokens: int) -> tuple[list[Tokenized], int]:
    """``(tokenized examples, how many were dropped as too long)`` for ``model`` (an :class:`HFChatModel`)."""
    tok = model.tokenizer
    eos = tok.eos_token or ""
    out, dropped = [], 0
    for ex in examples:
        prompt = model.render(ex.prompt)
        prompt_ids = tok(prompt, add_special_tokens=False)["input_ids"]
        answer_ids = tok(target_text(prompt, ex, eos), add_special_tokens=False)["input_ids"]
        if not answer_ids or len(answer_ids) > max_tokens // 2:
            dropped += 1
            continue
        room = max_tokens - len(answer_ids)
        prompt_ids = prompt_ids[-room:] if len(prompt_ids) > room else prompt_ids
        out.append(Tokenized(prompt_ids + answer_ids, len(prompt_ids), ex.id))
    return out, dropped


def batch_rows(step: int, pool: int, batch_size: int, seed: int) -> list[int]:
    """The pool rows of training step ``step`` (0-based), see the module docstring."""
    rows, perms = [], {}
    for position in range(step * batch_size, (step + 1) * batch_size):
        epoch = position // pool
        if epoch not in perms:
            perms[epoch] = np.random.default_rng([seed, epoch]).permutation(pool)
        rows.append(int(perms[epoch][position % pool]))
    return rows


def collate(items: Sequence[Tokenized], pad_id: int, device: str) -> dict[str, torch.Tensor]:
    """Right-padded ``input_ids``, ``attention_mask`` and ``labels`` (−100 outside the answers) on ``device``."""
    import torch

    width = max(len(t.ids) for t in items)
    ids = torch.full((len(items), width), pad_id, dtype=torch.long)
    mask = torch.zeros((len(items), width), dtype=torch.long)
    labels = torch.full((len(items), width), -100, dtype=torch.long)
    for row, t in enumerate(items):
        n = len(t.ids)
        ids[row, :n] = torch.tensor(t.ids)
        mask[row, :n] = 1
        labels[row, t.answer_from : n] = torch.tensor(t.ids[t.answer_from :])
    return {"input_ids": ids.to(device), "attention_mask": mask.to(device), "labels": labels.to(device)}


def answer_loss(model: torch.nn.Module, batch: Mapping[str, torch.Tensor]) -> torch.Tensor:
    """The mean cross-entropy of ``batch``'s answer tokens (a :func:`collate` batch) under ``model`` (a causal LM).

    Equal to ``model(**batch).loss`` (a causal LM's shifted loss over the labels that are not −100), but
    the logits are computed only where the next token is an answer token.
    """
    import torch

    labels = batch["labels"]
    keep = torch.zeros_like(labels, dtype=torch.bool)
    keep[:, :-1] = labels[:, 1:] != -100
    out = model(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"], logits_to_keep=keep)
    logits = out.logits.reshape(-1, out.logits.shape[-1])
    return torch.nn.functional.cross_entropy(logits.float(), labels[:, 1:][keep[:, :-1]])
