"""``aya-lab``: demo | chat | graph ... | data ... | eval ...

One error contract for every command: bad input (an unknown option or value, a bad model spec, a file
that is missing or not a room) prints one ``error: ...`` line on stderr and exits with status 2. Usage
errors go through :class:`CliParser` (which every sub-parser inherits); errors raised by a command go
through :func:`main`'s guard (``graph``, ``data`` and ``eval`` commands also catch their own). The
``chat`` REPL reports any failed line as ``error: ...`` and keeps the session: a failed send changes
nothing in the room.
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
from collections.abc import Callable
from typing import Any, NoReturn, TextIO

import aya_lab.room.nodes  # noqa: F401  (registers the Aya graph's factories for `graph` commands)
from aya_lab.demo import run_demo
from aya_lab.eval.cli import register as register_eval
from aya_lab.graph.cli import register as register_graph
from aya_lab.models import default_model_spec
from aya_lab.models.loader import parse_role_models
from aya_lab.room import ChatRoom

__all__ = ["main", "build_parser", "ChatRepl", "CliParser", "BAD_INPUT", "one_line"]

# what a command raises on bad input (sqlite3.Error: a --room file that is not a room database)
BAD_INPUT: tuple[type[BaseException], ...] = (ValueError, KeyError, OSError, RuntimeError, sqlite3.Error)


def one_line(exc: BaseException) -> str:
    """The first line of an exception's message (a KeyError's key unquoted; the type when it is empty)."""
    message = str(exc.args[0]) if isinstance(exc, KeyError) and exc.args else str(exc)
    lines = message.strip().splitlines()
    return lines[0] if lines else type(exc).__name__


class CliParser(argparse.ArgumentParser):
    """argparse with the house error format: one ``error: PROG: MESSAGE`` line and exit status 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"error: {self.prog}: {message} (see {self.prog} --help)\n")


def _cmd_demo(args: argparse.Namespace) -> int:
    models = parse_role_models(args.model or [default_model_spec()])
    run_demo(args.room, max_new_tokens=args.max_new_tokens, models=models).close()
    return 0


class ChatRepl:
    """The interactive room: plain lines are sent as the current speaker; slash commands do the rest."""

    HELP = (
        "commands: /as NAME (switch speaker), /feed NAME, /users, /add NAME LANGUAGE, /graph, "
        "/trace [RUN_ID], /help, /quit"
    )

    def __init__(self, room: Any, out: TextIO) -> None:
        self.room, self.out = room, out
        self.speaker: str | None = next(iter(room.users), None)
        self.last_run: str | None = None

    def handle(self, line: str) -> bool:
        """Handle one input line; ``False`` means quit."""
        line = line.strip()
        if not line:
            return True
        if line.startswith("/"):
            cmd, _, rest = line.partition(" ")
            rest = rest.strip()
            action: dict[str, Callable[[str], bool | None]] = {
                "/quit": lambda r: False,
                "/exit": lambda r: False,
                "/as": self._as,
                "/feed": self._feed,
                "/users": self._users,
                "/add": self._add,
                "/graph": self._graph,
                "/trace": self._trace,
                "/help": lambda r: self._say(self.HELP),
            }
            if cmd not in action:
                self._say(f"error: unknown command {cmd!r}; {self.HELP}")
                return True
            return action[cmd](rest) is not False
        if self.speaker is None:
            self._say("error: no speaker; add a user with /add NAME LANGUAGE")
            return True
        report = self.room.send(self.speaker, line)
        self.last_run = report.run_id
        self._say(str(report))
        for user, text in report.delivered.items():
            self._say(f"  [{user}] {text}")
        for user, text in (report.aya_reply or {}).items():
            self._say(f"  [{user}] aya | {text}")
        return True

    def _say(self, text: str) -> None:
        print(text, file=self.out, flush=True)

    def run(self, read_line: Callable[[str], str] = input, interactive: bool = False) -> None:
        """Read lines until ``/quit`` or end of input; a line that fails prints ``error: ...`` and the
        session goes on (the room rolls a failed send back, so nothing half-done stays)."""
        while True:
            try:
                line = read_line(f"{self.speaker or '?'}> " if interactive else "")
            except EOFError:
                return
            try:
                if not self.handle(line):
                    return
            except BAD_INPUT as exc:
                self._say(f"error: {one_line(exc)}")
            except Exception as exc:  # any failure of one line must not end the session
                self._say(f"error: {type(exc).__name__}: {one_line(exc)} (the room is unchanged)")

    def _as(self, name: str) -> None:
        if not name:
            self._say("error: usage: /as NAME")
            return
        self.room.check_user(name)
        self.speaker = name
        self._say(f"speaking as {name} ({self.room.users[name]})")

    def _feed(self, name: str) -> None:
        for d in self.room.feed(name or self.speaker or ""):
            self._say(f"  {d!r}")

    def _users(self, _: str) -> None:
        self._say(", ".join(f"{u} ({lang})" for u, lang in self.room.users.items()) or "no users")

    def _add(self, rest: str) -> None:
        parts = rest.split()
        if len(parts) != 2:
            self._say("error: usage: /add NAME LANGUAGE")
            return
        self.room.add_user(parts[0], parts[1])
        self.speaker = self.speaker or parts[0]
        self._say(f"added {parts[0]} ({self.room.users[parts[0]]})")

    def _graph(self, _: str) -> None:
        self._say(self.room.draw("ascii"))

    def _trace(self, run_id: str) -> None:
        run_id = run_id or self.last_run or ""
        if not run_id:
            self._say("error: no run yet in this session; send a message first, or /trace RUN_ID")
            return
        for visit in self.room.trace(run_id):
            self._say(f"  {visit.node}: {visit.seconds:.2f} s, {len(visit.generations)} model calls {visit.note}")


