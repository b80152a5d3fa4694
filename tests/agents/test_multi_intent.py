"""Several tools for one request: the intent splitter, the re-deciding router, Aya's supervisor."""

import pytest

from aya_lab.agents.multi_intent import Intent, ReDecidingRouter, compose_reply, resolve_reference, split_intents
from aya_lab.agents.routing import FINISH, KeywordRouter, LLMRouter, RoutingChain
from aya_lab.agents.supervisor import AyaSupervisor
from aya_lab.agents.translator import is_english
from aya_lab.messages import ChatMessage
from aya_lab.models.base import record_generations
from aya_lab.models.fake import FakeChatModel
from aya_lab.prompts import load_prompt
from tests.fakes import FakeKnowledgeBase

TOOLS = ("query", "summarize", "remember", "chat")
HISTORY = [
    ChatMessage(sender=s, content=c, lang="eng")
    for s, c in [("kofi", "I will send the budget on Monday."), ("lena", "Meeting moved to Friday.")]
]


@pytest.mark.parametrize(
    "text,tools",
    [
        ("summarize the last 5 messages and remember the action items", ["summarize", "remember"]),
        ("what is the per-diem for Berlin, and remember that I leave Monday", ["query", "remember"]),
        ("résume les 5 derniers messages et retiens que je pars lundi", ["summarize", "remember"]),
        ("fasse die letzten 5 Nachrichten zusammen und merk dir, dass ich Montag reise", ["summarize", "remember"]),
        ("总结最近5条消息，然后记住我周一出发", ["summarize", "remember"]),
        # single intents stay whole: same tool twice, a clause without a keyword, a fact that mentions travel
        ("summarize the last 5 messages and list the action items", ["summarize"]),
        ("what is our travel policy and how many vacation days do I get", ["query"]),
        ("remember that I am on vacation next week and travel on Monday", ["remember"]),
        ("remember that the Lagos office closes at 4pm and reopens at 8am", ["remember"]),
        ("hi aya, can you summarize the chat", ["summarize"]),
        ("thanks, have a nice weekend!", ["chat"]),
    ],
)
def test_split_intents(text, tools):
    intents = split_intents(text)
    assert [i.tool for i in intents] == tools
    if len(intents) == 1:
        assert intents[0].text == text  # a single intent is the request, untouched


def test_remember_resolves_a_back_reference_from_the_observation():
    summary = "Plans changed.\n- lena: send the report\n- kofi: book the room"
    assert (
        resolve_reference(Intent("remember", "remember the action items"), [summary])
        == "remember that lena: send the report; kofi: book the room"
    )
    assert (
        resolve_reference(Intent("remember", "remember that I leave Monday"), ["x"]) == "remember that I leave Monday"
    )
    assert compose_reply(["a", " ", "b"]) == "a\n\nb"


def test_re_deciding_router_runs_two_tools_and_composes_one_reply():
    router = ReDecidingRouter(KeywordRouter())
    tools = {t: (lambda x, t=t: f"<{t}: {x}>") for t in TOOLS}
    result = RoutingChain(router, tools).invoke("what is the per-diem for Berlin, and remember that I leave Monday")
    assert result.tools == ["query", "remember"]
    assert result.output == "<query: what is the per-diem for Berlin>\n\n<remember: remember that I leave Monday>"
    assert result.steps[-1].output.tool == FINISH and "2 intents" in result.steps[-1].output.log


def test_re_deciding_router_hands_a_single_intent_to_the_first_router():
    model = FakeChatModel(responses=["summarize"])
    router = ReDecidingRouter(LLMRouter(model, load_prompt("supervisor/baseline")))
    result = RoutingChain(router, {t: (lambda x, t=t: t) for t in TOOLS}).invoke("summarize the last 4 messages")
    assert result.tools == ["summarize"] and len(model.prompts) == 1


def _supervisor_run(multi_intent, request, rules):
    model = FakeChatModel(rules=rules, default="ok")
    kb = FakeKnowledgeBase()
    with record_generations() as records:  # cached generations are recorded too
        result = AyaSupervisor(model, kb, multi_intent=multi_intent).handle(request, HISTORY, author="kofi")
    return result, [r.prompt for r in records], kb


RULES = [("Tool:", "summarize"), ("Number:", "2"), ("Summary:", "Plans changed.\n- lena: send the report")]


@pytest.mark.parametrize(
    "request_text",
    ["summarize the last 2 messages", "how many days do I have to submit expense receipts?", "thanks!"],
)
def test_single_intent_requests_send_exactly_the_same_prompts_with_multi_intent(request_text):
    one, prompts_one, _ = _supervisor_run(False, request_text, RULES)
    multi, prompts_multi, _ = _supervisor_run(True, request_text, RULES)
    assert prompts_multi == prompts_one and multi.reply == one.reply and multi.tools == one.tools


def test_two_tool_request_gives_one_reply_using_both_observations():
    rules = [("<request>remember that", "remember"), *RULES]  # the model confirms the remember clause
    result, prompts, kb = _supervisor_run(True, "summarize the last 2 messages and remember the action items", rules)
    assert result.tools == ["summarize", "remember"] and result.tool == "summarize"
    # the action items are the rule's (what the messages state), attributed to the sender of the request
    assert list(kb.rows.values()) == [("kofi: send the budget on Monday", "kofi", None)]
    window, rest = result.reply.split("\n", 1)
    assert window == "The last 2 messages (kofi, lena):"
    assert (
        rest
        == "Plans changed.\nAction items:\n- kofi: send the budget on Monday\n\nNoted: kofi: send the budget on Monday"
    )
    # the clauses were routed by their keywords; the write alone was put to the model, once
    assert [p for p in prompts if "Tool:" in p] == [p for p in prompts if "<request>remember that kofi" in p]
    assert len([p for p in prompts if "Tool:" in p]) == 1
    assert len(result.summaries) == 1 and not result.fallback
    assert [s.observation is None for s in result.steps] == [False, False, True]


def test_supervisor_result_types_the_fallback():
    result, _, _ = _supervisor_run(False, "thanks a lot", [("Tool:", "🙃")])
    assert result.fallback and result.tools == ["chat"]
    assert any("unparseable router answer" in n for n in result.notes)


def test_is_english():
    assert is_english("what is our travel policy for flights?", "deu")
    assert not is_english("Wie lautet unsere Reiserichtlinie für Flüge?", "deu")
    assert not is_english("   ", "fra")
