"""Checkpoints of a training run, beside its output folder: ``OUT.checkpoints/``.

The folder holds ``run.json`` (the run's identity, :meth:`~aya_lab.tune.config.TuneConfig.identity`) and
``step-NNNNNN/`` folders, each written atomically (:func:`~aya_lab.tune.card.atomic_folder`) with the
LoRA weights, the optimizer's state and ``state.json`` (the step, the training losses so far, the
seconds spent, the validation loss before training, and the SHA-256 of the two other files). The newest
checkpoint whose files match its ``state.json`` is resumed; a damaged one is skipped with a warning.
The last two are kept, so a run that finished can be continued to more steps by running it again with a
larger ``--steps``.

A folder whose ``run.json`` names another run (other data, another base, other hyper-parameters) is
refused with one line: resume with the same options, or pass ``restart`` to discard it.
"""

from __future__ import annotations

import json
import logging
import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, NotRequired, TypedDict

from aya_lab.models.adapter import sha256_file
from aya_lab.tune.card import atomic_folder, write_json
from aya_lab.tune.errors import TuneError

if TYPE_CHECKING:
    import torch

__all__ = ["Checkpoint", "RunCheckpoints", "RunState", "checkpoint_folder"]

_log = logging.getLogger(__name__)
_KEEP = 2
_WEIGHTS, _OPTIMIZER, _STATE = "adapter_model.safetensors", "optimizer.pt", "state.json"


def checkpoint_folder(out: Path) -> Path:
    """Where the checkpoints of the run writing adapter ``out`` live."""
    return out.with_name(out.name + ".checkpoints")


class RunState(TypedDict):
    """A checkpoint's record of the run (its ``state.json``): the training losses so far, the seconds spent and
    the validation loss before training; as written, also the step and the SHA-256 of the other two files."""

    losses: list[float]
    seconds: float
    validation_before: float
    step: NotRequired[int]
    files: NotRequired[dict[str, str]]


@dataclass
class Checkpoint:
    """A resumable state: the step reached, the LoRA weights, the optimizer state and the run's record."""

    step: int
    weights: dict[str, torch.Tensor]
    optimizer: dict[str, object]  # the optimizer's state_dict
    state: RunState


class RunCheckpoints:
    """The checkpoints of one run (see the module docstring)."""

    def __init__(self, folder: Path, identity: Mapping[str, object]) -> None:
        self.folder, self.identity = folder, identity

    def prepare(self, *, restart: bool) -> None:
        """Check the folder belongs to this run (or discard it when ``restart``), and record the run's identity."""
        run_file = self.folder / "run.json"
        if restart and self.folder.exists():
            shutil.rmtree(self.folder)
        if run_file.is_file():
            try:
                theirs = json.loads(run_file.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                theirs = {}
            diff = sorted(k for k in {**theirs, **self.identity} if theirs.get(k) != self.identity.get(k))
            if diff:
                raise TuneError(
                    f"{self.folder} holds checkpoints of another run (different {', '.join(diff[:3])}); rerun with "
                    "the same options to resume it, or pass --restart to discard it"
                )
        self.folder.mkdir(parents=True, exist_ok=True)
        for leftover in self.folder.glob(".step-*.partial"):  # what a killed checkpoint writer left
            shutil.rmtree(leftover, ignore_errors=True)
        write_json(run_file, self.identity)

    def _steps(self) -> list[Path]:
        return sorted(p for p in self.folder.glob("step-*") if p.is_dir() and not p.name.startswith("."))

    def latest(self) -> Checkpoint | None:
        """The newest intact checkpoint, or ``None``."""
        import torch
        from safetensors.torch import load_file

        for step_dir in reversed(self._steps()):
            try:
                state = json.loads((step_dir / _STATE).read_text(encoding="utf-8"))
                for name in (_WEIGHTS, _OPTIMIZER):
                    if sha256_file(step_dir / name) != state["files"][name]:
                        raise ValueError(f"{name} does not match state.json")
                weights = load_file(str(step_dir / _WEIGHTS))
                optimizer = torch.load(step_dir / _OPTIMIZER, weights_only=True)
            except (OSError, ValueError, KeyError, RuntimeError) as exc:
                _log.warning("skipping damaged checkpoint %s (%s)", step_dir, exc)
                continue
            return Checkpoint(int(state["step"]), weights, optimizer, state)
        return None

    def save(
        self, step: int, weights: Mapping[str, torch.Tensor], optimizer: Mapping[str, object], state: RunState
    ) -> None:
        """Write checkpoint ``step`` atomically, then drop all but the newest :data:`_KEEP`."""
        import torch
        from safetensors.torch import save_file

        target = self.folder / f"step-{step:06d}"
        with atomic_folder(target, replace=True) as tmp:
            save_file({k: v.detach().cpu().contiguous() for k, v in weights.items()}, str(tmp / _WEIGHTS))
            torch.save(optimizer, tmp / _OPTIMIZER)
            files = {name: sha256_file(tmp / name) for name in (_WEIGHTS, _OPTIMIZER)}
            write_json(tmp / _STATE, {**state, "step": step, "files": files})
        for old in self._steps()[:-_KEEP]:
            shutil.rmtree(old, ignore_errors=True)
