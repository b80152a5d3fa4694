"""Translation evaluation: systems (:mod:`~.systems`, :mod:`~.model_systems`), spec strings
(:mod:`~.specs`), the evaluator (:mod:`~.evaluate`) and its options (:mod:`~.config`), and tidy
results (:mod:`~.results`)."""

from aya_lab.eval.translation.config import EvalConfig
from aya_lab.eval.translation.evaluate import evaluate_translation
from aya_lab.eval.translation.model_systems import PromptSystem, Seq2SeqSystem
from aya_lab.eval.translation.results import Results, compare
from aya_lab.eval.translation.specs import register_system_kind, resolve_system, system_kinds
from aya_lab.eval.translation.systems import (
    CopySystem,
    PivotSystem,
    ShuffledReferenceSystem,
    SystemSpecError,
    TranslationSystem,
)

__all__ = [
    "CopySystem",
    "EvalConfig",
    "PivotSystem",
    "PromptSystem",
    "Results",
    "Seq2SeqSystem",
    "ShuffledReferenceSystem",
    "SystemSpecError",
    "TranslationSystem",
    "compare",
    "evaluate_translation",
    "register_system_kind",
    "resolve_system",
    "system_kinds",
]
