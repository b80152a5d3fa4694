"""Translation systems as the evaluator sees them, and :func:`resolve_system`, which builds one from a spec.

A system is anything with a ``name``, ``translate(texts, src, tgt, *, context=None)`` and ``signature()``
(:class:`~.specs.TranslationSystem`). The evaluator calls ``translate`` in chunks with ISO 639-3 codes and, per
segment, the preceding source segments of its document (oldest first, at most 10; empty when the set has
no documents); a system with a smaller context window trims it. A system with ``needs_references = True``
is shown each pair's references first (``use_references(src, tgt, sources, references)``, the only way
references reach a system).

- Floors (``floor = True``): :class:`CopySystem` (the source itself: beat it and you are not just
  echoing) and :class:`ShuffledReferenceSystem` (a fluent, unrelated sentence in the target language:
  beat it and you translate, rather than merely write the language).
- :class:`PivotSystem`: through English, scored per hop by the evaluator.
- :class:`PromptSystem`: a ``user_translate`` prompt variant on a chat model, through
  :meth:`~aya_lab.agents.user.UserAgent.translate_texts` as the room's user agents translate; with a
  context window ``K > 0`` the last ``K`` preceding source segments go into the prompt.
- :class:`Seq2SeqSystem`: a seq2seq NMT model; no prompt, no document context.

Signatures: ``model_fingerprint``, ``prompt_hash`` (``-`` without a prompt) and ``graph_spec_hash``; a
PromptSystem adds ``context_window`` (two systems differing only in K never share checkpointed outputs)
and the prompt used (with ``prompt_requested`` and ``prompt_note`` where a base model got the completion
variant instead of the chat baseline asked for). Spec-built systems use the model's default generation
settings unless :func:`model_options` says otherwise.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Sequence
from typing import Protocol, cast

from aya_lab.agents.protocols import TextModel
from aya_lab.agents.user import UserAgent
from aya_lab.datasets.parallel import MAX_CONTEXT_WINDOW
from aya_lab.errors import InputError
from aya_lab.eval.translation.specs import (
    KINDS,
    SystemSpec,
    TranslationSystem,
    check_other_sentence,
    check_pivot,
    current_model_options,
    parse_system,
)
from aya_lab.languages import get_language
from aya_lab.messages import ChatMessage
from aya_lab.models import load_chat_model, load_model
from aya_lab.models.loader import LoadOptions
from aya_lab.models.result import GenerationResult
from aya_lab.prompts import PromptFile, load_prompt

__all__ = [
    "NO_SIGNATURE",
    "TRANSLATE_TASK",
    "CopySystem",
    "PivotSystem",
    "PromptSystem",
    "Seq2SeqSystem",
    "ShuffledReferenceSystem",
    "prompt_notes",
    "resolve_system",
    "signature_hash",
    "translate_prompt",
]

NO_SIGNATURE = {"model_fingerprint": "-", "prompt_hash": "-", "graph_spec_hash": "-"}
TRANSLATE_TASK = "user_translate"


def signature_hash(system: TranslationSystem) -> str:
    """A short stable hash of a system's name and signature (keys checkpointed outputs)."""
    payload = json.dumps({"name": system.name, **system.signature()}, sort_keys=True)
    return hashlib.sha256(payload.encode()).hexdigest()[:16]


def prompt_notes(systems: Sequence[object]) -> list[str]:
    """The ``prompt_note`` lines of ``systems`` (and of a pivot's hops), in order, each once: which system
    got another prompt than the one asked for (a base model's completion variant)."""
    notes: list[str] = []
    for system in systems:
        for part in [system.first, system.second] if isinstance(system, PivotSystem) else [system]:
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
        return {**NO_SIGNATURE, "model_fingerprint": "copy-source"}


