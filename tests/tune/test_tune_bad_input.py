"""Bad input to ``aya-lab tune`` and to ``BASE+lora:PATH`` (issue 26, "Bad input"): each is refused with one line
naming the file (or value) and the fix, before any training; a damaged or half-written adapter is never loaded."""

from __future__ import annotations

import json
import shutil

import pytest

from aya_lab.cli import main
from aya_lab.errors import AyaLabError
from aya_lab.models import load_model, parse_spec
from aya_lab.models.adapter import CARD_FILE
from aya_lab.models.errors import AdapterError, ModelSpecError
from aya_lab.paths import project_root
from aya_lab.tune import TrainingDataError, TuneError, train_adapter
from tests.tune.conftest import QUICK

TRANSCRIPTS = project_root() / "data" / "transcripts" / "transcripts.jsonl"


def refused(error: type[BaseException], match: str, fn, *args, **kwargs) -> str:
    """Call ``fn``; it must raise ``error`` with a one-line message matching ``match``; returns the message."""
    with pytest.raises(error, match=match) as exc:
        fn(*args, **kwargs)
    message = str(exc.value)
    assert "\n" not in message and isinstance(exc.value, AyaLabError), message
    return message


def tune(base, data, tmp_path, **options):
    return train_adapter(**{"task": "route", "model": f"hf:{base}", "data": str(data), "out": tmp_path / "out", **QUICK, **options})  # fmt: skip


@pytest.fixture
def adapter_copy(trained, tmp_path):
    copy = tmp_path / "copy"
    shutil.copytree(trained.path, copy)
    return copy


# -- training data --------------------------------------------------------------------------------------------
def test_misaligned_translation_files(tiny_base, tmp_path):
    src, ref = tmp_path / "en.txt", tmp_path / "sw.txt"
    src.write_text("one\ntwo\nthree\n", encoding="utf-8")
    ref.write_text("moja\nmbili\n", encoding="utf-8")
    message = refused(TrainingDataError, "misaligned files", tune, tiny_base, f"files:{src},{ref}", tmp_path,
                      task="translate", pair="eng-swh")  # fmt: skip
    assert str(src) in message and str(ref) in message and "line i of one file must translate line i" in message


def test_an_empty_split(tiny_base, route_file, tmp_path):
    one = tmp_path / "one.jsonl"
    one.write_text(route_file.read_text().splitlines()[0] + "\n", encoding="utf-8")
    message = refused(TrainingDataError, "has 1 usable example", tune, tiny_base, one, tmp_path)
    assert str(one) in message and "at least 2" in message
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n", encoding="utf-8")
    refused(AyaLabError, "the file is empty", tune, tiny_base, empty, tmp_path)


def test_a_registered_set_without_a_train_split(tiny_base, tmp_path, monkeypatch):
    monkeypatch.setenv("AYA_LAB_DATA_DIR", str(tmp_path / "data"))
    folder = tmp_path / "data" / "mafand"
    folder.mkdir(parents=True)
    for side, text in (("en", "Hello.\nThanks.\n"), ("swa", "Habari.\nAsante.\n")):
        (folder / f"mafand.test.en-swa.{side}.txt").write_text(text, encoding="utf-8")
    message = refused(TrainingDataError, r"mafand \(train\) has no pair eng-swh", tune, tiny_base, "mafand", tmp_path,
                      task="translate", pair="eng-swh")  # fmt: skip
    assert "train split" in message
    refused(TrainingDataError, "needs the direction", tune, tiny_base, "mafand", tmp_path, task="translate")


@pytest.mark.parametrize(
    ("task", "data", "match"),
    [
        ("route", TRANSCRIPTS, r"holds summarize transcripts .*; train it with --task summarize-onecall"),
        ("summarize-onecall", "ROUTE", r"holds routing requests .*; train it with --task route"),
        ("translate", TRANSCRIPTS, "takes a parallel set .* not the JSONL file"),
        ("summarize-onecall", "mafand", "takes a JSONL file of summarize transcripts"),
    ],
    ids=["route-given-transcripts", "summarize-given-routing", "translate-given-jsonl", "summarize-given-a-set"],
)
def test_task_and_format_mismatch(tiny_base, route_file, tmp_path, task, data, match):
    data = route_file if data == "ROUTE" else data
    message = refused(TrainingDataError, match, tune, tiny_base, data, tmp_path, task=task, pair="eng-swh")
    assert str(data) in message


def test_a_transcript_without_a_reference_summary(tiny_base, tmp_path):
    record = json.loads(TRANSCRIPTS.read_text().splitlines()[0])
    del record["reference_summary"]
    path = tmp_path / "chats.jsonl"
    path.write_text(json.dumps(record) + "\n" + json.dumps({**record, "id": "t2"}) + "\n", encoding="utf-8")
    refused(TrainingDataError, "transcript t001 has no reference_summary", tune, tiny_base, path, tmp_path,
            task="summarize-onecall")  # fmt: skip


