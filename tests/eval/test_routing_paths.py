"""Routing on the room's path, the original text, or ``auto`` (the original where the translation is not
English), with a separate translator model (the room's ``translator`` role)."""

import pytest

from aya_lab.agents.route_input import RouteOn
from aya_lab.datasets.project import RoutingExample
from aya_lab.eval.routing import as_route_on, evaluate_routing, route_requests
from aya_lab.eval.routing_sequences import PATHS
from aya_lab.models.fake import FakeChatModel


def _translator(german_answer: str) -> FakeChatModel:
    """Answers by the request's wording (batches are length-sorted, so order-based scripts would not do)."""
    return FakeChatModel(rules=[("politique", "What is our travel policy for flights?"), ("Fasse", german_answer)])


EXAMPLES = [
    RoutingExample(id="a", text="Quelle est notre politique de voyage pour les vols ?", lang="fra", label="query"),
    RoutingExample(id="b", text="Fasse die letzten fünf Nachrichten zusammen.", lang="deu", label="summarize"),
    RoutingExample(id="c", text="Please summarize the last five messages.", lang="eng", label="summarize"),
]


def test_auto_keeps_the_original_where_the_translation_is_not_english():
    translator = _translator("Zusammenfassung der letzten Nachrichten")
    routed, cost = route_requests(None, EXAMPLES, "auto", translator)
    assert routed[0].text == "What is our travel policy for flights?"  # English: routed as translated
    assert routed[0].original == EXAMPLES[0].text  # the keyword fallback also reads the request as written
    assert routed[1].text == EXAMPLES[1].text and routed[1].original is None  # still German: the original
    assert routed[2].text == EXAMPLES[2].text and routed[2].original is None  # English is never translated
    assert cost["calls"] == 2


def test_room_path_routes_the_translation_even_when_it_is_not_english():
    translator = _translator("Zusammenfassung der letzten Nachrichten")
    routed, _ = route_requests(None, EXAMPLES, True, translator)
    assert routed[1].text == "Zusammenfassung der letzten Nachrichten"


def test_the_translator_role_translates_and_the_router_model_routes():
    translator = _translator("Summarize the last five messages.")
    router = FakeChatModel(rules=[("travel policy", "query"), ("ummarize", "summarize")])
    res = evaluate_routing(router, EXAMPLES, translate=True, translator=translator, n_bootstrap=50)
    ex = res.items.set_index("id")
    assert ex.loc["a", "routed_text"] == "What is our travel policy for flights?"
    assert list(ex["predicted"]) == ["query", "summarize", "summarize"]


def test_the_evaluators_spellings_are_route_on_values():
    assert (
        [as_route_on(t) for t in (True, False, "auto", "gold")]
        == list(PATHS.values())
        == [RouteOn.ENGLISH, RouteOn.ORIGINAL, RouteOn.AUTO, RouteOn.GOLD]
    )
    assert list(PATHS) == ["room", "original", "auto", "gold"]  # the names the sequences table shows
    assert as_route_on(RouteOn.ORIGINAL) is as_route_on("original") is RouteOn.ORIGINAL
    with pytest.raises(ValueError, match="translate must be True, False, 'gold' or 'auto'"):
        as_route_on("room")


def test_the_original_path_makes_no_model_call():
    routed, cost = route_requests(None, EXAMPLES, False, translator=None)  # no model at all: none is called
    assert [r.text for r in routed] == [ex.text for ex in EXAMPLES] and cost["calls"] == 0
