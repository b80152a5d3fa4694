"""Running a task: :func:`run` validates a config, runs the registered task and returns its
:class:`~aya_lab.eval.report.Report`; :func:`compare` tests one report's systems against another's.

``run("summaries", model=chat, n=5)`` is the notebook's call and ``aya-lab eval run summaries --n 5``
(:func:`run_command`) the command line's; both go through the task's config, so a misspelt or
out-of-range option is the same one-line error either way, raised before any model is called.
``aya-lab eval compare A B`` (:func:`compare_command`) compares two saved reports.

The commands' contract: bad input is one ``error: ...`` line on stderr and exit status 2, and nothing is
half-written: ``--out`` is checked before any work (:func:`out_problem`), and the report's files are
written only once every figure is computed. A translation run with ``--out`` keeps finished chunks in
``<stem>.partial.jsonl`` (unless ``--checkpoint`` names another file), so a killed run resumes; the file
is removed once the report is saved.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

import pandas as pd
from pydantic import ValidationError

from aya_lab.datasets.cli import one_line_errors
from aya_lab.errors import InputError
from aya_lab.eval.configs import TaskConfig
from aya_lab.eval.report import Report, task
from aya_lab.eval.task_cli import GENERATION, option_values
from aya_lab.eval.translation.specs import model_options, parse_system
from aya_lab.models import load_chat_model
from aya_lab.models.cache import default_cache_path
from aya_lab.models.engine import executor_from_env
from aya_lab.models.executor import use_executor
from aya_lab.models.loader import default_model_spec
from aya_lab.paths import system_folder
from aya_lab.settings import settings as env

__all__ = ["compare", "compare_command", "out_problem", "pandas_display", "run", "run_command", "task_config"]


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


# -- the command line --------------------------------------------------------------------------------

_FIX = "choose a file in a folder you can write, e.g. --out runs/results.csv"


class pandas_display:
    """Wide pandas printing for the ``with`` block."""

    def __enter__(self) -> None:
        self._ctx = pd.option_context("display.width", 200, "display.max_columns", 50, "display.max_rows", 500)
        self._ctx.__enter__()

    def __exit__(self, *exc: object) -> bool | None:
        return self._ctx.__exit__(*exc)


def _existing_problem(path: Path, suffix: str, label: str) -> str | None:
    if path.is_dir():
        return (
            f"{label} {str(path)!r} is a folder; name a {suffix} file in it, e.g. {str(path / ('results' + suffix))!r}"
        )
    if not path.is_file():
        return f"{label} {str(path)!r} exists and is not a regular file; {_FIX}"
    try:
        head = path.read_bytes()[:65536]
        head.decode("utf-8")
        binary = b"\x00" in head
    except UnicodeDecodeError:
        binary = True
    if binary:
        return f"{label} {str(path)!r} exists and is not a {suffix} file (binary): writing would destroy it; {_FIX}"
    return None if os.access(path, os.W_OK) else f"{label} {str(path)!r} exists and is not writable; {_FIX}"


def _folder_problem(path: Path, label: str) -> str | None:
    """Why the file ``path`` cannot be created in its folder (the nearest existing ancestor), or None."""
    parent = path.parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    if not parent.is_dir():
        return f"{label} {str(path)!r} lies under {str(parent)!r}, which is a file, not a folder; {_FIX}"
    if not os.access(parent, os.W_OK | os.X_OK):
        return f"{label} {str(path)!r}: the folder {str(parent)!r} is not writable; {_FIX}"
    return None


def out_problem(out: str | None, suffix: str = ".csv", beside: Sequence[str] = ()) -> str | None:
    """Why ``out`` (and the files named ``<stem><b>`` for each ``b`` of ``beside``) cannot be written as a
    command's results, in one line with the fix, or None (also for no ``out``). Refused: another suffix, a
    system folder (``/proc``, ``/sys``, ``/dev``), a folder, an existing binary file, a file or folder this
    process may not write, a path under a file."""
    if not out:
        return None
    if not out.lower().endswith(suffix):
        return f"--out must name a {suffix} file, not {out!r}; e.g. --out runs/results{suffix}"
    path = Path(out).expanduser()
    folder = system_folder(path)
    if folder:
        return f"--out {out!r} is in {folder}, a system folder, not a place for results; {_FIX}"
    stem = path.with_suffix("")
    for target in (path, *(stem.with_name(stem.name + b) for b in beside)):
        label = "--out" if target == path else "the file beside --out"
        kind = suffix if target == path else target.suffix
        problem = _existing_problem(target, kind, label) if target.exists() else _folder_problem(target, label)
        if problem:
            return problem
    return None


@contextlib.contextmanager
def _engine(name: str | None) -> Iterator[None]:
    """Generate cache misses on the ``--engine`` named (the default executor when None)."""
    if name is None:
        yield
        return
    executor = executor_from_env(name)
    try:
        with use_executor(executor):
            yield
    finally:
        shutdown = getattr(executor, "shutdown", None)
        if shutdown is not None:
            shutdown()


def _with_models(
    name: str, config: TaskConfig, args: argparse.Namespace
) -> contextlib.AbstractContextManager[TaskConfig]:
    """``config`` with its models loaded with ``--max-new-tokens`` and ``--batch-size``: ``model`` (unset: the
    aya role's) and ``translator`` (unset: ``model`` when given, else the translator role's), as the room and
    the notebooks load them; no translator when the config reads requests as written
    (``translate_requests=False``); one model per distinct spec; the translation task's systems load theirs
    inside the block; a task that loads no model as it is."""
    if name not in GENERATION:
        return contextlib.nullcontext(config)
    settings = {"settings": {"max_new_tokens": args.max_new_tokens}, "batch_size": args.batch_size}
    if env().cache_mode != "off":
        default_cache_path()  # an unusable AYA_LAB_CACHE_DIR is refused now, not after the first model call
    if name == "translation":
        for spec in dict(config)["systems"]:  # every spec checked before the first model loads
            if isinstance(spec, str):
                parse_system(spec)
        return _yielding(config, model_options(**settings))  # type: ignore[arg-type]
    fields = dict(config)
    specs = {"model": fields["model"] or default_model_spec("aya")}  # a loaded model (from Python) stays
    if "translator" in fields and fields.get("translate_requests", True):  # no translator loaded when unused
        # as a bare --model sets every role of a room; with none, the role's default
        specs["translator"] = fields["translator"] or fields["model"] or default_model_spec("translator")
    by_spec = {
        v: load_chat_model(v, **settings) for v in dict.fromkeys(v for v in specs.values() if isinstance(v, str))
    }  # type: ignore[arg-type]
    loaded = {k: by_spec[v] if isinstance(v, str) else v for k, v in specs.items()}  # one model per spec
    return contextlib.nullcontext(task_config(name, config, **loaded))


@contextlib.contextmanager
def _yielding(value: TaskConfig, context: contextlib.AbstractContextManager[object]) -> Iterator[TaskConfig]:
    with context:
        yield value


def _print(report: Report) -> None:
    """The run's prompt notes on stderr (a base model given the completion prompt instead), then its views."""
    notes = list(report.meta.get("prompt_notes") or [])  # type: ignore[call-overload]
    translator = report.meta.get("translator_prompt")
    if isinstance(translator, dict) and translator.get("prompt_note"):
        notes.append(f"translator: {translator['prompt_note']}")
    for note in notes:
        print(note, file=sys.stderr)
    with pandas_display():
        for i, (title, table) in enumerate(report.views()):
            if title:
                print(("\n" if i else "") + title)
            plain = isinstance(table.index, pd.RangeIndex)  # a numbered index says nothing: left out
            print(table.to_string(index=not plain, float_format=lambda x: f"{x:.4g}"))


