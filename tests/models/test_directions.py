"""Per-direction translators: the translator:SRC-TGT key, its measured defaults and its refusals."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from aya_lab import notebook as nb
from aya_lab.agents.calibration import translator_record
from aya_lab.models import ModelSpecError
from aya_lab.models import directions as directions_module
from aya_lab.models.directions import direction_defaults, direction_of, is_direction_key
from aya_lab.models.fake import FakeChatModel
from aya_lab.models.loader import load_role_models, parse_role_models
from aya_lab.paths import adapters_dir
from aya_lab.settings import DEFAULT_DIRECTION_ADAPTERS


@pytest.mark.parametrize(
    "key, ok",
    [("translator:swh-eng", True), ("translator:eng-eng", False), ("translator:sw-en", False),
     ("translator:swh_eng", False), ("aya:swh-eng", False), ("translator", False)],
)  # fmt: skip
def test_direction_keys(key, ok):
    assert is_direction_key(key) is ok


def test_a_bad_direction_key_is_one_line_naming_it_and_the_form():
    with pytest.raises(ModelSpecError) as err:
        direction_of("translator:swahili-english", "models={...}")
    msg = str(err.value)
    assert "'translator:swahili-english'" in msg and "translator:swh-eng" in msg and "\n" not in msg


def test_a_bad_direction_on_the_command_line_is_named_as_a_direction():
    """``--model translator:french-eng=SPEC`` is refused as a direction key, not as an unknown model spec."""
    with pytest.raises(ModelSpecError) as err:
        parse_role_models(["translator:french-eng=fake:x"])
    msg = str(err.value)
    assert (
        msg.startswith("unknown model key 'translator:french-eng'") and "translator:swh-eng" in msg and "\n" not in msg
    )


MEASURED = {"swh-eng": ("gemma3-270m", "gemma3-270m-swh-eng/step-050")}
"""A committed adapter planted as a default: the mechanism is tested on it (the room ships none, below)."""


@pytest.fixture
def planted(monkeypatch):
    monkeypatch.setattr(directions_module, "DEFAULT_DIRECTION_ADAPTERS", MEASURED)


def test_no_adapter_is_a_default_without_its_own_record_on_chat():
    """An adapter becomes a direction's default only with its own calibration record (labelled drafts of
    chat messages) in which its drafts into the target were faithful and neither language is one it writes no
    faithful draft in; the Swahili -> English adapters have none (3 faithful drafts of 160 chat messages at most,
    notebook 09)."""
    for pair, (base, folder) in DEFAULT_DIRECTION_ADAPTERS.items():
        assert (adapters_dir() / folder / "aya_lab_adapter.json").is_file()
        (spec,) = direction_defaults(base).values()
        record = translator_record(spec)
        assert record is not None, f"{pair}: no record of its own"
        source, target = pair.split("-")
        assert record.faithful_by_target.get(target, (0, 0))[0] > 0, f"{pair}: no faithful draft in its record"
        assert not {source, target} & set(record.unsupported), f"{pair}: its record withholds these languages"
    assert "swh-eng" not in DEFAULT_DIRECTION_ADAPTERS
    assert direction_defaults("gemma3-270m") == {}


def test_the_planted_default_adapter_is_committed_and_named_for_its_base(planted):
    for pair, (base, folder) in MEASURED.items():
        assert is_direction_key(f"translator:{pair}")
        assert (adapters_dir() / folder / "aya_lab_adapter.json").is_file()
        (spec,) = direction_defaults(base).values()
        assert spec.startswith(f"{base}+lora:") and Path(spec.split("+lora:")[1]).resolve() == adapters_dir() / folder


def test_the_default_adapter_path_is_relative_inside_the_checkout(monkeypatch, tmp_path, planted):
    monkeypatch.chdir(adapters_dir().parent.parent / "notebooks")
    assert direction_defaults("gemma3-270m")["translator:swh-eng"].endswith(
        "+lora:../data/adapters/gemma3-270m-swh-eng/step-050"
    )
    monkeypatch.chdir(tmp_path)  # outside the checkout: absolute
    assert Path(direction_defaults("gemma3-270m")["translator:swh-eng"].split("+lora:")[1]).is_absolute()


def test_defaults_apply_only_to_the_adapters_base_written_as_a_spec(planted):
    assert "translator:swh-eng" in direction_defaults("gemma3-270m")
    assert direction_defaults("smollm2") == {}  # another translator: an adapter for Gemma would not fit
    assert direction_defaults("gemma3-270m~transformers") == {}  # only the base as written
    assert direction_defaults(FakeChatModel(default="x")) == {}  # a model object: the caller chose it


def test_a_missing_adapter_folder_keeps_the_translator_with_a_warning(monkeypatch, tmp_path, caplog, planted):
    monkeypatch.setattr(directions_module, "adapters_dir", lambda: tmp_path)
    with caplog.at_level(logging.WARNING):
        assert direction_defaults("gemma3-270m") == {}
    assert "missing" in caplog.text and "swh-eng" in caplog.text


def _loader(loaded):
    def load(spec, **kw):
        loaded.append(spec)
        return FakeChatModel(default=spec)

    return load


def test_load_role_models_adds_the_measured_direction_for_the_default_translator(planted):
    loaded: list[str] = []
    models = load_role_models(None, {"translator": "gemma3-270m", "aya": "smollm2"}, loader=_loader(loaded))
    assert set(models) == {"translator", "aya", "translator:swh-eng"}
    assert models["translator:swh-eng"].default.startswith("gemma3-270m+lora:")
    assert models["translator:swh-eng"].default.endswith("gemma3-270m-swh-eng/step-050")


def test_a_named_direction_wins_and_another_translator_gets_no_default():
    loaded: list[str] = []
    mine = {"translator": "gemma3-270m", "aya": "smollm2", "translator:swh-eng": "smollm2"}
    models = load_role_models(None, mine, loader=_loader(loaded))
    assert models["translator:swh-eng"] is models["aya"]  # named: used, and loaded once
    assert sorted(loaded) == ["gemma3-270m", "smollm2"]
    other = load_role_models(None, {"translator": "smollm2", "aya": "smollm2"}, loader=_loader([]))
    assert set(other) == {"translator", "aya"}


def test_parse_role_models_reads_a_direction():
    assert parse_role_models(["translator:swh-eng=smollm2", "aya=smollm2"]) == {
        "translator:swh-eng": "smollm2",
        "aya": "smollm2",
    }
    with pytest.raises(ModelSpecError):
        load_role_models(None, {"translator:swahili": "smollm2"}, loader=_loader([]))


def test_room_notebooks_get_the_measured_directions_and_the_others_do_not(monkeypatch, planted):
    for var in ("AYA_LAB_MODEL", "AYA_LAB_MODEL_TRANSLATOR", "AYA_LAB_MODEL_AYA"):
        monkeypatch.delenv(var, raising=False)
    assert set(nb.notebook_models()) == {"translator", "aya"}
    assert set(nb.notebook_models(directions=True)) == {"translator", "aya", "translator:swh-eng"}
