"""The aya-lab CLI: errors are one line with exit 2; the chat REPL drives a room."""

import io

import pytest
from langchain_core.embeddings import DeterministicFakeEmbedding

from aya_lab.cli import ChatRepl, main
from aya_lab.room import ChatRoom
from tests.fakes import FakeRoomModel


def test_unknown_model_spec_is_one_line(capsys):
    assert main(["demo", "--model", "gpt4", "--room", "unused.sqlite"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "unknown model spec 'gpt4'" in err


def test_graph_draw_of_the_room_graph(capsys):
    assert main(["graph", "draw", "aya_lab/graphs/aya_onecall.yaml"]) == 0
    out = capsys.readouterr().out
    assert "supervisor" in out and "deliver_reply" in out


def test_graph_validate_reports_located_error(tmp_path, capsys):
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        "base: " + str(__import__("aya_lab").__path__[0]) + "/graphs/aya.yaml\n"
        "changes:\n  - update_node: supervisr\n    factory_parameter: {summarizer: one_call}\n"
    )
    assert main(["graph", "validate", str(bad)]) != 0
    captured = capsys.readouterr()
    assert "supervisr" in captured.out + captured.err


@pytest.fixture
def room(tmp_path):
    kb = tmp_path / "kb"
    kb.mkdir()
    (kb / "travel.md").write_text("# Travel\nEconomy class.\n")
    r = ChatRoom.open(
        tmp_path / "r.sqlite",
        model=FakeRoomModel(default="ok"),
        users={"amara": "swh", "kofi": "en"},
        kb_dir=kb,
        embeddings=DeterministicFakeEmbedding(size=8),
    )
    yield r
    r.close()


def test_repl_switches_speaker_and_shows_feeds(room):
    out = io.StringIO()
    repl = ChatRepl(room, out)
    for line in ["Habari", "/as kofi", "Hello all", "/feed amara", "/users", "/graph", "/trace", "/bogus"]:
        assert repl.handle(line)
    assert not repl.handle("/quit")
    text = out.getvalue()
    assert "speaking as kofi (eng)" in text
    assert "kofi | [Swahili] Hello all" in text  # amara's feed shows kofi's message in Swahili
    assert "amara (swh), kofi (eng)" in text
    assert "ingest:" in text and "error: unknown command '/bogus'" in text
    assert [d.sender for d in room.feed("amara")] == ["amara", "kofi"]


def test_repl_add_user(room):
    out = io.StringIO()
    repl = ChatRepl(room, out)
    repl.handle("/add lena German")
    assert room.users["lena"] == "deu"


@pytest.mark.integration
def test_chat_command_reads_stdin(tmp_path, monkeypatch, capsys):
    lines = iter(["/users", "hello team", "/as b", "@aya thanks!", "/feed a", "/quit"])

    def fake_input(prompt=""):
        try:
            return next(lines)
        except StopIteration:
            raise EOFError from None

    monkeypatch.setattr("builtins.input", fake_input)
    room = tmp_path / "team.sqlite"
    assert main(["chat", str(room), "--model", "fake:ok", "--user", "a:en", "--user", "b:fr"]) == 0
    out = capsys.readouterr().out
    assert "a (eng), b (fra)" in out and "speaking as b (fra)" in out
    assert "aya used tool" in out
    reopened = ChatRoom.open(room, model=FakeRoomModel(default="x"), kb_dir=None)
    assert [d.sender for d in reopened.feed("a")] == ["a", "b", "aya"]
    reopened.close()
