"""Notebook support: one call at the top of every notebook.

:func:`setup_notebook` points the generation cache at the right file, keeps progress bars off stderr, and
returns the model spec to use (``AYA_LAB_MODEL`` or the default), so a notebook runs unchanged with
``hf:...`` on a GPU. Under ``make test`` nbval runs with ``AYA_LAB_CACHE_MODE=replay``: every generation
is replayed from the cache, and a changed prompt or input is a cache miss (an error), not silent drift.

**One cache file per model.** The committed ``notebooks/generations.sqlite`` holds the generations of the
embedded models only. When the environment names any other model for a role (``AYA_LAB_MODEL`` for every
role, ``AYA_LAB_MODEL_TRANSLATOR`` / ``AYA_LAB_MODEL_AYA`` for one), the notebook reads and writes that
model's own file, ``runs/caches/generations-<weights>.sqlite`` (:func:`notebook_cache_for`), and never
the committed one; in replay mode a missing file is an error naming the model. An explicit
``AYA_LAB_GENERATION_CACHE`` still wins.

**The notebooks' one import for the project's data and helpers.** Besides its own functions, this module
re-exports (imported on first use) what a notebook needs from the package's lower layers: the prompt files
(``load_prompt``, ``load_pool``, ``list_variants``), the project's data sets (``load_transcripts``,
``load_routing_examples``, ``list_kb_documents``, ``load_rag_questions``), the knowledge base
(``KnowledgeBase``, ``DEFAULT_CHUNK_SIZE``), languages (``get_language``, ``ECHO_CHRF``), ``project_root``,
the held-out pairs of an adapter (``write_held_out``) and the notebook's printed ``report``. With
``aya_lab.eval``, ``aya_lab.room``, ``aya_lab.models``, ``aya_lab.graph`` and ``aya_lab.agents`` that is
every module a notebook imports from.

Nothing here writes the environment: the cache path and the silenced progress bars are settings
overrides (:func:`aya_lab.settings.configure`), held for the rest of the kernel's life.
"""

from __future__ import annotations

import hashlib
import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from aya_lab.models import CacheMissError, default_model_spec, parse_spec
from aya_lab.models.adapter import adapted_weights, read_adapter
from aya_lab.models.cache import cache_mode, model_cache_file
from aya_lab.models.directions import direction_defaults
from aya_lab.models.embedded import EMBEDDED
from aya_lab.models.fingerprint import file_sha256, weights_id
from aya_lab.models.loader import ROLES, ModelSpec
from aya_lab.models.resolve import resolve_checkpoint, resolve_gguf
from aya_lab.paths import project_root
from aya_lab.refs import lazy_exports
from aya_lab.settings import configure, reset_settings, settings

if TYPE_CHECKING:
    from aya_lab.datasets.project import (
        list_kb_documents,
        load_policy_questions,
        load_rag_questions,
        load_routing_examples,
        load_transcripts,
    )
    from aya_lab.langid import ECHO_CHRF
    from aya_lab.languages import get_language
    from aya_lab.notebook_report import report
    from aya_lab.prompts import list_variants, load_pool, load_prompt
    from aya_lab.rag import DEFAULT_CHUNK_SIZE, KnowledgeBase
    from aya_lab.rag.scope import (
        NEIGHBOURS,
        VOTE_WEIGHT,
        VOTERS,
        ScopePool,
        read_gold_sections,
        read_labelled_questions,
    )
    from aya_lab.rag.sections import SectionIndex
    from aya_lab.tune.heldout import write_held_out

_HOMES: dict[str, tuple[str, ...]] = {
    "aya_lab.datasets.project": (
        "list_kb_documents",
        "load_policy_questions",
        "load_rag_questions",
        "load_routing_examples",
        "load_transcripts",
    ),
    "aya_lab.langid": ("ECHO_CHRF",),
    "aya_lab.languages": ("get_language",),
    "aya_lab.notebook_report": ("report",),
    "aya_lab.prompts": ("list_variants", "load_pool", "load_prompt"),
    "aya_lab.rag": ("DEFAULT_CHUNK_SIZE", "KnowledgeBase"),
    "aya_lab.rag.scope": (
        "NEIGHBOURS",
        "VOTERS",
        "VOTE_WEIGHT",
        "ScopePool",
        "read_gold_sections",
        "read_labelled_questions",
    ),
    "aya_lab.rag.sections": ("SectionIndex",),
    "aya_lab.tune.heldout": ("write_held_out",),
}

__all__ = [
    "DEFAULT_CHUNK_SIZE",
    "ECHO_CHRF",
    "KnowledgeBase",
    "NEIGHBOURS",
    "VOTERS",
    "VOTE_WEIGHT",
    "ScopePool",
    "SectionIndex",
    "read_gold_sections",
    "read_labelled_questions",
    "get_language",
    "list_kb_documents",
    "list_variants",
    "load_policy_questions",
    "load_pool",
    "load_prompt",
    "load_rag_questions",
    "load_routing_examples",
    "load_transcripts",
    "project_root",
    "report",
    "write_held_out",
    "BANDWIDTH",
    "ROLE_ENV",
    "expected_footprint",
    "model_weights",
    "notebook_cache_for",
    "notebook_cache_path",
    "notebook_models",
    "runs_dir",
    "setup_notebook",
]

ROLE_ENV = {role: f"AYA_LAB_MODEL_{role.upper()}" for role in ROLES}
_ROUTED: dict[str, str] = {}  # the cache path setup_notebook itself chose (a settings override)


def notebook_cache_path() -> Path:
    """The committed cache: the embedded models' generations for every notebook."""
    return project_root() / "notebooks" / "generations.sqlite"


