"""The room file holds: facts commit with the run, a killed writer leaves nothing behind, sends from two
processes are serialized (none lost), rollback deletes exactly the run's checkpoints, and a garbage or
foreign file is refused before anything is created beside it (and is never modified).

The process tests run real child processes (``subprocess``) on fake models; ``_CHILD`` is their script.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from langchain_core.embeddings import DeterministicFakeEmbedding

from aya_lab.models.fake import FakeModelError
from aya_lab.room import ChatRoom, RoomError
from aya_lab.room.integrity import RoomLock, lock_path
from aya_lab.room.store import OPEN_RUN
from tests.fakes import FakeRoomModel

ROOT = Path(__file__).resolve().parents[2]
REMEMBER = [("Tool:", "remember")]
FACT_REQUEST = "@aya remember that the Lagos office closes at 4pm on Fridays"

_CHILD = r"""
import os, sys, time
from pathlib import Path
from langchain_core.embeddings import DeterministicFakeEmbedding
from aya_lab.room import ChatRoom
from aya_lab.rag import KnowledgeBase
from aya_lab.room.room import ChatRoom as Room
from tests.fakes import FakeRoomModel

mode, room_path, kb_dir, signal_file = sys.argv[1:5]

class Blocking(FakeRoomModel):
    def answer(self, prompt):
        if "Noted:" in prompt:  # after remember: the reply is being delivered
            Path(signal_file).write_text("ready")
            time.sleep(300)
        return super().answer(prompt)

def open_room(model):
    return ChatRoom.open(room_path, model=model, kb_dir=kb_dir, embeddings=DeterministicFakeEmbedding(size=32))

if mode == "sends":
    user, tag, n = sys.argv[5], sys.argv[6], int(sys.argv[7])
    room = open_room(FakeRoomModel(default="ok"))
    Path(signal_file + "." + tag).write_text("ready")
    while not Path(signal_file).exists():
        time.sleep(0.01)
    for i in range(n):
        room.send(user, f"{tag}-{i}")
    room.close()
elif mode == "block":
    open_room(Blocking(rules=[("Tool:", "remember")])).send("kofi", sys.argv[5])
else:  # die (os._exit, as a kill would) right before the run is recorded / before the KB commit
    def die(*args, **kwargs):
        os._exit(9)
    if mode == "exit-before-record":
        Room._record = die
    else:
        KnowledgeBase.commit_run = die
    open_room(FakeRoomModel(rules=[("Tool:", "remember")])).send("kofi", sys.argv[5])
