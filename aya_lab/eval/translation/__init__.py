"""Translation evaluation: systems (:mod:`~.systems`, :mod:`~.model_systems`), spec strings
(:mod:`~.specs`), the evaluator (:mod:`~.evaluate`) and its options (:mod:`~.config`), and its report
(:mod:`~.results`).

The names below are imported from their modules on first use (PEP 562), not with the package, so a
light submodule (the CLI's option definitions, which ``aya-lab ... --help`` reads) is importable
without the model stack.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from aya_lab.refs import lazy_exports

if TYPE_CHECKING:
    from aya_lab.eval.translation.config import EvalConfig
    from aya_lab.eval.translation.evaluate import evaluate_translation
    from aya_lab.eval.translation.model_systems import PromptSystem, Seq2SeqSystem
    from aya_lab.eval.translation.results import (
        baseline_tests,
        compare_translations,
        deltas,
        forest,
        translation_report,
    )
    from aya_lab.eval.translation.specs import register_system_kind, resolve_system, system_kinds
    from aya_lab.eval.translation.systems import (
        CopySystem,
        PivotSystem,
        ShuffledReferenceSystem,
        SystemSpecError,
        TranslationSystem,
    )

_HOMES: dict[str, tuple[str, ...]] = {
    "aya_lab.eval.translation.config": ("EvalConfig",),
    "aya_lab.eval.translation.evaluate": ("evaluate_translation",),
    "aya_lab.eval.translation.model_systems": (
        "PromptSystem",
        "Seq2SeqSystem",
    ),
    "aya_lab.eval.translation.results": (
        "baseline_tests",
        "compare_translations",
        "deltas",
        "forest",
        "translation_report",
    ),
    "aya_lab.eval.translation.specs": (
        "register_system_kind",
        "resolve_system",
        "system_kinds",
    ),
    "aya_lab.eval.translation.systems": (
        "CopySystem",
        "PivotSystem",
        "ShuffledReferenceSystem",
        "SystemSpecError",
        "TranslationSystem",
    ),
}

__all__ = [
    "baseline_tests",
    "translation_report",
    "CopySystem",
    "EvalConfig",
    "PivotSystem",
    "PromptSystem",
    "Seq2SeqSystem",
    "ShuffledReferenceSystem",
    "SystemSpecError",
    "TranslationSystem",
    "compare_translations",
    "deltas",
    "forest",
    "translation_report",
    "evaluate_translation",
    "register_system_kind",
    "resolve_system",
    "system_kinds",
]


__getattr__ = lazy_exports(__name__, _HOMES)
