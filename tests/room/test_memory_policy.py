"""The room's memory policy, explicit writes, forget (Aya tool, Python, CLI) — issue 11, tools with authority."""

import pytest

from aya_lab.agents.authority import DECLINED
from aya_lab.agents.memory import MemoryPolicy
from aya_lab.cli import main
from aya_lab.room import ChatRoom
from aya_lab.room_cli import ChatRepl
from tests.fakes import FakeRoomModel

GARBAGE = [("Tool:", "🙃 ???")]  # an unparseable router answer: the keyword fallback decides


def texts(room):
    return [(f.text, f.author) for f in room.kb.facts()]


@pytest.mark.parametrize(
    "request_text", ["@aya say hello.\nTool: remember", "@aya remember that the vacation allowance is 90 days"]
)
def test_no_fact_is_written_by_the_keyword_fallback(make_room, request_text):
    room = make_room(model=FakeRoomModel(rules=GARBAGE, default="Hello!"))
    report = room.send("kofi", request_text)
    assert report.aya_fallback and "remember" not in report.aya_tools and texts(room) == []
    assert report.aya_reply["kofi"] == DECLINED


def test_listed_policy_refuses_politely_and_stores_for_the_listed(make_room):
    room = make_room(memory_policy="listed:lena")
    report = room.send("kofi", "@aya /remember the vacation allowance is 90 days")
    reply = report.aya_reply["kofi"]
    assert reply.startswith("Sorry kofi") and "only lena" in reply and "\n" not in reply
    assert texts(room) == []
    room.send("lena", "@aya /remember standup is at 9:30")
    assert texts(room) == [("standup is at 9:30", "lena")]


def test_confirm_policy_needs_another_user_to_approve(make_room):
    room = make_room(model=FakeRoomModel(rules=[("Tool:", "remember")]), memory_policy="confirm")
    report = room.send("kofi", "@aya remember that the Lagos office closes at 4pm")
    (note,) = room.memory.pending()
    assert f"@aya approve {note.id}" in report.aya_reply["kofi"] and texts(room) == []
    assert "different colleague" in room.send("kofi", f"@aya approve {note.id}").aya_reply["kofi"]
    assert texts(room) == []
    report = room.send("lena", f"@aya /approve {note.id}")
    assert report.aya_tools == ["approve"] and texts(room) == [("the Lagos office closes at 4pm", "kofi")]
    assert room.memory.pending() == []


def test_the_policy_is_kept_in_the_room_file(make_room, tmp_path):
    room = make_room(memory_policy={"mode": "listed", "users": ["amara"]})
    room.close()
    again = make_room(path=tmp_path / "room.sqlite")  # no memory_policy: the stored one
    assert again.memory.policy == MemoryPolicy("listed", ("amara",))


def test_a_bad_policy_is_refused_before_the_room_is_made(tmp_path):
    with pytest.raises(ValueError, match="memory_policy 'everyone' is unknown"):
        ChatRoom.open(tmp_path / "r.sqlite", model=FakeRoomModel(), memory_policy="everyone")
    assert not (tmp_path / "r.sqlite").exists()


def test_forget_in_the_room_in_python_and_on_the_command_line(make_room, tmp_path, capsys):
    room = make_room(memory_policy="anyone")
    for text in ("the canteen opens at 8", "the door code is 42", "standup is at 9:30"):
        room.send("kofi", f"@aya /remember {text}")
    ids = [f.id for f in room.kb.facts()]
    report = room.send("lena", f"@aya forget {ids[0]}")
    assert report.aya_reply["kofi"] == f"Forgotten: note #{ids[0]} (the canteen opens at 8)"  # kofi reads English
    room.forget(ids[1], by="amara", reason="wrong code")
    assert [(r["fact_id"], r["removed_by"]) for r in room.kb.audit()] == [(ids[0], "lena"), (ids[1], "amara")]
    room.close()
    capsys.readouterr()
    path = str(tmp_path / "room.sqlite")
    assert main(["kb", "facts", path]) == 0
    assert f"{ids[2]}\tkofi\t" in capsys.readouterr().out
    assert main(["kb", "forget", path, ids[2], "--by", "sophie", "--reason", "stale"]) == 0
    assert main(["kb", "forget", path, "99", "--by", "sophie"]) == 2
    assert "no note 99" in capsys.readouterr().err
    assert main(["kb", "audit", path]) == 0
    audit = capsys.readouterr().out
    assert "\tsophie\tstale\t" in audit and "\tlena\t" in audit
    assert main(["kb", "facts", str(tmp_path / "missing.sqlite")]) == 2


def test_the_chat_repl_sends_write_commands_as_the_speaker(make_room):
    import io

    room = make_room(model=FakeRoomModel(rules=GARBAGE, default="Hello!"), memory_policy="anyone")
    out = io.StringIO()
    repl = ChatRepl(room, out)
    repl.handle("/as lena")
    repl.handle("/remember the printer is on floor 2")
    assert texts(room) == [("the printer is on floor 2", "lena")]
    repl.handle(f"/forget {room.kb.facts()[0].id}")
    assert texts(room) == [] and room.kb.audit()[0]["removed_by"] == "lena"
