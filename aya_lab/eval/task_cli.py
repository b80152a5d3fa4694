"""``aya-lab eval run TASK [OPTIONS]``: one command per task, generated from the task's config.

Every field of a task's config (:data:`aya_lab.eval.configs.CONFIGS`) becomes an option: ``--n-bootstrap``
for ``n_bootstrap``, an ``int``/``float`` typed as such, a ``bool`` as ``--flag`` / ``--no-flag``, a list as
a comma-separated value, a model as its spec (its help lists the specs the model registry takes); the
field's description is the help and its default the default. So a new task needs no CLI code: register
its config and it has a command. The command validates the options with the config (one line naming a
bad one), runs the task, prints the report's table and, with ``--out PATH.csv``, saves the report. Built
from light modules only: ``--help`` imports no model.
"""

from __future__ import annotations

import argparse
import types
import typing

from pydantic.fields import FieldInfo

from aya_lab.datasets.cli import command_group
from aya_lab.eval.configs import CONFIGS, TaskConfig
from aya_lab.models.registry import model_help
from aya_lab.refs import lazy

__all__ = ["add_task_commands", "option_values", "register_tasks"]


def _kind(info: FieldInfo) -> tuple[type[object], bool]:
    """The scalar type an option parses (``str`` for a model or text) and whether it is a list."""
    annotation = info.annotation
    args = [a for a in typing.get_args(annotation) if a is not type(None)]
    if typing.get_origin(annotation) in (typing.Union, types.UnionType) and len(args) == 1:
        annotation = args[0]
    if typing.get_origin(annotation) is list:
        return str, True
    return (typing.cast(type, annotation), False) if annotation in (int, float, bool) else (str, False)


def _add_option(p: argparse.ArgumentParser, name: str, info: FieldInfo) -> None:
    flag = "--" + name.replace("_", "-")
    kind, is_list = _kind(info)
    default = info.get_default(call_default_factory=True)
    shown = ",".join(map(str, default)) if is_list else default
    text = info.description or name
    text += "" if default is None else f" (default: {shown})"
    extra = info.json_schema_extra if isinstance(info.json_schema_extra, dict) else {}
    if extra.get("cli") == "spec":  # a model: the specs it takes, from the model registry, as every --model says
        text += f"; {model_help('chat')}"
    if kind is bool:
        p.add_argument(flag, dest=name, action=argparse.BooleanOptionalAction, default=None, help=text)
    else:
        metavar = "A,B" if is_list else name.upper()
        p.add_argument(flag, dest=name, type=kind, default=None, metavar=metavar, help=text)


def add_task_commands(ev: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``run TASK`` to the ``eval`` group ``ev``, one subcommand per config in ``CONFIGS``."""
    run = ev.add_parser("run", help="run an evaluation task from its config (summaries, ...)")
    tasks = run.add_subparsers(dest="task", metavar="TASK")
    tasks.required = True
    for name, config in CONFIGS.items():
        doc = (config.__doc__ or name).strip().splitlines()[0]
        p = tasks.add_parser(name, help=doc, description=doc)
        for field, info in config.model_fields.items():
            _add_option(p, field, info)
        p.add_argument("--out", default=None, metavar="PATH.csv", help="save the report there (and files beside it)")
        p.set_defaults(func=lazy("aya_lab.eval.tasks:run_command"), config_class=config)


def register_tasks(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``eval run TASK`` to the top-level ``subparsers``."""
    add_task_commands(command_group(subparsers, "eval", "evaluate translation, summaries, routing"))


def option_values(args: argparse.Namespace, config: type[TaskConfig]) -> dict[str, object]:
    """The options given on the command line (unset ones keep the config's defaults), lists split on commas."""
    values: dict[str, object] = {}
    for field, info in config.model_fields.items():
        value = getattr(args, field, None)
        if value is None:
            continue
        if _kind(info)[1]:
            value = [x.strip() for x in str(value).split(",") if x.strip()]
        values[field] = value
    return values
