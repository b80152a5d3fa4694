"""Test doubles. **Tests only**: never used by a demo, a benchmark or a notebook result.

- :class:`FakeChatModel` — a scripted :class:`~aya_lab.models.base.LocalChatModel` (spec ``fake:...``).
  It answers by prompt substring (``rules``: first matching substring wins) or, failing that, with the
  next of ``responses`` in order (cycling if ``cycle``), else ``default``. It records every rendered
  prompt in ``prompts`` and goes through the same cache/batching/recording path as real models.
- :func:`tiny_llama` / :func:`tiny_marian` — tiny *random* real Hugging Face models built on the fly
  (see :mod:`aya_lab.models.tiny`) so tests exercise the real transformers code paths.
"""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Sequence
from typing import Any

from langchain_core.messages import BaseMessage
from pydantic import Field, PrivateAttr

from aya_lab.models.base import Conversation, GenerationResult, LocalChatModel

__all__ = ["FakeChatModel", "FakeModelError", "FakeRoomModel", "tiny_llama", "tiny_marian"]


class FakeModelError(RuntimeError):
    """Raised by a FakeChatModel told to fail (to test that failures change nothing)."""


class FakeChatModel(LocalChatModel):
    """Scripted chat model; see the module docstring for the answering rules."""

    spec: str = "fake:scripted"
    responses: list[str] = Field(default_factory=list)
    rules: list[tuple[str, str]] = Field(default_factory=list)
    default: str | None = None
    cycle: bool = False
    fail_on: str | None = None  # raise FakeModelError when a prompt contains this substring
    prompts: list[str] = Field(default_factory=list)
    batches: list[int] = Field(default_factory=list)  # size of each _generate_uncached call
    _counter: Any = PrivateAttr(default=None)

    def model_post_init(self, __context: Any) -> None:
        self._counter = itertools.count()

    @classmethod
    def from_spec(cls, spec: str, **kwargs: Any) -> "FakeChatModel":
        """``fake:a|b|c`` answers a, b, c in order; ``fake:echo`` repeats the last message."""
        body = spec.split(":", 1)[1] if ":" in spec else ""
        if body == "echo":
            return FakeEchoChatModel(spec=spec, **kwargs)
        return cls(spec=spec, responses=[r for r in body.split("|") if r], cycle=True, **kwargs)

    @property
    def fingerprint(self) -> str:
        script = repr((self.responses, self.rules, self.default, self.cycle))
        digest = hashlib.sha256((script + self.settings.cache_key()).encode()).hexdigest()
        return "fake-" + digest[:16]

    def render(self, conversation: Conversation) -> str:
        return "\n".join(f"<{m.type}> {m.content}" for m in conversation)

    def answer(self, prompt: str) -> str:
        for needle, reply in self.rules:
            if needle in prompt:
                return reply
        if self.responses:
            i = next(self._counter)
            if self.cycle:
                return self.responses[i % len(self.responses)]
            if i < len(self.responses):
                return self.responses[i]
        if self.default is not None:
            return self.default
        raise FakeModelError(f"FakeChatModel has no scripted answer left for prompt {prompt[-200:]!r}")

    def _generate_uncached(self, prompts: list[str], repeat: int = 0) -> list[GenerationResult]:
        self.batches.append(len(prompts))
        out = []
        for prompt in prompts:
            if self.fail_on is not None and self.fail_on in prompt:
                raise FakeModelError(f"scripted failure on a prompt containing {self.fail_on!r}")
            self.prompts.append(prompt)
            text = self.answer(prompt)
            out.append(GenerationResult(text, self.count_tokens(prompt), self.count_tokens(text)))
        return out


class FakeEchoChatModel(FakeChatModel):
    """Answers with the content of the last message (an 'echo' system, for metric tests)."""

    def answer(self, prompt: str) -> str:
        last = prompt.rsplit("\n<", 1)[-1]
        return last.split("> ", 1)[1] if "> " in last else last


class FakeRoomModel(FakeChatModel):
    """A fake that *translates* by tagging: a user-agent prompt asking for language X about message M
    answers ``[X] M``; Aya's request translation answers ``[English] R``. Other prompts follow the
    FakeChatModel rules (substring ``rules``, then ``responses`` in order, then ``default``)."""

    spec: str = "fake:room"

    def answer(self, prompt: str) -> str:
        import re

        m = re.search(r'into (\w[\w ()]*?)\. If it is already', prompt)
        if m and "Message: " in prompt:
            return f"[{m.group(1)}] " + prompt.rsplit("Message: ", 1)[1].strip()
        if "Translate the user's request into English" in prompt:
            return "[English] " + prompt.rsplit("\n<human> ", 1)[-1].strip()
        return super().answer(prompt)


