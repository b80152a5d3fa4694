"""System spec strings (``--system SPEC``): the registry of system kinds, the grammar, its help.

Every model spec is a system: what the model layer's one registry accepts
(:func:`aya_lab.models.registry.parse_spec`: ``smollm2``, ``gemma3-270m``, ``gguf:FILE``, ``hf:PATH``,
``seq2seq:PATH``, ``fake:...``, with ``~ENGINE`` and ``BASE+lora:PATH``) is a system with no list of its
own. A model that translates by prompt becomes a :class:`~.systems.PromptSystem`, a seq2seq model a
:class:`~.systems.Seq2SeqSystem`. Beside the models, kinds registered with :func:`register_system_kind`:
the floors ``copy`` and ``other-sentence[:SEED]``, and ``pivot:SPEC`` (through English with ``SPEC`` on
both hops). ``NAME=SPEC`` names any of them::

    SPEC      := [NAME "="] MODEL ["@" VARIANT] ["+ctx" K]      a PromptSystem
               | [NAME "="] NMT-MODEL                            a Seq2SeqSystem (no @VARIANT, no +ctxK)
               | [NAME "="] KIND [":" REST]                      a registered kind
    VARIANT   := a file stem under prompts/user_translate/ (default: baseline)
    K         := 0..10, the context window (default 0)

The suffixes are taken from the end of the spec (``@`` followed by a name without ``/``), so paths may
contain ``@`` elsewhere. :func:`parse_system` checks a spec without loading anything;
:func:`~.systems.resolve_system` builds the system.

Light on purpose: no model stack is imported, so ``--help`` (:func:`system_help`,
:func:`system_option_help`, generated from both registries) is printed without torch, LangChain or
sacrebleu. :class:`TranslationSystem` is the contract every spec builds to. A kind's factory and check
are callables or ``module:attr`` references imported on first use (the built-in kinds name their code
in :mod:`~.systems` that way).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from aya_lab.datasets.parallel import MAX_CONTEXT_WINDOW
from aya_lab.errors import AyaLabError
from aya_lab.models.errors import ModelSpecError
from aya_lab.models.registry import MODEL_KINDS, ModelSpec, parse_spec, spec_forms, spec_help
from aya_lab.models.registry import unknown_spec_hint as _model_hint
from aya_lab.refs import resolve_ref

__all__ = [
    "current_model_options",
    "model_options",
    "KINDS",
    "SystemFactory",
    "SystemKind",
    "SystemSpec",
    "SystemSpecError",
    "TranslationSystem",
    "floor_kinds",
    "parse_system",
    "register_system_kind",
    "split_suffixes",
    "system_help",
    "system_kinds",
    "system_option_help",
]

_SYSTEMS = "aya_lab.eval.translation.systems"
_SUFFIX = re.compile(r"^(?P<model>.*?)(?:@(?P<variant>[^@/+\s]*))?(?:\+ctx(?P<k>[^@/+\s]*))?$", re.S)


class SystemSpecError(AyaLabError, ValueError):
    """A system spec string that names no registered kind or that its factory rejects."""


@runtime_checkable
class TranslationSystem(Protocol):
    """What the evaluator needs of a translation system.

    ``translate`` returns exactly one output per input, in order. ``src``/``tgt`` are ISO 639-3
    codes. ``context[i]`` lists the source segments before ``texts[i]`` in its document (oldest first,
    up to 10). ``signature()`` returns ``model_fingerprint``, ``prompt_hash`` and ``graph_spec_hash``
    ("-" where a part does not apply); it goes into every result row.
    """

    name: str

    def translate(
        self, texts: list[str], src: str, tgt: str, *, context: list[list[str]] | None = None
    ) -> list[str]: ...

    def signature(self) -> dict[str, str]: ...


SystemFactory = Callable[[str], TranslationSystem]


@dataclass(frozen=True)
class SystemKind:
    """A registered kind: ``factory(rest)`` builds the system, ``check(rest)`` validates the rest without
    building; either may be a ``module:attr`` reference, imported on first use."""

    name: str
    form: str
    what: str
    factory: SystemFactory | str
    floor: bool
    check: Callable[[str], None] | str | None

    def build(self, rest: str) -> TranslationSystem:
        factory = resolve_ref(self.factory) if isinstance(self.factory, str) else self.factory
        return factory(rest)

    def validate(self, rest: str) -> None:
        if self.check is not None:
            (resolve_ref(self.check) if isinstance(self.check, str) else self.check)(rest)


KINDS: dict[str, SystemKind] = {}
"""Registered kinds by prefix, in registration order (the order of the help)."""


def register_system_kind(
    prefix: str,
    factory: SystemFactory | str,
    *,
    replace: bool = False,
    form: str | None = None,
    what: str = "",
    floor: bool = False,
    check: Callable[[str], None] | str | None = None,
) -> None:
    """Register ``factory(rest_of_spec) -> TranslationSystem`` for specs ``"<prefix>:<rest>"`` (or a bare
    ``"<prefix>"``, rest ``""``). ``form``/``what`` go into :func:`system_help`; ``floor`` marks a floor;
    ``check(rest)`` validates the rest without building (for :func:`parse_system`). ``factory`` and
    ``check`` may be ``module:attr`` references. Registering a taken prefix raises unless ``replace=True``.
    Model specs need no registration: every spec of the model registry is a system."""
    key = prefix.rstrip(":").strip().lower()
    if not key:
        raise ValueError("a system kind needs a non-empty prefix")
    if key in KINDS and not replace and KINDS[key].factory is not factory:
        raise ValueError(f"system kind {key!r} is already registered; pass replace=True to override it")
    KINDS[key] = SystemKind(key, form or key, what, factory, floor, check)


def floor_kinds() -> list[str]:
    """How the floors are written (``copy``, ``other-sentence[:SEED]``)."""
    return [k.form for k in KINDS.values() if k.floor]


def system_kinds() -> list[str]:
    """Every spec prefix: the registered kinds and the model registry's kinds."""
    return sorted({*KINDS, *MODEL_KINDS})


