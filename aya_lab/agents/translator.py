"""AyaTranslator: brings a request to Aya into English before her agents work on it."""

from __future__ import annotations

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
        if lang == "eng":
            return request
        (result,) = self.model.generate_texts([self.prompt.render(request=request)])
        return clean_translation(result.text, "English")
