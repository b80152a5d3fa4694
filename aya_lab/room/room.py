"""ChatRoom: users, send, feeds, run semantics and SQLite persistence of the Aya room graph.

``room = ChatRoom.open("runs/demo.sqlite", model="smollm2")`` opens (or creates) a room in one SQLite
file: LangGraph's SQLite checkpointer holds the graph state (messages with their translations, every
user's deliveries); the room's own tables hold the users and the run reports with their traces. The
knowledge base (with facts Aya was asked to remember) lives beside it in ``<name>.kb.sqlite``.

**A run** starts with :meth:`ChatRoom.send` and ends when every user has the translated original and,
when Aya was addressed (``@aya ...``, any case, any language), her one reply translated for each user.
The room checks exactly that after each run (:class:`RunSemanticsError` otherwise). Input is validated
before anything runs; a run that fails (model error, failed check) is rolled back: the checkpoints it
wrote are deleted, so the persisted room is exactly as it was.

Messages longer than ``max_message_tokens`` (default 1000, far below SmolLM2's 8192-token context,
leaving room for prompts and context) are **refused** with a one-line error rather than truncated.
"""

from __future__ import annotations

import difflib
import json
import sqlite3
import time
import uuid
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from aya_lab.graph import build_graph, draw, load_spec, spec_hash
from aya_lab.languages import get_language
from aya_lab.messages import AYA, ChatMessage, Delivery, parse_aya_request
from aya_lab.models.loader import load_role_models
from aya_lab.rag import KnowledgeBase
from aya_lab.room.nodes import AyaRuntime, NodeVisit, aya_registry
from aya_lab.room.panel import RoomPanel

__all__ = ["ChatRoom", "RoomError", "RunReport", "RunSemanticsError", "default_graph_path"]

THREAD = "room"
_SCHEMA = """
CREATE TABLE IF NOT EXISTS aya_room_users (user_id TEXT PRIMARY KEY, lang TEXT NOT NULL, position INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS aya_room_runs (run_id TEXT PRIMARY KEY, message_id TEXT NOT NULL, sender TEXT NOT NULL,
    created_at REAL NOT NULL, report TEXT NOT NULL, trace TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS aya_room_meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
"""


class RoomError(ValueError):
    """Bad input to a room (unknown user, bad language, empty message...): one line, with the fix."""


class RunSemanticsError(RuntimeError):
    """A run ended without every user receiving every related message exactly once."""


def default_graph_path(variant: str = "aya") -> Path:
    """``aya_lab/graphs/<variant>.yaml``."""
    return Path(__file__).resolve().parent.parent / "graphs" / f"{variant}.yaml"


@dataclass
class RunReport:
    """What one send did: who got what, Aya's reply, node visits, model calls, tokens and timings."""

    run_id: str
    message_id: str
    sender: str
    delivered: dict[str, str]  # user -> text of the original in their language
    aya_reply: dict[str, str] | None  # user -> Aya's reply in their language (None: Aya not addressed)
    aya_tool: str | None
    nodes: list[str]
    model_calls: int
    cached_calls: int
    prompt_tokens: int
    completion_tokens: int
    seconds: float
    node_seconds: dict[str, float] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    aya_tools: list[str] = field(default_factory=list)  # every tool Aya ran, in order
    aya_fallback: bool = False  # the router's model answer was unparseable; the keyword router decided
    aya_steps: list[dict[str, Any]] = field(default_factory=list)  # tool, input, log, observation per step

    def __str__(self) -> str:
        lines = [
            f"run {self.run_id}: {self.sender}'s message reached {len(self.delivered)} users in "
            f"{self.seconds:.2f} s; nodes {' -> '.join(self.nodes)}; {self.model_calls} model calls "
            f"({self.cached_calls} cached), {self.prompt_tokens}+{self.completion_tokens} tokens"
        ]
        if self.aya_reply is not None:
            used = f"tool {self.aya_tool!r}" if len(self.aya_tools) < 2 else f"tools {' -> '.join(self.aya_tools)}"
            lines.append(f"  aya used {used}; her reply reached {len(self.aya_reply)} users")
        lines += [f"  note: {n}" for n in self.notes]
        return "\n".join(lines)


