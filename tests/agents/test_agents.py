"""Each agent's prompt rendering and parsing, with scripted fakes."""

import pytest

from aya_lab.agents import AyaTranslator, OneCallSummarizer, TwoCallSummarizer, UserAgent, clean_translation
from aya_lab.agents.summarizer import parse_action_items, parse_count
from aya_lab.agents.supervisor import AyaRemember
from aya_lab.messages import ChatMessage
from aya_lab.models.fake import FakeChatModel
from tests.fakes import FakeKnowledgeBase

HISTORY = [
    ChatMessage(sender=s, content=c, lang="eng")
    for s, c in [
        ("kofi", "I will send the budget on Monday."),
        ("lena", "Thanks."),
        ("amara", "Meeting moved to Friday."),
        ("sophie", "I'll book the room."),
        ("kofi", "Great."),
    ]
]


@pytest.mark.parametrize(
    "raw,clean",
    [
        ("Translation: Bonjour", "Bonjour"),
        ('"Hallo zusammen"', "Hallo zusammen"),
        ("German: Hallo", "Hallo"),
        ("Hola.\n\nNote: informal", "Hola."),
        ("  Salut  ", "Salut"),
        ("Message: Bonjour", "Bonjour"),
    ],
)
def test_clean_translation(raw, clean):
    assert clean_translation(raw, "German") == clean


def test_user_agent_skips_same_language_and_batches_the_rest():
    model = FakeChatModel(responses=["Hallo", "Bonjour"])
    agent = UserAgent(model)
    msg = ChatMessage(sender="kofi", content="Hello", lang="eng")
    out = agent.translate_many(msg, ["eng", "deu", "fra", "deu"])
    assert out == {"eng": "Hello", "deu": "Hallo", "fra": "Bonjour"}
    assert model.batches == [2] and all("<message>Hello</message>" in p for p in model.prompts)


def test_user_agent_context_window():
    model = FakeChatModel(default="x")
    agent = UserAgent(model, "user_translate/strict", context_window=2)
    agent.translate_many(ChatMessage(sender="kofi", content="ok", lang="eng"), ["fra"], HISTORY)
    prompt = model.prompts[0]
    assert "sophie: I'll book the room.\nkofi: Great.\n<message>ok</message>" in prompt
    assert "Meeting moved" not in prompt
    with pytest.raises(ValueError, match="context_window must be >= 0"):
        UserAgent(model, context_window=-1)


def test_aya_translator_passes_english_through():
    model = FakeChatModel(responses=["Summarize the last 4 messages"])
    t = AyaTranslator(model)
    assert t.to_english("summarize", "eng") == "summarize" and model.prompts == []
    assert t.to_english("résume les 4 derniers messages", "fra") == "Summarize the last 4 messages"


@pytest.mark.parametrize(
    "text,count",
    [("3", 3), ("Number: 12", 12), ("five", 5), ("all of them", 0), ("0", 0), ("I cannot tell", None), ("", None)],
)
def test_parse_count(text, count):
    assert parse_count(text) == count


def test_parse_action_items():
    text = "They met.\n- Kofi: send the budget\n* lena: review it\n- none\n1. Amara: book travel\nnot an item"
    assert parse_action_items(text) == [("kofi", "send the budget"), ("lena", "review it"), ("amara", "book travel")]


def test_two_call_summarizes_the_last_n_not_the_first():
    model = FakeChatModel(rules=[("Number:", "2"), ("Summary:", "Room booked.\n- sophie: book the room")])
    result = TwoCallSummarizer(model).summarize("summarize the last 2 messages", HISTORY)
    assert result.message_ids == [m.id for m in HISTORY[-2:]]
    assert "sophie: I'll book the room.\nkofi: Great." in model.prompts[1]
    assert "budget" not in model.prompts[1]
    assert result.action_items == [("sophie", "book the room")] and result.calls == 2
    assert result.text == "Room booked.\n- sophie: book the room"


def test_two_call_malformed_count_means_all_and_is_recorded():
    model = FakeChatModel(rules=[("Number:", "lots?"), ("Summary:", "Everything.\n- none")])
    result = TwoCallSummarizer(model).summarize("summarize", HISTORY)
    assert result.count_requested is None and len(result.message_ids) == 5
    assert result.notes and "malformed count" in result.notes[0]
    assert result.action_items == [] and result.text.endswith("- no action items")


def test_one_call_parses_structured_answer():
    model = FakeChatModel(default="COUNT: 3\nSUMMARY: Friday meeting.\nACTIONS:\n- sophie: book the room")
    result = OneCallSummarizer(model).summarize("summarize the last 3 messages", HISTORY)
    assert result.count_requested == 3 and result.message_ids == [m.id for m in HISTORY[-3:]]
    assert result.summary == "Friday meeting." and result.action_items == [("sophie", "book the room")]
    assert result.calls == 1 and "<request>summarize the last 3 messages</request>" in model.prompts[0]


def test_one_call_garbage_is_all_with_a_note():
    result = OneCallSummarizer(FakeChatModel(default="blah blah")).summarize("recap", HISTORY)
    assert result.count_requested is None and len(result.message_ids) == 5 and result.notes


def test_summarizers_with_no_history():
    for cls in (TwoCallSummarizer, OneCallSummarizer):
        result = cls(FakeChatModel(default="0")).summarize("summarize", [])
        assert result.text == "There are no messages to summarize yet."


@pytest.mark.parametrize(
    "request_text,fact",
    [
        ("remember that the office closes at 5pm", "the office closes at 5pm"),
        ("Please note: VPN is down on Sunday", "VPN is down on Sunday"),
        ("the canteen opens at 8", "the canteen opens at 8"),
    ],
)
def test_remember_strips_the_lead_in(request_text, fact):
    kb = FakeKnowledgeBase()
    assert AyaRemember(kb, author="kofi")(request_text) == f"Noted: {fact}"
    assert list(kb.rows.values()) == [(fact, "kofi", None)]
