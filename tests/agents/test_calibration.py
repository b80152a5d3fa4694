"""Calibrations are data (issue 39 item 3): the gate's numbers come from ``data/calibration/``, keyed by
the exact spec of the model that wrote a draft; a model without a file has no record and gets the
model-independent gate only; a bad file is one located error line."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest

from aya_lab.agents import calibration
from aya_lab.agents.calibration import (
    THRESHOLDS_FILE,
    CalibrationError,
    calibration_dir,
    load_thresholds,
    model_key,
    translator_path,
    translator_record,
)
from aya_lab.agents.faithfulness import faithful_thresholds, floor_for, threshold_for
from aya_lab.agents.guard import MARKER, ORIGINAL, UNRECORDED, UNVERIFIED, guard_translations
from aya_lab.models.fake import FakeChatModel

ADAPTER = "gemma3-270m+lora:data/adapters/gemma3-270m-swh-eng/step-050"
SOURCE, SWAHILI = "The budget meeting moved to Friday.", "Mkutano wa bajeti umehamishwa hadi Ijumaa."


class Translator(FakeChatModel):
    """A fake standing for a real translator: its spec names it, and every guard check applies."""

    guard_checks: tuple[str, ...] = ("faithful",)


@pytest.fixture
def cal_dir(tmp_path, monkeypatch):
    """A copy of the committed calibrations that the gate reads instead of ``data/calibration``."""
    folder = tmp_path / "calibration"
    shutil.copytree(calibration_dir(), folder)
    monkeypatch.setattr(calibration, "calibration_dir", lambda: folder)
    return folder


def test_the_gate_reads_the_committed_files_and_the_default_translator_has_a_record():
    assert faithful_thresholds() == load_thresholds().thresholds and threshold_for("eng", "fra") == min(
        faithful_thresholds()["eng"], faithful_thresholds()["fra"]
    )
    record = translator_record("gemma3-270m")
    assert record is not None and record.model == "gemma3-270m" and {"swh", "yor"} == set(record.unsupported)
    assert floor_for(SimpleNamespace(spec=" gemma3-270m ")) is not None  # spelled with spaces: the same spec


def test_an_adapter_is_not_its_base_no_record_means_the_model_independent_gate():
    assert (
        translator_path(ADAPTER).name == "translator-gemma3-270m-lora-data-adapters-gemma3-270m-swh-eng-step-050.json"
    )
    assert translator_record(ADAPTER) is None and floor_for(SimpleNamespace(spec=ADAPTER)) is None
    assert floor_for(SimpleNamespace()) is None and floor_for(SimpleNamespace(spec=None)) is None
    base, adapter = Translator(spec="gemma3-270m"), Translator(spec=ADAPTER)
    out, notes = guard_translations(SOURCE, "eng", {"swh": SWAHILI}, base)
    assert out["swh"] == f"{MARKER} {SOURCE}" and "gemma3-270m produced no faithful translation" in notes[0]
    out, notes = guard_translations(SOURCE, "eng", {"swh": SWAHILI}, adapter)  # its base's record is not its own
    assert out["swh"] == f"{UNVERIFIED} {SWAHILI} {ORIGINAL} {SOURCE}" and UNRECORDED in notes[0]


def test_removing_a_translator_file_removes_its_record_and_a_new_file_gives_one(cal_dir):
    base = Translator(spec="gemma3-270m")
    translator_path("gemma3-270m", cal_dir).unlink()
    assert floor_for(base) is None
    out, notes = guard_translations(SOURCE, "eng", {"swh": SWAHILI}, base)  # passes the written thresholds, flagged
    assert out["swh"] == f"{UNVERIFIED} {SWAHILI} {ORIGINAL} {SOURCE}" and UNRECORDED in notes[0]
    raw = json.loads((calibration_dir() / "translator-gemma3-270m.json").read_text(encoding="utf-8"))
    translator_path(ADAPTER, cal_dir).write_text(json.dumps({**raw, "model": ADAPTER}), encoding="utf-8")
    assert floor_for(Translator(spec=ADAPTER)).unsupported == frozenset({"swh", "yor"})  # its own file, its record


@pytest.mark.parametrize(
    "change,message",
    [
        (lambda r: {**r, "extra": 1}, "extra: Extra inputs are not permitted"),
        (lambda r: {**r, "version": 2}, "version: Input should be 1"),
        (lambda r: {**r, "thresholds": {"eng": 8.43}}, "thresholds: eng's 8.43 is no similarity"),
        (lambda r: {k: v for k, v in r.items() if k != "data"}, "data: Field required"),
    ],
    ids=["extra", "version", "range", "missing"],
)
def test_a_malformed_thresholds_file_is_one_located_line_naming_the_fix(cal_dir, change, message):
    path = cal_dir / THRESHOLDS_FILE
    path.write_text(json.dumps(change(json.loads(path.read_text(encoding="utf-8")))), encoding="utf-8")
    with pytest.raises(CalibrationError) as info:
        threshold_for("eng", "fra")
    text = str(info.value)
    assert text.startswith(f"{path}: ") and message in text and "--write-calibration" in text and "\n" not in text


def test_a_missing_thresholds_file_bad_json_and_a_file_for_another_model_are_errors(cal_dir):
    (cal_dir / THRESHOLDS_FILE).unlink()
    with pytest.raises(CalibrationError, match="faithfulness-thresholds.json: file not found; restore it from git"):
        load_thresholds()
    path = translator_path("gemma3-270m", cal_dir)
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace('"model": "gemma3-270m"', '"model": "gemma3-270m+lora:x"'), encoding="utf-8")
    with pytest.raises(CalibrationError, match=r"model: 'gemma3-270m\+lora:x' is not 'gemma3-270m'"):
        floor_for(Translator(spec="gemma3-270m"))
    path.write_text("{", encoding="utf-8")
    with pytest.raises(CalibrationError, match=r"translator-gemma3-270m.json: line 1: not JSON"):
        translator_record("gemma3-270m")


def test_model_keys_are_file_names():
    assert model_key("gemma3-270m") == "gemma3-270m" and model_key("hf:org/m@v1") == "hf-org-m-v1"
    assert Path(translator_path("a/../../b")).parent == calibration_dir()  # no folder escapes through a spec
