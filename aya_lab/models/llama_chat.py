"""GGUF models on llama.cpp behind the :class:`~aya_lab.models.base.LocalChatModel` contract.

The embedded ``smollm2`` and ``gemma3-270m`` run here by default, straight from their shipped GGUF files
(no conversion, no fp32 copy), and so does any ``gguf:PATH``. The model keeps every promise of the model
layer: batches of prompts decode together (:class:`~aya_lab.models.llama_engine.LlamaEngine`'s parallel
sequences), generations go through the cache and the recorders, stop strings, ``min_new_tokens``,
token counts, left truncation and control-token escaping behave as on the transformers engine.

Prompts: a chat conversation is rendered with the chat template stored in the GGUF
(``tokenizer.chat_template``) by the same sandboxed Jinja environment transformers uses, so SmolLM2's
prompt text is the one the transformers engine renders; a completion prompt is sent as its text after
the BOS token's text when the vocabulary adds one. A base model (no template) refuses chat prompts.

Identity: the fingerprint names the engine and its version, the GGUF's content hash and its
quantization, so a generation cached on one engine is never served as another's.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from pydantic import PrivateAttr

from aya_lab.models.base import Conversation, GenerationResult, LocalChatModel, generate_by_stop_groups
from aya_lab.models.control_tokens import escape_control_tokens
from aya_lab.models.errors import NoChatTemplateError
from aya_lab.models.fingerprint import combine
from aya_lab.models.hf_causal import to_chat_dicts
from aya_lab.models.llama_engine import LlamaEngine, Sampling, llama_cpp_version
from aya_lab.models.settings import GenerationSettings
from aya_lab.prompts import completion_request, cut_at_stop

WAITING_BATCHES = 4  # see LlamaCppChatModel.dispatch_size

__all__ = ["ENGINE_NAME", "LlamaCppChatModel", "render_chat_template"]

ENGINE_NAME = "llama.cpp"


def render_chat_template(template: str, messages: list[dict[str, str]], **special: str) -> str:
    """``template`` rendered as transformers' ``apply_chat_template`` renders it (sandboxed Jinja,
    ``trim_blocks``/``lstrip_blocks``, ``raise_exception``), with the generation prompt added."""
    return _compiled(template).render(messages=messages, add_generation_prompt=True, enable_thinking=False, **special)


@lru_cache(maxsize=8)
def _compiled(template: str) -> Any:
    """``template`` compiled once per process (compiling took longer than rendering); a compiled Jinja
    template renders safely from several threads."""
    from jinja2.exceptions import TemplateError
    from jinja2.ext import loopcontrols
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    def raise_exception(message: str) -> None:
        raise TemplateError(message)

    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=[loopcontrols])
    env.globals["raise_exception"] = raise_exception
    return env.from_string(template)


class LlamaCppChatModel(LocalChatModel):
    """A GGUF model on llama.cpp (CPU), batched and cached like every :class:`LocalChatModel`."""

    gguf_path: str
    weights: str  # content identity of the GGUF (e.g. gguf-sha256:...)
    threads: int = 1
    device: str = "cpu"  # llama.cpp runs on the CPU here (the build has no GPU backend)
    _engine: Any = PrivateAttr(default=None)
    _template: str | None = PrivateAttr(default=None)

    @classmethod
    def load(
        cls,
        spec: str,
        gguf_path: Path,
        weights: str,
        *,
        threads: int,
        settings: GenerationSettings | None = None,
        require_chat_template: bool = True,
        lora: Path | None = None,
    ) -> LlamaCppChatModel:
        """Load ``gguf_path`` on llama.cpp with ``threads`` CPU threads (one engine per file, adapter and thread
        count in a process, shared by every settings variant). ``require_chat_template=False`` accepts a base
        model; ``lora``: a LoRA GGUF applied unmerged (:mod:`aya_lab.models.lora_gguf`)."""
        engine = LlamaEngine.shared(gguf_path, threads=threads, lora=lora)
        template = engine.metadata("tokenizer.chat_template")
        if require_chat_template and not template:
            raise NoChatTemplateError(
                f"model {spec!r} has no chat template in {gguf_path.name}; use an instruct/chat GGUF, "
                "or prompt it with a completion variant"
            )
        kwargs = {"settings": settings} if settings is not None else {}
        self = cls(spec=spec, gguf_path=str(gguf_path), weights=weights, threads=threads, **kwargs)
        self._engine, self._template = engine, template
        return self

    @property
    def engine(self) -> LlamaEngine:
        return self._engine

    @property
    def has_chat_template(self) -> bool:
        return bool(self._template)

    @property
    def engine_label(self) -> str:
        return f"{ENGINE_NAME} {llama_cpp_version()}, {self.quantization}, {self.threads} threads, {self.device}"

    @property
    def quantization(self) -> str:
        return self._engine.file_type()

    @property
    def fingerprint(self) -> str:
        engine = f"{ENGINE_NAME}-{llama_cpp_version()}"
        return combine(f"{self.weights}|{engine}|{self.quantization}", self.settings.cache_key())

    @property
    def context_length(self) -> int:
        return int(self._engine.n_ctx)

    def render(self, conversation: Conversation) -> str:
        """The prompt text (control-token strings in message contents escaped, as on every engine)."""
        completion = completion_request(conversation)
        if completion is not None:
            bos = self._engine.bos_text if self._engine.add_bos else ""
            return bos + escape_control_tokens(completion[0], self._engine.control_strings)
        if not self._template:
            raise NoChatTemplateError(
                f"model {self.spec!r} is a base model without a chat template and cannot take a chat prompt; "
                "use the task's completion variant (e.g. user_translate/completion, format: completion)"
            )
        return render_chat_template(
            self._template,
            to_chat_dicts(conversation, self._engine.control_strings),
            bos_token=self._engine.bos_text,
            eos_token=self._engine.eos_text,
        )

    def count_tokens(self, text: str) -> int:
        return len(self._engine.tokenize(text))

    @property
    def dispatch_size(self) -> int:
        """``batch_size`` sequences decode at once; the engine hands a finished one's stream to the next
        prompt, so one call takes :data:`WAITING_BATCHES` batches' worth of cache misses."""
        return self.batch_size * WAITING_BATCHES

    def generate_texts(self, conversations: Sequence[Conversation], *, repeat: int = 0) -> list[GenerationResult]:
        return generate_by_stop_groups(self, conversations, repeat)

    def _generate_uncached(
        self, prompts: list[str], repeat: int = 0, stop: list[str] | None = None
    ) -> list[GenerationResult]:
        s = self.settings
        sampling = Sampling(s.max_new_tokens, s.min_new_tokens, s.temperature, s.top_p, s.repetition_penalty, s.seed)
        started = time.perf_counter()
        outputs = self._engine.generate(prompts, sampling, stop=stop or (), repeat=repeat, parallel=self.batch_size)
        each = (time.perf_counter() - started) / len(prompts)
        results = []
        for out in outputs:
            text = cut_at_stop(out.text, stop).strip() if stop else out.text
            results.append(GenerationResult(text, out.prompt_tokens, out.completion_tokens, False, each, out.truncated))
        return results
