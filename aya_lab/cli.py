"""``aya-lab``: demo | chat | graph ... | data ... | eval ... | tune ... | kb ...

One error contract for every command: bad input (an unknown option or value, a bad model spec, a file
that is missing or not a room) prints one ``error: ...`` line on stderr and exits with status 2. Usage
errors go through :class:`CliParser` (which every sub-parser inherits); errors raised by a command go
through :func:`main`'s guard (``graph``, ``data`` and ``eval`` commands also catch their own; ``tune`` relies on it). Bad
input is what :data:`BAD_INPUT` names: an :class:`~aya_lab.errors.AyaLabError`, or an ``OSError`` for a
file that is missing or unreadable. Any other exception is a bug and keeps its traceback. The
``chat`` REPL reports any failed line as ``error: ...`` and keeps the session: a failed send changes
nothing in the room.

**Fast start.** This module imports nothing heavy: a command's code is named by a ``module:attr``
reference and imported when that command runs (:data:`GROUPS` for the command groups, whose parsers
live with their code; ``demo``, ``chat`` and ``kb`` are declared here and run from
:mod:`aya_lab.room_cli`). ``aya-lab --help``, ``graph validate`` and ``data list`` never import the
model stack (torch, transformers, langchain-huggingface, sentence-transformers, faiss); a test pins that.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable
from typing import Any, NoReturn

from aya_lab.errors import AyaLabError
from aya_lab.settings import DEFAULT_ROLE_SPECS, ROLES

__all__ = ["main", "build_parser", "CliParser", "BAD_INPUT", "GROUPS", "lazy", "one_line", "resolve_ref"]

BAD_INPUT: tuple[type[BaseException], ...] = (AyaLabError, OSError)
"""What a command raises on bad input: aya_lab's own errors, and ``OSError`` for a file named on the
command line that is missing or unreadable. Anything else is a bug: it propagates with its traceback."""


def one_line(exc: BaseException) -> str:
    """The first line of an exception's message (a KeyError's key unquoted; the type when it is empty)."""
    message = str(exc.args[0]) if isinstance(exc, KeyError) and exc.args else str(exc)
    lines = message.strip().splitlines()
    return lines[0] if lines else type(exc).__name__


class CliParser(argparse.ArgumentParser):
    """argparse with the house error format: one ``error: PROG: MESSAGE`` line and exit status 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"error: {self.prog}: {message} (see {self.prog} --help)\n")


_DEFAULTS = ", ".join(f"{role}={DEFAULT_ROLE_SPECS[role]}" for role in ROLES)
_MODEL_HELP = (
    f"model spec for every role, or ROLE=SPEC for one (roles: {', '.join(ROLES)}); repeatable, e.g. --model "
    f"translator=hf:PATH (default: each role's own, {_DEFAULTS}; AYA_LAB_MODEL sets every role, "
    "AYA_LAB_MODEL_<ROLE> one)"
)
_POLICY_HELP = (
    "who may make Aya remember, for a room this command creates: anyone, listed:NAME,NAME or confirm "
    "(default: listed:<the first --user>, or confirm without --user); an existing room keeps its stored "
    "policy and a different value is an error"
)

GROUPS: dict[str, tuple[str, tuple[str, ...]]] = {
    "graph": ("graph specs: schema, validate, show, draw, hash, resolve", ("aya_lab.graph.cli:register",)),
    "data": (
        "test sets and training data: list, fetch, language codes, synth",
        ("aya_lab.datasets.cli:register_data",),
    ),
    "eval": (
        "evaluate translation, summaries, routing",
        ("aya_lab.eval.cli:register_eval", "aya_lab.attacks:register", "aya_lab.eval.grounding:register"),
    ),
    "tune": ("train a LoRA adapter: translate, summarize-onecall, route", ("aya_lab.tune.cli:register",)),
}
"""Command groups whose parsers live with their code: name -> (help, ``module:function`` registrars)."""


def resolve_ref(ref: str) -> Any:
    """The object a ``module:attr`` reference names (the module is imported now)."""
    module, _, attr = ref.partition(":")
    return getattr(importlib.import_module(module), attr)


