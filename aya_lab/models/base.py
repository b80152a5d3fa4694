"""The contract every aya_lab chat model keeps, real or fake.

A :class:`LocalChatModel` is a LangChain ``BaseChatModel`` (so prompts compose with ``|`` and
``invoke``/``batch`` work) whose one real entry point is :meth:`LocalChatModel.generate_texts`: a list of
conversations in, one :class:`GenerationResult` per conversation out, in order. It

1. renders each conversation to the exact prompt text the model sees (:meth:`render`),
2. looks every prompt up in the generation cache (key: fingerprint + prompt + settings + repeat index),
3. sends only the misses to :meth:`_generate_uncached` as **one batch** (subclasses split it into padded
   ``generate`` calls of at most ``batch_size``), and writes them to the cache as each batch completes,
4. reports every generation to the active :func:`record_generations` recorders (used for room traces
   and for counting calls/tokens in evaluations).

Subclasses implement ``render``, ``_generate_uncached`` and ``fingerprint``; they know nothing of
prompts files, agents or rooms. Every model declares ``guard_checks``, the translation guard's checks
that apply to its outputs (:data:`ALL_GUARD_CHECKS` for a real model; a scripted fake narrows them).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any, Protocol

from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import RunnableConfig
from pydantic import ConfigDict, Field

from aya_lab.models.cache import GenerationCache, get_default_cache
from aya_lab.models.executor import current_executor
from aya_lab.models.result import GenerationRecord, GenerationResult, publish, record_generations
from aya_lab.models.settings import GenerationSettings
from aya_lab.prompts import completion_request

__all__ = [
    "ALL_GUARD_CHECKS",
    "GenerationResult",
    "GenerationRecord",
    "LocalChatModel",
    "record_generations",
    "Conversation",
    "cached_generate",
    "generate_by_stop_groups",
    "StopView",
]

Conversation = Sequence[BaseMessage]

ALL_GUARD_CHECKS: tuple[str, ...] = (
    "language", "echo", "length", "example", "assistant", "repetition", "numbers", "faithful",
)  # fmt: skip
"""Every check of the translation guard (:data:`aya_lab.agents.guard.ALL_CHECKS`, spelled here because
models sit below the agents): the ``guard_checks`` of a real model, whose outputs are translations."""


class LocalChatModel(BaseChatModel):
    """Base class: a chat model with batched, cached generation and a stable fingerprint."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    spec: str = "local"
    settings: GenerationSettings = Field(default_factory=GenerationSettings)
    batch_size: int = 8
    cache: GenerationCache | None = Field(default=None, exclude=True)
    guard_checks: tuple[str, ...] = ALL_GUARD_CHECKS  # the guard's checks that apply to the outputs (agents.guard)

    # -- what subclasses provide ---------------------------------------------------------------
    @property
    def fingerprint(self) -> str:  # pragma: no cover - abstract
        """Stable id of weights + generation settings (used by the cache and result signatures)."""
        raise NotImplementedError

    def render(self, conversation: Conversation) -> str:  # pragma: no cover - abstract
        """The exact prompt text the model will see for ``conversation``."""
        raise NotImplementedError

    def _generate_uncached(self, prompts: list[str], repeat: int = 0) -> list[GenerationResult]:  # pragma: no cover
        """Generate for rendered ``prompts`` (cache misses, at most ``batch_size``) in one batch."""
        raise NotImplementedError

    @property
    def dispatch_size(self) -> int:
        """How many cache misses go to one local ``_generate_uncached`` call: ``batch_size`` here; an
        engine that gives a finished sequence's place to the next prompt takes more at once."""
        return self.batch_size

    @property
    def engine_label(self) -> str:
        """What runs the model, for a reader (e.g. ``llama.cpp 0.3.36, Q4_1, 2 threads, cpu``)."""
        return self._llm_type

    def count_tokens(self, text: str) -> int:
        """Number of tokens of ``text`` for this model (fakes: whitespace words)."""
        return len(text.split())

    # -- the one entry point ---------------------------------------------------------------------
    def generate_texts(self, conversations: Sequence[Conversation], *, repeat: int = 0) -> list[GenerationResult]:
        """Generate one answer per conversation, in order, through the cache, batching the misses.

        ``repeat`` selects an independent sample of the same prompt (part of the cache key).
        Raises ``ValueError`` on an empty list and :class:`~aya_lab.models.cache.CacheMissError` in
        replay mode when a prompt is not cached.
        """
        prompts = [self.render(conv) for conv in conversations]
        return cached_generate(self, prompts, repeat=repeat)

    def _active_cache(self) -> GenerationCache | None:
        return self.cache if self.cache is not None else get_default_cache()

    # -- LangChain interface ---------------------------------------------------------------------
    @property
    def _llm_type(self) -> str:
        return "aya_lab_local"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"spec": self.spec, "fingerprint": self.fingerprint}

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: Any = None,
        **kwargs: Any,
    ) -> ChatResult:
        (result,) = self.generate_texts([messages])
        return ChatResult(generations=[ChatGeneration(message=_to_ai_message(result))])

    def batch(
        self,
        inputs: list[LanguageModelInput],
        config: RunnableConfig | list[RunnableConfig] | None = None,
        *,
        return_exceptions: bool = False,
        **kwargs: object,
    ) -> list[AIMessage]:
        """Batched ``invoke``: all inputs go to :meth:`generate_texts` together (one padded batch)."""
        if not inputs:
            return []
        conversations = [self._convert_input(inp).to_messages() for inp in inputs]
        return [_to_ai_message(r) for r in self.generate_texts(conversations)]

    def bind_tools(self, tools: object, **kwargs: object) -> LocalChatModel:
        """Local models have no native tool calling: tools are described in prompts instead (``tools`` and
        the options are ignored; the model itself is returned)."""
        return self


