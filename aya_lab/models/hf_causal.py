"""Causal LMs: chat models (``hf:<path-or-hub-id>``, the embedded ``smollm2``) and base models (``gemma3-270m``).

Prompt formats: a chat conversation is rendered with the tokenizer's chat template; a rendered
**completion** prompt (:func:`aya_lab.prompts.completion_request`) is sent as plain text (after the
tokenizer's BOS token, if it adds one) and generation stops at its stop strings: a per-row
:class:`StopOnStrings` criterion ends a row once its decoded output contains one of its stop strings
(no compute spent past the line), and the text is cut there. A base model (no chat template) refuses
chat conversations with a one-line :class:`NoChatTemplateError` naming the completion variant to use.

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
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, cast

import torch
from pydantic import PrivateAttr

from aya_lab.models.base import Conversation, GenerationResult, LocalChatModel, generate_by_stop_groups
from aya_lab.models.control_tokens import escape_control_tokens
from aya_lab.models.device import pick_device
from aya_lab.models.errors import NoChatTemplateError
from aya_lab.models.fingerprint import combine
from aya_lab.models.settings import GenerationSettings
from aya_lab.prompts import completion_request, cut_at_stop

if TYPE_CHECKING:
    from transformers import PreTrainedModel, PreTrainedTokenizerBase

__all__ = ["HFChatModel", "StopOnStrings", "to_chat_dicts"]

_log = logging.getLogger(__name__)

_ROLES = {"system": "system", "human": "user", "ai": "assistant", "tool": "tool"}


def to_chat_dicts(conversation: Conversation, tokenizer: object = None) -> list[dict[str, str]]:
    """LangChain messages -> ``[{"role", "content"}]`` as chat templates expect; with ``tokenizer`` (a
    tokenizer or its control strings), every content has its control-token strings escaped
    (:func:`escape_control_tokens`)."""
    out = []
    for m in conversation:
        role = _ROLES.get(m.type, "user")
        content = m.content if isinstance(m.content, str) else str(m.content)
        if tokenizer is not None:
            content = escape_control_tokens(content, tokenizer)
        out.append({"role": role, "content": content})
    return out


class HFChatModel(LocalChatModel):
    """A transformers causal LM behind the :class:`LocalChatModel` contract."""

    model_dir: str
    weights: str  # weights identity (see aya_lab.models.fingerprint.weights_id)
    device: str | None = None
    has_chat_template: bool = True
    _model: Any = PrivateAttr(default=None)
    _tokenizer: Any = PrivateAttr(default=None)
    _bos: str = PrivateAttr(default="")

    @classmethod
    def load(
        cls,
        spec: str,
        model_dir: str,
        weights: str,
        *,
        settings: GenerationSettings | None = None,
        device: str | None = None,
        require_chat_template: bool = True,
        adapt: Callable[[PreTrainedModel], PreTrainedModel] | None = None,
    ) -> HFChatModel:
        """Load tokenizer and weights (CUDA+bf16 when available, else CPU+fp32) and check the template.

        ``require_chat_template=False`` loads a base model: it then takes completion prompts only.
        ``adapt``: applied to the loaded transformers model before use (e.g. merging a LoRA adapter).
        """
        from transformers import AutoModelForCausalLM, AutoTokenizer

        device, dtype = pick_device(device)
        tokenizer = AutoTokenizer.from_pretrained(model_dir)
        has_template = bool(getattr(tokenizer, "chat_template", None))
        if require_chat_template and not has_template:
            raise NoChatTemplateError(
                f"model {spec!r} has no chat template in its tokenizer; use an instruct/chat "
                "checkpoint, or seq2seq:<path> for translation models"
            )
        tokenizer.padding_side = "left"
        if tokenizer.pad_token is None:
            tokenizer.pad_token = tokenizer.eos_token
        model = AutoModelForCausalLM.from_pretrained(model_dir, dtype=dtype).to(device)  # type: ignore[arg-type]
        model = (adapt(model) if adapt is not None else model).eval()
        kwargs = {"settings": settings} if settings is not None else {}
        self = cls(
            spec=spec, model_dir=model_dir, weights=weights, device=device, has_chat_template=has_template, **kwargs
        )
        self._tokenizer, self._model = tokenizer, model
        self._bos = _bos_prefix(tokenizer)
        return self

    @property
    def engine_label(self) -> str:
        dtype = str(self._model.dtype).removeprefix("torch.") if self._model is not None else "?"
        return f"transformers, {dtype}, {self.device}"

    @property
    def tokenizer(self) -> PreTrainedTokenizerBase:
        return self._tokenizer

    @property
    def hf_model(self) -> PreTrainedModel:
        return self._model

    @property
    def fingerprint(self) -> str:
        return combine(self.weights, self.settings.cache_key())

    @property
    def context_length(self) -> int:
        return int(getattr(self._model.config, "max_position_embeddings", 2048))

    def render(self, conversation: Conversation) -> str:
        """The prompt text: the chat template's rendering, or a completion prompt's text after BOS.

        Message contents (and a completion prompt's text) have their control-token strings escaped
        first, so the only control tokens in the prompt are the template's own and the BOS prefix."""
        completion = completion_request(conversation)
        if completion is not None:
            return self._bos + escape_control_tokens(completion[0], self._tokenizer)
        if not self.has_chat_template:
            raise NoChatTemplateError(
                f"model {self.spec!r} is a base model without a chat template and cannot take a chat prompt; "
                "use the task's completion variant (e.g. user_translate/completion, format: completion)"
            )
        # enable_thinking=False: Qwen3-style templates then open the answer with an empty think block
        # (no hidden reasoning eating max_new_tokens); templates that do not use the flag ignore it.
        return self._tokenizer.apply_chat_template(
            to_chat_dicts(conversation, self._tokenizer),
            tokenize=False,
            add_generation_prompt=True,
            enable_thinking=False,
        )

    def count_tokens(self, text: str) -> int:
        return len(self._tokenizer(text, add_special_tokens=False)["input_ids"])

    def generation_kwargs(self) -> dict[str, object]:
        """Keyword arguments for ``generate`` from the settings (greedy unless temperature > 0)."""
        s = self.settings
        kwargs: dict[str, object] = {
            "max_new_tokens": s.max_new_tokens,
            "pad_token_id": self._tokenizer.pad_token_id,
            "repetition_penalty": s.repetition_penalty,
        }
        if s.min_new_tokens:
            kwargs["min_new_tokens"] = s.min_new_tokens
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
                _log.warning(
                    "%s: prompt of %d tokens exceeds the context window (%d - %d new); truncating it from the left",
                    self.spec,
                    len(ids[i]),
                    self.context_length,
                    self.settings.max_new_tokens,
                )
                ids[i] = ids[i][-limit:]
        batch = self._tokenizer.pad({"input_ids": ids}, padding=True, return_tensors="pt")
        return {k: v.to(self.device) for k, v in batch.items()}, truncated

    def generate_texts(self, conversations: Sequence[Conversation], *, repeat: int = 0) -> list[GenerationResult]:
        """As :meth:`LocalChatModel.generate_texts`, with completion prompts grouped by their stop strings
        (:func:`~aya_lab.models.base.generate_by_stop_groups`)."""
        return generate_by_stop_groups(self, conversations, repeat)

    @torch.inference_mode()
    def _generate_uncached(
        self, prompts: list[str], repeat: int = 0, stop: list[str] | None = None
    ) -> list[GenerationResult]:
        inputs, truncated = self._encode(prompts)
        if not self.settings.greedy:
            torch.manual_seed(self.settings.seed + repeat)
        width = inputs["input_ids"].shape[1]
        stops = [list(stop or []) for _ in prompts]
        kwargs = self.generation_kwargs()
        if any(stops):
            from transformers import StoppingCriteriaList

            criterion = StopOnStrings(self._tokenizer, width, stops, self.settings.min_new_tokens)
            kwargs["stopping_criteria"] = StoppingCriteriaList([criterion])
        started = time.perf_counter()
        output = self._model.generate(**inputs, **kwargs)
        elapsed = time.perf_counter() - started
        new = output[:, width:]
        prompt_lens = inputs["attention_mask"].sum(dim=1).tolist()
        results = []
        stop_ids = self._stop_ids()
        for row, plen, trunc, row_stops in zip(new.tolist(), prompt_lens, truncated, stops, strict=True):
            n = len(row)
            for j, tok in enumerate(row):
                if tok in stop_ids:
                    n = j + 1
                    break
            text = self._tokenizer.decode(row[:n], skip_special_tokens=True).strip()
            if row_stops:
                text = cut_at_stop(text, row_stops).strip()
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


class StopOnStrings:
    """A transformers stopping criterion (duck-typed) for per-row stop strings: row ``i`` is done once its new text (leading whitespace aside) holds one of
    ``stops[i]``, and not before ``min_new_tokens`` new tokens. Rows without stop strings never stop here."""

    def __init__(
        self, tokenizer: PreTrainedTokenizerBase, width: int, stops: list[list[str]], min_new_tokens: int = 0
    ) -> None:
        self.tokenizer, self.width, self.stops, self.min_new_tokens = tokenizer, width, stops, min_new_tokens

    def __call__(self, input_ids: torch.LongTensor, scores: torch.FloatTensor, **kwargs: object) -> torch.Tensor:
        done = torch.zeros(input_ids.shape[0], dtype=torch.bool, device=input_ids.device)
        if input_ids.shape[1] - self.width < max(1, self.min_new_tokens):
            return done
        for i, row_stops in enumerate(self.stops):
            if row_stops:
                row = self.tokenizer.decode(input_ids[i, self.width :], skip_special_tokens=True)
                text = cast(str, row).lstrip()  # one row of ids decodes to one string
                done[i] = any(s in text for s in row_stops)
        return done


def _bos_prefix(tokenizer: Any) -> str:
    """The text of the special tokens the tokenizer puts before a text (e.g. Gemma's ``<bos>``), or ``""``."""
    plain = tokenizer("a", add_special_tokens=False)["input_ids"]
    full = tokenizer("a", add_special_tokens=True)["input_ids"]
    if len(full) <= len(plain) or full[len(full) - len(plain) :] != plain:
        return ""
    return tokenizer.decode(full[: len(full) - len(plain)])
