"""``aya-lab data list|fetch|languages|synth``: the test sets, synthetic training data, and the command groups
they share with ``eval``.

Kept apart from the evaluation commands so that ``aya-lab data ...`` starts without the model stack (the
datasets layer imports only core). :func:`command_group` returns a group's subparsers, creating the group
once, so modules can add commands next to each other (``eval run`` and ``eval compare`` do).
Bad input prints one ``error: ...`` line on stderr and returns status 2.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

from aya_lab.cli_groups import group_help
from aya_lab.datasets.fetch import fetch_dataset
from aya_lab.datasets.parallel import list_datasets
from aya_lab.datasets.synth import write_synth
from aya_lab.errors import AyaLabError
from aya_lab.languages import LANGUAGES

__all__ = ["EXPECTED_ERRORS", "command_group", "register_data", "one_line_errors"]

EXPECTED_ERRORS: tuple[type[BaseException], ...] = (AyaLabError, OSError)
"""What a ``data``/``eval`` command raises on bad input (aya_lab's own errors; ``OSError`` for a missing or
unreadable file): reported in one line, status 2. Anything else is a bug and keeps its traceback."""


def command_group(
    subparsers: argparse._SubParsersAction, name: str, help: str | None = None
) -> argparse._SubParsersAction:
    """The subparsers of top-level group ``name`` (``data``, ``eval``), created on first use with ``help``
    (default: the group's, from :data:`~aya_lab.cli_groups.GROUPS`)."""
    parser = subparsers.choices.get(name)
    if parser is None:
        text = group_help(name) if help is None else help
        parser = subparsers.add_parser(name, help=text, description=text)
    group = getattr(parser, "_aya_group", None)
    if group is None:
        group = parser.add_subparsers(dest=f"{name}_command", metavar="COMMAND")
        group.required = True
        parser._aya_group = group  # type: ignore[attr-defined]
    return group


def one_line_errors(fn: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    """``fn`` with :data:`EXPECTED_ERRORS` turned into one ``error: ...`` line on stderr and status 2."""

    def run(args: argparse.Namespace) -> int:
        try:
            return fn(args)
        except EXPECTED_ERRORS as exc:
            message = exc.args[0] if isinstance(exc, KeyError) and exc.args else str(exc)
            print(f"error: {message}", file=sys.stderr)
            return 2

    run.__name__ = fn.__name__
    return run


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


def _synth_summarize(args: argparse.Namespace) -> int:
    path = write_synth(args.out, n=args.n, seed=args.seed)
    print(f"wrote {args.n} transcripts (seed {args.seed}) to {path}")
    return 0


def _register_synth(data: argparse._SubParsersAction) -> None:
    p = data.add_parser("synth", help="write synthetic training data (summarize)")
    kinds = p.add_subparsers(dest="synth_kind", metavar="KIND")
    kinds.required = True
    q = kinds.add_parser(
        "summarize", help="seeded chat transcripts with gold counts, summaries and action items (JSONL)"
    )
    q.add_argument("--out", default="data/synth/summarize.jsonl", help="the JSONL file to write")
    q.add_argument("--n", type=int, default=300, help="how many transcripts")
    q.add_argument("--seed", type=int, default=0, help="the same seed writes the same file")
    q.set_defaults(func=one_line_errors(_synth_summarize))


def register_data(subparsers: argparse._SubParsersAction) -> None:
    """``data list|fetch|languages|synth``."""
    data = command_group(subparsers, "data")
    p = data.add_parser("list", help="which test sets are present, with their languages")
    p.set_defaults(func=one_line_errors(_data_list))
    p = data.add_parser("fetch", help="download a test set from its public source")
    p.add_argument("name", help="ntrex128, floresv1 or mafand")
    p.add_argument("--dest", default=None, help="target folder (default: $AYA_LAB_DATA_DIR/NAME)")
    p.add_argument("--base-url", default=None, help="mirror of raw.githubusercontent.com")
    p.add_argument("--languages", default=None, help="comma-separated subset, e.g. swh,yor")
    p.add_argument("--no-verify", action="store_true", help="keep files whose checksums differ")
    p.set_defaults(func=one_line_errors(_data_fetch))
    p = data.add_parser("languages", help="the language table (codes, names, coverage)")
    p.set_defaults(func=one_line_errors(_data_languages))
    _register_synth(data)