def _cmd_chat(args: argparse.Namespace) -> int:
    users = {}
    for item in args.user or []:
        name, sep, lang = item.partition(":")
        if not sep:
            raise ValueError(f"--user {item!r} must be NAME:LANGUAGE, e.g. amara:swh")
        users[name] = lang
    room = ChatRoom.open(args.room, models=parse_role_models(args.model or [default_model_spec()]), users=users)
    try:
        repl = ChatRepl(room, sys.stdout)
        print(f"room {args.room} with {', '.join(room.users) or 'no users'}. {ChatRepl.HELP}", flush=True)
        repl.run(input, interactive=sys.stdin.isatty())
    finally:
        room.close()
    return 0


_MODEL_HELP = (
    "model spec for every role, or ROLE=SPEC for one (roles: translator, aya); repeatable, e.g. "
    "--model translator=gemma3-270m --model aya=smollm2 (default: AYA_LAB_MODEL or smollm2)"
)


def build_parser() -> argparse.ArgumentParser:
    parser = CliParser(prog="aya-lab", description="aya_lab: multilingual multi-agent workplace chat")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    p = sub.add_parser("demo", help="play a scripted multilingual conversation with Aya and print the feeds")
    p.add_argument("--room", default="runs/demo.sqlite", help="room file (recreated)")
    p.add_argument("--model", action="append", metavar="[ROLE=]SPEC", help=_MODEL_HELP)
    p.add_argument("--max-new-tokens", type=int, default=64)
    p.set_defaults(func=_cmd_demo)
    p = sub.add_parser("chat", help="interactive room REPL (/as NAME, /feed NAME, /graph, /quit)")
    p.add_argument("room", help="room file (created if missing)")
    p.add_argument("--model", action="append", metavar="[ROLE=]SPEC", help=_MODEL_HELP)
    p.add_argument("--user", action="append", metavar="NAME:LANG", help="add a user (repeatable)")
    p.set_defaults(func=_cmd_chat)
    register_graph(sub)
    register_eval(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run one command; returns its exit status (2 and one ``error: ...`` line on bad input)."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help (0) or a usage error (2, already printed by CliParser.error)
        return exc.code if isinstance(exc.code, int) else 2
    try:
        return int(args.func(args) or 0)
    except BAD_INPUT as exc:
        where = f"{args.room}: " if isinstance(exc, sqlite3.Error) and getattr(args, "room", None) else ""
        print(f"error: {where}{one_line(exc)}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
