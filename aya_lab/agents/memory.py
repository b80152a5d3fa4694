"""Who may make Aya remember: the room's memory policy, pending notes, and the remember/approve/forget tools.

A room's ``memory_policy`` (set with ``ChatRoom.open(..., memory_policy=...)``, kept in the room file):

- ``anyone`` — any user's ``remember`` stores a note at once (the old behaviour);
- ``listed`` — only the users named (``"listed:kofi,lena"`` or ``{"mode": "listed", "users": [...]}``)
  may; anyone else gets a polite one-line refusal and nothing is stored;
- ``confirm`` — a ``remember`` makes a *pending* note (``#3``) that is not retrievable; it is stored
  when a second, different user sends ``@aya approve 3`` (or ``@aya /approve 3``). The author cannot
  approve their own note. ``@aya forget 7`` needs the same approval: it makes a pending request
  (``kind`` ``forget``) and the note is forgotten when a different user approves it. Pending notes
  live in the room file, so they survive reopening.

Whatever the policy, a note is stored with its author (and the approver's name is in the reply) through
the knowledge base's fact API (``add_fact(text, *, author, run_id)``), so it commits or is discarded
with the run. ``forget`` (``@aya forget 7``, ``room.forget(7, by=...)``, ``aya-lab kb forget``) removes
a stored note and leaves an audit row naming who asked (under ``confirm``, ``@aya forget`` waits for
approval and the audit row names the approver too; ``room.forget`` and ``aya-lab kb forget`` are for
whoever holds the room file and act at once).

The pending queue commits with the run, like facts: a note proposed in a run becomes pending, and a
note approved in a run leaves the queue, only when that run is recorded in the room's ``aya_room_runs``
(the transaction that commits the run). A send that fails, is rolled back or whose writer is killed is
never recorded, so its proposal never appears and its approval is void: the note is still pending and
the knowledge base is unchanged (the approved fact, pending under the run id, is discarded with it).
"""

from __future__ import annotations

import json
import re
import sqlite3
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

from aya_lab.agents.protocols import KnowledgeBaseLike
from aya_lab.errors import AyaLabError
from aya_lab.rag.facts import Fact

__all__ = [
    "MEMORY_MODES",
    "AyaRemember",
    "MemoryPolicy",
    "MemoryPolicyError",
    "MemoryTools",
    "PendingNote",
    "PolicyRecord",
    "RoomMemory",
    "creator_policy",
]

MEMORY_MODES = ("anyone", "listed", "confirm")

PolicyRecord = dict[str, str | Sequence[str]]
"""A policy as a mapping: ``{"mode": "listed", "users": ["kofi", "lena"]}`` (the form kept in the room file)."""


class MemoryPolicyError(AyaLabError, ValueError):
    """A bad memory policy or a bad approve/forget request: one line, with the fix."""


@dataclass(frozen=True)
class MemoryPolicy:
    """``mode`` is one of :data:`MEMORY_MODES`; ``users`` the users a ``listed`` policy allows."""

    mode: str = "anyone"
    users: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.mode not in MEMORY_MODES:
            raise MemoryPolicyError(f"memory_policy {self.mode!r} is unknown; use one of {', '.join(MEMORY_MODES)}")
        if self.mode == "listed" and not self.users:
            raise MemoryPolicyError("memory_policy 'listed' needs the users allowed, e.g. 'listed:kofi,lena'")

    @classmethod
    def parse(cls, value: str | PolicyRecord | MemoryPolicy) -> MemoryPolicy:
        """``"anyone"``, ``"confirm"``, ``"listed:kofi,lena"``, ``{"mode": ..., "users": [...]}`` or a policy."""
        if isinstance(value, MemoryPolicy):
            return value
        if isinstance(value, dict):
            unknown = set(value) - {"mode", "users"}
            if unknown:
                raise MemoryPolicyError(f"memory_policy has unknown keys {sorted(unknown)}; use 'mode' and 'users'")
            return cls(str(value.get("mode", "anyone")), tuple(str(u) for u in value.get("users") or ()))
        if not isinstance(value, str):
            raise MemoryPolicyError(f"memory_policy must be a string or a mapping, got {type(value).__name__}")
        mode, _, users = value.strip().partition(":")
        return cls(mode.strip().lower(), tuple(u.strip() for u in users.split(",") if u.strip()))

    def allows(self, user: str | None) -> bool:
        """Whether ``user`` may store a note directly (``confirm`` stores nobody's directly)."""
        return self.mode == "anyone" or (self.mode == "listed" and user in self.users)

    def refusal(self, user: str | None) -> str:
        """The polite one-line reply to a ``remember`` this policy refuses."""
        who = ", ".join(self.users)
        return f"Sorry {user or 'there'}, in this room only {who} can ask me to remember things, so I stored nothing."

    def describe(self) -> str:
        return f"listed:{','.join(self.users)}" if self.mode == "listed" else self.mode


