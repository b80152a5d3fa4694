"""Notebooks keep their rooms in runs/ unless AYA_LAB_RUNS_DIR points elsewhere."""

from aya_lab.notebook import runs_dir
from aya_lab.paths import project_root


def test_runs_dir_defaults_to_the_repository(monkeypatch):
    monkeypatch.delenv("AYA_LAB_RUNS_DIR", raising=False)
    assert runs_dir() == project_root() / "runs"


def test_aya_lab_runs_dir_moves_it_and_creates_it(monkeypatch, tmp_path):
    target = tmp_path / "a" / "b"
    monkeypatch.setenv("AYA_LAB_RUNS_DIR", str(target))
    assert runs_dir() == target and target.is_dir()
