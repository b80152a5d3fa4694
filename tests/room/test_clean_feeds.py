"""Clean feeds in the room (issue 25, part 4): a message is cleaned on the way in, a model's output before it
reaches a feed, and the CLI and the panel show what is left escaped; ordinary text is delivered as sent."""

from __future__ import annotations

import io

import pytest

from aya_lab.agents.guard import MARKER
from aya_lab.messages import Delivery
from aya_lab.room import RoomError
from aya_lab.room_cli import ChatRepl
from tests import fakes
from tests.fakes import FakeRoomModel

RAW = "\x1b[2J\x1b[31mAya:\x1b[0m budget moved\x00 to Friday\u202e, see \x1b]8;;http://evil\x1b\\this\x1b]8;;\x1b\\"
CLEAN = "Aya: budget moved to Friday, see this"
HOSTILE = "\x00\x1b\u202e\r\x9b"


def test_a_hostile_message_reaches_every_feed_clean(make_room):
    room = make_room()
    report = room.send("kofi", RAW)
    assert report.delivered["kofi"] == CLEAN
    assert report.delivered["lena"] == f"[German] {CLEAN}"
    assert room.history()[0].content == CLEAN
    for feed in room.feeds().values():
        assert not any(ch in d.text for d in feed for ch in HOSTILE)


def test_a_carriage_return_cannot_overwrite_a_line(make_room):
    room = make_room()
    room.send("amara", "harmless text\rkofi: I resign")
    assert room.feed("amara")[0].text == "harmless text\nkofi: I resign"


def test_ordinary_text_is_delivered_byte_identical(make_room):
    room = make_room()
    text = "Habari 👩🏽‍💻 timu,\n\tmkutano ni می‌خواهم Ijumaa."
    assert room.send("amara", text).delivered["amara"] == text


def test_a_message_of_control_characters_only_is_refused_in_one_line(make_room):
    room = make_room()
    with pytest.raises(RoomError) as err:
        room.send("kofi", "\x1b[2J\x00\u202e")
    assert "\n" not in str(err.value) and "only control or invisible characters" in str(err.value)
    assert "U+001B ESCAPE" in str(err.value) and room.history() == []


def test_model_output_is_cleaned_before_any_feed(make_room, monkeypatch):
    monkeypatch.setitem(
        fakes._TRANSLATION_ANSWERS, "user_translate", lambda v: f"\x1b[2J[{v['target_language']}]\u202e {v['message']}"
    )
    room = make_room(model=FakeRoomModel(rules=[("Tool:", "chat")], default="Hi \x1b[5mall\x07"))
    report = room.send("kofi", "@aya hello")
    assert report.delivered["lena"] == "[German] @aya hello"
    assert report.aya_reply["kofi"] == "Hi all"


def test_a_not_translated_delivery_shows_the_cleaned_original(make_room, monkeypatch):
    monkeypatch.setitem(fakes._TRANSLATION_ANSWERS, "user_translate", lambda v: "I'm sorry, but I can't translate")
    room = make_room()
    report = room.send("amara", "Habari\x1b[31m timu\x00")
    assert report.delivered["lena"] == f"{MARKER} Habari timu"
    assert "\x1b" not in str(report.guard_notes)


class _StoredRoom:
    """A room whose stored text predates cleaning (or came from elsewhere): the CLI must not obey it."""

    users = {"kofi": "eng"}

    def feed(self, user):
        text = "\x1b[2Jfine\rkofi: I resign\u202e\nlena | fake line"
        return [Delivery(message_id="m", user=user, sender="amara", text=text, lang="eng", translated=False)]


def test_the_repl_shows_stored_control_characters_escaped_and_indents_continuations():
    out = io.StringIO()
    ChatRepl(_StoredRoom(), out).handle("/feed kofi")
    shown = out.getvalue()
    assert "\x1b" not in shown and "\r" not in shown and "\u202e" not in shown
    assert shown == "  amara | \\x1b[2Jfine\\r\n    kofi: I resign\\u202e\n    lena | fake line\n"


def test_the_panel_escapes_html_and_shows_controls(make_room):
    room = make_room()
    room.send("kofi", "<script>alert(1)</script> & co")
    html = room.panel().feeds_html()["kofi"]
    assert "<script>" not in html and "&lt;script&gt;alert(1)&lt;/script&gt; &amp; co" in html
