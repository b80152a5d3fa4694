"""Running a task: :func:`run` validates a config, runs the registered task and returns its
:class:`~aya_lab.eval.report.Report`; :func:`compare` tests one report's systems against another's.

``run("summaries", model=chat, n=5)`` is the notebook's call and ``aya-lab eval run summaries --n 5``
(:func:`run_command`) the command line's; both go through the task's config, so a misspelt or
out-of-range option is the same one-line error either way, raised before any model is called.
"""

from __future__ import annotations

import argparse

import pandas as pd
from pydantic import ValidationError

from aya_lab.errors import InputError
from aya_lab.eval.cli_support import check_out, guard, pandas_display
from aya_lab.eval.configs import TaskConfig
from aya_lab.eval.report import Report, task
from aya_lab.eval.task_cli import option_values

__all__ = ["compare", "run", "run_command", "task_config"]


def task_config(name: str, config: TaskConfig | None = None, /, **options: object) -> TaskConfig:
    """Task ``name``'s config: ``config`` (or the defaults) with ``options`` over it, validated."""
    spec = task(name)
    base = dict(config) if config is not None else {}
    unknown = sorted(set(options) - set(spec.config.model_fields))
    if unknown:
        known = ", ".join(spec.config.model_fields)
        raise InputError(f"the {name} task has no option {unknown[0]!r}; its options are: {known}")
    try:
        made = spec.config.model_validate({**base, **options})
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(map(str, first["loc"])) or "config"
        raise InputError(f"{name} option {where}={first.get('input')!r}: {first['msg']}") from None
    assert isinstance(made, TaskConfig)
    return made


def run(name: str, config: TaskConfig | None = None, /, **options: object) -> Report:
    """Run task ``name`` (a built-in task or a registered one) with ``config`` and
    ``options`` (each a field of the task's config) and return its report."""
    return task(name).run(task_config(name, config, **options))


def compare(a: Report, b: Report, **options: object) -> pd.DataFrame:
    """Paired tests of ``b``'s systems against ``a``'s on the items both scored (the task's own rule)."""
    return a.compare(b, **options)


@guard
def run_command(args: argparse.Namespace) -> int:
    """``aya-lab eval run TASK``: validate, run, print the table, save with ``--out`` (an expected error is one
    ``error:`` line and status 2, as every ``eval`` command's)."""
    check_out(args.out)
    report = run(args.task, **option_values(args, args.config_class))
    with pandas_display():
        print(report.table().to_string())
    if args.out:
        report.save(args.out)
        print(f"wrote {args.out}")
    return 0
