"""Model-backed translation systems: a prompt variant on a chat model, and a seq2seq NMT model.

- :class:`PromptSystem` translates through :meth:`~aya_lab.agents.user.UserAgent.translate_texts`, as the
  room's user agents do: one ``generate_texts`` batch per chunk the evaluator hands over. With a context
  window ``K > 0`` the last ``K`` preceding source segments of the document go into the prompt as
  ``ChatMessage(sender="colleague", content=segment, lang=src)`` (the evaluator passes up to 10).
- :class:`Seq2SeqSystem` calls :meth:`~aya_lab.models.seq2seq.Seq2SeqTranslator.translate`; it has no
  prompt and ignores the document context.

Spec grammar (``aya-lab eval translate --system SPEC``, :func:`~aya_lab.eval.translation.specs.parse_system`)::

    SPEC      := [NAME "="] MODEL ["@" VARIANT] ["+ctx" K]      a PromptSystem
               | [NAME "="] NMT-MODEL                            a Seq2SeqSystem
    MODEL     := any spec of aya_lab.models.registry whose kind translates by prompt: smollm2, gemma3-270m,
                 gguf:FILE, hf:PATH-OR-HUB-ID, fake:SCRIPT, each with ~ENGINE and +lora:PATH where allowed
    NMT-MODEL := seq2seq:PATH-OR-HUB-ID (no prompt, no context: @VARIANT and +ctxK are refused)
    VARIANT   := a file stem under prompts/user_translate/ (default: baseline)
    K         := 0..10, the context window (default 0)

Examples: ``smollm2``, ``gemma3-270m``, ``smollm2@strict``, ``smollm2@baseline+ctx3``, ``smollm2+ctx3``,
``hf:HuggingFaceTB/SmolLM2-360M-Instruct@strict+ctx3``, ``gemma3-270m+lora:runs/a@completion``,
``pivot:smollm2@strict``, ``nllb=seq2seq:facebook/nllb-200-distilled-600M``. The suffixes are taken from
the end of the spec (``@`` followed by a name without ``/``), so paths may contain ``@`` elsewhere.

Signatures: ``model_fingerprint`` (weights + generation settings), ``prompt_hash`` (the prompt file's
content hash; ``-`` for seq2seq) and ``graph_spec_hash`` ``-``; a PromptSystem adds
``context_window``, so that two systems differing only in K never share checkpointed outputs, and the
prompt used (``prompt``; plus ``prompt_requested`` and ``prompt_note`` where a base model got the
completion variant instead of the chat baseline asked for: the evaluator records these in the results'
metadata and the CLI prints the note).
Simplification: spec-built systems use the model's default generation settings; to change them
(e.g. ``max_new_tokens``), build the system from a loaded model: ``PromptSystem(load_model(spec,
settings=...))``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Protocol, cast

from aya_lab.agents.protocols import TextModel
from aya_lab.agents.user import UserAgent
from aya_lab.datasets.parallel import MAX_CONTEXT_WINDOW
from aya_lab.errors import InputError
from aya_lab.eval.translation.systems import SystemSpecError
from aya_lab.messages import ChatMessage
from aya_lab.models import load_chat_model, load_model
from aya_lab.models.result import GenerationResult
from aya_lab.prompts import PromptFile, load_prompt

__all__ = ["PromptSystem", "Seq2SeqSystem", "parse_prompt_spec", "split_suffixes", "TRANSLATE_TASK"]

TRANSLATE_TASK = "user_translate"
_SUFFIX = re.compile(r"^(?P<model>.*?)(?:@(?P<variant>[^@/+\s]*))?(?:\+ctx(?P<k>[^@/+\s]*))?$", re.S)


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


def parse_prompt_spec(spec: str) -> tuple[str, str, int]:
    """``"smollm2@strict+ctx3"`` -> ``("smollm2", "strict", 3)`` (defaults ``baseline`` and 0); raises
    :class:`SystemSpecError`."""
    model, variant, k = split_suffixes(spec)
    return model, variant or "baseline", k or 0


def translate_prompt(prompt: str | PromptFile) -> PromptFile:
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
    ``context_window``: how many preceding source segments to show (0..10).
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
        """The evaluator's signature plus ``context_window`` and the prompt used (``prompt``; with
        ``prompt_requested`` and ``prompt_note`` when a base model got the completion variant instead)."""
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
            spec = model if model.startswith("seq2seq:") else f"seq2seq:{model}"
            model = load_model(spec)
        if not hasattr(model, "translate"):
            raise InputError(f"Seq2SeqSystem needs a seq2seq model (seq2seq:PATH); got {type(model).__name__}")
        self.model = cast(Seq2SeqModel, model)
        self.name: str = name or str(getattr(model, "spec", "seq2seq"))

    def __repr__(self) -> str:
        return f"Seq2SeqSystem({self.name!r})"

    def translate(self, texts: list[str], src: str, tgt: str, *, context: list[list[str]] | None = None) -> list[str]:
        texts = list(texts)
        if not texts:
            return []
        return [r.text for r in self.model.translate(texts, src, tgt)]

    def signature(self) -> dict[str, str]:
        return {"model_fingerprint": self.model.fingerprint, "prompt_hash": "-", "graph_spec_hash": "-"}
