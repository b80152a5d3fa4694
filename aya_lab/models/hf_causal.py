"""Causal LMs with a chat template (``hf:<path-or-hub-id>`` and the embedded ``smollm2``).

Batching: each batch of rendered prompts is tokenized with **left** padding and sent to one
``model.generate`` call; transformers derives position ids from the attention mask, so a padded prompt
decodes exactly as it would alone (tested: batched greedy output == one-by-one greedy output).

Context window: a prompt longer than ``context_length - max_new_tokens`` tokens is **truncated from
the left** (the oldest text goes; the end of the prompt, which holds the newest message and the
assistant header, stays) and a warning is logged; the result carries ``truncated=True``.
"""

from __future__ import annotations

import logging
import time
from typing import Any

import torch
from pydantic import PrivateAttr

from aya_lab.models.base import Conversation, GenerationResult, LocalChatModel
from aya_lab.models.device import pick_device
from aya_lab.models.errors import NoChatTemplateError
from aya_lab.models.fingerprint import combine

__all__ = ["HFChatModel", "to_chat_dicts"]

log = logging.getLogger(__name__)

_ROLES = {"system": "system", "human": "user", "ai": "assistant", "tool": "tool"}


def to_chat_dicts(conversation: Conversation) -> list[dict[str, str]]:
    """LangChain messages -> ``[{"role", "content"}]`` as chat templates expect."""
    out = []
    for m in conversation:
        role = _ROLES.get(m.type, "user")
        out.append({"role": role, "content": m.content if isinstance(m.content, str) else str(m.content)})
    return out


class HFChatModel(LocalChatModel):
    """A transformers causal LM behind the :class:`LocalChatModel` contract."""

    model_dir: str
    weights: str  # weights identity (see aya_lab.models.fingerprint.weights_id)
    device: str | None = None
    _model: Any = PrivateAttr(default=None)
    _tokenizer: Any = PrivateAttr(default=None)

    @classmethod
    def load(
        cls, spec: str, model_dir: str, weights: str, *, settings: Any = None, device: str | None = None
    ) -> HFChatModel:
        """Load tokenizer and weights (CUDA+bf16 when available, else CPU+fp32) and check the template."""
        from transformers import AutoModelForCausalLM, AutoTokenizer

        device, dtype = pick_device(device)
        tokenizer = AutoTokenizer.from_pretrained(model_dir)
        if not getattr(tokenizer, "chat_template", None):
            raise NoChatTemplateError(
                f"model {spec!r} has no chat template in its tokenizer; use an instruct/chat "
                "checkpoint, or seq2seq:<path> for translation models"
            )
        tokenizer.padding_side = "left"
        if tokenizer.pad_token is None:
            tokenizer.pad_token = tokenizer.eos_token
        model = AutoModelForCausalLM.from_pretrained(model_dir, dtype=dtype).to(device).eval()
        kwargs = {"settings": settings} if settings is not None else {}
        self = cls(spec=spec, model_dir=model_dir, weights=weights, device=device, **kwargs)
        self._tokenizer, self._model = tokenizer, model
        return self

    @property
    def tokenizer(self) -> Any:
        return self._tokenizer

    @property
    def hf_model(self) -> Any:
        return self._model

    @property
    def fingerprint(self) -> str:
        return combine(self.weights, self.settings.cache_key())

    @property
    def context_length(self) -> int:
        return int(getattr(self._model.config, "max_position_embeddings", 2048))

    def render(self, conversation: Conversation) -> str:
        return self._tokenizer.apply_chat_template(
            to_chat_dicts(conversation), tokenize=False, add_generation_prompt=True
        )

    def count_tokens(self, text: str) -> int:
        return len(self._tokenizer(text, add_special_tokens=False)["input_ids"])

    def generation_kwargs(self) -> dict[str, Any]:
        """Keyword arguments for ``generate`` from the settings (greedy unless temperature > 0)."""
        s = self.settings
        kwargs: dict[str, Any] = {
            "max_new_tokens": s.max_new_tokens,
            "pad_token_id": self._tokenizer.pad_token_id,
            "repetition_penalty": s.repetition_penalty,
        }
        if s.greedy:
            kwargs.update(do_sample=False, temperature=None, top_p=None, top_k=None)
        else:
            kwargs.update(do_sample=True, temperature=s.temperature, top_p=s.top_p, top_k=None)
        return kwargs

    def _encode(self, prompts: list[str]) -> tuple[dict[str, torch.Tensor], list[bool]]:
        limit = max(1, self.context_length - self.settings.max_new_tokens)
        ids = [self._tokenizer(p, add_special_tokens=False)["input_ids"] for p in prompts]
        truncated = [len(x) > limit for x in ids]
        for i, flag in enumerate(truncated):
            if flag:
                log.warning(
                    "%s: prompt of %d tokens exceeds the context window (%d - %d new); truncating it from the left",
                    self.spec,
                    len(ids[i]),
                    self.context_length,
                    self.settings.max_new_tokens,
                )
                ids[i] = ids[i][-limit:]
        batch = self._tokenizer.pad({"input_ids": ids}, padding=True, return_tensors="pt")
        return {k: v.to(self.device) for k, v in batch.items()}, truncated

    @torch.inference_mode()
    def _generate_uncached(self, prompts: list[str], repeat: int = 0) -> list[GenerationResult]:
        inputs, truncated = self._encode(prompts)
        if not self.settings.greedy:
            torch.manual_seed(self.settings.seed + repeat)
        started = time.perf_counter()
        output = self._model.generate(**inputs, **self.generation_kwargs())
        elapsed = time.perf_counter() - started
        width = inputs["input_ids"].shape[1]
        new = output[:, width:]
        prompt_lens = inputs["attention_mask"].sum(dim=1).tolist()
        results = []
        stop_ids = self._stop_ids()
        for row, plen, trunc in zip(new.tolist(), prompt_lens, truncated, strict=True):
            n = len(row)
            for j, tok in enumerate(row):
                if tok in stop_ids:
                    n = j + 1
                    break
            text = self._tokenizer.decode(row[:n], skip_special_tokens=True).strip()
            results.append(GenerationResult(text, int(plen), n, latency_s=elapsed / len(prompts), truncated=trunc))
        return results

    def _stop_ids(self) -> set[int]:
        ids = {self._tokenizer.eos_token_id, self._tokenizer.pad_token_id}
        gen_eos = getattr(self._model.generation_config, "eos_token_id", None)
        if isinstance(gen_eos, int):
            ids.add(gen_eos)
        elif isinstance(gen_eos, list):
            ids.update(gen_eos)
        return {i for i in ids if i is not None}
