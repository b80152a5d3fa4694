"""Every ``--model`` help is generated from the one registry of model specs (issue 28, part 1): it names
every embedded model and every spec kind (those a command cannot take with the reason), each role's
default, and a kind added to the registry reaches every help at once; ``eval run translation --help`` lists
every floor of the system registry; the registry is importable without the model stack."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from aya_lab.cli import build_parser, main
from aya_lab.eval.translation import specs
from aya_lab.eval.translation.specs import floor_kinds, register_system_kind
from aya_lab.eval.translation.systems import CopySystem
from aya_lab.models.embedded import EMBEDDED
from aya_lab.models.registry import MODEL_KINDS, ModelKind, model_help, parse_spec
from aya_lab.settings import DEFAULT_ROLE_SPECS, ROLES
from aya_lab.tune.errors import TuneError
from aya_lab.tune.train import training_spec

ROOT = Path(__file__).resolve().parents[1]
COMMANDS = {"demo", "chat", "tune", "eval run summaries", "eval run routing", "eval run sequences", "eval run attacks"}


def model_options(parser: argparse.ArgumentParser, prog: str = "") -> dict[str, argparse.Action]:
    """``{"eval run routing": the --model action, ...}`` for every (sub)command of ``parser``."""
    found = {}
    for action in parser._actions:
        if "--model" in action.option_strings:
            found[prog] = action
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                found.update(model_options(sub, f"{prog} {name}".strip()))
    return found


def flat(text: str) -> str:
    return " ".join(text.split())


def test_every_model_help_names_every_embedded_model_and_every_kind():
    options = model_options(build_parser())
    assert COMMANDS <= set(options)
    forms = [k.form for k in MODEL_KINDS.values() if not k.tests_only]
    assert set(EMBEDDED) <= set(forms) and {"hf:<path-or-hub-id>", "seq2seq:<path-or-hub-id>"} <= set(forms)
    for command, action in options.items():
        for form in forms:
            assert form in action.help, (command, form)
        assert "fake:" not in action.help, command
        if action.metavar == "[ROLE=]SPEC":  # role commands: each role's default, as the loader falls back to it
            for role in ROLES:
                assert f"{role}={DEFAULT_ROLE_SPECS[role]}" in action.help, (command, role)
                assert f"AYA_LAB_MODEL_{role.upper()}" in action.help, (command, role)


def test_a_kind_added_to_the_registry_reaches_every_model_help(monkeypatch):
    kind = ModelKind("vllm", "vllm:<url>", "a served model", ("transformers",))
    monkeypatch.setitem(MODEL_KINDS, "vllm", kind)
    assert parse_spec("vllm:http://x").kind == "vllm"  # one grammar: the kind is a spec at once
    options = model_options(build_parser())
    assert COMMANDS <= set(options)
    for command, action in options.items():
        assert "vllm:<url>" in action.help, command


def test_what_a_command_cannot_take_is_named_with_the_reason():
    chat, train, anything = model_help("chat", roles=ROLES), model_help("train"), model_help("any", roles=ROLES)
    assert "not taken here: seq2seq:<path-or-hub-id> models are NMT models" in chat
    assert "gguf:<file> models run on llama.cpp only, which cannot train" in train
    assert "seq2seq:<path-or-hub-id> models are not causal LMs" in train
    assert "not taken here" not in anything and "seq2seq:<path-or-hub-id>" in anything
    options = model_options(build_parser())
    assert "not taken here: seq2seq" in options["eval run summaries"].help and "cannot train" in options["tune"].help


@pytest.mark.parametrize("name", [n for n, k in MODEL_KINDS.items() if not k.tests_only])
def test_tune_refuses_exactly_the_kinds_its_help_says_it_cannot_take(name):
    kind = MODEL_KINDS[name]
    spec = name if not kind.prefixed else f"{name}:/models/x"
    if kind.refusal("train") is None:
        assert training_spec(spec)[1] == spec
        assert f"{kind.form} models" not in model_help("train")
    else:
        with pytest.raises(TuneError, match=f"{name}: models {kind.refusal('train')}"):
            training_spec(spec)
        assert f"{kind.form} models {kind.refusal('train')}" in model_help("train")


def test_translation_help_lists_every_floor_of_the_system_registry(capsys):
    register_system_kind("lead-words", lambda rest: CopySystem(), form="lead-words[:N]", what="x", floor=True)
    try:  # registered for this test only
        assert "lead-words[:N]" in floor_kinds()
        assert main(["eval", "run", "translation", "--help"]) == 0
        option, _, epilog = flat(capsys.readouterr().out).partition("system specs")
        for floor in floor_kinds():  # copy, other-sentence[:SEED], and the one registered here
            assert floor in option and floor in epilog, floor
    finally:
        del specs.KINDS["lead-words"]
    assert {"copy", "other-sentence[:SEED]"} <= set(floor_kinds())


def test_the_registry_imports_no_model_stack():
    probe = "import json, sys; import aya_lab.models.registry; print(json.dumps(sorted(sys.modules)))"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    tops = {m.split(".")[0] for m in json.loads(proc.stdout)}
    assert not tops & {"torch", "transformers", "llama_cpp", "langchain_core", "pandas", "numpy"}
