"""Memory policy ``confirm``: the pending queue commits with the run, like facts.

When the approving send fails (a later step raises and the room rolls back) or its writer dies before
the run is recorded, the note is still pending and the knowledge base is unchanged; a writer dying
after the record keeps the approval. A proposing send that fails leaves no pending note.
The kill tests run a real child process (``subprocess``) on fake models.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from aya_lab.agents.memory import MemoryPolicyError, RoomMemory
from aya_lab.models.fake import FakeModelError
from tests.fakes import FakeRoomModel

ROOT = Path(__file__).resolve().parents[2]
NOTE = "the Lagos office closes at 4pm"

_CHILD = r"""
import os, sys
from langchain_core.embeddings import DeterministicFakeEmbedding
from aya_lab.room import ChatRoom
from aya_lab.rag import KnowledgeBase
from aya_lab.room.room import ChatRoom as Room
from tests.fakes import FakeRoomModel

mode, room_path, kb_dir, note_id = sys.argv[1:5]

def die(*args, **kwargs):
    os._exit(9)

if mode == "exit-before-record":
    Room._record = die
else:  # recorded, killed before the knowledge base commits the run's facts
    KnowledgeBase.commit_run = die
room = ChatRoom.open(room_path, model=FakeRoomModel(default="ok"), kb_dir=kb_dir,
                     embeddings=DeterministicFakeEmbedding(size=32))
room.send("lena", "@aya /approve " + note_id)
"""


def _facts(room):
    return [(f.text, f.author) for f in room.kb.facts()]


@pytest.fixture
def confirm_room(make_room):
    """A ``confirm`` room where kofi proposed one note, plus its model and the note."""
    model = FakeRoomModel(rules=[("Tool:", "remember")], default="ok")
    room = make_room(model=model, memory_policy="confirm")
    room.send("kofi", f"@aya remember that {NOTE}")
    (note,) = room.memory.pending()
    return room, model, note


def test_a_failed_approving_send_leaves_the_note_pending_and_the_kb_unchanged(confirm_room):
    room, model, note = confirm_room
    runs = len(room.runs())
    model.fail_on = "Noted (from kofi"  # the approval's reply is translated for delivery after the approval
    with pytest.raises(FakeModelError, match=r"Noted \(from kofi"):  # raised after the approval ran
        room.send("lena", f"@aya /approve {note.id}")
    assert room.memory.pending() == [note]  # still pending: same id, text, author and time
    assert _facts(room) == [] and room.kb.pending_runs() == [] and len(room.runs()) == runs
    model.fail_on = None  # and it can still be approved, once
    report = room.send("lena", f"@aya /approve {note.id}")
    assert report.aya_tools == ["approve"] and _facts(room) == [(NOTE, "kofi")] and room.memory.pending() == []
    assert "no pending note" in room.send("amara", f"@aya /approve {note.id}").aya_reply["kofi"]
    assert _facts(room) == [(NOTE, "kofi")]


def test_a_failed_proposing_send_leaves_no_pending_note(make_room):
    model = FakeRoomModel(rules=[("Tool:", "remember")], default="ok")
    room = make_room(model=model, memory_policy="confirm")
    model.fail_on = "once another colleague approves"  # the proposal's reply, translated after the proposal
    with pytest.raises(FakeModelError, match="once another colleague approves"):
        room.send("kofi", f"@aya remember that {NOTE}")
    assert room.memory.pending() == [] and _facts(room) == []


def _run_child(tmp_path, room, kb_dir, mode, note_id):
    script = tmp_path / "child.py"
    script.write_text(_CHILD)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"}
    cmd = [sys.executable, str(script), mode, str(room.path), str(kb_dir), str(note_id)]
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 9, proc.stderr[-2000:]


def test_an_approval_whose_writer_dies_before_the_record_is_void(confirm_room, make_room, tmp_path, kb_dir):
    room, _, note = confirm_room
    room.close()
    _run_child(tmp_path, room, kb_dir, "exit-before-record", note.id)
    again = make_room(model=FakeRoomModel(default="ok"), path=room.path)  # recovers under the lock
    assert again.memory.pending() == [note] and _facts(again) == [] and again.kb.pending_runs() == []


def test_an_approval_whose_writer_dies_after_the_record_is_kept(confirm_room, make_room, tmp_path, kb_dir):
    room, _, note = confirm_room
    room.close()
    _run_child(tmp_path, room, kb_dir, "exit-before-kb-commit", note.id)
    again = make_room(model=FakeRoomModel(default="ok"), path=room.path)
    assert again.memory.pending() == [] and _facts(again) == [(NOTE, "kofi")]


def test_room_memory_marks_take_effect_when_the_run_is_recorded(tmp_path):
    conn = sqlite3.connect(tmp_path / "m.sqlite", isolation_level=None)
    conn.execute("CREATE TABLE aya_room_runs (run_id TEXT PRIMARY KEY)")
    memory = RoomMemory(conn)
    first = memory.propose("a", "kofi")
    second = memory.propose("b", "kofi", run_id="r0")
    assert memory.pending() == [first]  # r0 not recorded: its proposal is not pending yet
    conn.execute("INSERT INTO aya_room_runs VALUES ('r0')")
    assert memory.pending() == [first, second]
    assert memory.take(first.id, "lena", run_id="r1") == first
    with pytest.raises(MemoryPolicyError, match=f"no pending note #{first.id}; pending notes: #{second.id}$"):
        memory.take(first.id, "amara", run_id="r1")  # the same run cannot take it twice
    assert memory.pending() == [first, second]  # r1 not recorded yet: its claim decides nothing
    memory.take(first.id, "amara", run_id="r2")  # r1 died unrecorded: r2 may claim it again
    conn.execute("INSERT INTO aya_room_runs VALUES ('r2')")
    assert memory.pending() == [second]
    with pytest.raises(MemoryPolicyError, match=f"no pending note #{first.id}"):
        memory.take(first.id, "amara", run_id="r3")
    assert memory.take(second.id, "lena") == second and memory.pending() == []  # no run: taken at once
    conn.close()


def test_an_old_pending_table_is_migrated_and_keeps_its_notes(tmp_path):
    conn = sqlite3.connect(tmp_path / "old.sqlite", isolation_level=None)
    conn.execute(
        "CREATE TABLE aya_memory_pending (id INTEGER PRIMARY KEY AUTOINCREMENT, text TEXT NOT NULL, author TEXT, "
        "created_at TEXT NOT NULL)"
    )
    conn.execute("INSERT INTO aya_memory_pending (text, author, created_at) VALUES ('x', 'kofi', 't')")
    conn.execute("CREATE TABLE aya_room_runs (run_id TEXT PRIMARY KEY)")
    memory = RoomMemory(conn)
    assert [n.text for n in memory.pending()] == ["x"]
    memory.take(1, "lena", run_id="r1")
    conn.execute("INSERT INTO aya_room_runs VALUES ('r1')")
    assert memory.pending() == []
    conn.close()
