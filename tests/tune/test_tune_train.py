"""Training (issue 26, part 1): a tiny random model learns, the run card says what was done, a killed run resumes
where it stopped and ends where an unbroken run ends, a kill during a save leaves nothing loadable, and the
command line trains and prints the spec to load the adapter."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging

import pytest
import torch
from safetensors.torch import load_file

from aya_lab.cli import main
from aya_lab.datasets.project import load_transcripts
from aya_lab.models import load_model
from aya_lab.models.adapter import CARD_FILE, read_adapter
from aya_lab.models.errors import ModelNotFoundError
from aya_lab.paths import project_root
from aya_lab.tune import QUICK_STEPS, TuneConfig, train_adapter
from aya_lab.tune import card as card_module
from aya_lab.tune.checkpoint import checkpoint_folder
from aya_lab.tune.config import TuneOptions
from tests.tune.conftest import QUICK


class Killed(Exception):
    """Stands for a kill: raised from the step callback, it stops the run where a kill would."""


def kill_at(step: int):
    def on_step(done: int, loss: float) -> None:
        if done == step:
            raise Killed(done)

    return on_step


def weights(path) -> dict[str, torch.Tensor]:
    return load_file(str(path / "adapter_model.safetensors"))


def test_a_tiny_model_learns_the_route_task(tiny_base, route_file, tmp_path):
    out = tmp_path / "route"
    result = train_adapter(
        task="route", model=f"hf:{tiny_base}", data=str(route_file), out=out, **{**QUICK, "steps": 8}
    )
    card = result.card
    loss = card["loss"]
    assert loss["validation_after"] < loss["validation_before"] - 0.5, loss
    curve = loss["train_curve"]
    assert len(curve) == 8 and sum(curve[-3:]) / 3 < sum(curve[:3]) / 3, curve
    base = load_model(f"hf:{tiny_base}", reuse=False)
    assert card["base"]["weights"] == base.weights and card["base"]["spec"] == f"hf:{tiny_base}"
    assert card["data"]["sha256"] == hashlib.sha256(route_file.read_bytes()).hexdigest()
    assert (card["data"]["train"], card["data"]["validation"]) == (22, 2)  # 24 requests, 10% held out
    assert card["data"]["prompt"].startswith("supervisor/baseline (")
    assert card["steps"] == 8 and card["seconds"] > 0 and card["device"] == "cpu" and card["dtype"] == "float32"
    assert card["hyperparameters"]["lora_r"] == 8 and card["hyperparameters"]["learning_rate"] == 3e-2
    assert {"torch", "transformers", "peft", "aya_lab"} <= set(card["versions"])
    assert result.spec == f"hf:{tiny_base}+lora:{out}"
    assert read_adapter(out).content_id == card["adapter"]
    on_disk = json.loads((out / CARD_FILE).read_text())
    assert on_disk == card
    readme = (out / "README.md").read_text()
    assert f"hf:{tiny_base}+lora:{out}" in readme and card["adapter"] in readme
    assert sorted(p.name for p in out.iterdir()) == [
        "README.md",
        "adapter_config.json",
        "adapter_model.safetensors",
        CARD_FILE,
    ]
    assert not list(tmp_path.glob(".*partial"))  # nothing half-written left beside it
    assert [p.name for p in sorted(checkpoint_folder(out).glob("step-*"))] == ["step-000006", "step-000008"]


def test_a_killed_run_resumes_and_ends_where_an_unbroken_run_ends(tiny_base, route_file, tmp_path, caplog):
    options = {
        "task": "route",
        "model": f"hf:{tiny_base}",
        "data": str(route_file),
        **{**QUICK, "steps": 6, "dropout": 0.1},
    }
    unbroken = train_adapter(out=tmp_path / "a", **options)
    with pytest.raises(Killed):
        train_adapter(out=tmp_path / "b", on_step=kill_at(5), **options)
    assert not (tmp_path / "b").exists()
    assert [p.name for p in sorted(checkpoint_folder(tmp_path / "b").glob("step-*"))] == ["step-000002", "step-000004"]
    with caplog.at_level(logging.WARNING, logger="aya_lab.tune.train"):
        resumed = train_adapter(out=tmp_path / "b", **options)
    assert "at step 4" in caplog.text
    assert resumed.card["loss"]["train_curve"] == pytest.approx(unbroken.card["loss"]["train_curve"], abs=1e-6)
    a, b = weights(tmp_path / "a"), weights(tmp_path / "b")
    assert a.keys() == b.keys() and all(torch.allclose(a[k], b[k], atol=1e-6) for k in a)


def test_a_finished_run_continues_to_more_steps(tiny_base, route_file, tmp_path, caplog):
    options = {"task": "route", "model": f"hf:{tiny_base}", "data": str(route_file), "out": tmp_path / "r", **QUICK}
    first = train_adapter(**options)
    with caplog.at_level(logging.WARNING, logger="aya_lab.tune.train"):
        more = train_adapter(**{**options, "steps": 6})  # the same run: its adapter may be replaced
    assert "at step 4" in caplog.text
    assert more.card["steps"] == 6 and more.card["loss"]["train_curve"][:4] == first.card["loss"]["train_curve"]
    assert more.card["adapter"] != first.card["adapter"]


def test_a_kill_while_the_adapter_is_saved_leaves_nothing_loadable(tiny_base, route_file, tmp_path, monkeypatch):
    out = tmp_path / "route"
    options = {"task": "route", "model": f"hf:{tiny_base}", "data": str(route_file), "out": out, **QUICK}
    real = card_module.write_json

    def dies_at_the_run_card(path, data):
        if path.name == CARD_FILE:
            raise Killed("mid-save")
        real(path, data)

    monkeypatch.setattr(card_module, "write_json", dies_at_the_run_card)
    with pytest.raises(Killed):
        train_adapter(**options)
    assert not out.exists() and not list(tmp_path.glob(".*partial"))
    with pytest.raises(ModelNotFoundError, match="does not exist") as exc:
        load_model(f"hf:{tiny_base}+lora:{out}")
    assert "\n" not in str(exc.value) and "aya-lab tune" in str(exc.value)
    monkeypatch.setattr(card_module, "write_json", real)
    finished = train_adapter(**options)  # resumes from the last checkpoint (step 4) and only saves
    assert finished.card["steps"] == 4 and read_adapter(out).content_id == finished.card["adapter"]


def test_a_kill_while_a_checkpoint_is_saved_resumes_from_the_one_before(tiny_base, route_file, tmp_path, monkeypatch):
    out = tmp_path / "route"
    options = {"task": "route", "model": f"hf:{tiny_base}", "data": str(route_file), "out": out, **QUICK}
    real_save = torch.save

    def dies_at_step_4(obj, path, *args, **kwargs):
        if "step-000004" in str(path):
            raise Killed("mid-checkpoint")
        real_save(obj, path, *args, **kwargs)

    monkeypatch.setattr(torch, "save", dies_at_step_4)
    with pytest.raises(Killed):
        train_adapter(**options)
    folder = checkpoint_folder(out)
    assert [p.name for p in folder.glob("step-*")] == ["step-000002"] and not list(folder.glob(".*partial"))
    monkeypatch.setattr(torch, "save", real_save)
    assert train_adapter(**options).card["steps"] == 4


def test_translate_and_summarize_train_on_the_room_prompts(tiny_base, tmp_path):
    src, ref = tmp_path / "en.txt", tmp_path / "fr.txt"
    src.write_text("Good morning.\nThe truck is late.\nSee you tomorrow.\nThanks a lot.\n", encoding="utf-8")
    ref.write_text("Bonjour.\nLe camion est en retard.\nÀ demain.\nMerci beaucoup.\n", encoding="utf-8")
    quick = {**QUICK, "steps": 2}
    translate = train_adapter(task="translate", model=f"hf:{tiny_base}", data=f"files:{src},{ref}", pair="eng-fra",
                              out=tmp_path / "t", **quick)  # fmt: skip
    assert translate.card["data"]["prompt"].startswith("user_translate/baseline (")
    assert translate.card["data"]["license"] == "unknown (user-supplied files)"
    rows = load_transcripts(project_root() / "data" / "synth" / "summarize.jsonl")[:8]
    small = tmp_path / "chats.jsonl"
    small.write_text("".join(r.model_dump_json(exclude_none=True) + "\n" for r in rows), encoding="utf-8")
    summary = train_adapter(task="summarize-onecall", model=f"hf:{tiny_base}", data=str(small), out=tmp_path / "s",
                            **{**quick, "max_tokens": 512})  # fmt: skip
    assert summary.card["data"]["prompt"].startswith("summarizer_onecall/baseline (")
    data = summary.card["data"]
    assert data["train"] + data["validation"] + data["dropped_too_long"] == 8 and data["train"] >= 5


def test_the_command_line_trains_and_prints_the_spec(tiny_base, route_file, tmp_path, capsys):
    out = tmp_path / "cli"
    argv = ["tune", "route", "--model", f"hf:{tiny_base}", "--data", str(route_file), "--out", str(out), "--steps", "2",
            "--batch-size", "4", "--max-tokens", "160", "--no-progress"]  # fmt: skip
    assert main(argv) == 0
    printed = capsys.readouterr().out.splitlines()
    assert printed[0].startswith(f"adapter: {out} (lora-sha256:")
    assert "validation loss" in printed[1] and printed[2] == f"use it as: hf:{tiny_base}+lora:{out}"


def test_the_quick_setting_and_option_checks(monkeypatch, capsys):
    seen = {}

    def fake_train(config, progress=None):
        seen["config"] = config
        raise Killed

    monkeypatch.setattr("aya_lab.tune.cli.train_adapter", fake_train)
    with pytest.raises(Killed):
        main(["tune", "route", "--model", "smollm2", "--data", "x.jsonl", "--out", "o", "--quick"])
    assert seen["config"].steps == QUICK_STEPS == 20
    assert main(["tune", "route", "--model", "smollm2", "--data", "x.jsonl", "--out", "o", "--validation", "1.5"]) == 2
    assert capsys.readouterr().err.strip() == (
        "error: validation is the held-out fraction, between 0 and 1 (e.g. 0.1), got 1.5"
    )
    with pytest.raises(Exception, match="neither cpu nor cuda"):
        TuneConfig(task="route", model="smollm2", data="x", out="o", device="tpu")


def test_the_keyword_options_are_the_configs_fields():
    """``train_adapter(**options)`` is typed by ``TuneOptions``: the names and types of ``TuneConfig``'s fields."""
    fields = {f.name: f.type for f in dataclasses.fields(TuneConfig)}
    options = {name: getattr(tp, "__forward_arg__", tp) for name, tp in TuneOptions.__annotations__.items()}
    assert options == fields


