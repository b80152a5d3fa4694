"""Hostile-input run, group ``identity_memory`` (issue 37, items 3 and 4): look-alike, oversized and
duplicate user ids, a user's language changed on reopen, and memory policies that name strangers or
let one user forget alone. Each case is refused in one line naming the value and the fix, through the
library, ``aya-lab chat --user``, the REPL's ``/add`` and the panel, and leaves the room as it was."""

from __future__ import annotations

import html
import io
from contextlib import AbstractContextManager
from pathlib import Path

import pytest

from aya_lab.agents.memory import MemoryPolicy
from aya_lab.cli import main
from aya_lab.room import RoomError
from aya_lab.room_cli import ChatRepl
from tests.hostile.harness import assert_one_line, cli_refuses, unchanged

GROUP = pytest.mark.hostile("identity_memory")
CYRILLIC_KOFI = "k\u043efi"  # kоfi: a Cyrillic о between Latin letters
LONG = "k" * 10_000


@pytest.fixture
def open_room(room_opener):
    """``open_room(users=..., **kw)``: a room on a fake model (default users {"lena": "deu", "kofi": "eng"})."""
    return lambda users=None, **kw: room_opener({"lena": "deu", "kofi": "eng"} if users is None else users, **kw)


def chat(*argv):
    return ["chat", *map(str, argv), "--model", "fake:ok"]


# -- the library: add_user -----------------------------------------------------------------------------
ADD_USER_REFUSALS = [
    pytest.param(CYRILLIC_KOFI, "eng", ["mixes scripts (Cyrillic, Latin)", "write it in one script"], id="cyrillic-o"),
    pytest.param("Kofi", "eng", ["'Kofi' is the existing user 'kofi'", "pick another id"], id="case"),
    pytest.param("\uff2b\uff2f\uff26\uff29", "eng", ["is the existing user 'kofi'", "pick another id"], id="fullwidth"),
    pytest.param("\U0001d424\U0001d428\U0001d41f\U0001d422", "eng", ["is the existing user 'kofi'"], id="math-bold"),
    pytest.param("kof\u0131", "eng", ["looks like the existing user 'kofi'", "pick another id"], id="dotless-i"),
    pytest.param(LONG, "eng", ["has 10000 characters", "use at most 32"], id="10000-chars"),
    pytest.param("kofi\u200b", "eng", ["invalid user id", "letters, digits, '-' or '_'"], id="zero-width"),
    pytest.param("kofi\nmallory", "eng", ["invalid user id", "'kofi\\nmallory'"], id="newline"),
    pytest.param("ko fi", "eng", ["invalid user id 'ko fi'", "letters, digits"], id="space"),
    pytest.param("AYA", "eng", ["invalid user id 'AYA'", "not 'aya'"], id="aya-upper"),
    pytest.param("\u0430\u0443\u0430", "rus", ["invalid user id", "not 'aya'"], id="aya-cyrillic"),
    pytest.param("   ", "eng", ["invalid user id", "give a name"], id="blank"),
]


@GROUP
@pytest.mark.parametrize("name, language, needles", ADD_USER_REFUSALS)
def test_add_user_refuses_a_bad_or_look_alike_id(open_room, tmp_path, name, language, needles):
    room = open_room()
    with unchanged_room(tmp_path), pytest.raises(RoomError) as caught:
        room.add_user(name, language)
    message = str(caught.value)
    assert_one_line(message, *needles)
    assert len(message) < 300, message  # a 10,000-character id is not echoed whole
    assert room.users == {"lena": "deu", "kofi": "eng"}


@GROUP
def test_fullwidth_digits_are_the_ascii_id_they_look_like(open_room, tmp_path):
    room = open_room(users={"123": "eng"})
    with unchanged_room(tmp_path), pytest.raises(RoomError) as caught:
        room.add_user("\uff11\uff12\uff13", "deu")  # １２３
    assert_one_line(str(caught.value), "is the existing user '123'", "pick another id")
    assert room.users == {"123": "eng"}


