"""Pieces the ``aya-lab data|eval`` commands share: command groups, the one-line error guard, the
``data`` commands, and the model/progress options every model-backed ``eval`` command takes.

Options common to ``eval translate|summarize|route`` (:func:`add_run_options`): ``--model``,
``--max-new-tokens``, ``--batch-size``, ``--n``, ``--out``, ``--n-bootstrap``, ``--seed``,
``--no-progress``. Their defaults per command are those of the notebook that reports the figure
(:data:`NOTEBOOK_DEFAULTS`), so a command with no flags reproduces the notebook.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any

import pandas as pd

from aya_lab.datasets.fetch import fetch_dataset
from aya_lab.datasets.parallel import list_datasets
from aya_lab.languages import LANGUAGES
from aya_lab.models import load_chat_model
from aya_lab.models.engine import executor_from_env
from aya_lab.models.executor import ENGINES, use_executor
from aya_lab.models.loader import default_role_models, parse_role_models

__all__ = [
    "NOTEBOOK_DEFAULTS",
    "command_group",
    "guard",
    "pandas_display",
    "register_data",
    "add_run_options",
    "model_from_args",
    "role_spec",
    "split_list",
    "check_out",
]

_EXPECTED_ERRORS: tuple[type[BaseException], ...] = (ValueError, FileNotFoundError, RuntimeError, KeyError)

NOTEBOOK_DEFAULTS: dict[str, dict[str, int]] = {
    "translate": {"max_new_tokens": 64, "batch_size": 16},  # notebook 03
    "route": {"max_new_tokens": 64, "batch_size": 16},  # notebook 04
    "summarize": {"max_new_tokens": 128, "batch_size": 8},  # notebook 05 (the model's default batch)
}
"""Generation defaults of each ``eval`` command: those the notebooks load their model with."""


def command_group(subparsers: argparse._SubParsersAction, name: str, help: str) -> argparse._SubParsersAction:
    """The subparsers of top-level group ``name`` (``data``, ``eval``), created on first use."""
    parser = subparsers.choices.get(name)
    if parser is None:
        parser = subparsers.add_parser(name, help=help, description=help)
    group = getattr(parser, "_aya_group", None)
    if group is None:
        group = parser.add_subparsers(dest=f"{name}_command", metavar="COMMAND")
        group.required = True
        parser._aya_group = group
    return group


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

    def __exit__(self, *exc: Any) -> Any:
        return self._ctx.__exit__(*exc)


def split_list(value: str | None) -> list[str]:
    """``"a, b,,c"`` -> ``["a", "b", "c"]``."""
    return [x.strip() for x in (value or "").split(",") if x.strip()]


def check_out(out: str | None) -> None:
    """Refuse an ``--out`` that does not name a ``.csv`` file."""
    if out and not out.lower().endswith(".csv"):
        raise ValueError(f"--out must name a .csv file, not {out}")


# -- options of the model-backed eval commands ------------------------------------------------------


def add_run_options(p: argparse.ArgumentParser, command: str, *, out_help: str) -> None:
    """The options every model-backed ``eval`` command takes, with ``command``'s notebook defaults."""
    defaults = NOTEBOOK_DEFAULTS[command]
    p.add_argument(
        "--model",
        action="append",
        default=None,
        metavar="[ROLE=]SPEC",
        help="a model for every role (SPEC) or for one (translator=SPEC, aya=SPEC; repeatable); default: each "
        "role's measured default (translator gemma3-270m, aya smollm2), $AYA_LAB_MODEL_<ROLE> or $AYA_LAB_MODEL",
    )
    p.add_argument(
        "--max-new-tokens",
        type=int,
        default=defaults["max_new_tokens"],
        help=f"generation limit (default {defaults['max_new_tokens']}, as in the notebook)",
    )
    p.add_argument(
        "--batch-size",
        type=int,
        default=defaults["batch_size"],
        help=f"prompts per generate (default {defaults['batch_size']})",
    )
    p.add_argument("--n", type=int, default=None, help="only the first N items")
    p.add_argument("--out", default=None, help=out_help)
    p.add_argument("--n-bootstrap", type=int, default=1000)
    p.add_argument("--seed", type=int, default=0, help="seed of the bootstrap resamples")
    p.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    p.add_argument(
        "--engine",
        choices=ENGINES,
        default=None,
        help="where cache misses are generated: local, or ray (AYA_LAB_RAY_ADDRESS=auto|ray://HOST:PORT, "
        "else a local cluster); default $AYA_LAB_ENGINE or local",
    )


