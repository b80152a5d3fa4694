import pytest
from langchain_core.embeddings import DeterministicFakeEmbedding

from aya_lab.room import ChatRoom
from aya_lab.room.room import default_graph_path
from tests.fakes import FakeRoomModel

KB_TEXT = {
    "travel_policy.md": "# Travel policy\n## Flights\nEconomy class for flights under 6 hours. The per diem is 45 EUR.\n",
    "leave_policy.md": "# Leave policy\n## Annual leave\nEmployees have 25 days of annual leave per year.\n",
}


@pytest.fixture
def kb_dir(tmp_path):
    d = tmp_path / "kb"
    d.mkdir()
    for name, text in KB_TEXT.items():
        (d / name).write_text(text)
    return d


@pytest.fixture
def make_room(tmp_path, kb_dir):
    rooms = []

    def make(model=None, users=None, path=None, **kw):
        model = model or FakeRoomModel(default="ok")
        room = ChatRoom.open(
            path or tmp_path / "room.sqlite",
            model=model,
            users={"amara": "swh", "lena": "German", "kofi": "en"} if users is None else users,
            **({"kb_dir": kb_dir, "embeddings": DeterministicFakeEmbedding(size=32)} if "kb" not in kw else {}),
            **kw,
        )
        rooms.append(room)
        return room

    yield make
    for r in rooms:
        try:
            r.close()
        except Exception:
            pass


@pytest.fixture
def draft_graph(tmp_path):
    """The room's graph with the query tool answering with the model's drafts (``answers: draft``)."""
    spec = default_graph_path().read_text(encoding="utf-8").replace("answers: voted", "answers: draft")
    assert "answers: draft" in spec
    path = tmp_path / "aya_draft.yaml"
    path.write_text(spec, encoding="utf-8")
    return path
