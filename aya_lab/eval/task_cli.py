"""``aya-lab eval run TASK [OPTIONS]`` and ``aya-lab eval compare A B``: the evaluation commands, generated.

Every field of a task's config (:data:`aya_lab.eval.configs.CONFIGS`) becomes an option of ``eval run TASK``:
``--n-bootstrap`` for ``n_bootstrap``, an ``int``/``float`` typed as such, a ``bool`` as ``--flag`` /
``--no-flag``, a list as a comma-separated value, a value that is one text or several (a test set) as a
repeatable option, a model as its spec (:data:`~aya_lab.eval.configs.ModelRef`) and a room's models as
repeatable ``[ROLE=]SPEC`` (:data:`~aya_lab.eval.configs.RoleSpecs`), their help generated from the model
registry when the parser is built; the field's description is the help and its default the default. So a
new task needs no CLI code: register its config and it has a command. The command validates the options
with the config (one line naming a bad one), runs the task, prints the report's views and, with
``--out PATH.csv``, saves the report.

The commands of tasks that generate text (:data:`GENERATION`) also take ``--max-new-tokens`` and
``--batch-size``, with the defaults of the notebook that reports the task's figures, so a command with no
flags replays that notebook's generations from the cache; those and ``attacks`` take ``--engine``. Built
from light modules only: ``--help`` imports no model.
"""

from __future__ import annotations

import argparse
import textwrap
import types
import typing

from pydantic.fields import FieldInfo

from aya_lab.datasets.cli import command_group
from aya_lab.eval.configs import CONFIGS, TaskConfig
from aya_lab.eval.translation.specs import floor_kinds, system_help
from aya_lab.models.executor import GENERATION_ENGINES
from aya_lab.models.registry import model_help
from aya_lab.refs import lazy
from aya_lab.settings import ROLES

__all__ = ["GENERATION", "GENERATION_LIMITS", "add_task_commands", "option_values", "register_tasks"]

GENERATION: dict[str, tuple[int, int]] = {
    "translation": (64, 16),  # notebook 03
    "routing": (64, 16),  # notebook 04
    "sequences": (64, 16),  # notebook 04
    "summaries": (128, 8),  # notebook 05 (the model's default batch)
}
"""``--max-new-tokens`` and ``--batch-size`` of each task whose command loads its models: the settings the
notebook that reports the task loads its model with."""

GENERATION_LIMITS = {"max_new_tokens": 32_768, "batch_size": 4096}
"""The largest ``--max-new-tokens`` and ``--batch-size`` accepted: beyond any context and any accelerator's
memory (a typo is refused before work starts)."""

_ENGINE_TASKS = (*GENERATION, "attacks")

_EPILOGS = {
    "translation": lambda: (
        "system specs (--systems):\n"
        + system_help().split("\n", 1)[1]  # its first line names the old command's default
        + """
datasets: ntrex128, floresv1, mafand, workplace (with --pairs), or your own line-aligned files:
  files:SRC.txt,REF.txt         one language pair, given by --pairs (exactly one)
  files:eng-swh:SRC.txt,REF.txt the pair named in the spec; repeat --dataset for several file pairs
"""
    )
}
"""Help printed below a task's options (generated from registries, so it is never stale)."""


class _Help(argparse.RawDescriptionHelpFormatter):
    """Option help wrapped between words only: a spec (``other-sentence[:SEED]``) is never cut at its hyphen."""

    def _split_lines(self, text: str, width: int) -> list[str]:
        return textwrap.wrap(" ".join(text.split()), width, break_on_hyphens=False)


def _kind(info: FieldInfo) -> tuple[type[object], str]:
    """The scalar type an option parses (``str`` for a model or text) and its shape: ``one`` value,
    a comma-separated ``list``, or ``repeat`` (one text or several, the option repeated: texts that may
    hold commas, such as ``files:SRC,REF`` test sets)."""
    annotation = info.annotation
    args = [a for a in typing.get_args(annotation) if a is not type(None)]
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        if len(args) == 1:
            annotation = args[0]
        elif typing.get_origin(args[0]) is not list and list[str] in args:
            return str, "repeat"
    if typing.get_origin(annotation) is list:
        return str, "list"
    return (typing.cast(type, annotation), "one") if annotation in (int, float, bool) else (str, "one")


def _cli(info: FieldInfo) -> object:
    """What a field is on the command line beyond its type: ``spec`` (a model), ``role-specs`` (a room's)."""
    extra = info.json_schema_extra
    return extra.get("cli") if isinstance(extra, dict) else None


def _item(info: FieldInfo) -> FieldInfo:
    """The field an item of a list field is (its ``cli`` kind says what each item is)."""
    args = typing.get_args(info.annotation)
    return FieldInfo.from_annotation(args[0]) if typing.get_origin(info.annotation) is list and args else info


def _help(info: FieldInfo, name: str, default: object, shown: object) -> str:
    text = info.description or name
    if _cli(info) == "spec":
        text = model_help("chat", what=text)
    elif _cli(info) == "role-specs":
        text = f"{text}: {model_help('chat', roles=ROLES, directions=True)}"
    elif _cli(_item(info)) == "system":
        text = f"{text}: each a floor ({', '.join(floor_kinds())}), a model or a wrapper, optionally NAME=SPEC (below)"
    text += "" if default is None else f" (default: {shown})"
    return text.replace("%", "%%")  # argparse formats help with %: a "95%" is said as written


