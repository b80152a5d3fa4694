"""``aya-lab tune TASK --model SPEC --data DATA --out DIR``: train a LoRA adapter (see :mod:`aya_lab.tune`).

Bad input (an unknown task, data of another task's format, misaligned files, an empty split, an output
folder in the way, a checkpoint of another run) prints one ``error: ...`` line and exits with status 2,
before any training; :func:`aya_lab.cli.main` does that for every command. The parser is
:mod:`aya_lab.tune.parser` (light: ``aya-lab tune --help`` imports none of this module).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from aya_lab.tune.config import QUICK_STEPS, TuneConfig
from aya_lab.tune.parser import DEFAULTS as _DEFAULTS
from aya_lab.tune.parser import HELP, register_tune
from aya_lab.tune.train import train_adapter

__all__ = ["HELP", "cmd_tune", "register_tune"]


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
