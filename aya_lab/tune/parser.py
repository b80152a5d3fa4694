"""The parser of ``aya-lab tune TASK --model SPEC --data DATA --out DIR``: every option and help text,
built from light modules only (the task names and :class:`~aya_lab.tune.config.TuneConfig`'s defaults),
so that ``aya-lab tune --help`` imports no model stack. The command's code, :func:`aya_lab.tune.cli.cmd_tune`,
is named by reference and imported when it runs.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from aya_lab.cli_groups import group_help
from aya_lab.models.registry import model_help
from aya_lab.refs import lazy
from aya_lab.tune.config import QUICK_STEPS, TASKS, TuneConfig

__all__ = ["DEFAULTS", "HELP", "register_tune"]

HELP = group_help("tune")
"""``aya-lab tune``'s help, from the one table of command groups (:data:`~aya_lab.cli_groups.GROUPS`)."""
DEFAULTS = TuneConfig(task="route", model="-", data="-", out=Path("."))
"""A configuration holding every default the options show (and :func:`~aya_lab.tune.cli.cmd_tune` uses)."""


def register_tune(sub: argparse._SubParsersAction) -> None:
    """Add ``tune`` to the ``aya-lab`` parser."""
    d = DEFAULTS
    p = sub.add_parser("tune", help=HELP, description=HELP)
    p.add_argument("task", choices=TASKS, help="what the adapter learns")
    p.add_argument("--model", required=True, help=model_help("train", what="the base model to train"))
    p.add_argument(
        "--data", required=True,
        help="translate: files:SRC.txt,REF.txt or a registered set's train split (mafand); summarize-onecall: "
        "transcripts JSONL (aya-lab data synth summarize); route: routing requests JSONL",
    )  # fmt: skip
    p.add_argument("--pair", help="translate only: the direction, e.g. eng-swh")
    p.add_argument("--out", required=True, help="the adapter folder to write (checkpoints go to OUT.checkpoints)")
    p.add_argument("--steps", type=int, default=None, help=f"optimizer steps (default {d.steps})")
    p.add_argument("--quick", action="store_true", help=f"the quick setting: {QUICK_STEPS} steps (minutes on 2 cores)")
    p.add_argument("--batch-size", type=int, default=d.batch_size)
    p.add_argument("--lr", type=float, default=d.learning_rate, help="learning rate after the warm-up")
    p.add_argument("--rank", type=int, default=d.rank, help="LoRA rank r")
    p.add_argument("--alpha", type=float, default=d.alpha, help="LoRA alpha (the update is scaled by alpha/r)")
    p.add_argument("--dropout", type=float, default=d.dropout, help="LoRA dropout")
    p.add_argument("--targets", default=",".join(d.targets), help="modules to adapt (comma-separated)")
    p.add_argument("--max-tokens", type=int, default=None, help="tokens per example (default per task: 256, 1024 for summarize-onecall)")  # fmt: skip
    p.add_argument("--validation", type=float, default=d.validation, help="held-out fraction for the validation loss")
    p.add_argument("--max-validation", type=int, default=d.max_validation, help="at most this many validation examples")
    p.add_argument(
        "--max-train", type=int, default=d.max_train, help="at most this many training examples (seeded draw)"
    )
    p.add_argument("--warmup", type=int, default=d.warmup, help="linear warm-up steps")
    p.add_argument("--seed", type=int, default=d.seed)
    p.add_argument("--checkpoint-every", type=int, default=d.checkpoint_every, help="steps between checkpoints")
    p.add_argument("--device", default=None, help="cpu or cuda (default: cuda when available)")
    p.add_argument(
        "--restart", action="store_true", help="discard the checkpoints of an earlier run instead of resuming"
    )
    p.add_argument("--overwrite", action="store_true", help="replace an existing adapter folder of another run")
    p.add_argument("--no-progress", action="store_true", help="no tqdm bar on stderr")
    p.set_defaults(func=lazy("aya_lab.tune.cli:cmd_tune"))