@pytest.mark.slow
def test_a_real_kill_is_resumed(tiny_base, route_file, tmp_path):
    """SIGKILL a training process once it has written a checkpoint (no cleanup code runs), then rerun: the run
    resumes from an intact checkpoint and writes a loadable adapter."""
    import os
    import signal
    import subprocess
    import sys
    import time

    out = tmp_path / "killed"
    argv = ["tune", "route", "--model", f"hf:{tiny_base}", "--data", str(route_file), "--out", str(out), "--steps",
            "400", "--batch-size", "4", "--max-tokens", "160", "--checkpoint-every", "1", "--lr", "3e-2", "--no-progress"]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(project_root()), "OMP_NUM_THREADS": "1"}
    code = "import sys, torch; torch.set_num_threads(1); from aya_lab.cli import main; sys.exit(main(sys.argv[1:]))"
    proc = subprocess.Popen(
        [sys.executable, "-c", code, *argv], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    folder = checkpoint_folder(out)
    deadline = time.monotonic() + 600

    def reached_third() -> bool:  # only the newest two checkpoints are kept, so step 3 itself may already be gone
        return any(int(p.name.split("-")[1]) >= 3 for p in folder.glob("step-[0-9]*"))

    while not reached_third() and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert not out.exists() and list(folder.glob("step-*")), "killed before its third checkpoint"
    reached = int(sorted(folder.glob("step-*"))[-1].name.split("-")[1])
    result = train_adapter(task="route", model=f"hf:{tiny_base}", data=str(route_file), out=out, steps=reached + 1,
                           batch_size=4, max_tokens=160, learning_rate=3e-2, checkpoint_every=1, progress=False)  # fmt: skip
    assert result.card["steps"] == reached + 1 and read_adapter(out).content_id == result.card["adapter"]