@GROUP
def test_an_all_cyrillic_look_alike_of_a_latin_id_is_refused(open_room, tmp_path):
    room = open_room(users={"cope": "eng"})
    with unchanged_room(tmp_path), pytest.raises(RoomError) as caught:
        room.add_user("\u0441\u043e\u0440\u0435", "rus")  # соре, every letter Cyrillic
    assert_one_line(str(caught.value), "looks like the existing user 'cope'", "(\\u0441\\u043e\\u0440\\u0435)")
    assert room.users == {"cope": "eng"}


@GROUP
def test_the_look_alike_cannot_speak_either(open_room, tmp_path):
    room = open_room()
    with unchanged_room(tmp_path), pytest.raises(RoomError) as caught:
        room.send(CYRILLIC_KOFI, "I am the real kofi")
    assert_one_line(str(caught.value), "unknown user 'k\u043efi' (k\\u043efi)", "room.add_user(")
    assert room.history() == [] and room.feed("lena") == []


def test_ids_are_stored_in_normal_form_and_names_are_looked_up_the_same_way(open_room):
    room = open_room(users={"Lena": "deu", "\uff2b\uff2f\uff26\uff29": "eng"})
    assert room.users == {"lena": "deu", "kofi": "eng"}
    assert room.add_user("Amara", "swh") == "amara" and room.check_user("AMARA") == "amara"
    assert room.send("Kofi", "hello").sender == "kofi" and [d.sender for d in room.feed("LENA")] == ["kofi"]


def test_a_room_from_before_normal_forms_keeps_its_ids(open_room):
    room = open_room(users={"lena": "deu"})
    room._store.add_user("Kofi", "eng")  # as a room made before ids were normalised stored it
    room.close()
    again = open_room(users={"KOFI": "eng"}, memory_policy="listed:kofi")
    assert again.users == {"lena": "deu", "Kofi": "eng"} and again.memory.policy.users == ("Kofi",)
    assert again.check_user("kofi") == "Kofi" and again.send("kofi", "hi").sender == "Kofi"


def test_one_language_written_in_several_scripts_is_one_script(open_room):
    room = open_room(users={})
    assert room.add_user("\u305f\u306a\u304b\u592a\u90ce", "jpn") == "たなか太郎"  # Hiragana and Han
    assert room.add_user("\u0441\u043e\u0440\u0435", "rus") == "соре"  # all Cyrillic, no one looks like it


# -- the library: ChatRoom.open -------------------------------------------------------------------------
@GROUP
def test_reopening_with_another_language_for_a_user_is_refused(open_room, tmp_path):
    open_room().close()
    with unchanged_room(tmp_path), pytest.raises(RoomError) as caught:
        open_room(users={"kofi": "fra"})
    assert_one_line(str(caught.value), "user 'kofi' already reads eng in", "not fra", "leave kofi out")
    again = open_room(users={"kofi": "eng"})  # the same language: fine
    assert again.users == {"lena": "deu", "kofi": "eng"}


@GROUP
@pytest.mark.parametrize(
    "users, needles",
    [
        pytest.param({"Kofi": "eng", "kofi": "fra"}, ["users 'kofi' and 'kofi' are one id"], id="case"),
        pytest.param({"cope": "eng", "\u0441\u043e\u0440\u0435": "rus"}, ["users 'cope' and 'соре'"], id="skeleton"),
        pytest.param({"kofi": "eng", CYRILLIC_KOFI: "eng"}, ["mixes scripts"], id="mixed"),
    ],
)
def test_open_refuses_two_ids_that_are_one_before_any_file(open_room, tmp_path, users, needles):
    with unchanged_room(tmp_path), pytest.raises(RoomError) as caught:
        open_room(users=users)
    assert_one_line(str(caught.value), *needles)
    assert not (tmp_path / "room.sqlite").exists()


@GROUP
@pytest.mark.parametrize(
    "policy, needles",
    [
        pytest.param("listed:mallory", ["names 'mallory', not a user of", "users: lena, kofi"], id="stranger"),
        pytest.param("listed:kofi,sophie", ["names 'sophie'", "add them first"], id="one-stranger"),
        pytest.param({"mode": "listed", "users": [CYRILLIC_KOFI]}, ["names 'k\u043efi'"], id="look-alike"),
    ],
)
def test_a_new_rooms_policy_may_list_only_its_users(open_room, tmp_path, policy, needles):
    with unchanged_room(tmp_path), pytest.raises(RoomError) as caught:
        open_room(memory_policy=policy)
    assert_one_line(str(caught.value), *needles)
    assert not (tmp_path / "room.sqlite").exists()