def system_option_help() -> str:
    """The one-line ``--system`` help, generated from both registries: the floors, every model form, the
    wrappers (``pivot:SPEC``)."""
    models = ", ".join(spec_forms(tests=False))
    wrappers = " or ".join(k.form for k in KINDS.values() if not k.floor)
    return (
        f"system spec (repeatable), optionally NAME=SPEC: a floor ({', '.join(floor_kinds())}), a model ({models}; "
        f"MODEL[@VARIANT][+ctxK] where it takes a prompt, ~ENGINE, BASE+lora:PATH) or {wrappers} (grammar "
        "below; default: the translator --model with the baseline prompt)"
    )


def system_help() -> str:
    """The ``--system`` grammar for help texts, generated from both registries (floors listed first)."""
    width = 26
    lines = ["system specs (default: the translator --model with the baseline prompt):", " floors:"]
    lines += [f"  {k.form:<{width}}{k.what}" for k in KINDS.values() if k.floor]
    lines += [" models (every model spec; MODEL[@VARIANT][+ctxK] where the model takes a prompt):", spec_help("  ")]
    lines += [
        f"  {'@VARIANT':<{width}}a file under prompts/user_translate/ (default baseline; a base model gets",
        f"  {'':<{width}}the completion variant instead, and the run says so)",
        f"  {'+ctxK':<{width}}the last K (0..10) preceding segments of the document as context",
    ]
    lines += [" wrappers:"] + [f"  {k.form:<{width}}{k.what}" for k in KINDS.values() if not k.floor]
    lines += [f"  {'NAME=SPEC':<{width}}any of the above, named NAME in the results"]
    return "\n".join(lines) + "\n"


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


