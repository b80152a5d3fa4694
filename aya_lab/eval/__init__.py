"""Evaluation: every measurement is a task (``run(name, **options)``) that returns one ``Report``
(:mod:`aya_lab.eval.report`); sacrebleu metrics, statistics, translation systems and their evaluator, summarizers,
routing and retrieval, each with confidence intervals and paired tests.

Translation: ``evaluate_translation(systems, dataset, pairs, n)`` (options as keywords or an
``EvalConfig``) -> ``Results`` (``.df``, ``.table()``, ``.plot()``, ``.save()``; ``Results.load``;
``compare``); model-backed systems ``PromptSystem`` / ``Seq2SeqSystem`` (spec strings
``smollm2@strict+ctx3``, ``seq2seq:PATH``);
``sweep_translation`` runs prompt variants. Summarizers: ``evaluate_summarizers`` ->
a ``summaries`` :class:`~aya_lab.eval.report.Report` (``combine_summarizer_runs`` joins runs on
different models). Routing: ``evaluate_routing`` / ``sweep_routing`` -> a ``routing`` report
(``run("routing", ...)``); tool sequences: ``run("sequences", ...)``. Data sets live in :mod:`aya_lab.datasets`.

The names below are imported from their modules on first use (PEP 562), not with the package, so a
light submodule (the CLI's option definitions, which ``aya-lab ... --help`` reads) is importable
without the model stack.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from aya_lab.refs import lazy_exports

if TYPE_CHECKING:
    from aya_lab.eval.report import Report, Task, register_task
    from aya_lab.eval.routing import evaluate_routing, sweep_routing
    from aya_lab.eval.summarization import evaluate_summarizers
    from aya_lab.eval.summarization_compare import combine_summarizer_runs
    from aya_lab.eval.tasks import run
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

_HOMES: dict[str, tuple[str, ...]] = {
    "aya_lab.eval.routing": ("evaluate_routing", "sweep_routing"),
    "aya_lab.eval.report": ("Report", "Task", "register_task"),
    "aya_lab.eval.tasks": ("run",),
    "aya_lab.eval.summarization": ("evaluate_summarizers",),
    "aya_lab.eval.summarization_compare": ("combine_summarizer_runs",),
    "aya_lab.eval.translation": (
        "CopySystem",
        "EvalConfig",
        "PivotSystem",
        "PromptSystem",
        "Results",
        "Seq2SeqSystem",
        "TranslationSystem",
        "compare",
        "evaluate_translation",
        "register_system_kind",
        "resolve_system",
    ),
    "aya_lab.eval.translation.sweep": ("sweep_translation",),
}

__all__ = [
    "CopySystem",
    "EvalConfig",
    "PivotSystem",
    "PromptSystem",
    "Results",
    "Seq2SeqSystem",
    "Report",
    "Task",
    "register_task",
    "run",
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


__getattr__ = lazy_exports(__name__, _HOMES)
