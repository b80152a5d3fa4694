"""Hostile-input run, group ``readers`` (issue 40, item 1): language lists that are empty, repeat a
language, name an unknown one, run too long, hold an empty item or change on reopen. Each is refused in
one line naming the value and the fix, through the library, ``aya-lab chat --user``, the REPL's ``/add``
and the panel, and leaves the room (or the folder, before a room exists) as it was."""

from __future__ import annotations

import html
import io

import pytest

from aya_lab.room import RoomError
from aya_lab.room_cli import ChatRepl
from tests.hostile.harness import assert_one_line, cli_refuses, unchanged

GROUP = pytest.mark.hostile("readers")
TWENTY = ["eng", "fra", "deu", "swh", "spa", "por", "ita", "nld", "pol", "rus"] * 2


@pytest.fixture
def open_room(room_opener):
    """``open_room(users=..., **kw)``: a room on a fake model (default users {"kofi": "eng"})."""
    return lambda users=None, **kw: room_opener({"kofi": "eng"} if users is None else users, **kw)


LIST_REFUSALS = [
    pytest.param([], ["user 'amara' reads no language ([])", "give at least one"], id="empty-list"),
    pytest.param(["swh", "sw"], ["user 'amara' lists swh twice", "give each language once"], id="duplicate"),
    pytest.param(["swh", "klingon"], ["unsupported language 'klingon'", "aya-lab data languages"], id="unknown"),
    pytest.param(TWENTY, ["user 'amara' lists 20 languages", "give at most 4"], id="20-languages"),
    pytest.param("swh,,eng", ["hold an empty item ('swh,,eng')", "separate languages by one comma"], id="empty-item"),
    pytest.param(["swh", None], ["unsupported language None"], id="none-item"),
]


@GROUP
@pytest.mark.parametrize("languages, needles", LIST_REFUSALS)
def test_add_user_refuses_a_bad_language_list(open_room, tmp_path, languages, needles):
    room = open_room()
    with unchanged(tmp_path, ignore_shm=True), pytest.raises(RoomError) as caught:
        room.add_user("amara", languages)
    assert_one_line(str(caught.value), *needles)
    assert room.readers == {"kofi": ("eng",)}


@GROUP
def test_open_refuses_a_bad_list_before_any_file(open_room, tmp_path):
    with unchanged(tmp_path), pytest.raises(RoomError) as caught:
        open_room(users={"kofi": "eng", "amara": ["swh", "swh"]})
    assert_one_line(str(caught.value), "user 'amara' lists swh twice")
    assert not (tmp_path / "room.sqlite").exists()


@GROUP
def test_reopening_with_another_list_is_refused(open_room, tmp_path):
    open_room(users={"amara": ["swh", "eng"]}).close()
    with unchanged(tmp_path), pytest.raises(RoomError) as caught:
        open_room(users={"amara": ["eng", "swh"]})
    assert_one_line(str(caught.value), "user 'amara' already reads swh,eng in", "not eng,swh", "leave amara out")


@GROUP
def test_chat_refuses_an_empty_item_before_any_file(fake_kb_rooms, capsys, tmp_path):
    with unchanged(tmp_path):
        cli_refuses(
            capsys,
            ["chat", str(tmp_path / "r.sqlite"), "--user", "amara:swh,,eng", "--model", "fake:ok"],
            "hold an empty item ('swh,,eng')",
            "separate languages by one comma",
        )
    assert not (tmp_path / "r.sqlite").exists()


@GROUP
def test_repl_add_refuses_a_repeated_language_in_one_line(open_room, tmp_path):
    room = open_room()
    out = io.StringIO()
    lines = iter(["/add amara swh,Swahili", "/quit"])
    with unchanged(tmp_path, ignore_shm=True):
        ChatRepl(room, out).run(lambda prompt="": next(lines))
    (line,) = out.getvalue().splitlines()
    assert line.startswith("error: ")
    assert_one_line(line, "user 'amara' lists swh twice", "give each language once")
    assert room.readers == {"kofi": ("eng",)}


@GROUP
def test_panel_refuses_a_trailing_comma_in_one_line(open_room, tmp_path):
    room = open_room()
    panel = room.panel()
    with unchanged(tmp_path, ignore_shm=True):
        assert panel.add_user("amara:swh,") is None
    assert panel.status.value.startswith('<span style="color:#b00">error: ')
    assert_one_line(html.unescape(panel.status.value), "hold an empty item ('swh,')", "e.g. swh,eng")
    assert room.readers == {"kofi": ("eng",)}
