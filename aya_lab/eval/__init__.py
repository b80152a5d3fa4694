"""Evaluation: parallel test sets, translation systems, sacrebleu metrics, tidy results.

Translation: ``load_parallel`` -> ``evaluate_translation(systems, dataset, pairs, n)`` -> ``Results``
(``.df``, ``.table()``, ``.plot()``, ``.save()``; ``Results.load``; ``compare``); model-backed systems
``PromptSystem`` / ``Seq2SeqSystem`` (spec strings ``smollm2@strict+ctx3``, ``seq2seq:PATH``).
Summarizers: ``evaluate_summarizers`` -> ``SummarizerResults``. Routing: ``evaluate_routing`` /
``sweep_routing``. Prompt sweeps: ``sweep(task, variants, dataset)``. Submodules are imported lazily
so that ``import aya_lab.eval`` stays cheap.
"""

from __future__ import annotations

import importlib

__all__ = [
    "ParallelSet", "load_parallel", "available_pairs", "list_datasets", "DatasetError",
    "TranslationSystem", "PivotSystem", "CopySystem", "register_system_kind", "resolve_system",
    "evaluate_translation", "Results", "compare", "fetch_dataset",
    "PromptSystem", "Seq2SeqSystem", "evaluate_summarizers", "SummarizerResults",
    "evaluate_routing", "sweep_routing", "RoutingResults", "RoutingSweep", "sweep",
]

_WHERE = {
    "ParallelSet": "datasets", "load_parallel": "datasets", "available_pairs": "datasets",
    "list_datasets": "datasets", "DatasetError": "datasets",
    "TranslationSystem": "systems", "PivotSystem": "systems", "CopySystem": "systems",
    "register_system_kind": "systems", "resolve_system": "systems",
    "evaluate_translation": "translation", "Results": "report", "compare": "report",
    "fetch_dataset": "fetch",
    "PromptSystem": "model_systems", "Seq2SeqSystem": "model_systems",
    "evaluate_summarizers": "summarization", "SummarizerResults": "summarization",
    "evaluate_routing": "routing", "sweep_routing": "routing", "RoutingResults": "routing",
    "RoutingSweep": "routing", "sweep": "sweeps",
}


def __getattr__(name: str):
    if name in _WHERE:
        return getattr(importlib.import_module(f"aya_lab.eval.{_WHERE[name]}"), name)
    raise AttributeError(f"module 'aya_lab.eval' has no attribute {name!r}")
