"""A prompt sweep for translation: every ``user_translate`` prompt variant on the same inputs.

:func:`sweep_translation` runs one :class:`~aya_lab.eval.translation.model_systems.PromptSystem` per
variant (named by the variant; the first is the baseline the others are tested against) through
:func:`~aya_lab.eval.translation.evaluate.evaluate_translation`. The routing and summarizer sweeps are
:func:`aya_lab.eval.routing.sweep_routing` and :func:`aya_lab.eval.summarization.evaluate_summarizers`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from aya_lab.agents.protocols import TextModel
from aya_lab.datasets.project import WORKPLACE_LANGUAGES
from aya_lab.errors import InputError
from aya_lab.eval.report import Report
from aya_lab.eval.translation.evaluate import evaluate_translation
from aya_lab.eval.translation.model_systems import TRANSLATE_TASK, PromptSystem
from aya_lab.models import load_chat_model
from aya_lab.prompts import variant_names

__all__ = ["sweep_translation"]


def sweep_translation(
    variants: Sequence[str] | str,
    dataset: str = "workplace",
    *,
    model: TextModel | str | None = None,
    pairs: Sequence[str] | str | None = None,
    n: int | None = None,
    context_window: int = 0,
    **kwargs: object,
) -> Report:
    """Each ``user_translate`` variant (file stems such as ``strict``, or ``user_translate/strict``) on
    ``dataset`` and ``pairs`` (default for ``workplace``: English into each of its other languages).
    ``model`` is a loaded chat model or a spec (default: ``AYA_LAB_MODEL`` or the embedded default).
    Extra keyword arguments go to :func:`evaluate_translation`."""
    names = variant_names(TRANSLATE_TASK, variants)
    if model is None or isinstance(model, str):
        model = load_chat_model(model)
    if pairs is None:
        if dataset != "workplace":
            raise InputError(f"pass pairs for dataset {dataset!r}, e.g. pairs='eng-swh'")
        pairs = [f"eng-{x}" for x in WORKPLACE_LANGUAGES if x != "eng"]
    systems = [PromptSystem(model, f"{TRANSLATE_TASK}/{v}", context_window=context_window, name=v) for v in names]
    return evaluate_translation(systems, dataset, pairs, n=n, baseline=names[0], **cast("dict[str, Any]", kwargs))
