"""``aya-lab graph show SPEC`` / ``python -m aya_lab.graph show SPEC``: the structure as plain text."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import yaml
from parameter_helpers import greet_spec

from aya_lab.graph import cli as graph_cli

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "GRAPHS.md"


def cli(capsys, *argv):
    code = graph_cli.graph_main(["graph", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_show_aya_prints_state_nodes_and_edges(capsys):
    code, out, err = cli(capsys, "show", "aya")
    assert code == 0 and err == ""
    assert out.startswith("graph AyaRoom (stategraph), spec hash ")
    for line in [
        "  users           dict               reducer merge_dict.v1",
        "  incoming        chat_message       (last value wins)",
        "  aya_result      supervisor_result  (last value wins)",
        "  START -> ingest",
        "  deliver_reply -> END",
        "  after ingest (every true condition is followed):",
        "    if {neq: [{type: state_value, name: aya_request}, null]} -> aya_translate",
        "    otherwise -> deliver",
        "  aya_translate -> deliver",
        "  after deliver (every true condition is followed):",
        "    if {neq: [{type: state_value, name: aya_request}, null]} -> supervisor",
        "    otherwise -> END",
    ]:
        assert line + "\n" in out, line
    for node, factory in [
        ("ingest", "aya_ingest.v1"),
        ("deliver", "aya_user_agents.v1"),
        ("supervisor", "aya_supervisor.v1"),
    ]:
        assert f"\n  {node}  factory {factory} (" in out
    assert "summarizer: two_call" in out  # the factory_parameter as the spec writes it


def test_show_lists_every_field_of_a_declared_model(capsys, tmp_path):
    path = tmp_path / "greet.json"
    path.write_text(json.dumps(greet_spec({"times": 2}, {"word": "w"})))
    code, out, _ = cli(capsys, "show", str(path), "--registry", "parameter_helpers:greet_registry")
    assert code == 0
    assert "    parameters (GreetParameters):\n" in out
    rows = [line.split() for line in out.splitlines() if line.startswith("      ")]
    assert rows == [
        ["field", "type", "default", "set", "in", "spec"],
        ["greeting", "str", "hello", "-"],
        ["times", "int", "1", "2"],
        ["style", "Literal['plain',", "'loud']", "plain", "-"],
    ]
    assert "    parameters: no model declared (the factory takes the dict as it is)\n" in out  # plain.v1


def test_the_page_shows_what_validate_and_show_print(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("greet_ok.yaml").write_text(yaml.safe_dump(greet_spec({"greeting": "hi", "times": 2}), sort_keys=False))
    bad = greet_spec({"greeting": "hi", "times": "many", "style": "quiet", "tiems": 2})
    Path("greet.yaml").write_text(yaml.safe_dump(bad, sort_keys=False))
    page = PAGE.read_text(encoding="utf-8")
    code, out, _ = cli(capsys, "show", "greet_ok.yaml", "--registry", "parameter_helpers:greet_registry")
    assert code == 0 and f"```text\n{out}```" in page
    code, _, err = cli(capsys, "validate", "greet.yaml", "--registry", "parameter_helpers:greet_registry")
    assert code == 2 and f"```text\n{err.removeprefix('error: ')}```" in page
    code, _, err = cli(capsys, "show", "nosuch.yaml")
    assert code == 2 and f"`{err.strip()}`" in page


def test_a_missing_spec_is_a_one_line_error(capsys, tmp_path):
    code, out, err = cli(capsys, "show", str(tmp_path / "missing.yaml"))
    assert code == 2 and out == "" and err.count("\n") == 1
    assert err.startswith(f"error: spec '{tmp_path / 'missing.yaml'}' is neither a file nor a packaged graph")
    names = "aya, aya_context3, aya_nearest, aya_nearest_070, aya_nearest_similar, aya_one_draft, aya_onecall"
    assert f"packaged graph names ({names}, aya_preference, aya_sentences)" in err


def test_python_m_aya_lab_graph_show_imports_no_model_stack():
    probe = (
        "import runpy, sys; sys.argv = ['aya_lab.graph', 'show', 'aya_onecall']\n"
        "try:\n    runpy.run_module('aya_lab.graph', run_name='__main__')\n"
        "except SystemExit as e:\n    code = e.code\n"
        "print(code, sorted({m.split('.')[0] for m in sys.modules} & {'torch', 'transformers', 'llama_cpp'}))"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert proc.stdout.startswith("graph AyaRoomOneCall (stategraph), spec hash ")
    assert "summarizer: one_call" in proc.stdout and proc.stdout.endswith("0 []\n"), proc.stderr
