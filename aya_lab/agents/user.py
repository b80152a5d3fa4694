"""UserAgent: brings every room message into one language, with the recent conversation as context.

One agent per user, but translation is **per target language, not per user**: :meth:`UserAgent.translate_many`
takes a message and all the languages the room needs and sends one batch to the model. A message
already in a target language is not sent through the model. With ``context_window = K > 0`` the last K
room messages (in the target language where a translation exists) go into the prompt; K = 0 is the
original design's behaviour (it kept a history but never used it).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from langchain_core.messages import BaseMessage

from aya_lab.agents.protocols import TextModel
from aya_lab.errors import InputError
from aya_lab.languages import language_name
from aya_lab.messages import ChatMessage
from aya_lab.prompts import PromptFile, choose_prompt, cut_at_stop

__all__ = ["UserAgent", "clean_translation", "render_context"]

_TAGS = re.compile(r"<\s*/?\s*(?:message|request)\s*>", re.I)  # spotlighting delimiters a model echoes
_PREFIX = re.compile(
    r"^\s*(translation|traduction|übersetzung|traducción|tafsiri|output|answer|message)\s*[:：]\s*", re.I
)


def clean_translation(text: str, target_language: str = "") -> str:
    """Strip what small models wrap around a translation: labels, quotes, trailing notes, and the
    prompts' spotlighting tags (``<message>``/``</message>``, ``<request>``) echoed around it."""
    out = _TAGS.sub("", text).strip()
    if target_language:
        out = re.sub(rf"^\s*{re.escape(target_language)}\s*[:：]\s*", "", out, flags=re.I)
    out = _PREFIX.sub("", out)
    out = out.split("\n\n", 1)[0].strip()
    if len(out) >= 2 and out[0] == out[-1] and out[0] in "\"'«“":
        out = out[1:-1].strip()
    return out or text.strip()


def render_context(history: Sequence[ChatMessage], lang: str, k: int) -> str:
    """The last ``k`` messages as ``sender: text`` lines under a ``Context:`` header ("" when k = 0)."""
    if k <= 0 or not history:
        return ""
    lines = [f"{m.sender}: {m.text_in(lang)}" for m in history[-k:]]
    return "Context (recent messages, do not translate):\n" + "\n".join(lines) + "\n"


class UserAgent:
    """Translates room messages into target languages with a ``user_translate/<variant>`` prompt."""

    def __init__(
        self, model: TextModel, prompt: str | PromptFile = "user_translate/baseline", context_window: int = 0
    ) -> None:
        if context_window < 0:
            raise InputError(f"context_window must be >= 0; got {context_window}")
        self.model = model
        self.prompt_choice = choose_prompt(prompt, model)  # a base model gets the baseline's completion variant
        self.prompt = self.prompt_choice.used
        self.context_window = context_window

    def conversation(
        self, text: str, source: str, target: str, history: Sequence[ChatMessage] = ()
    ) -> list[BaseMessage]:
        """The prompt messages translating ``text`` from ``source`` into ``target`` (ISO 639-3 codes)."""
        values = {
            "target_language": language_name(target),
            "message": text,
            "context": render_context(history, target, self.context_window),
            "source_language": language_name(source),
            "source_code": source,
            "target_code": target,
        }
        return self.prompt.render(**{k: v for k, v in values.items() if k in self.prompt.variables})

    def _clean(self, text: str, target: str) -> str:
        return clean_translation(cut_at_stop(text, self.prompt.stop_strings), language_name(target))

    def translate_texts(
        self, texts: Sequence[str], source: str, target: str, contexts: Sequence[Sequence[ChatMessage]] | None = None
    ) -> list[str]:
        """Translate many texts into one language, as one batch (identity when source == target)."""
        if source == target:
            return list(texts)
        contexts = contexts or [()] * len(texts)
        convs = [self.conversation(t, source, target, c) for t, c in zip(texts, contexts, strict=True)]
        return [self._clean(r.text, target) for r in self.model.generate_texts(convs)]

    def translate_many(
        self, message: ChatMessage, targets: Sequence[str], history: Sequence[ChatMessage] = ()
    ) -> dict[str, str]:
        """``{lang: text}`` for every target language, model called once with a batch of the needed ones."""
        needed = [t for t in dict.fromkeys(targets) if t != message.lang]
        out = {t: message.content for t in targets if t == message.lang}
        if needed:
            convs = [self.conversation(message.content, message.lang, t, history) for t in needed]
            results = self.model.generate_texts(convs)
            for t, r in zip(needed, results, strict=True):
                out[t] = self._clean(r.text, t)
        return out
