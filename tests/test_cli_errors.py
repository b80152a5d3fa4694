"""The CLI's error contract: an AyaLabError (refused input) is one ``error:`` line with status 2; any other
exception is a bug and propagates with its traceback, from every command group's guard."""

from __future__ import annotations

import pytest
from langchain_core.embeddings import DeterministicFakeEmbedding

import aya_lab.datasets.cli as data_cli
import aya_lab.graph.cli as graph_cli
import aya_lab.room_cli as room_cli
from aya_lab.cli import main
from aya_lab.errors import InputError
from aya_lab.models import ModelSpecError
from aya_lab.rag import KnowledgeBase


def _raiser(exc: BaseException):
    def run(*args, **kwargs):
        raise exc

    return run


@pytest.mark.parametrize(
    "exc",
    [InputError("bad --thing 'x'; use y"), ModelSpecError("unknown model spec 'q'"), FileNotFoundError("no file z")],
)
def test_refused_input_is_one_line_with_status_2(monkeypatch, capsys, exc):
    monkeypatch.setattr(room_cli, "run_demo", _raiser(exc))
    assert main(["demo", "--room", "unused.sqlite"]) == 2
    assert capsys.readouterr().err == f"error: {exc}\n"


@pytest.mark.parametrize("exc", [KeyError("state"), TypeError("'NoneType' object is not iterable"), ValueError("x")])
def test_a_bug_is_not_swallowed(monkeypatch, capsys, exc):
    monkeypatch.setattr(room_cli, "run_demo", _raiser(exc))
    with pytest.raises(type(exc)):
        main(["demo", "--room", "unused.sqlite"])
    assert "error:" not in capsys.readouterr().err


def test_the_group_guards_follow_the_same_rule(monkeypatch, capsys):
    monkeypatch.setattr(data_cli, "fetch_dataset", _raiser(KeyError("plan")))
    with pytest.raises(KeyError):
        main(["data", "fetch", "mafand"])
    monkeypatch.setattr(data_cli, "fetch_dataset", _raiser(InputError("cannot fetch 'x'")))
    assert main(["data", "fetch", "mafand"]) == 2
    assert capsys.readouterr().err == "error: cannot fetch 'x'\n"
    monkeypatch.setattr(graph_cli, "_load", _raiser(RuntimeError("a bug in the loader")))
    with pytest.raises(RuntimeError):
        main(["graph", "hash", "aya_lab/graphs/aya.yaml"])


def test_a_bad_setting_is_refused_input(monkeypatch, capsys):
    monkeypatch.setenv("AYA_LAB_CACHE_MODE", "replai")
    assert main(["demo", "--model", "fake:ok", "--room", "unused.sqlite"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: AYA_LAB_CACHE_MODE='replai' is not one of") and err.count("\n") == 1


def test_kb_commands_read_the_store_read_only_and_name_a_missing_one(tmp_path, capsys):
    room = tmp_path / "room.sqlite"
    room.write_bytes(b"")
    assert main(["kb", "facts", str(room)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: no knowledge base at {tmp_path / 'room.kb.sqlite'}") and err.count("\n") == 1
    assert "open its room once" in err and not (tmp_path / "room.kb.sqlite").exists()
    docs = tmp_path / "kb"
    docs.mkdir()
    (docs / "travel.md").write_text("# Travel\nEconomy class.\n")
    with KnowledgeBase.open(tmp_path / "room.kb.sqlite", docs, DeterministicFakeEmbedding(size=8)) as kb:
        fid = kb.add_fact("the canteen opens at 8", author="kofi")
    before = (tmp_path / "room.kb.sqlite").read_bytes()
    assert main(["kb", "facts", str(room)]) == 0 and main(["kb", "audit", str(room)]) == 0
    assert f"{fid}\tkofi\t" in capsys.readouterr().out
    assert (tmp_path / "room.kb.sqlite").read_bytes() == before  # listing writes nothing
    assert main(["kb", "forget", str(room), fid, "--by", "lena"]) == 0  # the one command that writes
    assert main(["kb", "audit", str(room)]) == 0 and "\tlena\t" in capsys.readouterr().out


@pytest.mark.parametrize(
    "argv",
    [["eval", "run", "answers", "--n", "3"], ["eval", "run", "routing", "--n-boot", "50"], ["graph", "val", "x.yaml"]],
)
def test_an_abbreviated_option_or_command_is_refused_not_taken_for_another(capsys, argv):
    # `answers` has no --n: argparse's default would have read it as --n-bootstrap 3 and run with 3 resamples
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: aya-lab") and err.count("\n") == 1 and ("--n" in err or "'val'" in err)
    if argv[0] == "eval":  # refused by the command it was given to, whose help names its options
        prog = " ".join(["aya-lab", *argv[:3]])
        assert err.startswith(f"error: {prog}: unrecognized arguments: ") and err.endswith(f"(see {prog} --help)\n")