@one_line_errors
def run_command(args: argparse.Namespace) -> int:
    """``aya-lab eval run TASK``: validate, run, print the report's views, save it with ``--out``."""
    name, config_class = args.task, args.config_class
    beside = (".partial.jsonl",) if "checkpoint" in config_class.model_fields else ()
    problem = out_problem(args.out, ".csv", beside)
    if problem:
        raise InputError(problem)
    values = option_values(args, config_class)
    checkpoint = None
    if beside and args.out and "checkpoint" not in values:
        checkpoint = Path(args.out).with_name(Path(args.out).stem + ".partial.jsonl")
        values["checkpoint"] = str(checkpoint)
    config = task_config(name, **values)
    with _engine(getattr(args, "engine", None)), _with_models(name, config, args) as ready:
        report = task(name).run(ready)
    _print(report)
    if args.out:
        report.save(args.out)
        if checkpoint is not None:
            checkpoint.unlink(missing_ok=True)
        print(f"wrote {args.out}")
    return 0


@one_line_errors
def compare_command(args: argparse.Namespace) -> int:
    """``aya-lab eval compare A B``: the task's paired tests of B's systems against A's, printed."""
    a, b = Report.load(args.a), Report.load(args.b)
    options = {k: getattr(args, k) for k in ("system_a", "system_b", "n_bootstrap", "n_ar")}
    table = a.compare(b, **{k: v for k, v in options.items() if v is not None})
    with pandas_display():
        print(table.to_string(index=False, float_format=lambda x: f"{x:.4g}"))
    return 0
