"""Fixtures of the hostile-input run: a small knowledge base, rooms on a fake model (closed after the test),
and rooms that the CLI opens getting the same knowledge base with fake embeddings (no model is loaded)."""

from __future__ import annotations

import pytest
from langchain_core.embeddings import DeterministicFakeEmbedding

from aya_lab.room import ChatRoom
from tests.fakes import FakeRoomModel

_OPEN = ChatRoom.open.__func__


@pytest.fixture
def kb_dir(tmp_path):
    d = tmp_path / "kb"
    d.mkdir()
    (d / "travel_policy.md").write_text("# Travel policy\n## Flights\nEconomy class for flights under 6 hours.\n")
    return d


@pytest.fixture
def room_opener(tmp_path, kb_dir):
    """``room_opener(users, path=None, model=None, **kw)``: a room (default ``tmp_path/room.sqlite``) on a fake
    model; every room it opened is closed after the test."""
    rooms = []

    def make(users, path=None, model=None, **kw):
        room = ChatRoom.open(
            path or tmp_path / "room.sqlite",
            model=model or FakeRoomModel(default="ok"),
            users=users,
            kb_dir=kb_dir,
            embeddings=DeterministicFakeEmbedding(size=8),
            **kw,
        )
        rooms.append(room)
        return room

    yield make
    for r in rooms:
        r.close()


@pytest.fixture
def fake_kb_rooms(monkeypatch, kb_dir):
    """Rooms the CLI opens get the test knowledge base with fake embeddings (no model is loaded)."""

    def open_(cls, path, *args, **kw):
        return _OPEN(cls, path, *args, kb_dir=kb_dir, embeddings=DeterministicFakeEmbedding(size=8), **kw)

    monkeypatch.setattr(ChatRoom, "open", classmethod(open_))
