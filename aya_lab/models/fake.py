"""The scripted fake chat model behind the ``fake:`` spec (DSPy's dummy LM, in spirit).

:class:`FakeChatModel` answers by prompt substring (``rules``: first matching substring wins) or,
failing that, with the next of ``responses`` in order (cycling if ``cycle``), else ``default``. It
records every rendered prompt in ``prompts`` and goes through the same cache/batching/recording path as
real models. ``fake:a|b|c`` answers a, b, c in turn; ``fake:echo`` repeats the last message.
For tests and for trying a graph without weights: never a demo or a reported number.
"""

from __future__ import annotations

import hashlib
import itertools
import time
from typing import Any

from pydantic import Field, PrivateAttr

from aya_lab.errors import AyaLabError
from aya_lab.models.base import Conversation, LocalChatModel
from aya_lab.models.result import GenerationResult

__all__ = ["FakeChatModel", "FakeEchoChatModel", "FakeModelError", "SLOW_BATCH_S"]

SLOW_BATCH_S = 0.5


class FakeModelError(AyaLabError, RuntimeError):
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
    delay_s: float = 0.0  # simulated compute time per batch
    guard_checks: tuple[str, ...] = ("assistant",)  # scripted outputs are no translations (agents.guard)
    _counter: Any = PrivateAttr(default=None)

    def model_post_init(self, __context: object) -> None:
        self._counter = itertools.count()

    @classmethod
    def from_spec(cls, spec: str, **kwargs: object) -> FakeChatModel:
        """``fake:a|b|c`` answers a, b, c in order; ``fake:echo`` repeats the last message;
        ``fake:slow-echo`` does too, taking ``SLOW_BATCH_S`` per batch (to test killed workers)."""
        body = spec.split(":", 1)[1] if ":" in spec else ""
        if body == "echo":
            return FakeEchoChatModel(spec=spec, **kwargs)
        if body == "slow-echo":
            return FakeEchoChatModel(spec=spec, delay_s=SLOW_BATCH_S, **kwargs)
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
        if self.delay_s:
            time.sleep(self.delay_s)
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
