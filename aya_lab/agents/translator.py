"""AyaTranslator: brings a request to Aya into English before her agents work on it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from aya_lab.agents.user import clean_translation
from aya_lab.prompts import PromptFile, load_prompt

__all__ = ["AyaTranslator"]


class AyaTranslator:
    """English requests pass through untouched (no model call); others are translated."""

    def __init__(self, model: Any, prompt: str | PromptFile = "aya_translate/baseline") -> None:
        self.model = model
        self.prompt = load_prompt(prompt) if isinstance(prompt, str) else prompt

    def to_english(self, request: str, lang: str) -> str:
        return self.to_english_many([request], [lang])[0]

    def to_english_many(self, requests: Sequence[str], langs: Sequence[str]) -> list[str]:
        """Many requests at once: the non-English ones go to the model as one batch."""
        out = list(requests)
        todo = [i for i, lang in enumerate(langs) if lang != "eng"]
        if todo:
            results = self.model.generate_texts([self.prompt.render(request=requests[i]) for i in todo])
            for i, result in zip(todo, results, strict=True):
                out[i] = clean_translation(result.text, "English")
        return out