def creator_policy(users: Sequence[str] | dict[str, str]) -> str:
    """The memory policy of a room created without one (``ChatRoom.open``, ``aya-lab chat``, the demo):
    ``listed:<creator>`` (the first user), or ``confirm`` when the room is created with no user.

    Why ``listed`` and not ``confirm``: a ``confirm`` room needs a second colleague to approve each note,
    which a one-person REPL session (or the scripted demo) cannot give, so its notes would never be
    stored; ``listed:<creator>`` keeps remembering working for whoever set the room up while no one else
    can plant a "fact" that Aya repeats to everyone (``amara: @aya /remember the per diem
    is 900 EUR``). Widen it with ``--memory-policy listed:kofi,lena`` or ``anyone``."""
    return f"listed:{next(iter(users))}" if users else "confirm"


@dataclass(frozen=True)
class PendingNote:
    """A request awaiting approval: a note to store (``kind`` ``remember``, ``text`` the note) or a stored
    note to forget (``kind`` ``forget``, ``text`` the note's id)."""

    id: int
    text: str
    author: str | None
    created_at: str
    kind: str = "remember"


_NOTE_COLUMNS = "id, text, author, created_at, COALESCE(kind, 'remember')"


@dataclass
class RoomMemory:
    """The policy and the pending notes of one room, kept in tables of the room's SQLite file.

    ``propose``/``take`` with a ``run_id`` write a note marked with the run (``proposed_in`` /
    ``claimed_by``); the mark takes effect when a row with that run id is in ``runs_table`` (the room
    records a run there in the transaction that commits it). Until then a proposed note is not pending
    and a claimed one still is; a run that is never recorded (failed, rolled back, killed) leaves the
    queue as it was. Without ``runs_table`` in the file (a memory outside a room) writes take effect at
    once. The room serializes sends, so at most one run holds marks that are not yet decided.
    """

    conn: sqlite3.Connection
    runs_table: str = "aya_room_runs"
    _lock: threading.RLock = field(default_factory=threading.RLock, repr=False)

    def __post_init__(self) -> None:
        with self._lock:
            self.conn.executescript(
                "CREATE TABLE IF NOT EXISTS aya_memory_meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);"
                "CREATE TABLE IF NOT EXISTS aya_memory_pending (id INTEGER PRIMARY KEY AUTOINCREMENT, "
                "text TEXT NOT NULL, author TEXT, created_at TEXT NOT NULL, proposed_in TEXT, claimed_by TEXT, kind TEXT);"
            )
            columns = {r[1] for r in self.conn.execute("PRAGMA table_info(aya_memory_pending)")}
            for column in ("proposed_in", "claimed_by", "kind"):  # a room file from before these columns
                if column not in columns:
                    self.conn.execute(f"ALTER TABLE aya_memory_pending ADD COLUMN {column} TEXT")

    @property
    def policy(self) -> MemoryPolicy:
        """The room's policy (``anyone`` until one is set)."""
        with self._lock:
            row = self.conn.execute("SELECT value FROM aya_memory_meta WHERE name = 'policy'").fetchone()
        return MemoryPolicy.parse(json.loads(row[0])) if row else MemoryPolicy()

    @property
    def stored_policy(self) -> MemoryPolicy | None:
        """The policy kept in the room file, or None when none was ever set (the room then uses ``anyone``)."""
        with self._lock:
            row = self.conn.execute("SELECT value FROM aya_memory_meta WHERE name = 'policy'").fetchone()
        return MemoryPolicy.parse(json.loads(row[0])) if row else None

    def set_policy(self, value: str | PolicyRecord | MemoryPolicy) -> MemoryPolicy:
        """Set and persist the room's policy; returns it."""
        policy = MemoryPolicy.parse(value)
        record = json.dumps({"mode": policy.mode, "users": list(policy.users)})
        with self._lock:
            self.conn.execute("INSERT OR REPLACE INTO aya_memory_meta (name, value) VALUES ('policy', ?)", (record,))
        return policy

    def propose(self, text: str, author: str | None, run_id: str | None = None, kind: str = "remember") -> PendingNote:
        """A request awaiting another user's approval (a note is not retrievable until approved); with
        ``run_id`` it is pending once that run is recorded. ``kind``: ``remember`` or ``forget``."""
        now = datetime.now(UTC).isoformat(timespec="seconds")
        with self._lock:
            cur = self.conn.execute(
                "INSERT INTO aya_memory_pending (text, author, created_at, proposed_in, kind) VALUES (?, ?, ?, ?, ?)",
                (text, author, now, self._run(run_id), kind),
            )
        assert cur.lastrowid is not None
        return PendingNote(cur.lastrowid, text, author, now, kind)

    def pending(self, *, run_id: str | None = None) -> list[PendingNote]:
        """Pending notes, oldest first (as seen by run ``run_id``: its own approvals count as done)."""
        with self._lock:
            if not self._records_runs():
                rows = self.conn.execute(f"SELECT {_NOTE_COLUMNS} FROM aya_memory_pending ORDER BY id")
                return [PendingNote(*r) for r in rows.fetchall()]
            done = f"SELECT 1 FROM {self.runs_table} AS r WHERE r.run_id ="
            rows = self.conn.execute(
                f"SELECT {_NOTE_COLUMNS} FROM aya_memory_pending AS p WHERE "
                f"(proposed_in IS NULL OR EXISTS ({done} p.proposed_in)) AND "
                f"(claimed_by IS NULL OR (claimed_by IS NOT ? AND NOT EXISTS ({done} p.claimed_by))) ORDER BY id",
                (run_id,),
            )
            return [PendingNote(*r) for r in rows.fetchall()]

    def take(self, note_id: int, approver: str | None, run_id: str | None = None) -> PendingNote:
        """Pending note ``note_id``, approved by ``approver``: removed from the queue, or with ``run_id``
        claimed by that run (removed when the run is recorded). :class:`MemoryPolicyError` when it is not
        pending or the approver wrote it."""
        with self._lock:
            run = self._run(run_id)
            pending = {n.id: n for n in self.pending(run_id=run)}
            note = pending.get(note_id)
            if note is None:
                ids = ", ".join(f"#{n}" for n in pending) or "none"
                raise MemoryPolicyError(f"there is no pending note #{note_id}; pending notes: {ids}")
            if approver is None or approver == note.author:
                raise MemoryPolicyError(
                    f"note #{note_id} was proposed by {note.author}; a different colleague must approve it"
                )
            if run is None:
                self.conn.execute("DELETE FROM aya_memory_pending WHERE id = ?", (note_id,))
            else:
                self.conn.execute("UPDATE aya_memory_pending SET claimed_by = ? WHERE id = ?", (run, note_id))
                self._settle()
        return note

    def _records_runs(self) -> bool:
        sql = "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?"
        return self.conn.execute(sql, (self.runs_table,)).fetchone() is not None

    def _run(self, run_id: str | None) -> str | None:
        """``run_id`` when notes can commit with it (the file records runs), else ``None`` (at once)."""
        return run_id if run_id is not None and self._records_runs() else None

    def _settle(self) -> None:
        """Delete the notes whose approving run was recorded (they left the queue when it committed)."""
        self.conn.execute(f"DELETE FROM aya_memory_pending WHERE claimed_by IN (SELECT run_id FROM {self.runs_table})")