"""


def _child(tmp_path: Path, room: ChatRoom, kb_dir: Path, mode: str, *args: str) -> subprocess.Popen:
    script = tmp_path / "child.py"
    script.write_text(_CHILD)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    cmd = [sys.executable, str(script), mode, str(room.path), str(kb_dir), str(tmp_path / "signal"), *args]
    return subprocess.Popen(cmd, cwd=ROOT, env=env, stderr=subprocess.PIPE, text=True)


def _wait_for(path: Path, proc: subprocess.Popen, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while not path.exists():
        if proc.poll() is not None:
            pytest.fail(f"child exited with {proc.returncode} before {path.name}: {proc.stderr.read()[-2000:]}")
        if time.monotonic() > deadline:
            proc.kill()
            pytest.fail(f"child never wrote {path.name}")
        time.sleep(0.05)


def _state(room: ChatRoom):
    """Everything persisted that a run may change: room tables, messages, feeds, facts and the marker."""
    conn = sqlite3.connect(room.path)
    counts = {t: conn.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] for t in ("checkpoints", "aya_room_runs")}
    marker = conn.execute("SELECT COUNT(*) FROM aya_room_meta WHERE name = ?", (OPEN_RUN,)).fetchone()[0]
    conn.close()
    facts = [(f.text, f.author) for f in room.kb.facts()]
    return counts, marker, [repr(m) for m in room.history()], {u: len(f) for u, f in room.feeds().items()}, facts


# ----------------------------------------------------------------------------- facts commit with the run


def test_a_remembered_fact_commits_with_its_run_attributed_to_the_sender(make_room):
    room = make_room(model=FakeRoomModel(rules=REMEMBER), memory_policy="anyone")
    report = room.send("kofi", FACT_REQUEST)
    assert report.aya_tools[0] == "remember"
    assert [(f.text, f.author) for f in room.kb.facts()] == [("the Lagos office closes at 4pm on Fridays", "kofi")]
    assert room.kb.pending_runs() == []


def test_a_send_failing_after_remember_leaves_no_fact(make_room):
    model = FakeRoomModel(rules=REMEMBER, default="ok")
    room = make_room(model=model, memory_policy="anyone")
    room.send("amara", "Habari")
    before = _state(room)
    model.fail_on = "Noted:"  # the reply is translated for delivery after the fact was written
    with pytest.raises(FakeModelError):
        room.send("kofi", FACT_REQUEST)
    assert any("Noted:" in p for p in model.prompts) or model.fail_on  # remember ran before the failure
    assert _state(room) == before and room.kb.pending_runs() == []
    assert all("Lagos" not in r.text for r in room.kb.retrieve("Lagos office closes at 4pm", k=10))


def test_a_killed_send_leaves_no_fact_and_the_room_as_before(make_room, tmp_path, kb_dir):
    room = make_room(model=FakeRoomModel(default="ok"), memory_policy="anyone")
    room.send("amara", "Habari")
    before = _state(room)
    child = _child(tmp_path, room, kb_dir, "block", FACT_REQUEST)
    try:
        _wait_for(tmp_path / "signal", child)
        assert room.kb.facts() == [] and len(room.kb.pending_runs()) == 1  # written, pending, invisible
        os.kill(child.pid, signal.SIGKILL)
        assert child.wait(timeout=30) == -signal.SIGKILL
    finally:
        child.kill()
    room.close()
    again = make_room(model=FakeRoomModel(default="ok"))  # reopening recovers under the lock
    assert _state(again) == before and again.kb.pending_runs() == []
    again.send("lena", "Hallo")  # and the room works on
    assert len(again.history()) == 2


def test_a_writer_dying_before_the_record_is_rolled_back(make_room, tmp_path, kb_dir):
    room = make_room(model=FakeRoomModel(default="ok"), memory_policy="anyone")
    room.send("amara", "Habari")
    before = _state(room)
    child = _child(tmp_path, room, kb_dir, "exit-before-record", FACT_REQUEST)
    assert child.wait(timeout=180) == 9, child.stderr.read()[-2000:]
    assert len(room.history()) == len(before[2]) + 2  # its checkpoint (message + reply) was written
    room.send("lena", "Hallo")  # the next send rolls the dead run back first
    counts, marker, history, feeds, facts = _state(room)
    assert history == [*before[2], repr(room.history()[-1])] and marker == 0 and facts == []
    assert counts["aya_room_runs"] == before[0]["aya_room_runs"] + 1


def test_a_writer_dying_after_the_record_keeps_its_fact(make_room, tmp_path, kb_dir):
    room = make_room(model=FakeRoomModel(default="ok"), memory_policy="anyone")
    child = _child(tmp_path, room, kb_dir, "exit-before-kb-commit", FACT_REQUEST)
    assert child.wait(timeout=180) == 9, child.stderr.read()[-2000:]
    assert room.kb.facts() == [] and len(room.kb.pending_runs()) == 1
    room.close()
    again = make_room(model=FakeRoomModel(default="ok"))
    assert [f.text for f in again.kb.facts()] == ["the Lagos office closes at 4pm on Fridays"]
    assert len(again.runs()) == 1 and again.kb.pending_runs() == []


def test_open_does_not_touch_a_live_writers_run(make_room, tmp_path):
    room = make_room(model=FakeRoomModel(default="ok"))
    room.kb.add_fact("A live run's fact.", author="kofi", run_id="live")
    with RoomLock(room.path).hold():  # another writer is mid-send
        make_room(model=FakeRoomModel(default="ok"))  # returns at once, recovers nothing
        assert room.kb.pending_runs() == ["live"]
    make_room(model=FakeRoomModel(default="ok"))  # lock free: a pending fact of no recorded run is dropped
    assert room.kb.pending_runs() == []


# ---------------------------------------------------------------------------------- one writer at a time


def test_two_processes_sending_to_one_room_lose_nothing(make_room, tmp_path, kb_dir):
    room = make_room(model=FakeRoomModel(default="ok"), users={"a": "eng", "b": "deu"})
    n = 20
    children = {
        tag: _child(tmp_path, room, kb_dir, "sends", user, tag, str(n)) for tag, user in [("p", "a"), ("q", "b")]
    }
    try:
        for tag, proc in children.items():
            _wait_for(tmp_path / f"signal.{tag}", proc)
        (tmp_path / "signal").write_text("go")  # both start sending at once
        for proc in children.values():
            assert proc.wait(timeout=300) == 0, proc.stderr.read()[-2000:]
    finally:
        for proc in children.values():
            proc.kill()
    texts = [m.content for m in room.history()]
    assert sorted(texts) == sorted(f"{tag}-{i}" for tag in "pq" for i in range(n))  # 40, each once
    for tag in "pq":
        assert [t for t in texts if t.startswith(tag)] == [f"{tag}-{i}" for i in range(n)]  # each in its order
    assert len(room.runs()) == 2 * n
    for user in ("a", "b"):
        assert [d.text.split("] ")[-1] for d in room.feed(user)] == texts  # every delivery once, in order
    assert not lock_path(room.path).read_text()  # the lock file carries no state


def test_rollback_deletes_only_the_runs_own_checkpoints(make_room):
    model = FakeRoomModel(default="ok")
    room = make_room(model=model)
    room.send("amara", "Habari")
    conn = sqlite3.connect(room.path)
    other = ("room", "another-writer", "ffffffff-ffff-6fff-8fff-ffffffffffff")  # newer id, another namespace
    conn.execute(
        "INSERT INTO checkpoints SELECT thread_id, ?, ?, NULL, type, checkpoint, metadata FROM checkpoints LIMIT 1",
        other[1:],
    )
    conn.commit()
    before = _state(room)
    model.fail_on = "into German"
    with pytest.raises(FakeModelError):
        room.send("amara", "Tutaonana")
    assert _state(room) == before
    assert conn.execute(
        "SELECT COUNT(*) FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ?", other
    ).fetchone() == (1,)
    conn.close()


# ------------------------------------------------------------------------------- garbage and foreign files


def _open(path: Path, kb_dir: Path) -> ChatRoom:
    return ChatRoom.open(
        path, model=FakeRoomModel(default="ok"), kb_dir=kb_dir, embeddings=DeterministicFakeEmbedding(size=32)
    )


@pytest.mark.parametrize(
    ("content", "expect"),
    [
        (b"this is a chat log, not a database\n" * 50, "not a room file"),
        (b"SQLite format 3\x00" + b"\x07" * 4000, "corrupted SQLite file"),
    ],
    ids=["garbage", "corrupted-sqlite"],
)
def test_a_garbage_room_file_is_refused_before_anything_is_created(tmp_path, kb_dir, content, expect):
    folder = tmp_path / "runs"
    folder.mkdir()
    path = folder / "room.sqlite"
    path.write_bytes(content)
    with pytest.raises(RoomError, match=expect) as err:
        _open(path, kb_dir)
    message = str(err.value)
    assert "\n" not in message and str(path) in message and "pick a new path" in message
    assert sorted(p.name for p in folder.iterdir()) == ["room.sqlite"]  # no .kb.sqlite, no .lock, no -wal
    assert path.read_bytes() == content


def test_a_foreign_sqlite_database_is_refused_and_not_modified(tmp_path, kb_dir):
    folder = tmp_path / "runs"
    folder.mkdir()
    path = folder / "accounts.sqlite"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE invoices (id INTEGER PRIMARY KEY, amount REAL)")
    conn.execute("INSERT INTO invoices VALUES (1, 99.5)")
    conn.commit()
    conn.close()
    data, mtime = path.read_bytes(), path.stat().st_mtime_ns
    with pytest.raises(RoomError, match=r"another application's SQLite database \(tables invoices\)") as err:
        _open(path, kb_dir)
    assert "\n" not in str(err.value) and str(path) in str(err.value) and "pick a new path" in str(err.value)
    assert path.read_bytes() == data and path.stat().st_mtime_ns == mtime
    assert sorted(p.name for p in folder.iterdir()) == ["accounts.sqlite"]


def test_a_room_file_that_is_a_folder_is_refused(tmp_path, kb_dir):
    with pytest.raises(RoomError, match="is a folder: pick a new path"):
        _open(tmp_path, kb_dir)


def test_an_existing_room_and_an_empty_file_still_open(make_room, tmp_path):
    room = make_room()
    room.send("amara", "Habari")
    room.close()
    assert len(make_room().history()) == 1
    empty = tmp_path / "empty.sqlite"
    empty.touch()
    assert make_room(path=empty).history() == []
