"""Nothing created by a refusal (issue 25, part 5): every refusal of ``aya-lab chat`` / ``ChatRoom.open``
happens before a file is created; the room file's integrity is checked before a knowledge base is built
beside it; devices and other non-regular targets are refused; a read-only room is named with the fix."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest
from langchain_core.embeddings import DeterministicFakeEmbedding

import aya_lab.room.integrity as integrity
from aya_lab.cli import main
from aya_lab.room import ChatRoom, RoomError
from tests.fakes import FakeRoomModel


class CountingEmbeddings(DeterministicFakeEmbedding):
    calls: int = 0

    def embed_documents(self, texts):
        type(self).calls += 1
        return super().embed_documents(texts)


def _open(path: Path, kb_dir: Path, **kw) -> ChatRoom:
    return ChatRoom.open(
        path, model=FakeRoomModel(default="ok"), kb_dir=kb_dir, embeddings=DeterministicFakeEmbedding(size=8), **kw
    )


@pytest.mark.parametrize("user", ["bob:xx", "aya:eng", "a b:eng", ":eng"])
def test_a_refused_chat_leaves_no_file(tmp_path, capsys, user):
    folder = tmp_path / "runs" / "new"
    assert main(["chat", str(folder / "r.sqlite"), "--model", "fake:ok", "--user", "kofi:en", "--user", user]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1
    assert list(tmp_path.iterdir()) == []  # no room, .kb.sqlite, -wal, -shm, .lock, nor the new folders


@pytest.mark.parametrize(
    ("users", "kw"),
    [({"aya": "eng"}, {}), ({"kofi": "klingon"}, {}), ({"kofi": "en"}, {"memory_policy": "bogus"})],
    ids=["reserved-user", "unknown-language", "bad-policy"],
)
def test_a_refused_open_creates_nothing(tmp_path, kb_dir, users, kw):
    before = sorted(tmp_path.iterdir())
    with pytest.raises(ValueError) as err:
        _open(tmp_path / "sub" / "room.sqlite", kb_dir, users=users, **kw)
    assert "\n" not in str(err.value)
    assert sorted(tmp_path.iterdir()) == before


def test_a_failure_after_creation_removes_what_the_open_made(tmp_path, kb_dir, monkeypatch):
    def broken(self, policy, users, created):
        raise RuntimeError("disk full")

    monkeypatch.setattr(ChatRoom, "_start", broken)
    with pytest.raises(RuntimeError, match="disk full"):
        _open(tmp_path / "a" / "b" / "room.sqlite", kb_dir, users={"kofi": "en"})
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kb"]


def test_an_existing_room_is_never_removed_by_a_failed_open(tmp_path, kb_dir, monkeypatch):
    path = tmp_path / "room.sqlite"
    _open(path, kb_dir, users={"kofi": "en"}).close()
    monkeypatch.setattr(ChatRoom, "_start", lambda self, policy, users, created: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        _open(path, kb_dir)
    assert path.is_file() and path.with_suffix(".kb.sqlite").is_file()


@pytest.mark.parametrize("target", ["/dev/null", "/dev/newroom.sqlite", "/proc/self/room.sqlite"])
def test_devices_and_system_folders_are_refused(kb_dir, target):
    with pytest.raises(RoomError) as err:
        _open(Path(target), kb_dir)
    assert "\n" not in str(err.value) and target in str(err.value) and "pick a new path" in str(err.value)
    assert not Path(target + ".kb.sqlite").exists() and not Path("/dev/null.kb.sqlite").exists()


def test_a_link_to_a_device_and_a_pipe_are_refused(tmp_path, kb_dir):
    link = tmp_path / "room.sqlite"
    link.symlink_to("/dev/null")
    with pytest.raises(RoomError, match="is a character device: pick a new path"):
        _open(link, kb_dir)
    fifo = tmp_path / "pipe.sqlite"
    os.mkfifo(fifo)
    with pytest.raises(RoomError, match="is a named pipe"):
        _open(fifo, kb_dir)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kb", "pipe.sqlite", "room.sqlite"]


def test_a_companion_that_is_no_regular_file_is_refused(tmp_path, kb_dir):
    (tmp_path / "room.kb.sqlite").mkdir()
    with pytest.raises(RoomError, match=r"a file the room writes beside it, .*room\.kb\.sqlite is a folder"):
        _open(tmp_path / "room.sqlite", kb_dir)


def test_demo_refuses_a_device_and_deletes_nothing(capsys):
    assert main(["demo", "--model", "fake:ok", "--room", "/dev/null"]) == 2
    assert "is no regular file" in capsys.readouterr().err
    assert Path("/dev/null").exists() and not Path("/dev/null").is_file()


def test_a_read_only_room_is_named_with_the_fix(tmp_path, kb_dir, monkeypatch):
    path = tmp_path / "room.sqlite"
    _open(path, kb_dir, users={"kofi": "en"}).close()
    path.chmod(0o444)
    real = os.access
    monkeypatch.setattr(integrity.os, "access", lambda p, mode: False if Path(p) == path else real(p, mode))
    with pytest.raises(RoomError) as err:  # os.access is patched: root ignores file modes
        _open(path, kb_dir)
    assert str(err.value) == (
        f"room file {path} is read-only: make it writable (chmod u+rw {path}), or open a copy at a new path"
    )


def test_a_read_only_folder_is_named_with_the_fix(tmp_path, kb_dir, monkeypatch):
    folder = tmp_path / "ro"
    folder.mkdir()
    real = os.access
    monkeypatch.setattr(integrity.os, "access", lambda p, mode: False if Path(p) == folder else real(p, mode))
    with pytest.raises(RoomError, match=rf"folder {folder} is not writable.*make it writable") as err:
        _open(folder / "room.sqlite", kb_dir)
    assert "\n" not in str(err.value) and list(folder.iterdir()) == []


def _corrupt_the_middle(path: Path) -> None:
    conn = sqlite3.connect(path)
    page = conn.execute("PRAGMA page_size").fetchone()[0]
    pages = conn.execute("PRAGMA page_count").fetchone()[0]
    conn.close()
    assert pages >= 4
    with path.open("r+b") as fh:  # the header page stays intact: only reading every page finds it
        for n in range(2, pages - 1):
            fh.seek(n * page)
            fh.write(b"\x07" * page)


def test_a_room_corrupted_in_its_middle_is_refused_before_the_knowledge_base_is_built(tmp_path, kb_dir):
    path = tmp_path / "room.sqlite"
    room = _open(path, kb_dir, users={"kofi": "en", "lena": "de"})
    for i in range(30):
        room.send("kofi", f"message number {i} with some words to fill the pages " * 5)
    room.close()
    path.with_suffix(".kb.sqlite").unlink()
    _corrupt_the_middle(path)
    CountingEmbeddings.calls = 0
    with pytest.raises(RoomError, match="is a corrupted SQLite file") as err:
        ChatRoom.open(path, model=FakeRoomModel(default="ok"), kb_dir=kb_dir, embeddings=CountingEmbeddings(size=8))
    assert "\n" not in str(err.value) and "pick a new path" in str(err.value)
    assert CountingEmbeddings.calls == 0 and not path.with_suffix(".kb.sqlite").exists()
