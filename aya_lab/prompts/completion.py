"""How a rendered **completion** prompt reaches a model, and how the model ends its text.

A completion prompt (``format: completion``, for base models without a chat template) renders to a
single ``HumanMessage`` whose text is the whole prompt and whose ``additional_kwargs[COMPLETION_KEY]``
holds ``{"stop": [...]}``. The models read it back with :func:`completion_request` (and send the text
as plain text, not through a chat template) and cut what they generate with :func:`cut_at_stop`.
This module is the whole contract between the prompts and the models for that form; it imports
nothing from either side.
"""

from __future__ import annotations

from collections.abc import Sequence

from langchain_core.messages import BaseMessage

__all__ = ["COMPLETION_KEY", "completion_request", "cut_at_stop"]

COMPLETION_KEY = "aya_lab_completion"
"""``additional_kwargs`` key of a rendered completion prompt's message: ``{"stop": [...]}``."""


def completion_request(conversation: Sequence[BaseMessage]) -> tuple[str, list[str]] | None:
    """``(text, stop strings)`` when ``conversation`` is a rendered completion prompt, else ``None``."""
    if len(conversation) != 1:
        return None
    meta = conversation[0].additional_kwargs.get(COMPLETION_KEY)
    if not isinstance(meta, dict):
        return None
    content = conversation[0].content
    return (content if isinstance(content, str) else str(content)), list(meta.get("stop") or [])


def cut_at_stop(text: str, stops: Sequence[str]) -> str:
    """``text`` up to the earliest stop string (the whole text when none occurs)."""
    cut = min((i for i in (text.find(s) for s in stops if s) if i >= 0), default=len(text))
    return text[:cut]