class ChatRoom:
    """A multilingual chat room with Aya, persisted in one SQLite file (see the module docstring)."""

    def __init__(self, path: Path, model: Any, graph_spec: Any, kb: Any, max_message_tokens: int) -> None:
        from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
        from langgraph.checkpoint.sqlite import SqliteSaver

        self.path = path
        self.model = model  # the aya role's model; self.models has every role's
        self.models: dict[str, Any] = {"translator": model, "aya": model}
        self.spec = graph_spec
        self.kb = kb
        self.max_message_tokens = max_message_tokens
        self._conn = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self._conn.execute("PRAGMA busy_timeout = 30000")
        self._conn.executescript(_SCHEMA)
        serde = JsonPlusSerializer(
            allowed_msgpack_modules=[("aya_lab.messages", "ChatMessage"), ("aya_lab.messages", "Delivery")]
        )
        self._saver = SqliteSaver(self._conn, serde=serde)
        self._saver.setup()
        self._registry = aya_registry()
        self.app = build_graph(graph_spec, self._registry).compile(checkpointer=self._saver)

    # -- opening --------------------------------------------------------------------------------------
    @classmethod
    def open(
        cls,
        path: str | Path,
        model: str | Any = "smollm2",
        users: dict[str, str] | None = None,
        *,
        graph: str | Path | None = None,
        kb: Any = None,
        kb_dir: str | Path | None = None,
        embeddings: Any = None,
        max_message_tokens: int = 1000,
        models: dict[str, str | Any] | None = None,
    ) -> ChatRoom:
        """Open or create the room in ``path``; ``users`` (id -> language) are added if new.

        ``model`` is a spec string (``smollm2``, ``hf:...``) or a chat model object for every role;
        ``models`` names one per role (``{"translator": "gemma3-270m", "aya": "smollm2"}``; a role left
        out gets ``model``; a spec named for two roles is loaded once); ``graph`` a spec
        file (default ``aya_lab/graphs/aya.yaml``); ``kb`` a ready knowledge base, else one is opened
        beside the room file from ``kb_dir`` (default ``data/kb``).
        """
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        spec = load_spec(graph or default_graph_path(), registry=aya_registry())
        roles = load_role_models(model, models)
        if kb is None:
            kb = KnowledgeBase.open(path.with_suffix(".kb.sqlite"), docs_dir=kb_dir, embeddings=embeddings)
        room = cls(path, roles["aya"], spec, kb, max_message_tokens)
        room.models = roles
        for user, lang in (users or {}).items():
            if user not in room.users:
                room.add_user(user, lang)
        return room

    def close(self) -> None:
        self._conn.close()

    def __enter__(self) -> ChatRoom:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # -- users ------------------------------------------------------------------------------------------
    @property
    def users(self) -> dict[str, str]:
        """User id -> ISO 639-3 language, in the order they joined."""
        rows = self._conn.execute("SELECT user_id, lang FROM aya_room_users ORDER BY position").fetchall()
        return dict(rows)

    def add_user(self, user_id: str, language: str) -> None:
        """Add a user; the language may be a code or a name ("Swahili", "sw", "swh")."""
        user_id = (user_id or "").strip()
        if not user_id or user_id.lower() == AYA or not user_id.replace("_", "").replace("-", "").isalnum():
            raise RoomError(f"invalid user id {user_id!r}; use letters, digits, '-' or '_' (and not 'aya')")
        if user_id in self.users:
            raise RoomError(
                f"user {user_id!r} is already in the room (language {self.users[user_id]}); pick another id"
            )
        try:
            lang = get_language(language).code
        except ValueError as exc:
            raise RoomError(str(exc)) from None
        self._conn.execute(
            "INSERT INTO aya_room_users VALUES (?, ?, (SELECT COUNT(*) FROM aya_room_users))", (user_id, lang)
        )

    # -- reading ------------------------------------------------------------------------------------------
    def _values(self) -> dict[str, Any]:
        return self.app.get_state({"configurable": {"thread_id": THREAD}}).values or {}

    def history(self) -> list[ChatMessage]:
        """Every message of the room (originals, with their translations), oldest first."""
        return list(self._values().get("messages") or [])

    def feed(self, user: str) -> list[Delivery]:
        """What ``user`` has read, in their language, oldest first."""
        self._check_user(user)
        return [d for d in self._values().get("deliveries") or [] if d.user == user]

    def feeds(self) -> dict[str, list[Delivery]]:
        deliveries = self._values().get("deliveries") or []
        return {u: [d for d in deliveries if d.user == u] for u in self.users}

    def runs(self) -> list[RunReport]:
        rows = self._conn.execute("SELECT report FROM aya_room_runs ORDER BY created_at").fetchall()
        return [RunReport(**json.loads(r[0])) for r in rows]

    def trace(self, run_id: str) -> list[NodeVisit]:
        """Every node visit of a run, in order, with its prompts, model outputs, token counts and timings."""
        row = self._conn.execute("SELECT trace FROM aya_room_runs WHERE run_id = ?", (run_id,)).fetchone()
        if row is None:
            known = [r[0] for r in self._conn.execute("SELECT run_id FROM aya_room_runs ORDER BY created_at")]
            raise RoomError(f"no run {run_id!r} in this room; runs: {', '.join(known[-5:]) or 'none yet'}")
        return [NodeVisit(**v) for v in json.loads(row[0])]

    @property
    def graph(self) -> Any:
        """The compiled graph's drawable view (``.draw_mermaid()``, ``.draw_ascii()``)."""
        return self.app.get_graph()

    def draw(self, fmt: str = "mermaid") -> str:
        return draw(self.spec, self._registry, format=fmt)

    def panel(self) -> Any:
        """An ipywidgets panel: every user's feed side by side, a speaker selector and an input box."""
        return RoomPanel(self)

    @property
    def spec_hash(self) -> str:
        return spec_hash(self.spec)

    # -- sending ------------------------------------------------------------------------------------------
    def check_user(self, user: str) -> None:
        """Raise :class:`RoomError` unless ``user`` is in the room (naming a close id and how to add one)."""
        self._check_user(user)

    def _check_user(self, user: str) -> None:
        if user not in self.users:
            close = difflib.get_close_matches(user, list(self.users), n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise RoomError(
                f"unknown user {user!r}{hint}; users: {', '.join(self.users) or 'none'} "
                f"(add one with room.add_user({user!r}, 'language'))"
            )

    def _validate(self, user: str, text: str) -> str | None:
        """Refuse bad input; the request to Aya (the one parse of the ``@aya`` mention), or ``None``."""
        self._check_user(user)
        if not isinstance(text, str) or not text.strip():
            raise RoomError(f"empty message from {user!r}; write some text")
        request = parse_aya_request(text)
        if request is not None and not request:
            raise RoomError("'@aya' needs a request after it, e.g. '@aya summarize the last 5 messages'")
        n = self.model.count_tokens(text)
        if n > self.max_message_tokens:
            raise RoomError(
                f"message from {user!r} has {n} tokens, over the room's limit of "
                f"{self.max_message_tokens}; split it into shorter messages"
            )
        return request

    def send(self, user: str, text: str) -> RunReport:
        """Send ``text`` as ``user``; returns the :class:`RunReport`. Bad input or a failed run changes nothing."""
        request = self._validate(user, text)
        users = self.users
        message = ChatMessage(sender=user, content=text.strip(), lang=users[user])
        runtime = AyaRuntime(
            self.model,
            self.kb,
            request=request,
            parsed=True,
            translator_model=self.models["translator"],
            node_order=self.spec.node_names(),
        )
        run_id = uuid.uuid4().hex[:10]
        config = {"configurable": {"thread_id": THREAD, "aya": runtime}, "run_id": uuid.uuid4()}
        before = self.app.get_state({"configurable": {"thread_id": THREAD}}).config["configurable"].get("checkpoint_id")
        started = time.perf_counter()
        try:
            # LangGraph's overloads do not accept a plain dict config with run_id; the call is the documented one
            self.app.invoke({"incoming": message, "users": users}, config, durability="exit")  # type: ignore[call-overload]
            runtime.visits[:] = runtime.ordered_visits()
            report = self._check_run(run_id, message, users, runtime, time.perf_counter() - started)
        except BaseException:
            self._rollback(before)
            raise
        self._conn.execute(
            "INSERT INTO aya_room_runs VALUES (?, ?, ?, ?, ?, ?)",
            (
                run_id,
                message.id,
                user,
                time.time(),
                json.dumps(asdict(report)),
                json.dumps([asdict(v) for v in runtime.visits], ensure_ascii=False),
            ),
        )
        return report

    def _rollback(self, checkpoint_id: str | None) -> None:
        """Delete the checkpoints (and their writes) a failed run left, newest first; ids sort by time."""
        cond = "thread_id = ? AND checkpoint_id > ?" if checkpoint_id else "thread_id = ?"
        args = (THREAD, checkpoint_id) if checkpoint_id else (THREAD,)
        with self._saver.lock:
            self._conn.execute("BEGIN")
            self._conn.execute(f"DELETE FROM writes WHERE {cond}", args)
            self._conn.execute(f"DELETE FROM checkpoints WHERE {cond}", args)
            self._conn.execute("COMMIT")

    def _check_run(
        self, run_id: str, message: ChatMessage, users: dict[str, str], runtime: AyaRuntime, seconds: float
    ) -> RunReport:
        values = self._values()
        deliveries = values.get("deliveries") or []
        got = [d for d in deliveries if d.message_id == message.id]
        _exactly_once(got, users, f"message {message.id}")
        addressed = runtime.request is not None
        reply: ChatMessage | None = values.get("aya_reply") if addressed else None
        replies = [m for m in values.get("messages") or [] if m.sender == AYA and m.reply_to == message.id]
        if addressed:
            if reply is None or len(replies) != 1:
                raise RunSemanticsError(f"run {run_id}: Aya was addressed but sent {len(replies)} replies (expected 1)")
            _exactly_once([d for d in deliveries if d.message_id == reply.id], users, "Aya's reply")
        elif replies:
            raise RunSemanticsError(f"run {run_id}: Aya replied without being addressed")
        gens = [g for v in runtime.visits for g in v.generations]
        aya = runtime.result if addressed else None
        node_seconds: dict[str, float] = {}
        for v in runtime.visits:
            node_seconds[v.node] = round(node_seconds.get(v.node, 0.0) + v.seconds, 4)
        return RunReport(
            run_id=run_id,
            message_id=message.id,
            sender=message.sender,
            delivered={d.user: d.text for d in got},
            aya_reply={d.user: d.text for d in deliveries if reply is not None and d.message_id == reply.id}
            if addressed
            else None,
            aya_tool=aya.tool if aya else None,
            nodes=[v.node for v in runtime.visits],
            model_calls=len(gens),
            cached_calls=sum(1 for g in gens if g.cached),
            prompt_tokens=sum(g.prompt_tokens for g in gens),
            completion_tokens=sum(g.completion_tokens for g in gens),
            seconds=round(seconds, 4),
            node_seconds=node_seconds,
            notes=list(aya.notes) if aya else [],
            aya_tools=list(aya.tools) if aya else [],
            aya_fallback=aya.fallback if aya else False,
            aya_steps=[
                {
                    "tool": st.output.tool,
                    "input": st.output.tool_input,
                    "log": st.output.log,
                    "observation": st.observation,
                }
                for st in (aya.steps if aya else [])
            ],
        )


def _exactly_once(got: list[Delivery], users: dict[str, str], what: str) -> None:
    counts = {u: sum(1 for d in got if d.user == u) for u in users}
    bad = {u: c for u, c in counts.items() if c != 1}
    if bad or len(got) != len(users):
        raise RunSemanticsError(f"{what} was not delivered exactly once to every user: {bad or counts}")