def tiny_llama(path: Any = None, **kwargs: Any) -> Any:
    """Build (well under a second) a tiny random Llama with SmolLM2's tokenizer; return its directory."""
    from aya_lab.models.tiny import build_tiny_llama

    return build_tiny_llama(path, **kwargs)


def tiny_marian(path: Any = None, **kwargs: Any) -> Any:
    """Build a tiny random Marian NMT model with a toy tokenizer; return its directory."""
    from aya_lab.models.tiny import build_tiny_marian

    return build_tiny_marian(path, **kwargs)


def messages_text(conversation: Sequence[BaseMessage]) -> str:
    """Join a conversation's contents (handy in assertions)."""
    return "\n".join(str(m.content) for m in conversation)


# --- evaluation fakes (owned by aya_lab.eval; append below this line) -------------------------------


class ReferenceSystem:
    """A translation system that answers with the reference (tests: a 'perfect' system).

    Built from ``(sources, references, src, tgt)`` tuples or from ParallelSets; looks each input up by
    (src, tgt, text). ``noise`` > 0 drops that share of words from each answer, deterministically
    (a 'noisy' system); ``calls`` counts ``translate`` calls; ``fail_after`` raises FakeModelError
    on that call (to test resuming a killed run).
    """

    def __init__(self, sets: Sequence[Any], *, name: str = "reference", noise: float = 0.0,
                 fail_after: int | None = None) -> None:
        self.name = name
        self.noise = noise
        self.fail_after = fail_after
        self.calls = 0
        self.seen_context: list[list[str]] = []
        self._table: dict[tuple[str, str, str], str] = {}
        for item in sets:
            if hasattr(item, "sources"):
                sources, refs, src, tgt = item.sources, item.references, item.src, item.tgt
                english = getattr(item, "english", None)
                if english is not None and "eng" not in (src, tgt):
                    for a, b, e in zip(sources, refs, english):
                        self._table[(src, "eng", a)] = e
                        self._table[("eng", tgt, e)] = b
            else:
                sources, refs, src, tgt = item
            for a, b in zip(sources, refs):
                self._table[(src, tgt, a)] = b

    def _corrupt(self, text: str) -> str:
        if self.noise <= 0:
            return text
        words = text.split()
        keep = [w for w in words
                if int(hashlib.sha256(w.encode()).hexdigest()[:8], 16) / 0xFFFFFFFF >= self.noise]
        return " ".join(keep or words[:1])

    def translate(self, texts, src, tgt, *, context=None):
        self.calls += 1
        if self.fail_after is not None and self.calls > self.fail_after:
            raise FakeModelError(f"{self.name}: scripted failure on call {self.calls}")
        if context is not None:
            self.seen_context.extend(context)
        return [self._corrupt(self._table.get((src, tgt, t), t)) for t in texts]

    def signature(self) -> dict[str, str]:
        return {"model_fingerprint": f"fake-{self.name}-{self.noise}", "prompt_hash": "-", "graph_spec_hash": "-"}


class EchoSystem:
    """A translation system that returns its input unchanged (an 'echo' system)."""

    def __init__(self, name: str = "echo") -> None:
        self.name = name

    def translate(self, texts, src, tgt, *, context=None):
        return list(texts)

    def signature(self) -> dict[str, str]:
        return {"model_fingerprint": "fake-echo", "prompt_hash": "-", "graph_spec_hash": "-"}


class ChatModelTranslator:
    """A translation system over a (fake) chat model: one generation per segment, via generate_texts."""

    def __init__(self, model: LocalChatModel, name: str = "chat") -> None:
        self.model = model
        self.name = name

    def translate(self, texts, src, tgt, *, context=None):
        from langchain_core.messages import HumanMessage

        results = self.model.generate_texts([[HumanMessage(content=t)] for t in texts])
        return [r.text for r in results]

    def signature(self) -> dict[str, str]:
        return {"model_fingerprint": self.model.fingerprint, "prompt_hash": "-", "graph_spec_hash": "-"}