class CachedGenerator(Protocol):
    """What :func:`cached_generate` needs of a model (chat models and seq2seq translators alike)."""

    spec: str
    settings: GenerationSettings
    batch_size: int

    @property
    def fingerprint(self) -> str: ...

    @property
    def dispatch_size(self) -> int: ...

    def _active_cache(self) -> GenerationCache | None: ...

    def _generate_uncached(self, prompts: list[str], repeat: int = 0) -> list[GenerationResult]: ...


class StopGenerator(CachedGenerator, Protocol):
    """A :class:`CachedGenerator` whose uncached generation also stops at given strings (what a
    :class:`StopView` wraps: the models that take completion prompts)."""

    def _generate_uncached(
        self, prompts: list[str], repeat: int = 0, stop: list[str] | None = None
    ) -> list[GenerationResult]: ...


class StopGroupedModel(StopGenerator, Protocol):
    """What :func:`generate_by_stop_groups` needs: a :class:`StopGenerator` that renders conversations."""

    def render(self, conversation: Conversation) -> str: ...


def cached_generate(model: CachedGenerator, prompts: Sequence[str], *, repeat: int = 0) -> list[GenerationResult]:
    """Answer rendered ``prompts`` through the cache; misses go to the model in length-sorted batches.

    Identical prompts are generated once. Each batch is written to the cache as soon as it completes,
    so an interrupted run resumes where it stopped. Batches run on the current executor (local by
    default, or Ray: :mod:`aya_lab.models.executor`). Every result is published to the recorders.
    """
    if len(prompts) == 0:
        raise ValueError(f"{model.spec}: got an empty list of inputs; pass at least one")
    cache = model._active_cache()
    fingerprint = model.fingerprint
    settings_key = model.settings.cache_key()
    results: list[GenerationResult | None] = [None] * len(prompts)
    misses: dict[str, list[int]] = {}
    for i, prompt in enumerate(prompts):
        hit = cache.get(fingerprint, prompt, settings_key, repeat) if cache else None
        if hit is not None:
            results[i] = hit
        else:
            misses.setdefault(prompt, []).append(i)
    if misses and cache is not None:
        cache.check_can_generate(model.spec, next(iter(misses)))
    unique = sorted(misses, key=len)  # similar lengths share a batch: less padding
    size = max(1, current_executor().dispatch_size(model))
    batches = [unique[start : start + size] for start in range(0, len(unique), size)]
    for chunk, generated in current_executor().run(model, batches, repeat):
        for prompt, result in zip(chunk, generated, strict=True):
            if cache is not None:
                cache.put(fingerprint, prompt, settings_key, repeat, result)
            for i in misses[prompt]:
                results[i] = result
    out: list[GenerationResult] = []
    for prompt, maybe in zip(prompts, results, strict=True):
        assert maybe is not None
        result = maybe
        publish(GenerationRecord(model.spec, fingerprint, prompt, result))
        out.append(result)
    return out


class StopView:
    """A model seen through one set of stop strings: what :func:`cached_generate` needs, with a fingerprint
    that names the stop strings, and generation that stops at them (``_generate_uncached(..., stop)``)."""

    def __init__(self, model: StopGenerator, stop: list[str]) -> None:
        self.model, self.stop = model, stop
        self.spec, self.settings, self.batch_size = model.spec, model.settings, model.batch_size
        self.dispatch_size = model.dispatch_size

    @property
    def fingerprint(self) -> str:
        return self.model.fingerprint + "+stop:" + hashlib.sha256(json.dumps(self.stop).encode()).hexdigest()[:8]

    def _active_cache(self) -> GenerationCache | None:
        return self.model._active_cache()

    def _generate_uncached(self, prompts: list[str], repeat: int = 0) -> list[GenerationResult]:
        return self.model._generate_uncached(prompts, repeat, self.stop)


def generate_by_stop_groups(
    model: StopGroupedModel, conversations: Sequence[Conversation], repeat: int = 0
) -> list[GenerationResult]:
    """:meth:`LocalChatModel.generate_texts` for models that take completion prompts: prompts are grouped by
    their stop strings and each group goes through the cache under a :class:`StopView` (the same text with
    other stop strings is another generation). Chat prompts keep the model's own fingerprint."""
    prompts = [model.render(conv) for conv in conversations]
    stops = [tuple((completion_request(conv) or ("", []))[1]) for conv in conversations]
    if not any(stops):
        return cached_generate(model, prompts, repeat=repeat)
    out: list[GenerationResult | None] = [None] * len(prompts)
    for group in dict.fromkeys(stops):
        rows = [i for i, s in enumerate(stops) if s == group]
        view: Any = model if not group else StopView(model, list(group))
        for i, result in zip(rows, cached_generate(view, [prompts[i] for i in rows], repeat=repeat), strict=True):
            out[i] = result
    return [r for r in out if r is not None]


def _to_ai_message(result: GenerationResult) -> AIMessage:
    return AIMessage(
        content=result.text,
        usage_metadata={
            "input_tokens": result.prompt_tokens,
            "output_tokens": result.completion_tokens,
            "total_tokens": result.prompt_tokens + result.completion_tokens,
        },
        response_metadata={"cached": result.cached, "latency_s": result.latency_s},
    )
