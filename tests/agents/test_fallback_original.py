"""The keyword fallback also reads the request as written: a translation that lost the keyword
("Wie is our flight line line?" for "Wie lautet unsere Reiserichtlinie für Flüge?", make demo,
2026-12-01) no longer sends a policy question to small talk."""

from aya_lab.agents import AyaSupervisor
from aya_lab.agents.routing import KeywordRouter
from aya_lab.models.fake import FakeChatModel
from aya_lab.rag.index import Retrieved

GERMAN = "Wie lautet unsere Reiserichtlinie für Flüge?"
LOST = "Wie is our flight line line?"


class TravelKB:
    def relevant(self, query, k=4, min_score=None):
        text = "Economy class for flights under 6 hours; business class above."
        return [Retrieved(text=text, source="travel_policy.md", section="", score=0.6)]


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
    result = AyaSupervisor(unparseable_router(), TravelKB()).handle(LOST, [], original=GERMAN)
    assert result.tools == ["query"] and result.fallback
    assert any("'richtlinie' in the original request" in n for n in result.notes)
    assert "travel_policy.md" in result.reply


def test_without_the_original_the_lost_keyword_still_means_chat_and_no_original_leaks_between_requests():
    sup = AyaSupervisor(unparseable_router(), TravelKB())
    assert sup.handle(LOST, [], original=GERMAN).tools == ["query"]
    assert sup.handle(LOST, []).tools == ["chat"]  # the next request's fallback does not keep the last original