def runs_dir() -> Path:
    """Where notebooks keep their rooms and results: ``AYA_LAB_RUNS_DIR`` when set (so two runs of one
    notebook, e.g. nbval and the browser test, never share a room file), else ``runs/`` under the
    repository (ignored by git)."""
    path = settings().runs_dir or project_root() / "runs"
    path.mkdir(parents=True, exist_ok=True)
    return path


def notebook_models(*, directions: bool = False) -> dict[str, str]:
    """``{role: spec}`` from the environment: ``AYA_LAB_MODEL_<ROLE>`` for one role, ``AYA_LAB_MODEL`` for
    every role, else each role's measured default (:func:`~aya_lab.models.loader.default_model_spec`). With
    ``directions`` (the room notebooks), also the measured direction adapters for that translator
    (``translator:swh-eng``, :mod:`aya_lab.models.directions`), so a notebook's room translates as the CLI's does. A bad spec raises :class:`~aya_lab.models.ModelSpecError`."""
    models = {}
    for role in ROLE_ENV:
        spec = default_model_spec(role)
        parse_spec(spec)
        models[role] = spec
    return models | direction_defaults(models["translator"]) if directions else models


def model_weights(spec: str) -> str | None:
    """The weights part of ``spec``'s fingerprint, found without loading the model (a content hash of a
    checkpoint directory is memoised); ``None`` for an embedded model. A LoRA adapter (``BASE+lora:PATH``, even
    on an embedded base) adds its content hash: an adapted model is a model of its own."""
    parsed = parse_spec(spec)
    if parsed.kind in EMBEDDED and not parsed.adapter:
        return None
    weights = _base_weights(parsed)
    return adapted_weights(weights, read_adapter(parsed.adapter, parsed.text)) if parsed.adapter else weights


def _base_weights(parsed: ModelSpec) -> str:
    if parsed.kind in EMBEDDED:
        return f"gguf-sha256:{EMBEDDED[parsed.kind].expected_sha256()[:24]}"
    if parsed.kind == "fake":
        return "fake-" + hashlib.sha256(parsed.text.encode()).hexdigest()[:16]
    if parsed.kind == "gguf":
        return "gguf-sha256:" + file_sha256(resolve_gguf(parsed.target, parsed.text))[:24]
    return weights_id(resolve_checkpoint(parsed.target, parsed.text))


def notebook_cache_for(models: Mapping[str, str]) -> Path:
    """The committed cache when every model is embedded, else ``runs/caches/generations-<weights>.sqlite``
    named by the weights of the models that are not (joined by ``+`` when there are several)."""
    weights = sorted({w for w in map(model_weights, models.values()) if w})
    if not weights:
        return notebook_cache_path()
    return model_cache_file(runs_dir() / "caches", "+".join(weights))


def setup_notebook() -> str:
    """Configure caching and quiet output for a notebook; return the model spec to use.

    Raises :class:`~aya_lab.models.CacheMissError` in replay mode when the models named by the
    environment have no cache file of their own yet (naming them and the file expected).
    """
    configure(tqdm_disable=True)
    warnings.filterwarnings("ignore", category=DeprecationWarning)
    warnings.filterwarnings("ignore", message=".*sunset.*")
    from huggingface_hub.utils import disable_progress_bars
    from transformers.utils import logging as hf_logging

    disable_progress_bars()
    hf_logging.disable_progress_bar()
    hf_logging.set_verbosity_error()

    if _ROUTED and str(settings().generation_cache) == _ROUTED["path"]:
        reset_settings("generation_cache")  # chosen by the last call: chosen again below, from the models now named
    if settings().generation_cache is None:
        models = notebook_models()
        path = notebook_cache_for(models)
        if path != notebook_cache_path() and cache_mode() == "replay" and not path.exists():
            named = ", ".join(f"{role}={spec}" for role, spec in models.items() if model_weights(spec))
            raise CacheMissError(
                f"replay mode: no generation cache for {named} (expected {path}); the committed "
                "notebooks/generations.sqlite holds only the embedded models' generations. Run once with "
                "AYA_LAB_CACHE_MODE=readwrite to record this model's"
            )
        _ROUTED["path"] = str(path)
        configure(generation_cache=path)
    return default_model_spec()


# Effective memory bandwidth used for the decoding-time floor: the CPU figure is what SmolLM2-135M in fp32
# reached on this project's 2-core machines (18.8 tok/s at batch 1 = 10 GB/s of weights read); the GPU
# figure is an H200's published 4.8 TB/s (an estimate until measured: see benchmarks/bench_gpu.py).
BANDWIDTH = {"CPU, fp32": (4, 10e9), "GPU (H200), bf16": (2, 4.8e12)}


def expected_footprint(n_params: int) -> list[dict[str, object]]:
    """Rough expectations for a model of ``n_params`` parameters, one row per device: weights in memory
    (GB) and the floor on decoding time per token at batch 1 (every weight read once per step), in ms.
    Real runs add the KV cache and activations to memory and framework overhead to time."""
    rows = []
    for device, (bytes_per_param, bandwidth) in BANDWIDTH.items():
        weight_bytes = n_params * bytes_per_param
        rows.append(
            {
                "device": device,
                "weights GB": round(weight_bytes / 1e9, 2),
                "ms/token floor (batch 1)": round(1000 * weight_bytes / bandwidth, 2),
                "tok/s ceiling (batch 1)": round(bandwidth / weight_bytes, 1),
            }
        )
    return rows


__getattr__ = lazy_exports(__name__, _HOMES)
