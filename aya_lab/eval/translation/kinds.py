"""The registry of translation-system kinds beside the models (``copy``, ``other-sentence[:SEED]``,
``pivot:SPEC``), and the ``--system`` help generated from it and the model registry.

Light on purpose: it imports no model stack, so ``aya-lab eval translate --help`` is printed without
loading torch, LangChain or sacrebleu. A kind's factory and check are callables, or ``module:attr``
references imported when a spec of that kind is checked or built (the built-in kinds name their code in
:mod:`~.specs` that way). :mod:`~.specs` parses and builds systems from this registry.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from aya_lab.models.registry import spec_forms, spec_help
from aya_lab.refs import resolve_ref

if TYPE_CHECKING:
    from aya_lab.eval.translation.systems import TranslationSystem

__all__ = [
    "KINDS",
    "SystemFactory",
    "SystemKind",
    "floor_kinds",
    "register_system_kind",
    "system_help",
    "system_option_help",
]

SystemFactory = Callable[[str], "TranslationSystem"]


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
    ``check(rest)`` validates the rest without building (for :func:`~.specs.parse_system`). ``factory``
    and ``check`` may be ``module:attr`` references. Registering a taken prefix raises unless
    ``replace=True``. Model specs need no registration: every spec of the model registry is a system."""
    key = prefix.rstrip(":").strip().lower()
    if not key:
        raise ValueError("a system kind needs a non-empty prefix")
    if key in KINDS and not replace and KINDS[key].factory is not factory:
        raise ValueError(f"system kind {key!r} is already registered; pass replace=True to override it")
    KINDS[key] = SystemKind(key, form or key, what, factory, floor, check)


def floor_kinds() -> list[str]:
    """How the floors are written (``copy``, ``other-sentence[:SEED]``)."""
    return [k.form for k in KINDS.values() if k.floor]


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
    floors = [k for k in KINDS.values() if k.floor]
    others = [k for k in KINDS.values() if not k.floor]
    width = 26
    lines = ["system specs (default: the translator --model with the baseline prompt):", " floors:"]
    lines += [f"  {k.form:<{width}}{k.what}" for k in floors]
    lines += [" models (every model spec; MODEL[@VARIANT][+ctxK] where the model takes a prompt):"]
    lines += [spec_help("  ")]
    lines += [
        f"  {'@VARIANT':<{width}}a file under prompts/user_translate/ (default baseline; a base model gets",
        f"  {'':<{width}}the completion variant instead, and the run says so)",
        f"  {'+ctxK':<{width}}the last K (0..10) preceding segments of the document as context",
    ]
    lines += [" wrappers:"] + [f"  {k.form:<{width}}{k.what}" for k in others]
    lines += [f"  {'NAME=SPEC':<{width}}any of the above, named NAME in the results"]
    return "\n".join(lines) + "\n"


_SPECS = "aya_lab.eval.translation.specs"
register_system_kind("copy", f"{_SPECS}:copy_factory", what="the source unchanged (the echo floor)", floor=True)
register_system_kind(
    "other-sentence",
    f"{_SPECS}:other_sentence_factory",
    form="other-sentence[:SEED]",
    what="another segment's reference, same pair (writes the language, translates nothing)",
    floor=True,
    check=f"{_SPECS}:check_other_sentence",
)
register_system_kind(
    "pivot",
    f"{_SPECS}:pivot_factory",
    form="pivot:SPEC",
    what="through English with SPEC on both hops",
    check=f"{_SPECS}:check_pivot",
)
