"""Translation systems as the evaluator sees them, and the spec-string registry that builds them.

A system is anything with a ``name``, ``translate(texts, src, tgt, *, context=None)`` and
``signature()`` (see :class:`TranslationSystem`). The evaluator calls ``translate`` in chunks with
ISO 639-3 codes and, per segment, the preceding source segments of its document (oldest first, at most
10; an empty list when the set has no documents); a system with a smaller context window trims it.

Spec strings (``aya-lab eval translate --system SPEC``) are resolved by :func:`resolve_system`: the
part before the first ``:`` picks a factory registered with :func:`register_system_kind`; the factory
gets the rest. Built-in kinds, all model-free:

- ``copy`` / ``copy:`` — returns the source unchanged (the echo floor every system should beat);
- ``pivot:SPEC`` — :class:`PivotSystem` through English with the system ``SPEC`` on both hops.

Model-backed kinds (``smollm2``, ``hf:``, ``fake:``, ``seq2seq:``, with ``@VARIANT`` and ``+ctxK``
suffixes) are registered by :mod:`aya_lab.eval.model_systems`, which :func:`resolve_system` and
:func:`system_kinds` import on first use. A kind written without a colon may carry a suffix right after
its name (``smollm2@strict+ctx3``): the kind is the part before the first ``@`` or ``+``, and the
factory gets the suffix as its rest.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from typing import Protocol, runtime_checkable

from aya_lab.languages import get_language

__all__ = [
    "TranslationSystem",
    "PivotSystem",
    "CopySystem",
    "SystemSpecError",
    "register_system_kind",
    "resolve_system",
    "system_kinds",
    "signature_hash",
    "NO_SIGNATURE",
]

NO_SIGNATURE = {"model_fingerprint": "-", "prompt_hash": "-", "graph_spec_hash": "-"}


class SystemSpecError(ValueError):
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


def signature_hash(system: TranslationSystem) -> str:
    """A short stable hash of a system's name and signature (keys checkpointed outputs)."""
    payload = json.dumps({"name": system.name, **system.signature()}, sort_keys=True)
    return hashlib.sha256(payload.encode()).hexdigest()[:16]


class CopySystem:
    """Returns the source unchanged: the echo floor, and a handy baseline in tests."""

    def __init__(self, name: str = "copy") -> None:
        self.name = name

    def translate(self, texts, src, tgt, *, context=None):
        return list(texts)

    def signature(self) -> dict[str, str]:
        return {"model_fingerprint": "copy-source", "prompt_hash": "-", "graph_spec_hash": "-"}


class PivotSystem:
    """Translate ``src`` -> ``pivot`` with ``first``, then ``pivot`` -> ``tgt`` with ``second``.

    When ``tgt`` is the pivot there is one hop by ``first``; when ``src`` is, one hop by ``second``.
    The second hop's context is the first hop's translation of the context segments, so documents
    stay documents (the evaluator does the same per hop, and reports each hop's scores).
    """

    def __init__(self, first: TranslationSystem, second: TranslationSystem | None = None, *,
                 pivot: str = "eng", name: str | None = None) -> None:
        self.first = first
        self.second = second if second is not None else first
        self.pivot = get_language(pivot).code
        if name is None:
            name = f"pivot({first.name})" if self.second is first else f"pivot({first.name}>{self.second.name})"
        self.name = name

    def signature(self) -> dict[str, str]:
        a, b = self.first.signature(), self.second.signature()
        if a == b:
            return dict(a)
        return {k: f"{a.get(k, '-')}>{b.get(k, '-')}" for k in NO_SIGNATURE}

    def hops(self, src: str, tgt: str) -> bool:
        """Whether ``src`` -> ``tgt`` takes two hops (neither side is the pivot)."""
        return get_language(src).code != self.pivot and get_language(tgt).code != self.pivot

    def hop1(self, texts: list[str], src: str, *, context: list[list[str]] | None = None) -> list[str]:
        return self.first.translate(texts, src, self.pivot, context=context)

    def hop2(self, texts: list[str], tgt: str, *, context: list[list[str]] | None = None) -> list[str]:
        return self.second.translate(texts, self.pivot, tgt, context=context)

    def translate(self, texts, src, tgt, *, context=None):
        src, tgt = get_language(src).code, get_language(tgt).code
        if src == self.pivot:
            return self.hop2(texts, tgt, context=context)
        if tgt == self.pivot:
            return self.hop1(texts, src, context=context)
        # first hop over the texts plus any context segments not among them
        extra = []
        if context:
            seen = set(texts)
            for ctx in context:
                for seg in ctx:
                    if seg not in seen:
                        seen.add(seg)
                        extra.append(seg)
        todo = list(texts) + extra
        todo_context = (list(context) + [[] for _ in extra]) if context is not None else None
        mid_all = self.hop1(todo, src, context=todo_context)
        lookup = dict(zip(todo, mid_all))
        mid = mid_all[: len(texts)]
        mid_context = [[lookup[s] for s in ctx] for ctx in context] if context is not None else None
        return self.hop2(mid, tgt, context=mid_context)


# -- the spec registry -----------------------------------------------------------------------------

SystemFactory = Callable[[str], TranslationSystem]
_KINDS: dict[str, SystemFactory] = {}


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


def _load_plugins() -> None:
    """Import the modules that register model-backed kinds (once; lazy, to keep imports cheap)."""
    import aya_lab.eval.model_systems  # noqa: F401  (registers smollm2, hf, fake, seq2seq)


def system_kinds() -> list[str]:
    """Registered spec prefixes."""
    _load_plugins()
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
    _load_plugins()
    if prefix.strip().lower() not in _KINDS:
        cut = min((i for i in (prefix.find("@"), prefix.find("+")) if i >= 0), default=-1)
        if cut > 0:  # smollm2@strict+ctx3: the suffix goes to the factory
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


register_system_kind("copy", _copy_factory)
register_system_kind("pivot", _pivot_factory)
