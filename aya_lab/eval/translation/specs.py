"""Spec strings -> translation systems (``aya-lab eval translate --system SPEC``).

:func:`resolve_system` reads the part before the first ``:`` as the kind and hands the rest to the
factory registered for it with :func:`register_system_kind`. Built-in kinds:

- ``copy`` — the source unchanged (the echo floor every system should beat);
- ``other-sentence`` (``other-sentence:SEED``) — another segment's reference of the same pair
  (:class:`~.systems.ShuffledReferenceSystem`: the floor of writing the language without translating);
- ``pivot:SPEC`` — :class:`~.systems.PivotSystem` through English with ``SPEC`` on both hops;
- ``smollm2``, ``gemma3-270m``, ``hf:PATH``, ``fake:...`` — a prompt variant on a model
  (:class:`~.model_systems.PromptSystem`), with ``@VARIANT`` and ``+ctxK`` suffixes; the model part may carry
  an engine and a LoRA adapter (``gemma3-270m~transformers``, ``gemma3-270m+lora:DIR@baseline``);
- ``seq2seq:PATH`` — an NMT model (:class:`~.model_systems.Seq2SeqSystem`).

A kind written without a colon may carry a suffix right after its name (``smollm2@strict+ctx3``): the
kind is the part before the first ``@`` or ``+``, and the factory gets the suffix as its rest.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from aya_lab.eval.translation.model_systems import PromptSystem, Seq2SeqSystem, parse_prompt_spec, translate_prompt
from aya_lab.eval.translation.systems import (
    CopySystem,
    PivotSystem,
    ShuffledReferenceSystem,
    SystemSpecError,
    TranslationSystem,
)
from aya_lab.models import load_chat_model, load_model
from aya_lab.models.embedded import EMBEDDED

__all__ = ["SystemFactory", "register_system_kind", "resolve_system", "system_kinds", "model_options"]


SystemFactory = Callable[[str], TranslationSystem]
_KINDS: dict[str, SystemFactory] = {}
_MODEL_OPTIONS: ContextVar[dict[str, Any] | None] = ContextVar("aya_lab_system_model_options", default=None)


@contextmanager
def model_options(*, settings: dict[str, Any] | None = None, batch_size: int | None = None) -> Iterator[None]:
    """Generation ``settings`` (e.g. ``{"max_new_tokens": 64}``) and ``batch_size`` for the models that
    spec-built systems (``smollm2@strict``, ``seq2seq:PATH``) load inside the block; ``None`` keeps the
    model's default. ``aya-lab eval translate --max-new-tokens/--batch-size`` use this."""
    options = {k: v for k, v in {"settings": settings, "batch_size": batch_size}.items() if v is not None}
    token = _MODEL_OPTIONS.set(options)
    try:
        yield
    finally:
        _MODEL_OPTIONS.reset(token)


def register_system_kind(prefix: str, factory: SystemFactory, *, replace: bool = False) -> None:
    """Register ``factory(rest_of_spec) -> TranslationSystem`` for specs ``"<prefix>:<rest>"``.

    A spec without a colon (``smollm2``) is looked up as a prefix with an empty rest. Registering a
    taken prefix raises unless ``replace=True``.
    """
    key = prefix.rstrip(":").strip().lower()
    if not key:
        raise ValueError("a system kind needs a non-empty prefix")
    if key in _KINDS and not replace and _KINDS[key] is not factory:
        raise ValueError(f"system kind {key!r} is already registered; pass replace=True to override it")
    _KINDS[key] = factory


def system_kinds() -> list[str]:
    """Registered spec prefixes."""
    return sorted(_KINDS)


def resolve_system(spec: str | TranslationSystem) -> TranslationSystem:
    """Build a system from a spec string (``NAME=SPEC`` names it); systems pass through unchanged."""
    if not isinstance(spec, str):
        return spec
    text = spec.strip()
    name = None
    head = text.split(":", 1)[0]
    if "=" in head:
        name, text = (part.strip() for part in text.split("=", 1))
    prefix, sep, rest = text.partition(":")
    if prefix.strip().lower() not in _KINDS:
        cut = min((i for i in (prefix.find("@"), prefix.find("+"), prefix.find("~")) if i >= 0), default=-1)
        if cut > 0:  # smollm2@strict+ctx3, gemma3-270m+lora:DIR: the suffix goes to the factory
            prefix, rest = prefix[:cut], prefix[cut:] + (sep + rest if sep else "")
    factory = _KINDS.get(prefix.strip().lower())
    if factory is None:
        raise SystemSpecError(
            f"unknown system kind {prefix!r} in {spec!r}; registered kinds: {', '.join(system_kinds())}"
        )
    system = factory(rest)
    if name:
        try:
            system.name = name
        except AttributeError:  # pragma: no cover - frozen systems
            raise SystemSpecError(f"system {spec!r} cannot be renamed") from None
    elif not getattr(system, "name", None):
        system.name = text
    return system


def _copy_factory(rest: str) -> TranslationSystem:
    return CopySystem()


def _pivot_factory(rest: str) -> TranslationSystem:
    if not rest.strip():
        raise SystemSpecError("pivot: needs the spec of the system to pivot with, e.g. pivot:seq2seq:MODEL")
    return PivotSystem(resolve_system(rest))


def _other_sentence_factory(rest: str) -> TranslationSystem:
    text = rest.strip()
    if text and not text.isdigit():
        raise SystemSpecError(f"other-sentence takes a numeric seed (other-sentence:7), got {rest!r}")
    return ShuffledReferenceSystem(seed=int(text) if text else 0)


register_system_kind("copy", _copy_factory)
register_system_kind("other-sentence", _other_sentence_factory)
register_system_kind("pivot", _pivot_factory)


def _prompt_factory(kind: str):
    def build(rest: str) -> PromptSystem:
        if kind in EMBEDDED:
            if rest and rest[0] not in "@+~":
                raise SystemSpecError(f"unexpected {rest!r} after {kind!r}; write {kind}@VARIANT+ctxK")
            model_part, variant, k = parse_prompt_spec(kind + rest)
        else:
            model_part, variant, k = parse_prompt_spec(f"{kind}:{rest}")
            if not model_part.partition(":")[2].strip():
                raise SystemSpecError(
                    f"system spec {kind + ':' + rest!r} names no model after '{kind}:'; e.g. {kind}:PATH@strict"
                )
        try:
            prompt = translate_prompt(variant)
        except ValueError as exc:
            raise SystemSpecError(str(exc)) from None
        name = model_part + f"@{variant}" + (f"+ctx{k}" if k else "")
        options = _MODEL_OPTIONS.get() or {}
        model = load_chat_model(model_part, **options) if options else model_part
        return PromptSystem(model, prompt, context_window=k, name=name)

    return build


def _seq2seq_factory(rest: str) -> Seq2SeqSystem:
    if not rest.strip():
        raise SystemSpecError("seq2seq: needs a model path or hub id, e.g. seq2seq:facebook/nllb-200-distilled-600M")
    options = _MODEL_OPTIONS.get() or {}
    spec = f"seq2seq:{rest.strip()}"
    return Seq2SeqSystem(load_model(spec, **options) if options else spec)


for _kind in (*EMBEDDED, "hf", "fake"):
    register_system_kind(_kind, _prompt_factory(_kind))
register_system_kind("seq2seq", _seq2seq_factory)