def split_suffixes(spec: str) -> tuple[str, str | None, int | None]:
    """``"smollm2@strict+ctx3"`` -> ``("smollm2", "strict", 3)``; an absent suffix is ``None``. Raises
    :class:`SystemSpecError` for an empty variant, a non-numeric or too large K, or no model part."""
    text = (spec or "").strip()
    m = _SUFFIX.match(text)
    model, variant, k = (m.group("model"), m.group("variant"), m.group("k")) if m else (text, None, None)
    if not model:
        raise SystemSpecError(f"system spec {spec!r} names no model; e.g. smollm2@strict+ctx3 or hf:PATH@baseline")
    if variant is not None and not variant:
        raise SystemSpecError(f"system spec {spec!r} has an empty prompt variant after '@'; e.g. {model}@strict")
    if k is not None and not k.isdigit():
        raise SystemSpecError(f"system spec {spec!r}: '+ctx' needs a number of segments, e.g. {model}+ctx3")
    window = int(k) if k is not None else None
    if window is not None and window > MAX_CONTEXT_WINDOW:
        raise SystemSpecError(f"system spec {spec!r}: context window {window} is over {MAX_CONTEXT_WINDOW}")
    return model, variant, window


def _valid_forms() -> str:
    own = ", ".join(k.form for k in KINDS.values())
    return (
        f"{own}, or a model: {', '.join(spec_forms(tests=False))} (as MODEL[@VARIANT][+ctxK] where it takes a "
        "prompt; ~ENGINE and BASE+lora:PATH allowed), or NAME=SPEC"
    )


def _unknown(spec: str, head: str) -> SystemSpecError:
    close = difflib.get_close_matches(head.lower(), list(KINDS), n=1)
    hint = _model_hint(head) or (f" (did you mean {close[0]!r}?)" if close else "")
    return SystemSpecError(f"unknown system {spec!r}{hint}; valid systems: {_valid_forms()}")


def parse_system(spec: str) -> SystemSpec:
    """Check ``spec`` and say what it names, loading no model. Raises :class:`SystemSpecError` (one line
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
    cut = min((i for i in (text.find(c) for c in ":@+~") if i >= 0), default=len(text))
    if text[:cut].strip() not in MODEL_KINDS:
        raise _unknown(spec, text[:cut].strip())
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
    try:  # an unknown variant fails here, before any model loads
        resolve_ref(f"{_SYSTEMS}:translate_prompt")(variant or "baseline")
    except ValueError as exc:
        raise SystemSpecError(str(exc)) from None
    return SystemSpec(text, name, "prompt", model=parsed, variant=variant or "baseline", context_window=k or 0)


def check_pivot(rest: str) -> None:
    if not rest.strip():
        raise SystemSpecError("pivot: needs the spec of the system to pivot with, e.g. pivot:seq2seq:MODEL")
    parse_system(rest)


def check_other_sentence(rest: str) -> None:
    if rest.strip() and not rest.strip().isdigit():
        raise SystemSpecError(f"other-sentence takes a numeric seed (other-sentence:7), got {rest!r}")


register_system_kind("copy", f"{_SYSTEMS}:copy_factory", what="the source unchanged (the echo floor)", floor=True)
register_system_kind(
    "other-sentence",
    f"{_SYSTEMS}:other_sentence_factory",
    form="other-sentence[:SEED]",
    what="another segment's reference, same pair (writes the language, translates nothing)",
    floor=True,
    check=check_other_sentence,
)
register_system_kind(
    "pivot",
    f"{_SYSTEMS}:pivot_factory",
    form="pivot:SPEC",
    what="through English with SPEC on both hops",
    check=check_pivot,
)


_MODEL_OPTIONS: ContextVar[dict[str, Any] | None] = ContextVar("aya_lab_system_model_options", default=None)


@contextmanager
def model_options(*, settings: dict[str, object] | None = None, batch_size: int | None = None) -> Iterator[None]:
    """Generation ``settings`` (e.g. ``{"max_new_tokens": 64}``) and ``batch_size`` for the models that
    spec-built systems load inside the block; ``None`` keeps the model's default."""
    token = _MODEL_OPTIONS.set(
        {k: v for k, v in {"settings": settings, "batch_size": batch_size}.items() if v is not None}
    )
    try:
        yield
    finally:
        _MODEL_OPTIONS.reset(token)


def current_model_options() -> dict[str, object]:
    """The options :func:`model_options` set for the models built now (empty outside a block)."""
    return dict(_MODEL_OPTIONS.get() or {})
