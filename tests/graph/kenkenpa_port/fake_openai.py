"""A stand-in for ``langchain_openai.ChatOpenAI`` in kenkenpa's README example: it calls the ``search``
tool once, then answers from the tool's result (no network, no API key)."""

from __future__ import annotations

from typing import Any

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage

ANSWER = "The current weather in San Francisco is 60 degrees and foggy."


class ChatOpenAI(GenericFakeChatModel):
    def __init__(self, model: str = "", **kwargs: Any) -> None:
        call = {"name": "search", "args": {"query": "weather in sf"}, "id": "call_1", "type": "tool_call"}
        super().__init__(messages=iter([AIMessage("", tool_calls=[call]), AIMessage(ANSWER)]), **kwargs)

    def bind_tools(self, tools: Any, **kwargs: Any) -> ChatOpenAI:
        return self
