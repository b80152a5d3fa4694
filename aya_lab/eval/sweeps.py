"""Prompt sweeps: every variant of a task's prompt on the same inputs, tested against the first.

``sweep(task, variants, dataset, ...)`` dispatches on the task:

- ``user_translate`` — :func:`~aya_lab.eval.translation.evaluate_translation` with one
  :class:`~aya_lab.eval.model_systems.PromptSystem` per variant (named by the variant; the first is the
  baseline), on ``dataset`` (default ``workplace``) and ``pairs`` (default for ``workplace``: English
  into each of its other languages). Returns :class:`~aya_lab.eval.report.Results`.
- ``supervisor`` — :func:`~aya_lab.eval.routing.sweep_routing` on the routing requests (``dataset``: a
  list of examples, or ``None``/``"routing"`` for ``data/routing``). Returns a ``RoutingSweep``.
- ``summarizer`` — :func:`~aya_lab.eval.summarization.evaluate_summarizers` (variants ``two_call``,
  ``one_call``; ``dataset``: a list of transcripts or ``None``/``"transcripts"``).

Variants are prompt file stems (``strict``) or ``task/stem``; an unknown variant is a one-line
``ValueError`` listing the known ones. Extra keyword arguments go to the evaluator.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["sweep", "SWEEP_TASKS"]

SWEEP_TASKS = ("user_translate", "supervisor", "summarizer")


def _variants(task: str, variants: Sequence[str] | str) -> list[str]:
    from aya_lab.prompts import list_variants

    if isinstance(variants, str):
        variants = variants.split(",")
    names = [v.strip().split("/", 1)[1] if v.strip().startswith(f"{task}/") else v.strip() for v in variants]
    names = [v for v in names if v]
    if not names:
        raise ValueError(f"no variants given for {task}; e.g. {', '.join(list_variants(task)) if task != 'summarizer' else 'two_call,one_call'}")
    dupes = sorted({v for v in names if names.count(v) > 1})
    if dupes:
        raise ValueError(f"variants must be unique; repeated: {', '.join(dupes)}")
    if task == "summarizer":
        from aya_lab.eval.summarization import VARIANTS as known
    else:
        known = list_variants(task)
    unknown = [v for v in names if v not in known]
    if unknown:
        raise ValueError(f"unknown {task} variant {unknown[0]!r}; variants: {', '.join(known)}")
    return names


def sweep(
    task: str,
    variants: Sequence[str] | str,
    dataset: Any = None,
    *,
    model: Any = None,
    pairs: Sequence[str] | str | None = None,
    n: int | None = None,
    context_window: int = 0,
    **kwargs: Any,
) -> Any:
    """Run each prompt variant of ``task`` on the same inputs; see the module docstring."""
    if task not in SWEEP_TASKS:
        raise ValueError(f"unknown sweep task {task!r}; use one of {', '.join(SWEEP_TASKS)}")
    names = _variants(task, variants)
    if model is None or isinstance(model, str):
        from aya_lab.models import load_chat_model

        model = load_chat_model(model)
    if task == "user_translate":
        from aya_lab.eval.model_systems import PromptSystem
        from aya_lab.eval.translation import evaluate_translation

        dataset = dataset or "workplace"
        if pairs is None:
            if dataset != "workplace":
                raise ValueError(f"pass pairs for dataset {dataset!r}, e.g. pairs='eng-swh'")
            from aya_lab.eval.corpora import WORKPLACE_LANGUAGES

            pairs = [f"eng-{x}" for x in WORKPLACE_LANGUAGES if x != "eng"]
        systems = [PromptSystem(model, f"user_translate/{v}", context_window=context_window, name=v) for v in names]
        return evaluate_translation(systems, dataset, pairs, n=n, baseline=names[0], **kwargs)
    items = None if dataset in (None, "routing", "transcripts") else dataset
    if isinstance(items, str):
        raise ValueError(f"{task} sweeps take a list of examples or None as dataset, not {items!r}")
    if task == "supervisor":
        from aya_lab.eval.routing import sweep_routing

        return sweep_routing(names, model=model, examples=items, n=n, **kwargs)
    from aya_lab.eval.summarization import evaluate_summarizers

    return evaluate_summarizers(names, model=model, transcripts=items, n=n, **kwargs)
