"""Routing on the room's path, the original text, or ``auto`` (the original where the translation is not
English), with a separate translator model (the room's ``translator`` role)."""

from aya_lab.datasets.project import RoutingExample
from aya_lab.eval.routing import evaluate_routing, translate_requests
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
    texts, cost = translate_requests(None, EXAMPLES, "auto", translator)
    assert texts[0] == "What is our travel policy for flights?"  # English: routed as translated
    assert texts[1] == EXAMPLES[1].text  # still German: the original is routed instead
    assert texts[2] == EXAMPLES[2].text  # English requests are never translated
    assert cost["calls"] == 2


def test_room_path_routes_the_translation_even_when_it_is_not_english():
    translator = _translator("Zusammenfassung der letzten Nachrichten")
    texts, _ = translate_requests(None, EXAMPLES, True, translator)
    assert texts[1] == "Zusammenfassung der letzten Nachrichten"


def test_the_translator_role_translates_and_the_router_model_routes():
    translator = _translator("Summarize the last five messages.")
    router = FakeChatModel(rules=[("travel policy", "query"), ("ummarize", "summarize")])
    res = evaluate_routing(router, EXAMPLES, translate=True, translator=translator, n_bootstrap=50)
    ex = res.examples.set_index("id")
    assert ex.loc["a", "routed_text"] == "What is our travel policy for flights?"
    assert list(ex["predicted"]) == ["query", "summarize", "summarize"]
