"""Translation evaluation: spec strings (:mod:`~.specs`, light), systems (:mod:`~.systems`), the
evaluator, its sweep and task (:mod:`~.evaluate`), scoring and output checks (:mod:`~.scoring`), and the
report's views (:mod:`~.results`).

The names below are imported from their modules on first use (PEP 562), not with the package, so the
light :mod:`~.specs` (the ``--system`` help) is importable without the model stack.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from aya_lab.refs import lazy_exports

if TYPE_CHECKING:
    from aya_lab.eval.configs import EvalConfig
    from aya_lab.eval.translation.evaluate import evaluate_translation
    from aya_lab.eval.translation.results import (
        baseline_tests,
        compare_translations,
        deltas,
        forest,
        translation_report,
    )
    from aya_lab.eval.translation.specs import SystemSpecError, TranslationSystem, register_system_kind, system_kinds
    from aya_lab.eval.translation.systems import (
        CopySystem,
        PivotSystem,
        PromptSystem,
        Seq2SeqSystem,
        ShuffledReferenceSystem,
        resolve_system,
    )

_HOMES: dict[str, tuple[str, ...]] = {
    "aya_lab.eval.configs": ("EvalConfig",),
    "aya_lab.eval.translation.evaluate": ("evaluate_translation",),
    "aya_lab.eval.translation.results": (
        "baseline_tests",
        "compare_translations",
        "deltas",
        "forest",
        "translation_report",
    ),
    "aya_lab.eval.translation.specs": ("SystemSpecError", "TranslationSystem", "register_system_kind", "system_kinds"),
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
    "CopySystem",
    "EvalConfig",
    "PivotSystem",
    "PromptSystem",
    "Seq2SeqSystem",
    "ShuffledReferenceSystem",
    "SystemSpecError",
    "TranslationSystem",
    "baseline_tests",
    "compare_translations",
    "deltas",
    "evaluate_translation",
    "forest",
    "register_system_kind",
    "resolve_system",
    "system_kinds",
    "translation_report",
]

__getattr__ = lazy_exports(__name__, _HOMES)
