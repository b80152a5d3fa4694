"""Evaluation: sacrebleu metrics, statistics, translation systems and their evaluator, summarizers,
routing and retrieval, each with confidence intervals and paired tests.

Translation: ``evaluate_translation(systems, dataset, pairs, n)`` (options as keywords or an
``EvalConfig``) -> ``Results`` (``.df``, ``.table()``, ``.plot()``, ``.save()``; ``Results.load``;
``compare``); model-backed systems ``PromptSystem`` / ``Seq2SeqSystem`` (spec strings
``smollm2@strict+ctx3``, ``seq2seq:PATH``);
``sweep_translation`` runs prompt variants. Summarizers: ``evaluate_summarizers`` ->
``SummarizerResults`` (``combine_summarizer_runs`` joins runs on different models). Routing:
``evaluate_routing`` / ``sweep_routing``. Data sets live in :mod:`aya_lab.datasets`.
"""

from aya_lab.eval.routing import RoutingResults, RoutingSweep, evaluate_routing, sweep_routing
from aya_lab.eval.summarization import SummarizerResults, evaluate_summarizers
from aya_lab.eval.summarization_compare import combine_summarizer_runs
from aya_lab.eval.translation import (
    CopySystem,
    EvalConfig,
    PivotSystem,
    PromptSystem,
    Results,
    Seq2SeqSystem,
    TranslationSystem,
    compare,
    evaluate_translation,
    register_system_kind,
    resolve_system,
)
from aya_lab.eval.translation.sweep import sweep_translation

__all__ = [
    "CopySystem",
    "EvalConfig",
    "PivotSystem",
    "PromptSystem",
    "Results",
    "RoutingResults",
    "RoutingSweep",
    "Seq2SeqSystem",
    "SummarizerResults",
    "TranslationSystem",
    "compare",
    "evaluate_routing",
    "evaluate_summarizers",
    "combine_summarizer_runs",
    "evaluate_translation",
    "register_system_kind",
    "resolve_system",
    "sweep_routing",
    "sweep_translation",
]
