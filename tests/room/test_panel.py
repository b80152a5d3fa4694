"""The room panel, driven headless: construct it, send through its handler, check the feeds."""

from tests.fakes import FakeRoomModel


def test_panel_send_updates_every_feed(make_room):
    room = make_room(model=FakeRoomModel(rules=[("Tool:", "chat")], default="Hello!"))
    panel = room.panel()
    assert len(panel.columns.children) == 3
    panel.speaker.value = "amara"
    panel.text.value = "Habari zenu"
    panel.on_send()
    assert panel.text.value == ""
    html = panel.feeds_html()
    assert "[German] Habari zenu" in html["lena"] and "Habari zenu" in html["amara"]
    panel.send("@aya how are you?", speaker="kofi")
    html = panel.feeds_html()
    assert html["kofi"].count('class="aya"') == 1 and "Hello!" in html["kofi"]
    assert "[Swahili] Hello!" in html["amara"]
    assert "kofi (English)" in html["kofi"]


def test_panel_shows_errors_and_keeps_the_room(make_room):
    room = make_room()
    panel = room.panel()
    panel.text.value = "   "
    panel.on_send()
    assert "error: empty message" in panel.status.value
    assert room.history() == []
