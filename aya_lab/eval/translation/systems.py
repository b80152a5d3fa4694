"""Translation systems as the evaluator sees them; model-free systems (copy, pivot).

A system is anything with a ``name``, ``translate(texts, src, tgt, *, context=None)`` and
``signature()`` (see :class:`TranslationSystem`). The evaluator calls ``translate`` in chunks with
ISO 639-3 codes and, per segment, the preceding source segments of its document (oldest first, at most
10; an empty list when the set has no documents); a system with a smaller context window trims it.

A system that sets ``needs_references = True`` is also shown each pair's references before its
chunks run: the evaluator calls ``system.use_references(src, tgt, sources, references)`` once per
pair (the only way references reach a system; used by the other-sentence floor).

Floors (``floor = True``; their ``model_fingerprint`` starts with ``floor:`` or is ``copy-source``):
:class:`CopySystem` (the source itself: beats it and you are not just echoing) and
:class:`ShuffledReferenceSystem` (a fluent, unrelated sentence in the target language: beat it and
you translate, rather than merely write the language).

Spec strings that build systems: :mod:`aya_lab.eval.translation.specs`.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from aya_lab.errors import AyaLabError, InputError
from aya_lab.languages import get_language

__all__ = [
    "TranslationSystem",
    "PivotSystem",
    "CopySystem",
    "ShuffledReferenceSystem",
    "SystemSpecError",
    "signature_hash",
    "prompt_notes",
    "NO_SIGNATURE",
]

NO_SIGNATURE = {"model_fingerprint": "-", "prompt_hash": "-", "graph_spec_hash": "-"}


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


def signature_hash(system: TranslationSystem) -> str:
    """A short stable hash of a system's name and signature (keys checkpointed outputs)."""
    payload = json.dumps({"name": system.name, **system.signature()}, sort_keys=True)
    return hashlib.sha256(payload.encode()).hexdigest()[:16]


def prompt_notes(systems: Sequence[object]) -> list[str]:
    """The ``prompt_note`` lines of ``systems`` (and of a pivot's hops), in order, each once: which system
    got another prompt than the one asked for (a base model's completion variant)."""
    notes: list[str] = []
    for system in systems:
        parts = [system.first, system.second] if isinstance(system, PivotSystem) else [system]
        for part in parts:
            note = getattr(part, "prompt_note", None)
            if note and note not in notes:
                notes.append(note)
    return notes


class CopySystem:
    """Returns the source unchanged: the echo floor, and a handy baseline in tests."""

    floor = True

    def __init__(self, name: str = "copy") -> None:
        self.name = name

    def translate(self, texts, src, tgt, *, context=None):
        return list(texts)

    def signature(self) -> dict[str, str]:
        return {"model_fingerprint": "copy-source", "prompt_hash": "-", "graph_spec_hash": "-"}


class ShuffledReferenceSystem:
    """The other-sentence floor: each segment gets a reference of *another* segment of the same pair.

    The hypothesis is fluent text in the target language that translates nothing, so the floor
    separates *writing the language* from *translating*. The pair's distinct references are put in a
    random cycle (Sattolo's algorithm, seeded by ``seed``): a derangement, so no segment ever gets
    its own reference, and equal references map alike. Needs at least two distinct references.

    The evaluator hands the references over through :meth:`use_references` (``needs_references``);
    ``translate`` then looks each source up in that pair's table, so chunking, checkpoints and the
    order of calls do not change the answer.
    """

    floor = True
    needs_references = True

    def __init__(self, name: str = "other-sentence", *, seed: int = 0) -> None:
        self.name = name
        self.seed = seed
        self._tables: dict[tuple[str, str], dict[str, str]] = {}

    def use_references(self, src: str, tgt: str, sources: list[str], references: list[str]) -> None:
        """Take the pair's aligned sources and references (called by the evaluator before translating)."""
        if len(sources) != len(references):
            raise ValueError(f"{len(sources)} sources but {len(references)} references; they must be aligned")
        distinct = list(dict.fromkeys(references))
        if len(distinct) < 2:
            raise InputError(
                f"the other-sentence floor needs at least two different references for {src}-{tgt}, "
                f"got {len(distinct)}; evaluate more segments (n >= 2)"
            )
        order = list(range(len(distinct)))
        rng = random.Random(f"{self.seed}:{src}-{tgt}")
        for i in range(len(order) - 1, 0, -1):  # Sattolo: one cycle through all items, no fixed point
            j = rng.randrange(i)
            order[i], order[j] = order[j], order[i]
        other = {distinct[i]: distinct[order[i]] for i in range(len(distinct))}
        table: dict[str, str] = {}
        for source, ref in zip(sources, references):
            table.setdefault(source, other[ref])
        self._tables[(get_language(src).code, get_language(tgt).code)] = table

    def translate(self, texts, src, tgt, *, context=None):
        key = (get_language(src).code, get_language(tgt).code)
        table = self._tables.get(key)
        if table is None:
            raise ValueError(
                f"{self.name}: no references for {key[0]}-{key[1]}; run it through evaluate_translation "
                "(which calls use_references) or call use_references(src, tgt, sources, references) first"
            )
        missing = [t for t in texts if t not in table]
        if missing:
            raise ValueError(
                f"{self.name}: source {missing[0][:60]!r} is not in the {key[0]}-{key[1]} references given"
            )
        return [table[t] for t in texts]

    def signature(self) -> dict[str, str]:
        return {
            "model_fingerprint": f"floor:other-sentence(seed={self.seed})",
            "prompt_hash": "-",
            "graph_spec_hash": "-",
        }


class PivotSystem:
    """Translate ``src`` -> ``pivot`` with ``first``, then ``pivot`` -> ``tgt`` with ``second``.

    When ``tgt`` is the pivot there is one hop by ``first``; when ``src`` is, one hop by ``second``.
    The second hop's context is the first hop's translation of the context segments, so documents
    stay documents (the evaluator does the same per hop, and reports each hop's scores).
    """

    def __init__(
        self,
        first: TranslationSystem,
        second: TranslationSystem | None = None,
        *,
        pivot: str = "eng",
        name: str | None = None,
    ) -> None:
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
