"""Spec strings -> translation systems (``aya-lab eval translate --system SPEC``).

Every model spec is a system: what the model layer's one registry accepts
(:func:`aya_lab.models.registry.parse_spec`: ``smollm2``, ``gemma3-270m``, ``gguf:FILE``, ``hf:PATH``,
``seq2seq:PATH``, ``fake:...``, with ``~ENGINE`` and ``BASE+lora:PATH``) is a system here with no list of
its own, so a kind added there is a system at once. A model that translates by prompt becomes a
:class:`~.model_systems.PromptSystem` (``MODEL[@VARIANT][+ctxK]``); a seq2seq model a
:class:`~.model_systems.Seq2SeqSystem`. Beside the models, kinds registered here with
:func:`register_system_kind`:

- floors (``floor=True``): ``copy`` (the source unchanged, the echo floor) and ``other-sentence[:SEED]``
  (another segment's reference of the same pair: writing the language without translating);
- ``pivot:SPEC`` — :class:`~.systems.PivotSystem` through English with ``SPEC`` on both hops.

``NAME=SPEC`` names any of them. :func:`parse_system` checks a spec without loading anything (the CLI
checks every ``--system`` before the first model loads); :func:`resolve_system` builds the system.
:func:`system_option_help` and :func:`system_help` (the ``--system`` help and its grammar) and the
one-line error for an unknown spec are generated from both registries.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from aya_lab.eval.translation.kinds import (
    KINDS,
    SystemFactory,
    floor_kinds,
    register_system_kind,
    system_help,
    system_option_help,
)
from aya_lab.eval.translation.model_systems import PromptSystem, Seq2SeqSystem, split_suffixes, translate_prompt
from aya_lab.eval.translation.systems import (
    CopySystem,
    PivotSystem,
    ShuffledReferenceSystem,
    SystemSpecError,
    TranslationSystem,
)
from aya_lab.models import load_chat_model, load_model
from aya_lab.models.errors import ModelSpecError
from aya_lab.models.registry import MODEL_KINDS, ModelSpec, parse_spec, spec_forms
from aya_lab.models.registry import unknown_spec_hint as _model_hint

__all__ = [
    "SystemFactory",
    "SystemSpec",
    "floor_kinds",
    "model_options",
    "parse_system",
    "register_system_kind",
    "resolve_system",
    "system_help",
    "system_option_help",
    "system_kinds",
]


@dataclass(frozen=True)
class SystemSpec:
    """A parsed system spec; nothing is loaded. ``kind`` is a registered kind (``copy``, ``pivot``, ...),
    ``"prompt"`` (a model driven by a ``user_translate`` prompt) or ``"nmt"`` (a seq2seq model)."""

    text: str  # the spec without NAME=
    name: str | None  # the NAME of NAME=SPEC
    kind: str
    rest: str = ""  # a registered kind's text after "kind:"
    model: ModelSpec | None = None
    variant: str | None = None  # the prompt variant asked for (prompt systems; default baseline)
    context_window: int = 0

    @property
    def floor(self) -> bool:
        return self.kind in KINDS and KINDS[self.kind].floor


_MODEL_OPTIONS: ContextVar[dict[str, Any] | None] = ContextVar("aya_lab_system_model_options", default=None)


@contextmanager
def model_options(*, settings: dict[str, object] | None = None, batch_size: int | None = None) -> Iterator[None]:
    """Generation ``settings`` (e.g. ``{"max_new_tokens": 64}``) and ``batch_size`` for the models that
    spec-built systems (``smollm2@strict``, ``seq2seq:PATH``) load inside the block; ``None`` keeps the
    model's default. ``aya-lab eval translate --max-new-tokens/--batch-size`` use this."""
    options = {k: v for k, v in {"settings": settings, "batch_size": batch_size}.items() if v is not None}
    token = _MODEL_OPTIONS.set(options)
    try:
        yield
    finally:
        _MODEL_OPTIONS.reset(token)


def system_kinds() -> list[str]:
    """Every spec prefix: the registered kinds and the model registry's kinds."""
    return sorted({*KINDS, *MODEL_KINDS})


def _valid_forms() -> str:
    own = ", ".join(k.form for k in KINDS.values())
    models = ", ".join(spec_forms(tests=False))
    return (
        f"{own}, or a model: {models} (as MODEL[@VARIANT][+ctxK] where it takes a prompt; ~ENGINE and "
        "BASE+lora:PATH allowed), or NAME=SPEC"
    )


