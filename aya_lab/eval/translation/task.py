"""The ``translation`` task: systems x language pairs on a parallel test set, as one
:class:`~aya_lab.eval.report.Report` (:mod:`~.results` holds its table, plot and comparison)."""

from __future__ import annotations

from aya_lab.eval.configs import TaskConfig, TranslationConfig
from aya_lab.eval.report import Report, Task
from aya_lab.eval.translation.evaluate import evaluate_translation
from aya_lab.eval.translation.results import compare_translations, translation_plot, translation_table

__all__ = ["TRANSLATION_TASK"]


def _run(config: TaskConfig) -> Report:
    options = {k: v for k, v in config.model_dump().items() if k not in ("systems", "dataset", "pairs")}
    what = config.model_dump(include={"systems", "dataset", "pairs"})
    return evaluate_translation(what["systems"], what["dataset"], what["pairs"], **options)


TRANSLATION_TASK = Task(
    "translation",
    "translation systems on a parallel test set (BLEU, chrF, chrF++, language and echo shares, hallucination rate)",
    TranslationConfig,
    _run,
    table=translation_table,
    plot=translation_plot,
    compare=compare_translations,
)
