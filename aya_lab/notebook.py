"""Notebook support: one call at the top of every notebook.

:func:`setup_notebook` points the generation cache at the committed ``notebooks/generations.sqlite``
(unless ``AYA_LAB_GENERATION_CACHE`` says otherwise), keeps progress bars off stderr, and returns the
model spec to use (``AYA_LAB_MODEL`` or ``smollm2``), so a notebook runs unchanged with ``hf:...`` on
a GPU. Under ``make test`` nbval runs with ``AYA_LAB_CACHE_MODE=replay``: every generation is
replayed from the cache, and a changed prompt or input is a cache miss (an error), not silent drift.
"""

from __future__ import annotations

import os
import warnings
from pathlib import Path

from aya_lab.models import default_model_spec
from aya_lab.paths import project_root

__all__ = ["setup_notebook", "notebook_cache_path", "runs_dir"]


def notebook_cache_path() -> Path:
    return project_root() / "notebooks" / "generations.sqlite"


def runs_dir() -> Path:
    """``runs/`` under the repository (ignored by git): where notebooks keep their rooms."""
    path = project_root() / "runs"
    path.mkdir(exist_ok=True)
    return path


def setup_notebook() -> str:
    """Configure caching and quiet output for a notebook; return the model spec to use."""
    os.environ.setdefault("AYA_LAB_GENERATION_CACHE", str(notebook_cache_path()))
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    os.environ["HF_HUB_DISABLE_PROGRESS_BARS"] = "1"
    os.environ["TQDM_DISABLE"] = "1"
    warnings.filterwarnings("ignore", category=DeprecationWarning)
    warnings.filterwarnings("ignore", message=".*sunset.*")
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()
    hf_logging.set_verbosity_error()

    return default_model_spec()