def _add_option(p: argparse.ArgumentParser, name: str, info: FieldInfo) -> None:
    flag = "--" + name.replace("_", "-")
    kind, shape = _kind(info)
    default = info.get_default(call_default_factory=True)
    default = default if default or shape != "list" else None  # an empty list is said as no default
    shown = ",".join(map(str, default)) if shape == "list" and default else default
    text = _help(info, name, default, shown)
    if kind is bool:
        p.add_argument(flag, dest=name, action=argparse.BooleanOptionalAction, default=None, help=text)
    elif _cli(info) == "role-specs" or shape == "repeat":
        metavar = "[ROLE=]SPEC" if shape != "repeat" else name.upper()
        p.add_argument(flag, dest=name, action="append", default=None, metavar=metavar, help=text + " (repeatable)")
    else:
        metavar = "A,B" if shape == "list" else name.upper()
        p.add_argument(flag, dest=name, type=kind, default=None, metavar=metavar, help=text)


def _bounded(flag: str, most: int) -> typing.Callable[[str], int]:
    def parse(value: str) -> int:
        number = int(value)
        if not 0 < number <= most:
            raise argparse.ArgumentTypeError(f"{flag} must be between 1 and {most:,}; got {value}")
        return number

    parse.__name__ = "int"  # argparse names the type in "invalid int value"
    return parse


def _add_run_options(p: argparse.ArgumentParser, name: str, config: type[TaskConfig]) -> None:
    """The options that are not the config's: how the models load and where they generate, and ``--out``."""
    if name in GENERATION and "max_new_tokens" not in config.model_fields:
        for i, (option, what) in enumerate(
            (("max_new_tokens", "generation limit"), ("batch_size", "prompts per generate"))
        ):
            flag = "--" + option.replace("_", "-")
            p.add_argument(flag, type=_bounded(flag, GENERATION_LIMITS[option]), default=GENERATION[name][i],
                           help=f"{what} of the models the command loads (default: %(default)s, as in the notebook)")  # fmt: skip
    if name in _ENGINE_TASKS:
        p.add_argument(
            "--engine", choices=GENERATION_ENGINES, default=None,
            help="where cache misses are generated: local, or ray (AYA_LAB_RAY_ADDRESS=auto|ray://HOST:PORT, "
            "else a local cluster); default $AYA_LAB_ENGINE or local",
        )  # fmt: skip
    p.add_argument("--out", default=None, metavar="PATH.csv", help="save the report there (and files beside it)")


def add_task_commands(ev: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``run TASK`` (one subcommand per config in ``CONFIGS``) and ``compare`` to the ``eval`` group ``ev``."""
    run = ev.add_parser("run", help="run an evaluation task: " + ", ".join(CONFIGS))
    tasks = run.add_subparsers(dest="task", metavar="TASK")
    tasks.required = True
    for name, config in CONFIGS.items():
        doc = (config.__doc__ or name).strip().splitlines()[0]
        epilog = _EPILOGS[name]() if name in _EPILOGS else None
        p = tasks.add_parser(name, help=doc, description=doc, epilog=epilog, formatter_class=_Help)
        for field, info in config.model_fields.items():
            _add_option(p, field, info)
        _add_run_options(p, name, config)
        p.set_defaults(func=lazy("aya_lab.eval.tasks:run_command"), config_class=config)
    p = ev.add_parser("compare", help="paired tests of one saved report's systems against another's")
    p.add_argument("a", help="a saved report's CSV (its baseline or --system-a is the reference point)")
    p.add_argument("b", help="a saved report's CSV of the same task (its systems, or --system-b, are tested)")
    p.add_argument("--system-a", default=None, help="the system of A tested against (default: its baseline)")
    p.add_argument("--system-b", default=None, help="the system of B tested (default: each)")
    p.add_argument("--n-bootstrap", type=int, default=None, help="bootstrap resamples (default: the task's)")
    p.add_argument("--n-ar", type=int, default=None, help="approximate-randomisation trials (default: the task's)")
    p.set_defaults(func=lazy("aya_lab.eval.tasks:compare_command"))


def register_tasks(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``eval run TASK`` and ``eval compare`` to the top-level ``subparsers``."""
    add_task_commands(command_group(subparsers, "eval"))


def option_values(args: argparse.Namespace, config: type[TaskConfig]) -> dict[str, object]:
    """The options given on the command line (unset ones keep the config's defaults), lists split on commas."""
    values: dict[str, object] = {}
    for field, info in config.model_fields.items():
        value = getattr(args, field, None)
        if value is None:
            continue
        shape = _kind(info)[1]
        if shape == "list":  # comma-separated, and a repeated option's values too
            parts = value if isinstance(value, list) else [value]
            value = [x.strip() for part in parts for x in str(part).split(",") if x.strip()]
        elif shape == "repeat" and isinstance(value, list) and len(value) == 1:
            value = value[0]
        values[field] = value
    return values