# -- what to train, and where ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("model", "match"),
    [
        ("smollm2+lora:/somewhere", "not from the adapter spec"),
        ("gguf:/models/x.gguf", "gguf: models run on llama.cpp only"),
        ("seq2seq:/models/nllb", "seq2seq: models are not causal LMs"),
        ("smollm2~llama.cpp", "training runs on transformers; drop ~llama.cpp"),
    ],
)
def test_models_that_cannot_be_trained(route_file, tmp_path, model, match):
    refused(TuneError, match, train_adapter, task="route", model=model, data=str(route_file), out=tmp_path / "o")


def test_unknown_target_modules_name_the_real_ones(tiny_base, route_file, tmp_path):
    message = refused(TuneError, "--targets foo_proj", tune, tiny_base, route_file, tmp_path, targets=("foo_proj",))
    assert "q_proj" in message and "down_proj" in message


def test_an_output_folder_of_another_run_is_not_replaced(tiny_base, route_file, trained, tmp_path):
    shutil.copytree(trained.path, tmp_path / "out")
    refused(TuneError, "already exists and is not an adapter of this run; .*--overwrite", tune, tiny_base,
            route_file, tmp_path, learning_rate=1e-2)  # fmt: skip
    (tmp_path / "stray").mkdir()
    refused(TuneError, "already exists", tune, tiny_base, route_file, tmp_path, out=tmp_path / "stray")


def test_checkpoints_of_another_run_are_not_resumed(tiny_base, route_file, tmp_path):
    tune(tiny_base, route_file, tmp_path, steps=2, out=tmp_path / "a")
    shutil.rmtree(tmp_path / "a")  # the adapter is gone; its checkpoints stay
    message = refused(TuneError, "holds checkpoints of another run", tune, tiny_base, route_file, tmp_path,
                      out=tmp_path / "a", learning_rate=1e-2)  # fmt: skip
    assert "learning_rate" in message and "--restart" in message and "a.checkpoints" in message
    result = tune(tiny_base, route_file, tmp_path, out=tmp_path / "a", learning_rate=1e-2, restart=True, steps=2)
    assert result.card["hyperparameters"]["learning_rate"] == 1e-2


def test_the_command_line_prints_one_error_line(tiny_base, tmp_path, capsys):
    argv = ["tune", "route", "--model", f"hf:{tiny_base}", "--data", str(TRANSCRIPTS), "--out", str(tmp_path / "o")]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("error: ") and str(TRANSCRIPTS) in err


# -- adapters as models -----------------------------------------------------------------------------------------
def test_an_adapter_for_another_base_model(other_base, trained):
    message = refused(AdapterError, "was trained on", load_model, f"hf:{other_base}+lora:{trained.path}")
    assert str(trained.path) in message and f"write {trained.card['base']['spec']}+lora:{trained.path}" in message


def test_a_corrupted_adapter_file(tiny_base, adapter_copy):
    weights = adapter_copy / "adapter_model.safetensors"
    data = bytearray(weights.read_bytes())
    data[len(data) // 2] ^= 0xFF
    weights.write_bytes(bytes(data))
    message = refused(AdapterError, "does not match its run card", load_model, f"hf:{tiny_base}+lora:{adapter_copy}")
    assert str(weights) in message and "train the adapter again" in message


def test_a_half_written_adapter(tiny_base, adapter_copy):
    weights = adapter_copy / "adapter_model.safetensors"
    weights.write_bytes(weights.read_bytes()[: weights.stat().st_size // 2])  # a save cut off mid-file
    refused(AdapterError, "does not match its run card", load_model, f"hf:{tiny_base}+lora:{adapter_copy}")
    (adapter_copy / CARD_FILE).unlink()  # no run card: the save never finished
    message = refused(AdapterError, "has no run card", load_model, f"hf:{tiny_base}+lora:{adapter_copy}")
    assert str(adapter_copy) in message and "aya-lab tune" in message


def test_a_damaged_run_card(tiny_base, adapter_copy):
    card = adapter_copy / CARD_FILE
    card.write_text(card.read_text()[:40], encoding="utf-8")
    refused(AdapterError, "is not valid JSON", load_model, f"hf:{tiny_base}+lora:{adapter_copy}")
    card.write_text(json.dumps({"format": "other"}), encoding="utf-8")
    refused(AdapterError, "has format 'other'", load_model, f"hf:{tiny_base}+lora:{adapter_copy}")
    refused(AdapterError, "is a file, not a folder", load_model, f"hf:{tiny_base}+lora:{card}")


@pytest.mark.parametrize(
    ("spec", "match"),
    [
        ("smollm2+lora:", "names no adapter after '\\+lora:'"),
        ("smollm2+lora:a+lora:b", "more than one adapter"),
        ("seq2seq:x+lora:a", "LoRA adapters apply to causal LMs"),
        ("smollm2~llama.cpp+lora:a~transformers", "names two engines"),
        ("hf:x+lora:a~llama.cpp", "hf: models do not run on llama.cpp"),
        ("smollm2+lora:a~vllm", "unknown engine 'vllm'"),
    ],
)
def test_bad_adapter_specs(spec, match):
    refused(ModelSpecError, match, parse_spec, spec)
