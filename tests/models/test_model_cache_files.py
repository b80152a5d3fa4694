"""One generation-cache file per model: notebooks on another model never write the committed cache."""

from __future__ import annotations

import os
import sqlite3

import pytest
from langchain_core.messages import HumanMessage

import aya_lab.notebook as nb
from aya_lab.models import CacheMissError, ModelSpecError, load_model
from aya_lab.models.cache import default_cache_path, model_cache_file
from aya_lab.settings import settings
from tests.fakes import tiny_chat_family


@pytest.fixture(scope="module")
def tiny_dir(tmp_path_factory):
    return tiny_chat_family("qwen2", tmp_path_factory.mktemp("tiny-qwen2"))


@pytest.fixture
def notebook_env(tmp_path, monkeypatch):
    """No explicit cache path, no model named; runs/ redirected to a temp dir."""
    for var in ("AYA_LAB_GENERATION_CACHE", "AYA_LAB_MODEL", *nb.ROLE_ENV.values()):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setattr(nb, "_ROUTED", {})
    monkeypatch.setattr(nb, "runs_dir", lambda: tmp_path / "runs")
    return tmp_path / "runs" / "caches"


def test_model_cache_file_is_named_by_the_weights():
    assert model_cache_file("/c", "sha256:abc123#9f8e7d").name == "generations-sha256-abc123.sqlite"
    assert model_cache_file("/c", "hub:org/Name-1.5B@0123abc").name == "generations-hub-org-Name-1.5B-0123abc.sqlite"
    with pytest.raises(ValueError, match="gives no file name"):
        model_cache_file("/c", "::")


def test_embedded_models_use_the_committed_cache(notebook_env):
    assert nb.setup_notebook() == "smollm2"
    assert default_cache_path() == nb.notebook_cache_path()
    assert nb.notebook_models() == {"translator": "gemma3-270m", "aya": "smollm2"}


def test_setup_notebook_overrides_settings_and_writes_no_environment(notebook_env):
    before = dict(os.environ)
    nb.setup_notebook()
    assert dict(os.environ) == before
    assert settings().tqdm_disable and settings().generation_cache == nb.notebook_cache_path()


def test_another_model_gets_its_own_file_and_writes_only_there(notebook_env, tiny_dir, monkeypatch):
    spec = f"hf:{tiny_dir}"
    monkeypatch.setenv("AYA_LAB_MODEL", spec)
    assert nb.setup_notebook() == spec
    model = load_model(spec, settings={"max_new_tokens": 2}, reuse=False)
    expected = model_cache_file(notebook_env, model.fingerprint)
    assert default_cache_path() == expected != nb.notebook_cache_path()
    assert expected.name == "generations-" + model.fingerprint.split("#")[0].replace(":", "-") + ".sqlite"
    model.generate_texts([[HumanMessage("hi")]])
    with sqlite3.connect(expected) as conn:
        assert conn.execute("SELECT DISTINCT fingerprint FROM generations").fetchall() == [(model.fingerprint,)]


def test_one_role_on_another_model_is_enough_to_move_the_cache(notebook_env, tiny_dir, monkeypatch):
    monkeypatch.setenv("AYA_LAB_MODEL_TRANSLATOR", f"hf:{tiny_dir}")
    nb.setup_notebook()
    assert nb.notebook_models() == {"translator": f"hf:{tiny_dir}", "aya": "smollm2"}
    assert default_cache_path().parent == notebook_env
    monkeypatch.delenv("AYA_LAB_MODEL_TRANSLATOR")
    nb.setup_notebook()  # the path it set itself is re-derived, not taken as the user's choice
    assert default_cache_path() == nb.notebook_cache_path()


def test_replay_names_the_model_whose_cache_is_missing(notebook_env, tiny_dir, monkeypatch):
    monkeypatch.setenv("AYA_LAB_CACHE_MODE", "replay")
    monkeypatch.setenv("AYA_LAB_MODEL_AYA", f"hf:{tiny_dir}")
    with pytest.raises(CacheMissError) as err:
        nb.setup_notebook()
    message = str(err.value)
    assert f"aya=hf:{tiny_dir}" in message and "translator=" not in message
    assert str(notebook_env) in message and "AYA_LAB_CACHE_MODE=readwrite" in message


def test_an_explicit_cache_path_wins(notebook_env, tiny_dir, tmp_path, monkeypatch):
    monkeypatch.setenv("AYA_LAB_GENERATION_CACHE", str(tmp_path / "mine.sqlite"))
    monkeypatch.setenv("AYA_LAB_MODEL", f"hf:{tiny_dir}")
    nb.setup_notebook()
    assert default_cache_path() == tmp_path / "mine.sqlite"


def test_a_bad_role_spec_names_itself(notebook_env, monkeypatch):
    monkeypatch.setenv("AYA_LAB_MODEL_AYA", "smolm2")
    with pytest.raises(ModelSpecError, match="'smolm2'"):
        nb.setup_notebook()


def test_expected_footprint_scales_with_size():
    small, big = nb.expected_footprint(135_000_000), nb.expected_footprint(8_000_000_000)
    assert [r["device"] for r in small] == ["CPU, fp32", "GPU (H200), bf16"]
    assert big[1]["weights GB"] == 16.0 and big[0]["weights GB"] == 32.0
    assert small[0]["tok/s ceiling (batch 1)"] > big[0]["tok/s ceiling (batch 1)"]
