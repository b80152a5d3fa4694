"""The commands that open a room: ``aya-lab demo``, ``aya-lab chat`` (the :class:`ChatRepl`) and ``aya-lab kb``.

:mod:`aya_lab.cli` declares their options and imports this module only when one of them runs: it brings
the model stack (torch, transformers), which the other commands never need. Everything printed from a
room goes through :func:`~aya_lab.text_safety.for_terminal`: a control character, an escape sequence or
a bidi override in a message shows as a visible escape instead of acting on the terminal, and a
message's second line is indented under its first, so it cannot pass for a line of its own.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from langchain_core.embeddings import Embeddings

from aya_lab.agents.memory import MemoryPolicy
from aya_lab.cli import BAD_INPUT, one_line
from aya_lab.demo import run_demo
from aya_lab.errors import InputError
from aya_lab.graph.cli import spec_path
from aya_lab.models.loader import default_role_models, parse_role_models
from aya_lab.rag import KnowledgeBase, ReadOnlyKnowledgeBase
from aya_lab.room import ChatRoom
from aya_lab.room.identity import normal_id
from aya_lab.text_safety import for_terminal

__all__ = ["ChatRepl", "cmd_chat", "cmd_demo", "kb_audit", "kb_facts", "kb_forget", "open_room_kb"]


def cmd_demo(args: argparse.Namespace) -> int:
    models = parse_role_models(args.model)
    run_demo(args.room, max_new_tokens=args.max_new_tokens, models=models).close()
    return 0


class ChatRepl:
    """The interactive room: plain lines are sent as the current speaker; slash commands do the rest."""

    HELP = (
        "commands: /as NAME (switch speaker), /feed NAME, /users, /add NAME LANGUAGE[,LANGUAGE...], /graph, "
        "/trace [RUN_ID], /remember TEXT, /approve ID, /forget ID, /help, /quit"
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
                # Aya's write commands, sent as the speaker (explicit: no model decides them)
                "/remember": lambda r: self.handle(f"@aya /remember {r}"),
                "/approve": lambda r: self.handle(f"@aya /approve {r}"),
                "/forget": lambda r: self.handle(f"@aya /forget {r}"),
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
            self._say(f"  [{user}] " + for_terminal(text, " " * (len(user) + 5)))
        for user, text in (report.aya_reply or {}).items():
            self._say(f"  [{user}] aya | " + for_terminal(text, " " * (len(user) + 11)))
        return True

    def _say(self, text: str) -> None:
        """Print ``text`` with any control, escape or bidi-override character shown, not obeyed."""
        print(for_terminal(text), file=self.out, flush=True)

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
        self.speaker = self.room.check_user(name)
        self._say(f"speaking as {self.speaker} ({self.room.users[self.speaker]})")

    def _feed(self, name: str) -> None:
        for d in self.room.feed(name or self.speaker or ""):
            self._say("  " + for_terminal(repr(d), "    "))

    def _users(self, _: str) -> None:
        self._say(", ".join(f"{u} ({','.join(langs)})" for u, langs in self.room.readers.items()) or "no users")

    def _add(self, rest: str) -> None:
        parts = rest.split()
        if len(parts) != 2:
            self._say("error: usage: /add NAME LANGUAGE[,LANGUAGE...] (e.g. /add amara swh,eng)")
            return
        user = self.room.add_user(parts[0], parts[1])
        self.speaker = self.speaker or user
        self._say(f"added {user} ({','.join(self.room.readers[user])})")

    def _graph(self, _: str) -> None:
        self._say(self.room.draw("ascii"))

    def _trace(self, run_id: str) -> None:
        run_id = run_id or self.last_run or ""
        if not run_id:
            self._say("error: no run yet in this session; send a message first, or /trace RUN_ID")
            return
        for visit in self.room.trace(run_id):
            self._say(f"  {visit.node}: {visit.seconds:.2f} s, {len(visit.generations)} model calls {visit.note}")


def _chat_users(items: list[str] | None) -> dict[str, str]:
    """``--user NAME:LANG`` options (``NAME:LANG,LANG`` for several languages, passed on as written to
    :mod:`aya_lab.room.readers`) as a dict; :class:`InputError` for a malformed or repeated one (ids
    that differ only in case or width are one id, :mod:`aya_lab.room.identity`)."""
    users: dict[str, str] = {}
    for item in items or []:
        name, sep, lang = item.partition(":")
        if not sep:
            raise InputError(f"--user {item!r} must be NAME:LANGUAGE, e.g. amara:swh or amara:swh,eng")
        same = next((f"{u}:{users[u]}" for u in users if normal_id(u) == normal_id(name)), None)
        if same is not None:
            raise InputError(f"--user {same!r} and --user {item!r} name one user; give each user once")
        users[name] = lang
    return users


def _settle_policy(room: ChatRoom, flag: str | None, created: bool) -> str | None:
    """Apply ``--memory-policy`` to an existing room: a room keeps its stored policy, a flag that differs
    from it is an :class:`InputError`; a room from before stated policies takes the flag. Returns a line
    to print, or None."""
    stored = room.memory.stored_policy
    if created or flag is None:
        return None if stored else f"note: room {room.path} has no memory policy, so anyone may make Aya remember"
    wanted = room.checked_policy(flag)
    if stored is None:
        room.memory.set_policy(wanted)
        return None
    if stored != wanted:
        raise InputError(
            f"--memory-policy {flag!r} conflicts with the policy {stored.describe()!r} stored in {room.path}; "
            "drop the flag to keep it, or use another room file"
        )
    return None


def cmd_chat(args: argparse.Namespace) -> int:
    users = _chat_users(args.user)
    if args.memory_policy is not None:
        MemoryPolicy.parse(args.memory_policy)  # a bad value is refused before anything is opened
    graph = spec_path(args.graph) if args.graph else None
    created = not Path(args.room).exists()
    policy = args.memory_policy if created else None  # None: a new room gets its creator's policy
    models: dict[str, Any] = {**default_role_models(), **parse_role_models(args.model)}
    room = ChatRoom.open(args.room, models=models, users=users, graph=graph, memory_policy=policy)
    try:
        line = _settle_policy(room, args.memory_policy, created)
        repl = ChatRepl(room, sys.stdout)
        policy_text = room.memory.policy.describe()
        print(
            for_terminal(
                f"room {args.room} with {', '.join(room.users) or 'no users'}; memory policy {policy_text}. "
                f"{ChatRepl.HELP}"
            ),
            flush=True,
        )
        if line:
            print(for_terminal(line), flush=True)
        repl.run(input, interactive=sys.stdin.isatty())
    finally:
        room.close()
    return 0


# -- kb: the notes Aya remembered in a room ---------------------------------------------------------------
# ``kb facts ROOM_FILE`` lists notes with ids; ``kb forget ROOM_FILE FACT_ID --by NAME [--reason TEXT]``
# removes one with an audit row; ``kb audit ROOM_FILE`` prints the audit. The knowledge base beside the
# room file is read through KnowledgeBase.open_readonly (no re-indexing, no embedding model loaded);
# only ``forget`` reopens it for writing, as stored.
class _StoredEmbedder(Embeddings):
    """Stands in for the embedder a store was built with: it has its fingerprint and embeds nothing."""

    def __init__(self, fingerprint: str) -> None:
        self.fingerprint = fingerprint

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        raise RuntimeError("aya-lab kb commands do not embed; open the room to add notes")

    def embed_query(self, text: str) -> list[float]:
        raise RuntimeError("aya-lab kb commands do not embed; open the room to search")


def open_room_kb(room_file: str | Path) -> ReadOnlyKnowledgeBase:
    """The knowledge base beside ``room_file``, read-only; :class:`~aya_lab.errors.InputError` naming the
    fix when there is no room file (a :class:`~aya_lab.rag.KnowledgeBaseError` when there is no built store)."""
    room = Path(room_file)
    kb_path = room.with_suffix(".kb.sqlite")
    if not room.is_file():
        raise InputError(f"no room with a knowledge base at {room} (expected {kb_path}); give a room file")
    return KnowledgeBase.open_readonly(kb_path)


def _with_kb(fn: Callable[[ReadOnlyKnowledgeBase, argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    def run(args: argparse.Namespace) -> int:
        with open_room_kb(args.room) as kb:
            return fn(kb, args)

    return run


def _facts(kb: ReadOnlyKnowledgeBase, args: argparse.Namespace) -> int:
    facts = kb.facts()
    if not facts:
        print(f"no notes in {args.room}")
    for f in facts:
        print(for_terminal(f"{f.id}\t{f.author or '-'}\t{str(f.created_at)[:19]}\t{f.text}", "\t"))
    return 0


def _forget(kb: ReadOnlyKnowledgeBase, args: argparse.Namespace) -> int:
    by = (args.by or "").strip()
    if not by:
        raise InputError("--by needs the name of who asks to forget (it goes in the audit row)")
    known = {str(f.id): f for f in kb.facts()}
    if args.fact_id not in known:
        ids = ", ".join(str(i) for i in known) or "none"
        raise InputError(f"no note {args.fact_id} in {args.room}; notes: {ids} (see aya-lab kb facts)")
    stored = _StoredEmbedder(kb.embedder)  # the one write: reopen the store as built, embedding nothing
    with KnowledgeBase.open(kb.path, embeddings=stored, refresh=False) as writable:
        writable.forget(args.fact_id, by=by, reason=args.reason)
    print(for_terminal(f"forgot note {args.fact_id} ({known[args.fact_id].text}); audit row by {by}"))
    return 0


def _audit(kb: ReadOnlyKnowledgeBase, args: argparse.Namespace) -> int:
    rows = kb.audit()
    if not rows:
        print(f"no audit rows in {args.room}")
    fields = ("fact_id", "removed_by", "reason", "removed_at", "author", "created_at", "text")
    for row in rows:
        print(for_terminal("\t".join(str(row.get(f, "")) for f in fields), "\t"))
    return 0


kb_facts = _with_kb(_facts)
kb_forget = _with_kb(_forget)
kb_audit = _with_kb(_audit)