def check_run_options(args: argparse.Namespace) -> None:
    """One-line errors for out-of-range common options."""
    for flag in ("n", "max_new_tokens", "batch_size"):
        value = getattr(args, flag, None)
        if value is not None and value <= 0:
            raise ValueError(f"--{flag.replace('_', '-')} must be positive; got {value}")
    check_out(args.out)


def model_settings(args: argparse.Namespace) -> dict[str, Any]:
    """``{"settings": {...}, "batch_size": N}`` for :func:`~aya_lab.models.load_chat_model`."""
    return {"settings": {"max_new_tokens": args.max_new_tokens}, "batch_size": args.batch_size}


def role_spec(args: argparse.Namespace, role: str = "aya") -> str:
    """The spec ``--model`` gives ``role`` (``ROLE=SPEC`` or a bare ``SPEC``), else the role's default."""
    return {**default_role_models(), **parse_role_models(args.model)}[role]


def model_from_args(args: argparse.Namespace, role: str = "aya") -> Any:
    """The chat model ``--model`` names for ``role``, loaded with ``--max-new-tokens`` and ``--batch-size``
    (a spec named for both roles is one object: loaded models are memoised)."""
    return load_chat_model(role_spec(args, role), **model_settings(args))


# -- data ------------------------------------------------------------------------------------------


def _data_list(args: argparse.Namespace) -> int:
    for info in list_datasets():
        state = "present" if info.present else "absent "
        langs = (
            " ".join(info.languages)
            if info.present
            else (f"run `aya-lab data fetch {info.name}`" if info.fetchable else "ships with the repository")
        )
        print(f"{info.name:<10} {state} {info.location}")
        print(f"{'':<10} splits: {', '.join(info.splits)}; license: {info.license}; languages: {langs}")
    return 0


def _data_fetch(args: argparse.Namespace) -> int:
    langs = [x for x in args.languages.split(",") if x.strip()] if args.languages else None
    path = fetch_dataset(args.name, args.dest, base_url=args.base_url, languages=langs, verify=not args.no_verify)
    print(f"fetched {args.name} into {path}")
    return 0


def _data_languages(args: argparse.Namespace) -> int:
    print(f"{'code':<5} {'name':<12} {'iso1':<5} {'nllb':<9} {'langid':<7} {'bleu tok':<8} aliases")
    for lang in LANGUAGES:
        print(
            f"{lang.code:<5} {lang.name:<12} {lang.iso1 or '-':<5} {lang.nllb:<9} "
            f"{'yes' if lang.lingua else 'n/a':<7} {lang.sacrebleu_tokenizer:<8} {', '.join(lang.aliases)}"
        )
    return 0


def register_data(subparsers: argparse._SubParsersAction) -> None:
    """``data list|fetch|languages``."""
    data = command_group(subparsers, "data", "test sets: list, fetch, language codes")
    p = data.add_parser("list", help="which test sets are present, with their languages")
    p.set_defaults(func=guard(_data_list))
    p = data.add_parser("fetch", help="download a test set from its public source")
    p.add_argument("name", help="ntrex128, floresv1 or mafand")
    p.add_argument("--dest", default=None, help="target folder (default: $AYA_LAB_DATA_DIR/NAME)")
    p.add_argument("--base-url", default=None, help="mirror of raw.githubusercontent.com")
    p.add_argument("--languages", default=None, help="comma-separated subset, e.g. swh,yor")
    p.add_argument("--no-verify", action="store_true", help="keep files whose checksums differ")
    p.set_defaults(func=guard(_data_fetch))
    p = data.add_parser("languages", help="the language table (codes, names, coverage)")
    p.set_defaults(func=guard(_data_languages))
