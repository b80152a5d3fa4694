"""``aya-lab``: demo | chat | graph ... | data ... | eval ...

Every command turns bad input into one ``error: ...`` line on stderr and exit status 2.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any, TextIO

import aya_lab.room.nodes  # noqa: F401  (registers the Aya graph's factories for `graph` commands)
from aya_lab.demo import run_demo
from aya_lab.eval.cli import register as register_eval
from aya_lab.graph.cli import register as register_graph
from aya_lab.models import default_model_spec
from aya_lab.room import ChatRoom

__all__ = ["main", "build_parser", "ChatRepl"]


def _cmd_demo(args: argparse.Namespace) -> int:
    run_demo(args.room, model=args.model, max_new_tokens=args.max_new_tokens).close()
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

    def _as(self, name: str) -> None:
        self.room._check_user(name)
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
        for visit in self.room.trace(run_id or self.last_run or ""):
            self._say(f"  {visit.node}: {visit.seconds:.2f} s, {len(visit.generations)} model calls {visit.note}")


def _cmd_chat(args: argparse.Namespace) -> int:
    users = {}
    for item in args.user or []:
        name, sep, lang = item.partition(":")
        if not sep:
            raise ValueError(f"--user {item!r} must be NAME:LANGUAGE, e.g. amara:swh")
        users[name] = lang
    room = ChatRoom.open(args.room, model=args.model, users=users)
    repl = ChatRepl(room, sys.stdout)
    print(f"room {args.room} with {', '.join(room.users) or 'no users'}. {ChatRepl.HELP}", flush=True)
    interactive = sys.stdin.isatty()
    while True:
        prompt = f"{repl.speaker or '?'}> " if interactive else ""
        try:
            line = input(prompt)
        except EOFError:
            break
        try:
            if not repl.handle(line):
                break
        except (ValueError, KeyError) as exc:  # bad input: say so, keep the session
            print(f"error: {exc}", flush=True)
    room.close()
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="aya-lab", description="aya_lab: multilingual multi-agent workplace chat")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    p = sub.add_parser("demo", help="play a scripted multilingual conversation with Aya and print the feeds")
    p.add_argument("--room", default="runs/demo.sqlite", help="room file (recreated)")
    p.add_argument("--model", default=default_model_spec(), help="model spec (default: AYA_LAB_MODEL or smollm2)")
    p.add_argument("--max-new-tokens", type=int, default=64)
    p.set_defaults(func=_cmd_demo)
    p = sub.add_parser("chat", help="interactive room REPL (/as NAME, /feed NAME, /graph, /quit)")
    p.add_argument("room", help="room file (created if missing)")
    p.add_argument("--model", default=default_model_spec())
    p.add_argument("--user", action="append", metavar="NAME:LANG", help="add a user (repeatable)")
    p.set_defaults(func=_cmd_chat)
    register_graph(sub)
    register_eval(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except (ValueError, FileNotFoundError, RuntimeError) as exc:
        print(f"error: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