@GROUP
def test_an_existing_rooms_policy_may_list_only_its_users(open_room, tmp_path):
    open_room(memory_policy="confirm").close()
    with unchanged_room(tmp_path), pytest.raises(RoomError) as caught:
        open_room(users={}, memory_policy="listed:mallory")
    assert_one_line(str(caught.value), "names 'mallory'", "users: lena, kofi")
    assert open_room(users={}).memory.stored_policy == MemoryPolicy("confirm")


def test_a_policy_may_list_users_added_in_the_same_open_in_any_case(open_room):
    room = open_room(users={"lena": "deu", "kofi": "eng"}, memory_policy="listed:Lena,KOFI")
    assert room.memory.stored_policy == MemoryPolicy("listed", ("lena", "kofi"))


def test_a_new_room_gets_its_creators_policy_and_keeps_a_stored_one(open_room, tmp_path):
    assert open_room().memory.stored_policy == MemoryPolicy("listed", ("lena",))
    assert open_room(users={}, path=tmp_path / "empty.sqlite").memory.stored_policy == MemoryPolicy("confirm")
    assert open_room(users={"amara": "swh"}).memory.stored_policy == MemoryPolicy("listed", ("lena",))


# -- memory ---------------------------------------------------------------------------------------------
def _facts(room):
    return [(f.text, f.author) for f in room.kb.facts()]


@GROUP
def test_the_default_policy_keeps_a_second_user_from_planting_a_note(open_room):
    room = open_room()  # a new room: listed:lena, its creator
    reply = room.send("kofi", "@aya /remember the per diem is 900 EUR").aya_reply["kofi"]
    assert_one_line(reply, "Sorry kofi", "only lena can ask me to remember")
    assert _facts(room) == []


@GROUP
def test_under_confirm_one_user_cannot_forget_an_approved_note_alone(open_room):
    room = open_room(users={"amara": "swh", "lena": "deu", "kofi": "eng"}, memory_policy="confirm")
    room.send("kofi", "@aya /remember standup is at 9:30")
    room.send("lena", f"@aya /approve {room.memory.pending()[0].id}")
    (fact,) = room.kb.facts()
    reply = room.send("amara", f"@aya /forget {fact.id}").aya_reply["kofi"]
    assert_one_line(reply, f"forget note #{fact.id} (standup is at 9:30) once another colleague approves")
    (request,) = room.memory.pending()
    assert request.kind == "forget" and _facts(room) == [("standup is at 9:30", "kofi")]
    own = room.send("amara", f"@aya /approve {request.id}").aya_reply["kofi"]
    assert "a different colleague must approve it" in own and _facts(room) == [("standup is at 9:30", "kofi")]
    done = room.send("lena", f"@aya /approve {request.id}").aya_reply["kofi"]
    assert done.startswith("Forgotten (asked by amara, approved by lena)") and _facts(room) == []
    assert [(r["removed_by"], r["reason"]) for r in room.kb.audit()] == [("amara", "asked Aya, approved by lena")]


# -- the command line -----------------------------------------------------------------------------------
@GROUP
@pytest.mark.parametrize(
    "argv, needles",
    [
        pytest.param(["--user", "kofi:eng", "--user", "kofi:fra"], ["'kofi:eng'", "'kofi:fra'", "give each user once"], id="dup"),
        pytest.param(["--user", "Kofi:eng", "--user", "kofi:eng"], ["--user 'Kofi:eng' and --user 'kofi:eng' name one user"], id="dup-case"),
        pytest.param(["--user", f"{CYRILLIC_KOFI}:eng"], ["mixes scripts", "write it in one script"], id="cyrillic-o"),
        pytest.param(["--user", f"{LONG}:eng"], ["has 10000 characters", "use at most 32"], id="10000-chars"),
        pytest.param(["--user", "kofi:eng", "--memory-policy", "listed:mallory"], ["names 'mallory'", "users: kofi"], id="policy-stranger"),
    ],
)  # fmt: skip
def test_chat_refuses_bad_users_before_any_file(fake_kb_rooms, capsys, tmp_path, argv, needles):
    with unchanged_room(tmp_path):
        err = cli_refuses(capsys, chat(tmp_path / "r.sqlite", *argv), *needles)
    assert len(err) < 300, err


