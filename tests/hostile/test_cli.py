"""Hostile values on the command line (issue 37, item 7, group ``cli``): every bad option value, output
path or ``AYA_LAB_*`` setting is one ``error:`` line with status 2 that names the value and the fix,
before any work (no progress bar, no model loaded beyond a fake, no ``.partial.jsonl``), and nothing is
created or changed in the working folder."""

from __future__ import annotations

import pytest

from tests.hostile.harness import cli_refuses, unchanged

pytestmark = pytest.mark.hostile("cli")

TRANSLATE = ["eval", "run", "translation", "--dataset", "workplace", "--pairs", "eng-fra", "--systems", "fake:ok"]
TRANSLATE += ["--n", "2"]
SYSTEM_FIX = "--out runs/results.csv"


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    """A working folder holding what the probes aim at: a binary .csv, a folder named .csv, a plain file,
    a folder where a file beside ``--out`` would go."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "data.csv").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    (tmp_path / "dir.csv").mkdir()
    (tmp_path / "note.txt").write_text("keep me\n")
    (tmp_path / "res.partial.jsonl").mkdir()
    return tmp_path


CASES = [
    # --out of eval commands: refused before the progress bar and before any .partial.jsonl
    ({}, [*TRANSLATE, "--out", "/proc/x.csv"], ("'/proc/x.csv' is in /proc, a system folder", SYSTEM_FIX)),
    ({}, [*TRANSLATE, "--out", "/sys/kernel/x.csv"], ("is in /sys", SYSTEM_FIX)),
    ({}, [*TRANSLATE, "--out", "dir.csv"], ("--out 'dir.csv' is a folder", "'dir.csv/results.csv'")),
    ({}, [*TRANSLATE, "--out", "data.csv"], ("'data.csv' exists and is not a .csv file (binary)", SYSTEM_FIX)),
    ({}, [*TRANSLATE, "--out", "note.txt/x.csv"], ("lies under 'note.txt', which is a file", SYSTEM_FIX)),
    ({}, [*TRANSLATE, "--out", "res.csv"], ("the file beside --out 'res.partial.jsonl' is a folder",)),
    ({}, [*TRANSLATE, "--out", "results.txt"], ("--out must name a .csv file, not 'results.txt'", SYSTEM_FIX)),
    ({}, ["eval", "run", "routing", "--model", "fake:ok", "--out", "/dev/x.csv"], ("is in /dev", SYSTEM_FIX)),
    ({}, ["eval", "run", "attacks", "--model", "fake:ok", "--out", "/sys/x.csv"], ("is in /sys", SYSTEM_FIX)),
    ({}, ["eval", "run", "grounding", "--out", "dir.csv"], ("--out 'dir.csv' is a folder",)),
    ({}, ["eval", "run", "faithfulness", "--out", "scores.txt"], ("must name a .csv file, not 'scores.txt'",)),
    # option values
    ({}, [*TRANSLATE, "--n", "-1"], ("translation option n=-1", "greater than 0")),
    ({}, [*TRANSLATE, "--n", str(10**30)], ("translation option n=1000000000000000000000000000000", "less than or equal to 10000000")),
    ({}, [*TRANSLATE, "--batch-size", "99999999"], ("--batch-size must be between 1 and 4,096; got 99999999",)),
    ({}, [*TRANSLATE, "--max-new-tokens", "0"], ("--max-new-tokens must be between 1 and 32,768; got 0",)),
    ({}, [*TRANSLATE, "--n", "abc"], ("invalid int value: 'abc'", "see aya-lab eval run translation --help")),
    ({}, [*TRANSLATE, "--engine", "warp"], ("invalid choice: 'warp'", "'local', 'ray'")),
    ({}, [*TRANSLATE, "--bogus", "1"], ("unrecognized arguments: --bogus 1", "--help")),
    ({}, [*TRANSLATE, "--pairs", "eng-xx"], ("unsupported language 'xx'", "aya-lab data languages")),
    ({}, [*TRANSLATE, "--split", "nosuch"], ("workplace has no split 'nosuch'", "available: test")),
    ({}, [*TRANSLATE, "--systems", "nosuch:thing"], ("unknown system 'nosuch:thing'", "valid systems")),
    ({}, [*TRANSLATE, "--dataset", "../../etc/passwd"], ("unknown dataset '../../etc/passwd'", "files:SRC.txt,REF.txt")),
    ({}, [*TRANSLATE, "--dataset", "files:src.txt,ref.txt"], ("no file 'src.txt'", "files:SRC.txt,REF.txt")),
    ({}, ["eval", "run", "attacks", "--model", "translator="], ("unknown model spec ''", "smollm2")),
    ({}, ["eval", "run", "attacks", "--model", "nosuchrole=smollm2"], ("unknown model role 'nosuchrole'", "roles: translator, aya")),
    ({}, ["eval", "run", "summaries", "--variants", "nosuch", "--model", "fake:ok"], ("unknown summarizer variant 'nosuch'",)),
    ({}, ["eval", "run", "routing", "--model", "fake:ok", "--variants", "nosuch"], ("no prompt variant 'nosuch'", "fewshot")),
    ({}, ["eval", "run", "attacks", "--model", "fake:ok", "--categories", "nosuch"], ("categories.0='nosuch'", "'ordinary'")),
    # no --model: the spec is refused before the default models would load
    ({}, ["eval", "run", "attacks", "--graph", "NOSUCH.yaml"], ("spec 'NOSUCH.yaml' is neither a file nor a packaged graph", "aya")),
    ({}, ["eval", "compare", "nofile.csv", "other.csv"], ("no report file at nofile.csv",)),
    # settings
    ({"AYA_LAB_THREADS": "abc"}, TRANSLATE, ("AYA_LAB_THREADS='abc'", "set e.g. AYA_LAB_THREADS=2")),
    ({"AYA_LAB_ENGINE": "warp"}, TRANSLATE, ("AYA_LAB_ENGINE='warp' is not one of local, ray",)),
    ({"AYA_LAB_CACHE_MODE": "replai"}, TRANSLATE, ("AYA_LAB_CACHE_MODE='replai'", "off, readwrite, replay")),
    ({"AYA_LAB_ALLOW_DOWNLOADS": "perhaps"}, TRANSLATE, ("AYA_LAB_ALLOW_DOWNLOADS='perhaps'", "=1 (on)")),
    ({"AYA_LAB_CACHE_DIR": "note.txt/cache", "AYA_LAB_GENERATION_CACHE": None}, TRANSLATE, ("AYA_LAB_CACHE_DIR 'note.txt/cache' cannot be created",
                                                          "set AYA_LAB_CACHE_DIR to a folder you can write")),
    ({"AYA_LAB_MODEL": "nosuch"}, ["eval", "run", "routing"], ("unknown model spec 'nosuch'",)),
    ({"AYA_LAB_MODEL_TRANSLATOR": "hf:"}, ["eval", "run", "attacks", "--n", "1"], ("model spec 'hf:' names no model", "hf:org/name")),
    # data and kb commands, room files
    ({}, ["data", "fetch", "nosuchset"], ("cannot fetch 'nosuchset'", "fetchable sets: ")),
    ({}, ["kb", "facts", "missing/room.sqlite"], ("no room with a knowledge base at missing/room.sqlite", "give a room file")),
    ({}, ["kb", "facts", "dir.csv"], ("no room with a knowledge base at dir.csv",)),
    ({}, ["kb", "forget", "missing.sqlite", "#3", "--by", "lena"], ("no room with a knowledge base at missing.sqlite",)),
    ({}, ["demo", "--model", "fake:ok", "--room", "/proc/demo.sqlite"], ("lies in /proc, a system folder", "runs/demo.sqlite")),
    ({}, ["chat", "/proc/r.sqlite", "--model", "fake:ok"], ("lies in /proc", "pick a new path")),
]  # fmt: skip


@pytest.mark.parametrize(("env", "argv", "needles"), CASES, ids=[f"{i:02d}" for i in range(len(CASES))])
def test_a_bad_value_is_one_line_and_creates_nothing(workdir, monkeypatch, capsys, env, argv, needles):
    for name, value in env.items():  # None: unset (the generation cache then lives in the cache folder)
        monkeypatch.setenv(name, value) if value is not None else monkeypatch.delenv(name, raising=False)
    with unchanged(workdir):
        cli_refuses(capsys, argv, *needles)
