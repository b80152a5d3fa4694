"""The aya-lab CLI: errors are one line with exit 2; the chat REPL drives a room and survives failures."""

import ast
import io
from pathlib import Path

import pytest
from langchain_core.embeddings import DeterministicFakeEmbedding

import aya_lab.room_cli
from aya_lab.cli import main
from aya_lab.room import ChatRoom
from aya_lab.room_cli import ChatRepl
from tests.fakes import FakeRoomModel


def test_unknown_model_spec_is_one_line(capsys):
    assert main(["demo", "--model", "gpt4", "--room", "unused.sqlite"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "unknown model spec 'gpt4'" in err


BAD_INPUT = {
    "unknown command": ["translate"],
    "no command": [],
    "unknown option": ["demo", "--bogus"],
    "not an int": ["demo", "--max-new-tokens", "many"],
    "zero tokens": ["demo", "--max-new-tokens", "0", "--room", "unused.sqlite"],
    "chat without room": ["chat"],
    "user without language": ["chat", "{tmp}/r.sqlite", "--model", "fake:ok", "--user", "amara"],
    "unknown language": ["chat", "{tmp}/r.sqlite", "--model", "fake:ok", "--user", "amara:klingon"],
    "chat on a non-room file": ["chat", "{tmp}/notes.txt", "--model", "fake:ok"],
    "demo over a non-room file": ["demo", "--model", "fake:ok", "--room", "{tmp}/notes.txt"],
    "graph missing spec": ["graph", "draw", "{tmp}/missing.yaml"],
    "graph bad format": ["graph", "draw", "aya_lab/graphs/aya.yaml", "--format", "png"],
    "data unknown set": ["data", "fetch", "nope"],
    "eval unknown dataset": [
        "eval",
        "run",
        "translation",
        "--dataset",
        "nope",
        "--pairs",
        "eng-swh",
        "--systems",
        "copy",
    ],
    "eval compare of no report": ["eval", "compare", "{tmp}/notes.txt", "{tmp}/notes.txt"],
}


@pytest.mark.parametrize("case", sorted(BAD_INPUT))
def test_every_command_reports_bad_input_in_one_line_with_status_2(case, tmp_path, capsys):
    notes = tmp_path / "notes.txt"
    notes.write_text("not a room\n")
    argv = [a.replace("{tmp}", str(tmp_path)) for a in BAD_INPUT[case]]
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.err.startswith("error: ") and captured.err.count("\n") == 1, captured.err
    assert notes.read_text() == "not a room\n"  # the demo refuses to delete a file that is no room


def test_usage_error_names_the_command_and_the_help(capsys):
    assert main(["chat", "r.sqlite", "--user"]) == 2
    assert capsys.readouterr().err == (
        "error: aya-lab chat: argument --user: expected one argument (see aya-lab chat --help)\n"
    )


def test_help_exits_0(capsys):
    assert main(["demo", "--help"]) == 0
    assert "--max-new-tokens" in capsys.readouterr().out


def test_cli_uses_only_the_public_room_api():
    tree = ast.parse(Path(aya_lab.room_cli.__file__).read_text())
    private = [
        f"{ast.unparse(n.value)}.{n.attr} (line {n.lineno})"
        for n in ast.walk(tree)
        if isinstance(n, ast.Attribute)
        and n.attr.startswith("_")
        and not n.attr.startswith("__")
        and ast.unparse(n.value).endswith("room")
    ]
    assert private == []


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


def test_repl_reports_failures_and_keeps_the_session(tmp_path):
    model = FakeRoomModel(default="ok", fail_on="explode")
    room = ChatRoom.open(tmp_path / "r.sqlite", model=model, users={"amara": "swh", "kofi": "en"}, kb_dir=None)
    lines = iter(["/trace", "/as", "/as kofy", "/feed nobody", "please explode", "/as kofi", "Hello", "/users"])

    def read_line(prompt: str) -> str:
        try:
            return next(lines)
        except StopIteration:
            raise EOFError from None

    out = io.StringIO()
    ChatRepl(room, out).run(read_line)
    text = out.getvalue().splitlines()
    errors = [line for line in text if line.startswith("error: ")]
    assert errors[0] == "error: no run yet in this session; send a message first, or /trace RUN_ID"
    assert errors[1] == "error: usage: /as NAME"
    assert "unknown user 'kofy' (did you mean 'kofi'?)" in errors[2] and "unknown user 'nobody'" in errors[3]
    assert "scripted failure" in errors[4] and len(errors) == 5
    assert text[-1] == "amara (swh), kofi (eng)"  # the session went on after every failure
    assert [d.text for d in room.feed("kofi")] == ["Hello"]  # the failed send left nothing behind
    room.close()


def test_repl_survives_an_unexpected_exception(room, monkeypatch):
    def broken_send(user, text):
        raise TypeError("'Step' object is not iterable")

    monkeypatch.setattr(room, "send", broken_send)
    lines = iter(["hello", "/users", "/quit", "never read"])
    out = io.StringIO()
    ChatRepl(room, out).run(lambda prompt: next(lines))
    assert out.getvalue().splitlines() == [
        "error: TypeError: 'Step' object is not iterable (the room is unchanged)",
        "amara (swh), kofi (eng)",
    ]


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
