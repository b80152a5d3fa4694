"""Evaluation: every measurement is a task (``run(name, **options)``) that returns one ``Report``
(:mod:`aya_lab.eval.report`); sacrebleu metrics, statistics, translation systems and their evaluator, summarizers,
routing and retrieval, each with confidence intervals and paired tests.

Translation: ``run("translation", systems=..., dataset=..., pairs=...)`` or
``evaluate_translation(systems, dataset, pairs, n)`` (options as keywords or an ``EvalConfig``) -> a
``translation`` report (``deltas`` and ``forest`` test and draw its paired differences;
``compare(a, b)`` tests one saved report against another); model-backed systems ``PromptSystem`` / ``Seq2SeqSystem`` (spec strings
``smollm2@strict+ctx3``, ``seq2seq:PATH``);
``sweep_translation`` runs prompt variants. Summarizers: ``evaluate_summarizers`` ->
a ``summaries`` :class:`~aya_lab.eval.report.Report` (``combine_summarizer_runs`` joins runs on
different models). Retrieval: ``run("retrieval", kb=kb)`` or ``evaluate_retrieval(kb, questions)`` -> a
``retrieval`` :class:`~aya_lab.eval.report.Report` (BM25 and a random order as floors). Routing:
``evaluate_routing`` / ``sweep_routing`` -> a ``routing`` report (``run("routing", ...)``); tool sequences:
``run("sequences", ...)``. Attack and unseen-message runs: ``run("attacks", ...)`` -> an ``attacks``
report; ``relabel`` judges a saved run by a person's labels (``load_labels``), ``usefulness_table`` says
what each reader could read, ``paired_usefulness`` compares two runs of one set (two delivery rules).
Data sets live in :mod:`aya_lab.datasets`.

This package is the notebooks' one import for evaluation: besides the contract (``run``, ``compare``,
``Report``, ``Task``) it names the systems, the statistics (``ALPHA``, ``holm``, ``family`` — a notebook's
family of tests, Holm over all of them — ``analyse_group``), the
cost tables and the helpers the notebooks' analyses use. The names are imported from their modules on
first use (PEP 562), not with the package, so a light submodule (the task configs and the commands
generated from them, which ``aya-lab eval ... --help`` reads) is importable without the model stack.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from aya_lab.refs import lazy_exports

if TYPE_CHECKING:
    from aya_lab.eval.attacks import fabrications_table, relabel, usefulness_table
    from aya_lab.eval.configs import EvalConfig
    from aya_lab.eval.fabrications import draft_of_withheld, label_agreement, load_labels, paired_usefulness
    from aya_lab.eval.report import Report, Task, generation_costs, register_task, routing_costs, translation_costs
    from aya_lab.eval.resampling import (
        ALPHA,
        BLOCK,
        FEW_UNITS,
        analyse_group,
        family,
        holm,
        paired_accuracy,
        paired_equivalence,
        units_for,
    )
    from aya_lab.eval.retrieval import evaluate_retrieval, floors_table, retrieval_by_question
    from aya_lab.eval.routing import confusion_matrices, decided_by, evaluate_routing, sweep_routing
    from aya_lab.eval.routing_sequences import (
        evaluate_sequences,
        load_multi_intent,
        paths_paired,
        routers_paired,
        sequence_costs,
    )
    from aya_lab.eval.summarization import combine_summarizer_runs, evaluate_summarizers
    from aya_lab.eval.tasks import compare, run
    from aya_lab.eval.translation.evaluate import (
        as_records,
        evaluate_translation,
        held_apart_examples,
        sweep_translation,
    )
    from aya_lab.eval.translation.results import baseline_tests, deltas, deltas_across, forest, translation_report
    from aya_lab.eval.translation.scoring import echo_flags, failure_category, failure_counts
    from aya_lab.eval.translation.specs import TranslationSystem, register_system_kind
    from aya_lab.eval.translation.systems import (
        CopySystem,
        PivotSystem,
        PromptSystem,
        Seq2SeqSystem,
        ShuffledReferenceSystem,
        resolve_system,
    )
    from aya_lab.langid import covered

_HOMES: dict[str, tuple[str, ...]] = {
    "aya_lab.eval.configs": ("EvalConfig",),
    "aya_lab.eval.attacks": ("fabrications_table", "relabel", "usefulness_table"),
    "aya_lab.eval.fabrications": ("draft_of_withheld", "label_agreement", "load_labels", "paired_usefulness"),
    "aya_lab.langid": ("covered",),
    "aya_lab.eval.report": (
        "Report",
        "Task",
        "generation_costs",
        "register_task",
        "routing_costs",
        "translation_costs",
    ),
    "aya_lab.eval.retrieval": ("evaluate_retrieval", "floors_table", "retrieval_by_question"),
    "aya_lab.eval.routing": ("confusion_matrices", "decided_by", "evaluate_routing", "sweep_routing"),
    "aya_lab.eval.resampling": (
        "ALPHA",
        "BLOCK",
        "FEW_UNITS",
        "analyse_group",
        "family",
        "holm",
        "paired_accuracy",
        "paired_equivalence",
        "units_for",
    ),
    "aya_lab.eval.routing_sequences": (
        "evaluate_sequences",
        "load_multi_intent",
        "paths_paired",
        "routers_paired",
        "sequence_costs",
    ),
    "aya_lab.eval.summarization": ("combine_summarizer_runs", "evaluate_summarizers"),
    "aya_lab.eval.tasks": ("compare", "run"),
    "aya_lab.eval.translation.evaluate": (
        "as_records",
        "evaluate_translation",
        "held_apart_examples",
        "sweep_translation",
    ),
    "aya_lab.eval.translation.results": ("baseline_tests", "deltas", "deltas_across", "forest", "translation_report"),
    "aya_lab.eval.translation.scoring": ("echo_flags", "failure_category", "failure_counts"),
    "aya_lab.eval.translation.specs": ("TranslationSystem", "register_system_kind"),
    "aya_lab.eval.translation.systems": (
        "CopySystem",
        "PivotSystem",
        "PromptSystem",
        "Seq2SeqSystem",
        "ShuffledReferenceSystem",
        "resolve_system",
    ),
}

__all__ = [
    "ALPHA",
    "BLOCK",
    "CopySystem",
    "FEW_UNITS",
    "EvalConfig",
    "PivotSystem",
    "PromptSystem",
    "Report",
    "Seq2SeqSystem",
    "ShuffledReferenceSystem",
    "Task",
    "TranslationSystem",
    "analyse_group",
    "as_records",
    "baseline_tests",
    "combine_summarizer_runs",
    "compare",
    "confusion_matrices",
    "covered",
    "decided_by",
    "deltas",
    "deltas_across",
    "draft_of_withheld",
    "fabrications_table",
    "label_agreement",
    "floors_table",
    "load_labels",
    "paired_usefulness",
    "relabel",
    "usefulness_table",
    "echo_flags",
    "evaluate_retrieval",
    "evaluate_routing",
    "evaluate_sequences",
    "evaluate_summarizers",
    "evaluate_translation",
    "failure_category",
    "failure_counts",
    "family",
    "forest",
    "generation_costs",
    "held_apart_examples",
    "holm",
    "load_multi_intent",
    "paired_accuracy",
    "paired_equivalence",
    "paths_paired",
    "routers_paired",
    "sequence_costs",
    "register_system_kind",
    "register_task",
    "resolve_system",
    "retrieval_by_question",
    "routing_costs",
    "run",
    "sweep_routing",
    "sweep_translation",
    "translation_costs",
    "translation_report",
    "units_for",
]

__getattr__ = lazy_exports(__name__, _HOMES)
