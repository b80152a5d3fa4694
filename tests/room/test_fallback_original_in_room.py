"""In the room, Aya's keyword fallback reads the request as its author wrote it when the English
translation lost the keyword (make demo, 2026-12-01: Lena's "Reiserichtlinie" question went to small talk)."""

from tests import fakes
from tests.fakes import FakeRoomModel

LOST = "What is our flight line for the planes?"  # English, and no routing keyword left in it


def test_a_policy_question_whose_translation_lost_the_keyword_reaches_query(make_room, monkeypatch):
    monkeypatch.setitem(fakes._TRANSLATION_ANSWERS, "aya_translate", lambda v: LOST)
    room = make_room(
        model=FakeRoomModel(rules=[("Tool:", "🙃 ???")], default="Economy class for flights under 6 hours.")
    )
    report = room.send("lena", "@aya Wie lautet unsere Reiserichtlinie für Flüge?")
    assert report.aya_tools == ["query"] and report.aya_fallback
    assert any("'richtlinie' in the original request -> query" in n for n in report.notes)
    assert report.aya_reply["kofi"].startswith(
        "I don't know"
    )  # query's answer (fake embeddings find nothing), not small talk


def test_an_english_request_has_no_original_to_fall_back_on(make_room):
    room = make_room(model=FakeRoomModel(rules=[("Tool:", "🙃 ???")], default="Hello!"))
    report = room.send("kofi", "@aya what is our flight line for the planes?")
    assert report.aya_tools == ["chat"] and not any("original request" in n for n in report.notes)
