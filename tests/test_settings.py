"""One frozen set of settings: parsed once from the environment, overridable without writing it, a bad
value named in one line, and docs/SETTINGS.md generated from the code."""

from __future__ import annotations

import dataclasses
import os
import re
from pathlib import Path

import pytest

import aya_lab.settings as settings_module
from aya_lab.errors import AyaLabError
from aya_lab.models.cache import cache_mode, default_cache_path, set_default_cache
from aya_lab.models.loader import ROLES, default_model_spec
from aya_lab.settings import Settings, SettingsError, configure, reset_settings, settings, settings_table, use_settings

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(
    ("var", "value", "fix"),
    [
        ("AYA_LAB_THREADS", "two", "set e.g. AYA_LAB_THREADS=2"),
        ("AYA_LAB_CACHE_MODE", "replai", "is not one of off, readwrite, replay; set one of them"),
        ("AYA_LAB_ENGINE", "dask", "is not one of local, ray"),
        ("AYA_LAB_ALLOW_DOWNLOADS", "maybe", "set AYA_LAB_ALLOW_DOWNLOADS=1 (on) or AYA_LAB_ALLOW_DOWNLOADS=0 (off)"),
        ("SACREBLEU_SEED", "lucky", "SACREBLEU_SEED=none to draw from the OS"),
    ],
)
def test_a_bad_value_is_one_line_naming_the_variable_the_value_and_the_fix(monkeypatch, var, value, fix):
    monkeypatch.setenv(var, value)
    with pytest.raises(SettingsError) as err:
        settings()
    message = str(err.value)
    assert message.startswith(f"{var}={value!r} ") and fix in message and "\n" not in message
    assert isinstance(err.value, AyaLabError) and isinstance(err.value, ValueError)


def test_values_are_typed_and_unset_or_empty_means_the_default():
    parsed = Settings.from_env(
        {"AYA_LAB_THREADS": " 3 ", "AYA_LAB_CACHE_DIR": "~/x", "AYA_LAB_CACHE_MODE": "Replay", "AYA_LAB_MODEL": ""}
    )
    assert parsed.threads == 3 and parsed.cache_dir == Path("~/x").expanduser() and parsed.cache_mode == "replay"
    assert parsed.model is None and parsed.engine == "local" and parsed.sacrebleu_seed == 12345
    assert Settings.from_env({"SACREBLEU_SEED": "none", "HF_HUB_OFFLINE": "1"}).sacrebleu_seed is None
    assert Settings.from_env({}) == Settings()
    with pytest.raises(dataclasses.FrozenInstanceError):
        parsed.threads = 4  # type: ignore[misc]


def test_the_environment_is_parsed_once_and_again_only_when_a_variable_changes(monkeypatch):
    calls = []
    real = Settings.from_env.__func__  # type: ignore[attr-defined]

    def counting(cls, environ=None):
        calls.append(1)
        return real(cls, environ)

    monkeypatch.setattr(Settings, "from_env", classmethod(counting))
    monkeypatch.setenv("AYA_LAB_THREADS", "2")
    first = settings()
    for _ in range(100):
        assert settings() is first
    assert len(calls) == 1
    monkeypatch.setenv("AYA_LAB_THREADS", "3")  # a test or a notebook cell changed it: seen at the next call
    assert settings().threads == 3 and len(calls) == 2
    monkeypatch.setenv("UNRELATED_VARIABLE", "x")
    settings()
    assert len(calls) == 2


def test_overrides_win_over_the_environment_and_never_write_it(monkeypatch):
    monkeypatch.setenv("AYA_LAB_MODEL", "smollm2")
    monkeypatch.delenv("AYA_LAB_THREADS", raising=False)  # make test sets it for its workers
    with use_settings(model="gemma3-270m", threads=2) as inside:
        assert inside.model == settings().model == "gemma3-270m" == default_model_spec("aya")
        with use_settings(threads="4"):
            assert settings().threads == 4 and settings().model == "gemma3-270m"
        assert settings().threads == 2
    assert settings().model == "smollm2" and settings().threads is None
    configure(cache_mode="replay", generation_cache="/tmp/x.sqlite")
    assert cache_mode() == "replay" and default_cache_path() == Path("/tmp/x.sqlite")
    reset_settings("cache_mode")
    assert cache_mode() == "readwrite" and default_cache_path() == Path("/tmp/x.sqlite")
    reset_settings()
    assert os.environ["AYA_LAB_CACHE_MODE"] == "readwrite" and default_cache_path() != Path("/tmp/x.sqlite")


def test_set_default_cache_is_an_override(tmp_path):
    before = dict(os.environ)
    set_default_cache(tmp_path / "c.sqlite", "replay")
    assert default_cache_path() == tmp_path / "c.sqlite" and cache_mode() == "replay"
    assert dict(os.environ) == before


def test_an_override_is_checked_like_the_environment(monkeypatch):
    monkeypatch.delenv("AYA_LAB_THREADS", raising=False)  # make test sets it for its workers
    with pytest.raises(SettingsError, match=r"AYA_LAB_THREADS='0' is not a positive whole number"):
        configure(threads=0)
    with pytest.raises(SettingsError, match=r"no setting 'thread'; settings are .*threads"):
        with use_settings(thread=2):
            pass
    assert settings().threads is None  # nothing half-applied


def test_every_role_has_its_own_setting():
    names = {f.name: f.metadata["env"] for f in dataclasses.fields(Settings)}
    assert all(names[f"model_{role}"] == f"AYA_LAB_MODEL_{role.upper()}" for role in ROLES)


def test_docs_settings_page_is_the_generated_table():
    committed = (ROOT / "docs" / "SETTINGS.md").read_text(encoding="utf-8")
    assert committed == settings_table(), "regenerate: python -m aya_lab.settings > docs/SETTINGS.md"


def test_every_variable_the_package_names_is_a_setting():
    named = set()
    for path in set((ROOT / "aya_lab").rglob("*.py")) - {Path(settings_module.__file__)}:
        named |= {m.rstrip("_") for m in re.findall(r"AYA_LAB_[A-Z_]+", path.read_text(encoding="utf-8"))}
    assert named <= set(settings_module.variables()), named - set(settings_module.variables())