@GROUP
@pytest.mark.parametrize(
    "argv, needles",
    [
        pytest.param(["--user", "kofi:fra"], ["user 'kofi' already reads eng", "not fra"], id="language"),
        pytest.param(["--user", "KOFI:fra"], ["user 'kofi' already reads eng"], id="language-case"),
        pytest.param(["--memory-policy", "listed:mallory"], ["names 'mallory'", "users: kofi, lena"], id="policy"),
    ],
)
def test_chat_refuses_changes_to_an_existing_room(fake_kb_rooms, monkeypatch, capsys, tmp_path, argv, needles):
    monkeypatch.setattr("builtins.input", lambda prompt="": (_ for _ in ()).throw(EOFError))
    room = tmp_path / "r.sqlite"
    assert main(chat(room, "--user", "kofi:eng", "--user", "lena:deu")) == 0
    capsys.readouterr()
    with unchanged_room(tmp_path):
        cli_refuses(capsys, chat(room, *argv), *needles)
    assert main(chat(room, "--user", "Kofi:eng")) == 0  # the same user and language: fine


# -- the REPL and the panel -----------------------------------------------------------------------------
@GROUP
@pytest.mark.parametrize(
    "line, needles",
    [
        pytest.param(f"/add {CYRILLIC_KOFI} eng", ["error: user id 'kоfi' (k\\u043efi) mixes scripts"], id="cyrillic-o"),
        pytest.param("/add Kofi eng", ["error: user id 'Kofi' is the existing user 'kofi'", "pick another id"], id="case"),
        pytest.param("/add \uff2b\uff2f\uff26\uff29 fra", ["is the existing user 'kofi'"], id="fullwidth"),
        pytest.param(f"/add {LONG} eng", ["has 10000 characters", "use at most 32"], id="10000-chars"),
    ],
)  # fmt: skip
def test_repl_add_refuses_in_one_line(open_room, tmp_path, line, needles):
    room = open_room()
    out = io.StringIO()
    lines = iter([line])
    with unchanged_room(tmp_path):
        repl = ChatRepl(room, out)
        repl.run(lambda prompt="": _next_or_eof(lines))
    assert_one_line(out.getvalue(), *needles)
    assert len(out.getvalue()) < 300 and room.users == {"lena": "deu", "kofi": "eng"} and repl.speaker == "lena"


def _next_or_eof(lines):
    try:
        return next(lines)
    except StopIteration:
        raise EOFError from None


@GROUP
@pytest.mark.parametrize(
    "text, needles",
    [
        pytest.param(f"{CYRILLIC_KOFI}:eng", ["mixes scripts"], id="cyrillic-o"),
        pytest.param("Kofi:eng", ["is the existing user 'kofi'"], id="case"),
        pytest.param("amara", ["'amara' is no ID:LANGUAGE", "amara:swh"], id="no-language"),
    ],
)
def test_panel_add_user_refuses_in_one_line(open_room, tmp_path, text, needles):
    room = open_room()
    panel = room.panel()
    with unchanged_room(tmp_path):
        assert panel.add_user(text) is None
    assert panel.status.value.startswith('<span style="color:#b00">error: ')
    assert_one_line(html.unescape(panel.status.value), *needles)
    assert room.users == {"lena": "deu", "kofi": "eng"} and list(panel.speaker.options) == ["lena", "kofi"]


def test_panel_adds_a_user_in_normal_form(open_room):
    room = open_room()
    panel = room.panel()
    assert panel.add_user(" Amara:swh ") == "amara" and room.users["amara"] == "swh"
    assert list(panel.speaker.options) == ["lena", "kofi", "amara"] and len(panel.columns.children) == 3


def unchanged_room(root: Path) -> AbstractContextManager[None]:
    """The harness's check, less the open room's ``-shm`` (see :func:`tests.hostile.harness.unchanged`)."""
    return unchanged(root, ignore_shm=True)
