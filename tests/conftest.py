"""Shared fixtures: every test gets its own generation cache file (readwrite mode), and settings
overrides a test makes (``configure``, e.g. through ``setup_notebook``) end with it.

Converted models stay in the user's aya_lab cache dir (``AYA_LAB_CACHE_DIR`` or ``~/.cache/aya_lab``),
so the embedded model is converted once per machine, not once per test run.
"""

from __future__ import annotations

import pytest

from aya_lab.settings import reset_settings


@pytest.fixture(autouse=True)
def _isolated_generation_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("AYA_LAB_GENERATION_CACHE", str(tmp_path / "generations.sqlite"))
    monkeypatch.setenv("AYA_LAB_CACHE_MODE", "readwrite")
    for var in ("AYA_LAB_MODEL", "AYA_LAB_MODEL_TRANSLATOR", "AYA_LAB_MODEL_AYA"):
        monkeypatch.delenv(var, raising=False)
    reset_settings()
    yield
    reset_settings()


@pytest.fixture(scope="session")
def tiny_llama_dir(tmp_path_factory):
    from tests.fakes import tiny_llama

    return tiny_llama(tmp_path_factory.mktemp("tiny-llama"))


@pytest.fixture(scope="session")
def tiny_marian_dir(tmp_path_factory):
    from tests.fakes import tiny_marian

    return tiny_marian(tmp_path_factory.mktemp("tiny-marian"))
