"""``aya-lab tune TASK --model SPEC --data DATA --out DIR``: train a LoRA adapter (see :mod:`aya_lab.tune`).

Bad input (an unknown task, data of another task's format, misaligned files, an empty split, an output
folder in the way, a checkpoint of another run) prints one ``error: ...`` line and exits with status 2,
before any training; :func:`aya_lab.cli.main` does that for every command.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from aya_lab.models.registry import model_help
from aya_lab.tune.config import QUICK_STEPS, TuneConfig
from aya_lab.tune.examples import TASKS
from aya_lab.tune.train import train_adapter

__all__ = ["HELP", "cmd_tune", "register"]

HELP = "train a LoRA adapter: translate, summarize-onecall, route"
_DEFAULTS = TuneConfig(task="route", model="-", data="-", out=Path("."))


def cmd_tune(args: argparse.Namespace) -> int:
    """Run ``aya-lab tune`` and print where the adapter is and how to load it."""
    config = TuneConfig(
        task=args.task, model=args.model, data=args.data, out=Path(args.out), pair=args.pair,
        steps=QUICK_STEPS if args.quick and args.steps is None else (args.steps or _DEFAULTS.steps),
        batch_size=args.batch_size, learning_rate=args.lr, rank=args.rank, alpha=args.alpha, dropout=args.dropout,
        targets=tuple(args.targets.split(",")), max_tokens=args.max_tokens, validation=args.validation,
        max_validation=args.max_validation, max_train=args.max_train, warmup=args.warmup, seed=args.seed,
        checkpoint_every=args.checkpoint_every, device=args.device, restart=args.restart, overwrite=args.overwrite,
    )  # fmt: skip
    result = train_adapter(config, progress=False if args.no_progress else None)
    card = result.card
    loss = card["loss"]
    print(f"adapter: {result.path} ({card['adapter']})")
    print(
        f"steps: {card['steps']} in {card['seconds']:.0f} s on {card['device']} ({card['dtype']}); validation loss "
        f"{loss['validation_before']:.3f} -> {loss['validation_after']:.3f} ({card['data']['validation']} held out)"
    )
    print(f"use it as: {result.spec}")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``tune`` to the ``aya-lab`` parser."""
    d = _DEFAULTS
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
    p.set_defaults(func=cmd_tune)