def _head(text: str) -> str:
    cut = min((i for i in (text.find(c) for c in ":@+~") if i >= 0), default=len(text))
    return text[:cut].strip()


def parse_system(spec: str) -> SystemSpec:
    """Check ``spec`` and say what it names, loading nothing. Raises :class:`SystemSpecError` (one line
    naming the value; an unknown spec also lists the valid forms)."""
    text = (spec or "").strip()
    name = None
    if "=" in text.split(":", 1)[0]:
        name, text = (part.strip() for part in text.split("=", 1))
    prefix, _, rest = text.partition(":")
    kind = KINDS.get(prefix.strip().lower())
    if kind is not None:
        kind.validate(rest)
        return SystemSpec(text, name, kind.name, rest)
    head = _head(text)
    if head not in MODEL_KINDS:
        close = _model_hint(head) or _close_kind(head)
        raise SystemSpecError(f"unknown system {spec!r}{close}; valid systems: {_valid_forms()}")
    model_text, variant, k = split_suffixes(text)
    try:
        parsed = parse_spec(model_text)
    except ModelSpecError as exc:
        raise SystemSpecError(str(exc)) from None
    if parsed.model_kind.translates != "prompt":
        if variant is not None or k is not None:
            raise SystemSpecError(
                f"system spec {spec!r}: {parsed.model_kind.form} models take no prompt variant or context "
                f"window; drop the @VARIANT/+ctxK suffix (write {model_text})"
            )
        return SystemSpec(text, name, "nmt", model=parsed)
    try:
        translate_prompt(variant or "baseline")  # an unknown variant fails here, before any model loads
    except ValueError as exc:
        raise SystemSpecError(str(exc)) from None
    return SystemSpec(text, name, "prompt", model=parsed, variant=variant or "baseline", context_window=k or 0)


def _close_kind(head: str) -> str:
    close = difflib.get_close_matches(head.lower(), list(KINDS), n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


def build_system(parsed: SystemSpec) -> TranslationSystem:
    """The system a :class:`SystemSpec` names (models are loaded here, with :func:`model_options`)."""
    options = _MODEL_OPTIONS.get() or {}
    if parsed.kind in KINDS:
        system = KINDS[parsed.kind].build(parsed.rest)
    elif parsed.kind == "nmt":
        assert parsed.model is not None
        system = Seq2SeqSystem(load_model(parsed.model.text, **options) if options else parsed.model.text)
    else:
        assert parsed.model is not None
        model = load_chat_model(parsed.model.text, **options) if options else parsed.model.text
        system = PromptSystem(model, parsed.variant or "baseline", context_window=parsed.context_window)
    if parsed.name:
        try:
            system.name = parsed.name
        except AttributeError:  # pragma: no cover - frozen systems
            raise SystemSpecError(f"system {parsed.text!r} cannot be renamed") from None
    elif not getattr(system, "name", None):
        system.name = parsed.text
    return system


def resolve_system(spec: str | TranslationSystem) -> TranslationSystem:
    """Build a system from a spec string (``NAME=SPEC`` names it); systems pass through unchanged.

    A prompt system's default name is ``MODEL@VARIANT[+ctxK]`` with the variant actually used (a base
    model's ``@completion`` where the chat baseline was asked for; see ``PromptSystem.prompt_note``)."""
    if not isinstance(spec, str):
        return spec
    return build_system(parse_system(spec))


def copy_factory(rest: str) -> TranslationSystem:
    return CopySystem()


def check_pivot(rest: str) -> None:
    if not rest.strip():
        raise SystemSpecError("pivot: needs the spec of the system to pivot with, e.g. pivot:seq2seq:MODEL")
    parse_system(rest)


def pivot_factory(rest: str) -> TranslationSystem:
    check_pivot(rest)
    return PivotSystem(resolve_system(rest))


def check_other_sentence(rest: str) -> None:
    text = rest.strip()
    if text and not text.isdigit():
        raise SystemSpecError(f"other-sentence takes a numeric seed (other-sentence:7), got {rest!r}")


def other_sentence_factory(rest: str) -> TranslationSystem:
    check_other_sentence(rest)
    return ShuffledReferenceSystem(seed=int(rest.strip() or 0))
