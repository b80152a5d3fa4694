"""The keyword fallback also reads the request as written: a translation that lost the keyword
("Wie is our flight line line?" for "Wie lautet unsere Reiserichtlinie für Flüge?", make demo,
2026-12-01) no longer sends a policy question to small talk."""

from aya_lab.agents import AyaSupervisor
from aya_lab.agents.routing import KeywordRouter, LLMRouter, RouterOutput, RoutingChain, RoutingTranscript, Step
from aya_lab.models.fake import FakeChatModel
from aya_lab.prompts import load_prompt
from aya_lab.rag.index import Retrieved
from tests.fakes import FakeKnowledgeBase

GERMAN = "Wie lautet unsere Reiserichtlinie für Flüge?"
LOST = "Wie is our flight line line?"


def travel_kb() -> FakeKnowledgeBase:
    text = "Economy class for flights under 6 hours; business class above."
    return FakeKnowledgeBase([Retrieved(text=text, source="travel_policy.md", section="", score=0.6)])


def test_keyword_router_matches_the_original_only_when_the_text_has_no_keyword():
    assert KeywordRouter().choose(LOST).tool == "chat"
    out = KeywordRouter(GERMAN).choose(LOST)
    assert out.tool == "query" and out.tool_input == LOST  # the tools get the English text
    assert out.log == "keyword 'richtlinie' in the original request -> query"
    first = KeywordRouter("Fasse zusammen").choose("what is the travel policy?")
    assert first.tool == "query" and "original" not in first.log  # the routed text's own keyword wins


def unparseable_router() -> FakeChatModel:
    """Routing answers name no tool (as SmolLM2's did in the demo); answers quote the passage."""
    return FakeChatModel(
        rules=[("Tools:", "The airline re-issuance line")], default="Economy class for flights under 6 hours."
    )


def test_the_supervisor_gives_the_fallback_the_original_request():
    result = AyaSupervisor(unparseable_router(), travel_kb()).handle(LOST, [], original=GERMAN)
    assert result.tools == ["query"] and result.fallback
    assert any("'richtlinie' in the original request" in n for n in result.notes)
    assert "travel_policy.md" in result.reply


def test_without_the_original_the_lost_keyword_still_means_chat_and_no_original_leaks_between_requests():
    sup = AyaSupervisor(unparseable_router(), travel_kb())
    assert sup.handle(LOST, [], original=GERMAN).tools == ["query"]
    assert sup.handle(LOST, []).tools == ["chat"]  # the next request's fallback does not keep the last original


class SummarizeFallback(KeywordRouter):
    """A custom keyword fallback: everything it decides is ``summarize``."""

    def choose(self, text, original=None):
        return RouterOutput("summarize", text, f"custom fallback (original: {original!r})")


def test_a_custom_fallback_on_the_supervisor_is_kept_every_call():
    """handle() used to replace the LLM router's fallback with ``KeywordRouter(original)`` on every call."""
    given = SummarizeFallback()
    sup = AyaSupervisor(unparseable_router(), travel_kb(), fallback=given)
    first = sup.handle(LOST, [], original=GERMAN)
    assert first.tools == ["summarize"] and any(f"custom fallback (original: {GERMAN!r})" in n for n in first.notes)
    assert sup.handle(LOST, []).tools == ["summarize"]  # the next call: still the custom one, no original
    assert sup.llm_router.fallback is given and given.original is None  # handed the original, never patched


def test_a_fallback_set_on_the_router_after_construction_is_kept_too():
    sup = AyaSupervisor(unparseable_router(), travel_kb())
    sup.llm_router.fallback = SummarizeFallback()
    assert sup.handle(LOST, [], original=GERMAN).tools == ["summarize"]
    assert sup.handle(LOST, []).tools == ["summarize"]


def test_the_original_travels_in_the_transcript_through_every_step():
    router = LLMRouter(unparseable_router(), load_prompt("supervisor/baseline"))
    chain = RoutingChain(router, {t: (lambda x, t=t: f"[{t}]") for t in router.tools}, max_steps=2)
    assert chain.result(LOST, GERMAN).tools == ["query"]  # the fallback matched 'richtlinie' in the original
    assert chain.result(LOST).tools == ["chat"] and router.fallback.original is None
    later = RoutingTranscript.start(LOST, router, GERMAN).add(
        Step(RouterOutput("query", LOST, "log"), "[policy]"), router
    )
    assert later.original == GERMAN and GERMAN not in later  # carried, not part of the chained string