class ShuffledReferenceSystem:
    """The other-sentence floor: each segment gets a reference of *another* segment of the same pair.

    The pair's distinct references are put in a random cycle (Sattolo's algorithm, seeded by ``seed``): a
    derangement, so no segment ever gets its own reference, and equal references map alike. Needs at
    least two distinct references. ``translate`` looks each source up in the pair's table, so chunking,
    checkpoints and the order of calls do not change the answer.
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
        return {**NO_SIGNATURE, "model_fingerprint": f"floor:other-sentence(seed={self.seed})"}


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
        return dict(a) if a == b else {k: f"{a.get(k, '-')}>{b.get(k, '-')}" for k in NO_SIGNATURE}

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
        given = set(texts)
        extra = list(dict.fromkeys(seg for ctx in context or [] for seg in ctx if seg not in given))
        todo = list(texts) + extra
        todo_context = (list(context) + [[] for _ in extra]) if context is not None else None
        mid_all = self.hop1(todo, src, context=todo_context)
        lookup = dict(zip(todo, mid_all))
        mid_context = [[lookup[s] for s in ctx] for ctx in context] if context is not None else None
        return self.hop2(mid_all[: len(texts)], tgt, context=mid_context)


def translate_prompt(prompt: str | PromptFile) -> PromptFile:
    """A ``user_translate`` prompt: a variant name, ``user_translate/NAME``, a YAML path or a PromptFile."""
    if isinstance(prompt, PromptFile):
        return prompt
    ref = prompt if ("/" in prompt or prompt.endswith((".yaml", ".yml"))) else f"{TRANSLATE_TASK}/{prompt}"
    return load_prompt(ref)


class PromptSystem:
    """A ``user_translate`` prompt variant on a chat model, with a document-context window.

    ``model``: a loaded chat model or a chat-model spec (``smollm2``, ``hf:...``, ``fake:...``).
    ``prompt``: ``"strict"``, ``"user_translate/strict"``, a YAML path or a :class:`PromptFile`. On a model
    without a chat template the chat baseline becomes the completion variant (``prompt`` is then the prompt
    used; ``prompt_choice`` and :attr:`prompt_note` say so, and :meth:`signature` records both).
    ``context_window``: how many preceding source segments to show (0..10), each as a
    ``ChatMessage(sender="colleague", content=segment, lang=src)``.
    """

    def __init__(
        self,
        model: TextModel | str,
        prompt: str | PromptFile = "user_translate/baseline",
        context_window: int = 0,
        name: str | None = None,
    ) -> None:
        if not 0 <= int(context_window) <= MAX_CONTEXT_WINDOW:
            raise InputError(f"context_window must be 0..{MAX_CONTEXT_WINDOW}; got {context_window}")
        if isinstance(model, str):
            model = cast(TextModel, load_chat_model(model))
        if not hasattr(model, "generate_texts"):
            raise InputError(f"PromptSystem needs a chat model (smollm2, hf:..., fake:...); got {type(model).__name__}")
        self.model = model
        self.context_window = int(context_window)
        self.agent = UserAgent(model, translate_prompt(prompt), context_window=self.context_window)
        self.prompt_choice = self.agent.prompt_choice
        self.prompt = self.prompt_choice.used  # the prompt sent, which a base model may have swapped in
        if name is None:
            name = f"{getattr(model, 'spec', 'model')}@{self.prompt.variant or 'prompt'}"
            name += f"+ctx{self.context_window}" if self.context_window else ""
        self.name = name

    def __repr__(self) -> str:
        return f"PromptSystem({self.name!r})"

    def contexts(
        self, texts: Sequence[str], src: str, context: Sequence[Sequence[str]] | None
    ) -> list[list[ChatMessage]]:
        """Per text, the last K preceding segments as ``ChatMessage``s (empty when K = 0 or no context)."""
        if self.context_window <= 0 or context is None:
            return [[] for _ in texts]
        if len(context) != len(texts):
            raise InputError(f"{len(context)} context lists for {len(texts)} texts; pass one per text")
        return [
            [
                ChatMessage(id=f"ctx{j}", sender="colleague", content=seg, lang=src, created_at="-")
                for j, seg in enumerate(list(ctx)[-self.context_window :])
            ]
            for ctx in context
        ]

    def translate(self, texts, src, tgt, *, context=None):
        texts = list(texts)
        if not texts:
            return []
        return self.agent.translate_texts(texts, src, tgt, contexts=self.contexts(texts, src, context))

    @property
    def prompt_note(self) -> str | None:
        """One line naming the prompt a base model got instead of the chat prompt asked for (else ``None``)."""
        note = self.prompt_choice.note
        return f"{self.name}: {note}" if note else None

    def signature(self) -> dict[str, str]:
        """The evaluator's signature plus ``context_window`` and the prompt used (see the module)."""
        return {
            "model_fingerprint": self.model.fingerprint,
            "prompt_hash": self.prompt.content_hash,
            "graph_spec_hash": "-",
            "context_window": str(self.context_window),
            **self.prompt_choice.as_meta(),
        }


class Seq2SeqModel(Protocol):
    """What :class:`Seq2SeqSystem` calls: a model that translates texts and has a fingerprint."""

    fingerprint: str

    def translate(self, texts: list[str], src: str, tgt: str) -> Sequence[GenerationResult]: ...


class Seq2SeqSystem:
    """A seq2seq NMT model (``seq2seq:PATH``); no prompt, no document context."""

    def __init__(self, model: object, name: str | None = None) -> None:
        if isinstance(model, str):
            model = load_model(model if model.startswith("seq2seq:") else f"seq2seq:{model}")
        if not hasattr(model, "translate"):
            raise InputError(f"Seq2SeqSystem needs a seq2seq model (seq2seq:PATH); got {type(model).__name__}")
        self.model = cast(Seq2SeqModel, model)
        self.name: str = name or str(getattr(model, "spec", "seq2seq"))

    def __repr__(self) -> str:
        return f"Seq2SeqSystem({self.name!r})"

    def translate(self, texts: list[str], src: str, tgt: str, *, context: list[list[str]] | None = None) -> list[str]:
        return [r.text for r in self.model.translate(list(texts), src, tgt)] if texts else []

    def signature(self) -> dict[str, str]:
        return {**NO_SIGNATURE, "model_fingerprint": self.model.fingerprint}


def _build(parsed: SystemSpec) -> TranslationSystem:
    options = cast("LoadOptions", current_model_options())
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
        system.name = parsed.name
    elif not getattr(system, "name", None):
        system.name = parsed.text
    return system


def resolve_system(spec: str | TranslationSystem) -> TranslationSystem:
    """Build a system from a spec string (:mod:`~.specs`; ``NAME=SPEC`` names it); systems pass through.

    A prompt system's default name is ``MODEL@VARIANT[+ctxK]`` with the variant actually used (a base
    model's ``@completion`` where the chat baseline was asked for; see ``PromptSystem.prompt_note``)."""
    return _build(parse_system(spec)) if isinstance(spec, str) else spec


def copy_factory(rest: str) -> TranslationSystem:
    return CopySystem()


def pivot_factory(rest: str) -> TranslationSystem:
    check_pivot(rest)
    return PivotSystem(resolve_system(rest))


def other_sentence_factory(rest: str) -> TranslationSystem:
    check_other_sentence(rest)
    return ShuffledReferenceSystem(seed=int(rest.strip() or 0))
