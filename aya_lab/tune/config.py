"""What a training run is asked to do: :class:`TuneConfig`, checked as it is made.

Defaults follow what was measured on this project's 2 CPU cores (``STACK-NOTES.md``): LoRA rank 8 on the
attention's q and v projections, batch 8, learning rate 3e-4 after 10 warm-up steps, 200 steps. The
documented quick setting is ``steps=20`` (minutes on the embedded models). ``max_tokens`` defaults per
task to what the task's prompts need (a one-call summarizer prompt is long, a translation prompt short).

:meth:`TuneConfig.identity` is what a checkpoint must match to be resumed: everything that decides the
examples, their order and the updates (not ``steps``, so a finished run continues to more steps; not the
output folder, the checkpoint interval or the device).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import TypedDict

from aya_lab.tune.errors import TuneError

__all__ = ["DEFAULT_MAX_TOKENS", "QUICK_STEPS", "TASKS", "TuneConfig", "TuneOptions"]

TASKS = ("translate", "summarize-onecall", "route")
"""The tasks an adapter is trained for (``aya-lab tune TASK``)."""
DEFAULT_MAX_TOKENS = {"translate": 256, "summarize-onecall": 1024, "route": 256}
QUICK_STEPS = 20
_RUN_ONLY = ("steps", "out", "checkpoint_every", "device", "restart", "overwrite")


@dataclass(frozen=True)
class TuneConfig:
    """One ``aya-lab tune`` run (its options, with the CLI's defaults)."""

    task: str
    model: str
    data: str
    out: Path
    pair: str | None = None
    steps: int = 200
    batch_size: int = 8
    learning_rate: float = 3e-4
    rank: int = 8
    alpha: float = 16.0
    dropout: float = 0.05
    targets: tuple[str, ...] = ("q_proj", "v_proj")
    max_tokens: int | None = None
    validation: float = 0.1
    max_validation: int = 64
    max_train: int = 4096
    warmup: int = 10
    seed: int = 0
    checkpoint_every: int = 20
    device: str | None = None
    restart: bool = False
    overwrite: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "out", Path(self.out).expanduser())
        object.__setattr__(self, "targets", tuple(t.strip() for t in self.targets if t.strip()))
        if self.task not in TASKS:
            raise TuneError(f"unknown task {self.task!r}; use one of {', '.join(TASKS)}")
        for name in ("steps", "batch_size", "rank", "max_validation", "max_train", "checkpoint_every"):
            if int(getattr(self, name)) < 1:
                raise TuneError(f"{name.replace('_', '-')} must be a positive whole number, got {getattr(self, name)}")
        if self.max_tokens is not None and self.max_tokens < 16:
            raise TuneError(f"max-tokens must be at least 16, got {self.max_tokens}")
        if not 0.0 < self.validation < 1.0:
            raise TuneError(f"validation is the held-out fraction, between 0 and 1 (e.g. 0.1), got {self.validation}")
        if self.learning_rate <= 0 or self.alpha <= 0 or not 0.0 <= self.dropout < 1.0 or self.warmup < 0:
            raise TuneError(
                f"learning rate ({self.learning_rate}) and alpha ({self.alpha}) must be positive, dropout "
                f"({self.dropout}) in [0, 1) and warm-up ({self.warmup}) at least 0"
            )
        if not self.targets:
            raise TuneError("targets names no module; pass e.g. --targets q_proj,v_proj")
        if self.device is not None and not self.device.startswith(("cpu", "cuda")):
            raise TuneError(f"device {self.device!r} is neither cpu nor cuda; pass --device cpu or --device cuda")

    @property
    def token_limit(self) -> int:
        """``max_tokens``, or the task's default."""
        return self.max_tokens or DEFAULT_MAX_TOKENS[self.task]

    def hyperparameters(self) -> dict[str, int | float | str]:
        """The training settings the run card records."""
        return {
            "batch_size": self.batch_size,
            "learning_rate": self.learning_rate,
            "lora_r": self.rank,
            "lora_alpha": self.alpha,
            "lora_dropout": self.dropout,
            "target_modules": ",".join(self.targets),
            "max_tokens": self.token_limit,
            "validation": self.validation,
            "max_validation": self.max_validation,
            "max_train": self.max_train,
            "warmup_steps": self.warmup,
            "seed": self.seed,
            "optimizer": "AdamW (weight decay 0, grad-norm clip 1.0)",
        }

    def identity(self, data_sha256: str) -> dict[str, object]:
        """What decides the run's examples and updates (a checkpoint resumes only under the same identity)."""
        fields = {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.name not in _RUN_ONLY}
        fields["targets"] = list(self.targets)
        fields["max_tokens"] = self.token_limit
        return {**fields, "data_sha256": data_sha256}


class TuneOptions(TypedDict, total=False):
    """The fields of :class:`TuneConfig` as keyword options (:func:`~aya_lab.tune.train.train_adapter` takes them
    in place of a config); ``task``, ``model``, ``data`` and ``out`` have no default."""

    task: str
    model: str
    data: str
    out: Path
    pair: str | None
    steps: int
    batch_size: int
    learning_rate: float
    rank: int
    alpha: float
    dropout: float
    targets: tuple[str, ...]
    max_tokens: int | None
    validation: float
    max_validation: int
    max_train: int
    warmup: int
    seed: int
    checkpoint_every: int
    device: str | None
    restart: bool
    overwrite: bool
