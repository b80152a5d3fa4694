"""AyaTranslator: brings a request to Aya into English before her agents work on it.

:func:`is_english` is the output-language check the room uses to choose the routing path: a request
whose "English" is not English is routed on the original text instead
(``route_on: auto``, docs/ROUTING.md).
"""

from __future__ import annotations

from collections.abc import Sequence

from langchain_core.messages import BaseMessage

from aya_lab.agents.protocols import TextModel
from aya_lab.agents.user import clean_translation
from aya_lab.langid import detect
from aya_lab.languages import language_name
from aya_lab.prompts import PromptFile, choose_prompt, cut_at_stop

__all__ = ["AyaTranslator", "is_english"]


def is_english(text: str, source: str | None = None) -> bool:
    """Whether lingua identifies ``text`` as English among English, the ``source`` language (when
    lingua covers it) and the languages small models drift into. Empty text is not English."""
    return detect(text, "eng", *([source] if source is not None else [])) == "ENGLISH"


class AyaTranslator:
    """English requests pass through untouched (no model call); others are translated."""

    def __init__(self, model: TextModel, prompt: str | PromptFile = "aya_translate/baseline") -> None:
        self.model = model
        self.prompt_choice = choose_prompt(prompt, model)  # a base model gets the baseline's completion variant
        self.prompt = self.prompt_choice.used

    def to_english(self, request: str, lang: str) -> str:
        return self.to_english_many([request], [lang])[0]

    def to_english_many(self, requests: Sequence[str], langs: Sequence[str]) -> list[str]:
        """Many requests at once: the non-English ones go to the model as one batch."""
        out = list(requests)
        todo = [i for i, lang in enumerate(langs) if lang != "eng"]
        if todo:
            results = self.model.generate_texts([self._render(requests[i], langs[i]) for i in todo])
            for i, result in zip(todo, results, strict=True):
                out[i] = clean_translation(cut_at_stop(result.text, self.prompt.stop_strings), "English")
        return out

    def _render(self, request: str, lang: str) -> list[BaseMessage]:
        """The prompt for one request; completion prompts also get the source language's name and code."""
        values = {"request": request, "source_language": language_name(lang), "source_code": lang}
        needed = self.prompt.variables  # computed once, not once per value (it reads the pool's keys)
        return self.prompt.render(**{k: v for k, v in values.items() if k in needed})
