"""Pieces the ``aya-lab eval`` commands share: the one-line error guard (with the executor of
``--engine``), and the model/progress options every model-backed ``eval`` command takes. Command groups
and the ``data`` commands live in :mod:`aya_lab.datasets.cli` (re-exported here), so ``aya-lab data``
starts without the model stack.

The options every model-backed ``eval`` command takes (:func:`add_run_options`, with
:data:`NOTEBOOK_DEFAULTS`) are declared in the light :mod:`aya_lab.eval.parsers` and re-exported here.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from typing import TypedDict

import pandas as pd

from aya_lab.agents.protocols import TextModel
from aya_lab.datasets.cli import EXPECTED_ERRORS, command_group, register_data
from aya_lab.datasets.parallel import DatasetError, dataset_names, plan_datasets, split_files_spec
from aya_lab.errors import InputError
from aya_lab.eval.out_paths import out_problem
from aya_lab.eval.parsers import NOTEBOOK_DEFAULTS, RUN_OPTION_LIMITS, add_run_options
from aya_lab.models import load_chat_model
from aya_lab.models.cache import default_cache_path
from aya_lab.models.engine import executor_from_env
from aya_lab.models.executor import use_executor
from aya_lab.models.loader import default_role_models, parse_role_models
from aya_lab.settings import settings

__all__ = [
    "NOTEBOOK_DEFAULTS",
    "RUN_OPTION_LIMITS",
    "command_group",
    "guard",
    "pandas_display",
    "register_data",
    "add_run_options",
    "model_from_args",
    "role_spec",
    "split_list",
    "check_out",
    "check_run_options",
    "check_translation_inputs",
]

_EXPECTED_ERRORS = EXPECTED_ERRORS


def guard(fn: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    """``fn`` with expected errors turned into one ``error: ...`` line on stderr and exit status 2."""

    def run(args: argparse.Namespace) -> int:
        try:
            if getattr(args, "engine", None) is None:
                return fn(args)
            executor = executor_from_env(args.engine)
            try:
                with use_executor(executor):
                    return fn(args)
            finally:
                shutdown = getattr(executor, "shutdown", None)
                if shutdown is not None:
                    shutdown()
        except _EXPECTED_ERRORS as exc:
            message = exc.args[0] if isinstance(exc, KeyError) and exc.args else str(exc)
            print(f"error: {message}", file=sys.stderr)
            return 2

    run.__name__ = fn.__name__
    return run


class pandas_display:
    """Wide pandas printing for the ``with`` block."""

    def __enter__(self) -> None:
        self._ctx = pd.option_context("display.width", 200, "display.max_columns", 50, "display.max_rows", 500)
        self._ctx.__enter__()

    def __exit__(self, *exc: object) -> bool | None:
        return self._ctx.__exit__(*exc)


def split_list(value: str | None) -> list[str]:
    """``"a, b,,c"`` -> ``["a", "b", "c"]``."""
    return [x.strip() for x in (value or "").split(",") if x.strip()]


def check_out(out: str | None, beside: Sequence[str] = ()) -> None:
    """Refuse, before any work, an ``--out`` that is no writable ``.csv`` file, or whose files ``beside``
    it (suffixes after its stem) cannot be written (:func:`~aya_lab.eval.out_paths.out_problem`)."""
    problem = out_problem(out, ".csv", beside)
    if problem:
        raise InputError(problem)


# -- options of the model-backed eval commands ------------------------------------------------------


def check_run_options(args: argparse.Namespace, beside: Sequence[str] = ()) -> None:
    """One-line errors for out-of-range common options (``beside``: the files written beside ``--out``)."""
    for flag, most in RUN_OPTION_LIMITS.items():
        value, name = getattr(args, flag, None), f"--{flag.replace('_', '-')}"
        if value is not None and value <= 0:
            raise InputError(f"{name} must be positive; got {value}")
        if value is not None and value > most:
            shown = f"{value:.3g}" if value >= 10**15 else str(value)
            raise InputError(f"{name} {shown} is over the limit of {most:,}; use at most {most:,}")
    check_out(args.out, beside)
    if settings().cache_mode != "off":
        default_cache_path()  # an unusable AYA_LAB_CACHE_DIR is refused now, not after the progress bar


def check_translation_inputs(args: argparse.Namespace) -> None:
    """``eval translate``'s inputs, before any model loads: the common options, ``--out`` and the files
    written beside it, every ``--dataset`` (a registered name, or a ``files:`` spec whose files exist)
    with every ``--pairs`` pair."""
    check_run_options(args, (".partial.jsonl", ".outputs.csv", ".json"))
    known = dataset_names()
    for name, _, _ in plan_datasets(args.dataset, args.pairs):
        if not name.startswith("files:") and name.strip().lower() not in known:
            raise DatasetError(f"unknown dataset {name!r}; use one of {', '.join(known)}, or files:SRC.txt,REF.txt")
        missing = [p for p in (split_files_spec(name)[1] if name.startswith("files:") else []) if not p.is_file()]
        if missing:
            raise DatasetError(f"{name}: no file {str(missing[0])!r}; pass files:SRC.txt,REF.txt of existing files")


class ModelSettings(TypedDict):
    """Generation settings and batch size for :func:`~aya_lab.models.load_chat_model`."""

    settings: dict[str, object]
    batch_size: int


def model_settings(args: argparse.Namespace) -> ModelSettings:
    """``{"settings": {...}, "batch_size": N}`` for :func:`~aya_lab.models.load_chat_model`."""
    return {"settings": {"max_new_tokens": args.max_new_tokens}, "batch_size": args.batch_size}


def role_spec(args: argparse.Namespace, role: str = "aya") -> str:
    """The spec ``--model`` gives ``role`` (``ROLE=SPEC`` or a bare ``SPEC``), else the role's default."""
    return {**default_role_models(), **parse_role_models(args.model)}[role]


def model_from_args(args: argparse.Namespace, role: str = "aya") -> TextModel:
    """The chat model ``--model`` names for ``role``, loaded with ``--max-new-tokens`` and ``--batch-size``
    (a spec named for both roles is one object: loaded models are memoised)."""
    return load_chat_model(role_spec(args, role), **model_settings(args))