def lazy(ref: str) -> Callable[[argparse.Namespace], int]:
    """A command handler named by ``module:function``, imported only when the command runs."""

    def run(args: argparse.Namespace) -> int:
        return int(resolve_ref(ref)(args) or 0)

    run.__qualname__ = run.__name__ = f"lazy[{ref}]"
    return run


def _add_room_commands(sub: Any, name: str) -> None:
    """``demo``, ``chat`` or ``kb``: options declared here, code in :mod:`aya_lab.room_cli`."""
    if name == "demo":
        p = sub.add_parser("demo", help="play a scripted multilingual conversation with Aya and print the feeds")
        p.add_argument("--room", default="runs/demo.sqlite", help="room file (recreated)")
        p.add_argument("--model", action="append", metavar="[ROLE=]SPEC", help=_MODEL_HELP)
        p.add_argument("--max-new-tokens", type=int, default=64)
        p.set_defaults(func=lazy("aya_lab.room_cli:cmd_demo"))
    elif name == "chat":
        p = sub.add_parser("chat", help="interactive room REPL (/as NAME, /feed NAME, /graph, /quit)")
        p.add_argument("room", help="room file (created if missing)")
        p.add_argument("--model", action="append", metavar="[ROLE=]SPEC", help=_MODEL_HELP)
        p.add_argument("--user", action="append", metavar="NAME:LANG", help="add a user (repeatable)")
        p.add_argument("--memory-policy", default=None, metavar="POLICY", help=_POLICY_HELP)
        p.add_argument(
            "--graph", default=None, metavar="SPEC",
            help="the room's graph: a packaged graph name (aya, aya_onecall, aya_context3) or a spec file "
            "(default: aya)",
        )  # fmt: skip
        p.set_defaults(func=lazy("aya_lab.room_cli:cmd_chat"))
    else:
        register_kb(sub)


def register_kb(sub: Any) -> None:
    """Add ``kb facts|forget|audit`` (notes Aya remembered in a room) to the CLI's sub-parsers."""
    p = sub.add_parser("kb", help="notes Aya remembered in a room: facts | forget | audit")
    kb_sub = p.add_subparsers(dest="kb_command", metavar="KB_COMMAND")
    kb_sub.required = True
    q = kb_sub.add_parser("facts", help="list the notes with their ids, authors and dates")
    q.add_argument("room", help="room file")
    q.set_defaults(func=lazy("aya_lab.room_cli:kb_facts"))
    q = kb_sub.add_parser("forget", help="remove a note, leaving an audit row")
    q.add_argument("room", help="room file")
    q.add_argument("fact_id", type=lambda v: str(v).strip().lstrip("#"), help="the note's id (kb facts lists them)")
    q.add_argument("--by", required=True, help="who asks to forget it (recorded in the audit row)")
    q.add_argument("--reason", default="", help="why (recorded in the audit row)")
    q.set_defaults(func=lazy("aya_lab.room_cli:kb_forget"))
    q = kb_sub.add_parser("audit", help="list the audit rows (who forgot what, and why)")
    q.add_argument("room", help="room file")
    q.set_defaults(func=lazy("aya_lab.room_cli:kb_audit"))


def build_parser(load: tuple[str, ...] | None = None) -> argparse.ArgumentParser:
    """The ``aya-lab`` parser. ``load`` names the command groups (:data:`GROUPS`) whose parsers are
    imported and built (default: all); the others are listed with their help only, which is all
    ``aya-lab --help`` shows."""
    parser = CliParser(prog="aya-lab", description="aya_lab: multilingual multi-agent workplace chat")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name in ("demo", "chat", *GROUPS, "kb"):
        if name not in GROUPS:
            _add_room_commands(sub, name)
        elif load is None or name in load:
            for ref in GROUPS[name][1]:
                resolve_ref(ref)(sub)
        else:
            sub.add_parser(name, help=GROUPS[name][0], add_help=False)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run one command; returns its exit status (2 and one ``error: ...`` line on bad input). Only the
    named command's group is imported (see the module docstring)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    command = next((a for a in argv if not a.startswith("-")), None)
    parser = build_parser(load=(command,) if command in GROUPS else ())
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help (0) or a usage error (2, already printed by CliParser.error)
        return exc.code if isinstance(exc.code, int) else 2
    try:
        return int(args.func(args) or 0)
    except BAD_INPUT as exc:
        print(f"error: {one_line(exc)}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
