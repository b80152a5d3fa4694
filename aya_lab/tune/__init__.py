"""Fine-tuning: LoRA adapters for one task, trained, versioned and loaded like any model.

``train_adapter(task=..., model=..., data=..., out=...)`` (or ``aya-lab tune TASK ...``) trains a PEFT LoRA
adapter on the transformers engine for ``translate``, ``summarize-onecall`` or ``route``, with the exact
prompt the room uses for that task, a seeded held-out validation split, checkpoints it resumes from after
a kill, and a run card written atomically with the adapter. The result is a model:
``BASE+lora:OUT`` (:mod:`aya_lab.models.adapter`) works wherever a model spec does.

Modules, in import order: ``errors``; ``examples`` (the tasks' data and prompts); ``config``
(:class:`TuneConfig`); ``batches`` (split, tokens, batch order); ``card`` (atomic folders, the run card);
``checkpoint``; ``train`` (the loop); ``heldout`` (a finished translate run's held-out pairs, for a
learning curve in chrF); ``cli`` (``aya-lab tune``).

The names below are imported from their modules on first use (PEP 562), not with the package, so a
light submodule (the CLI's option definitions, which ``aya-lab ... --help`` reads) is importable
without the model stack.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from aya_lab.tune.config import DEFAULT_MAX_TOKENS, QUICK_STEPS, TuneConfig
    from aya_lab.tune.errors import TrainingDataError, TuneError
    from aya_lab.tune.examples import TASKS, Example, TaskData, load_task_data
    from aya_lab.tune.train import TuneResult, train_adapter, training_spec

_HOMES: dict[str, tuple[str, ...]] = {
    "aya_lab.tune.config": (
        "DEFAULT_MAX_TOKENS",
        "QUICK_STEPS",
        "TuneConfig",
    ),
    "aya_lab.tune.errors": (
        "TrainingDataError",
        "TuneError",
    ),
    "aya_lab.tune.examples": (
        "TASKS",
        "Example",
        "TaskData",
        "load_task_data",
    ),
    "aya_lab.tune.train": (
        "TuneResult",
        "train_adapter",
        "training_spec",
    ),
}
_HOME = {name: module for module, names in _HOMES.items() for name in names}

__all__ = [
    "DEFAULT_MAX_TOKENS",
    "QUICK_STEPS",
    "TASKS",
    "Example",
    "TaskData",
    "TrainingDataError",
    "TuneConfig",
    "TuneError",
    "TuneResult",
    "load_task_data",
    "train_adapter",
    "training_spec",
]


def __getattr__(name: str) -> object:
    if name in _HOME:
        return getattr(importlib.import_module(_HOME[name]), name)
    raise AttributeError(f"module 'aya_lab.tune' has no attribute {name!r}")