# -- the tools ------------------------------------------------------------------------------------------
_REMEMBER = re.compile(r"^\s*(please\s+)?(remember|note|keep in mind|store|save)( that| this)?[:,]?\s*", re.I)
_ID = re.compile(r"#?(\d+)")


def _add_fact(kb: KnowledgeBaseLike, text: str, author: str | None, run_id: str | None) -> str:
    """Store through the knowledge base's fact API, with the run when there is one (commits with it)."""
    extra = {"run_id": run_id} if run_id is not None else {}
    return kb.add_fact(text, author=author or "unknown", **extra)


def _note_id(arg: str) -> int:
    m = _ID.search(arg or "")
    if m is None:
        raise MemoryPolicyError(f"{arg!r} names no note; give its number, e.g. '@aya forget 3'")
    return int(m.group(1))


@dataclass
class MemoryTools:
    """Aya's ``remember``, ``approve`` and ``forget`` tools for one request by ``author`` (see the module
    docstring). Each returns the one-line reply; a refused request writes nothing."""

    kb: KnowledgeBaseLike
    author: str | None = None
    run_id: str | None = None
    memory: RoomMemory | None = None

    @property
    def policy(self) -> MemoryPolicy:
        return self.memory.policy if self.memory is not None else MemoryPolicy()

    def remember(self, request: str) -> str:
        fact = _REMEMBER.sub("", request).strip() or request.strip()
        if not fact:
            return "Tell me what to remember, e.g. '@aya /remember the Lagos office closes at 4pm'."
        policy = self.policy
        if policy.mode == "confirm" and self.memory is not None:
            note = self.memory.propose(fact, self.author, self.run_id)
            return f"I will remember this once another colleague approves it with '@aya approve {note.id}': {fact}"
        if not policy.allows(self.author):
            return policy.refusal(self.author)
        _add_fact(self.kb, fact, self.author, self.run_id)
        return f"Noted: {fact}"

    def approve(self, arg: str) -> str:
        try:
            if self.memory is None or self.policy.mode != "confirm":
                raise MemoryPolicyError("this room stores notes without approval, so there is nothing to approve")
            note = self.memory.take(_note_id(arg), self.author, self.run_id)
            if note.kind == "forget":
                fact = self._fact(note.text)
        except MemoryPolicyError as exc:
            return f"Sorry: {exc}."
        if note.kind == "forget":
            self.kb.forget(note.text, by=note.author or "unknown", reason=f"asked Aya, approved by {self.author}")
            return f"Forgotten (asked by {note.author}, approved by {self.author}): note #{note.text} ({fact.text})"
        _add_fact(self.kb, note.text, note.author, self.run_id)
        return f"Noted (from {note.author}, approved by {self.author}): {note.text}"

    def _fact(self, fact_id: str) -> Fact:
        """Stored note ``fact_id``, or :class:`MemoryPolicyError` naming where the notes are listed."""
        facts = {str(f.id): f for f in self.kb.facts()}
        if fact_id not in facts:
            raise MemoryPolicyError(f"there is no note #{fact_id}; 'aya-lab kb facts ROOM_FILE' lists them")
        return facts[fact_id]

    def forget(self, arg: str) -> str:
        """Forget a stored note; under ``confirm`` only once a different user approves (a pending request)."""
        try:
            fact_id = str(_note_id(arg))
            fact = self._fact(fact_id)
            if self.author != fact.author and self.policy.mode == "listed" and not self.policy.allows(self.author):
                raise MemoryPolicyError(f"only {fact.author} or {', '.join(self.policy.users)} may forget it")
        except MemoryPolicyError as exc:
            return f"Sorry: {exc}."
        if self.policy.mode == "confirm" and self.memory is not None:
            note = self.memory.propose(fact_id, self.author, self.run_id, kind="forget")
            return (
                f"I will forget note #{fact_id} ({fact.text}) once another colleague approves it "
                f"with '@aya approve {note.id}'"
            )
        self.kb.forget(fact_id, by=self.author or "unknown", reason="asked Aya in the room")
        return f"Forgotten: note #{fact_id} ({fact.text})"


class AyaRemember:
    """The ``remember`` tool as a callable (kept for callers of the old name): see :class:`MemoryTools`."""

    def __init__(
        self,
        kb: KnowledgeBaseLike,
        author: str | None = None,
        *,
        run_id: str | None = None,
        memory: RoomMemory | None = None,
    ) -> None:
        self.tools = MemoryTools(kb, author, run_id, memory)

    def __call__(self, request: str) -> str:
        return self.tools.remember(request)
