"""ChatRoom: users, send, feeds, run semantics and SQLite persistence of the Aya room graph.

``room = ChatRoom.open("runs/demo.sqlite", model="smollm2")`` opens (or creates) a room in one SQLite
file: LangGraph's SQLite checkpointer holds the graph state (messages with their translations, every
user's deliveries); the room's own tables hold the users and the run reports with their traces. The
file's schema, and every SQL statement on it, is :mod:`aya_lab.room.store`'s. The knowledge base (with
facts Aya was asked to remember) lives beside it in ``<name>.kb.sqlite``.

**A run** starts with :meth:`ChatRoom.send` and ends when every user has the translated original and,
when Aya was addressed (``@aya ...``, any case, any language), her one reply translated for each user.
The room checks exactly that after each run (:class:`RunSemanticsError` otherwise). Input is validated
before anything runs; a run that fails (model error, failed check) is rolled back: exactly the
checkpoints it wrote are deleted, and the facts it remembered (pending under its run id) are discarded,
so the persisted room and its knowledge base are exactly as they were. Facts commit with the run.

**One writer at a time** (:mod:`aya_lab.room.integrity`): a send holds an OS lock on ``<room>.lock``
from reading the state to committing it, so sends from several processes are serialized, none lost. A
run a killed writer left open is rolled back by the next open or send. A file that is not a room
(garbage, a corrupted or a foreign SQLite database) is refused before anything is created beside it.

**Users** have ids in one normal form (NFKC, case-folded), of one script, at most 32 characters, none a
look-alike of another (:mod:`aya_lab.room.identity`); a user reads one language or several, in order of
preference (:mod:`aya_lab.room.readers`; the delivery rule: :mod:`aya_lab.room.delivery`), and keeps the
languages they joined with.

Messages longer than ``max_message_tokens`` (default 1000, far below SmolLM2's 8192-token context,
leaving room for prompts and context), or longer than 20 characters per allowed token
(:mod:`aya_lab.room.inputs`), are **refused** with a one-line error rather than truncated.
"""

from __future__ import annotations

import difflib
import time
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import cast

from langchain_core.embeddings import Embeddings
from langchain_core.runnables.graph import Graph

from aya_lab.agents.memory import MemoryPolicy, PolicyRecord, RoomMemory, creator_policy
from aya_lab.agents.protocols import RoomKnowledgeBase, TextModel
from aya_lab.graph import GraphSpec, build_graph, draw, spec_hash
from aya_lab.graph.reader import spec_path
from aya_lab.messages import ChatMessage, Delivery, parse_aya_request
from aya_lab.models.directions import direction_of, is_direction_key
from aya_lab.models.loader import load_role_models
from aya_lab.rag import KnowledgeBase
from aya_lab.room.errors import RoomError
from aya_lab.room.identity import (
    checked_policy,
    checked_user,
    checked_users,
    clash,
    clash_error,
    normal_id,
    shown_id,
    stored_ids,
)
from aya_lab.room.inputs import assistant_sender, checked_id, checked_size, checked_text
from aya_lab.room.integrity import RoomLock, removed_if_failed, room_file_problem
from aya_lab.room.nodes import aya_registry
from aya_lab.room.panel import RoomPanel
from aya_lab.room.readers import Languages
from aya_lab.room.room_graph import load_room_graph
from aya_lab.room.runs import RunReport, RunSemanticsError, check_run
from aya_lab.room.state import AyaRuntime, AyaState, NodeVisit
from aya_lab.room.store import RoomStore
from aya_lab.text_safety import clean_text, hostile_characters

__all__ = ["ChatRoom", "RoomError", "RunReport", "RunSemanticsError", "default_graph_path"]

THREAD = "room"


def default_graph_path(variant: str = "aya") -> Path:
    """``aya_lab/graphs/<variant>.yaml``."""
    return Path(__file__).resolve().parent.parent / "graphs" / f"{variant}.yaml"


class ChatRoom:
    """A multilingual chat room with Aya, persisted in one SQLite file (see the module docstring)."""

    def __init__(
        self, path: Path, model: TextModel, graph_spec: GraphSpec, kb: RoomKnowledgeBase, max_message_tokens: int
    ) -> None:
        self.path = path
        self.model = model  # the aya role's model; self.models has every role's
        self.models: dict[str, TextModel] = {"translator": model, "aya": model}
        self.spec = graph_spec
        self.kb = kb
        self.max_message_tokens = max_message_tokens
        self._lock = RoomLock(path)  # one writer at a time, across processes (aya_lab.room.integrity)
        self._owns_kb = False  # True when open() made the KB beside the room: recovery may clear it all
        self._store = RoomStore(path)  # the file's tables and the checkpointer (aya_lab.room.store)
        self.memory: RoomMemory = self._store.memory  # memory policy and pending notes (aya_lab.agents.memory)
        self._registry = aya_registry()
        graph = build_graph(graph_spec, self._registry, context_schema=AyaRuntime)
        self.app = graph.compile(checkpointer=self._store.checkpointer)

    # -- opening --------------------------------------------------------------------------------------
    @classmethod
    def open(
        cls,
        path: str | Path,
        model: str | TextModel | None = None,
        users: Mapping[str, Languages] | None = None,
        *,
        graph: str | Path | None = None,
        kb: RoomKnowledgeBase | None = None,
        kb_dir: str | Path | None = None,
        embeddings: Embeddings | None = None,
        max_message_tokens: int = 1000,
        models: Mapping[str, str | TextModel] | None = None,
        memory_policy: str | PolicyRecord | MemoryPolicy | None = None,
        created_by: str | None = None,
    ) -> ChatRoom:
        """Open or create the room in ``path``; ``users`` (id -> a language or a list of them) are added if new.

        ``model`` is a spec string (``smollm2``, ``hf:...``) or a chat model object for every role;
        ``models`` names one per role (``{"translator": "gemma3-270m", "aya": "smollm2"}``, and
        ``translator:SRC-TGT`` for one direction, :mod:`aya_lab.models.directions`; a role left
        out gets ``model``, and with no ``model`` its own default, as the CLI does:
        :data:`~aya_lab.settings.DEFAULT_ROLE_SPECS` unless ``AYA_LAB_MODEL``/``AYA_LAB_MODEL_<ROLE>`` say
        otherwise; a spec named for two roles is loaded once); ``graph`` a spec file or a packaged graph's
        name (``"aya_sentences"``; default ``aya_lab/graphs/aya.yaml``); ``kb`` a ready knowledge base, else
        one is opened beside the room file from ``kb_dir`` (default ``data/kb``). ``memory_policy`` (``anyone``,
        ``listed:kofi,lena`` or ``confirm``; see :mod:`aya_lab.agents.memory`) is kept in the room file;
        ``None`` keeps the stored one, and a new room gets its creator's:
        :func:`~aya_lab.agents.memory.creator_policy` (``listed:<first user>``, ``confirm`` without users).
        A ``listed`` policy may name only users of the room (those in ``users`` included).

        Ids and languages are checked (:mod:`aya_lab.room.identity`, :mod:`aya_lab.room.readers`); a user in
        the room given with other languages (or order), or two ids that are one, is a :class:`RoomError`; the
        file is left as it was (a new one is not created). ``created_by`` (``demo``) is recorded in a
        room this call creates (:func:`~aya_lab.room.store.room_origin`).
        """
        policy = MemoryPolicy.parse(memory_policy) if memory_policy is not None else None
        path = Path(path)
        problem = room_file_problem(path)  # every refusal before anything is created beside it
        if problem:
            raise RoomError(problem)
        new_users = checked_users(users)
        created = not path.exists() or path.stat().st_size == 0
        source = spec_path(graph) if isinstance(graph, str) else graph or default_graph_path()  # a name: packaged
        spec = load_room_graph(source, aya_registry())  # refused unless a room graph
        roles = cast(dict[str, TextModel], load_role_models(model, models))
        with removed_if_failed(path):  # a new room that fails to open leaves no file behind
            path.parent.mkdir(parents=True, exist_ok=True)
            owns_kb = kb is None
            if kb is None:
                kb = KnowledgeBase.open(path.with_suffix(".kb.sqlite"), docs_dir=kb_dir, embeddings=embeddings)
            room = cls(path, roles["aya"], spec, kb, max_message_tokens)
            try:
                room.models, room._owns_kb = roles, owns_kb
                room._start(policy, new_users, created)
                if created_by and created:
                    room._store.record_origin(created_by)
            except BaseException:
                room.close()
                raise
        return room

    def _start(self, policy: MemoryPolicy | None, users: dict[str, tuple[str, ...]], created: bool) -> None:
        """Recover a dead writer's run; check the users and the policy against the room; then set the
        policy (a new room's default: its creator's) and add the users not yet in the room."""
        with self._lock.hold(blocking=False) as held:
            if held:  # a writer busy now is no dead writer: the next send recovers under the lock
                self._recover()
        existing = self.readers
        stored = stored_ids(existing)
        users = {stored.get(u, u): lang for u, lang in users.items()}
        for user, lang in users.items():
            if existing.get(user, lang) != lang:
                had, given = ",".join(existing[user]), ",".join(lang)
                raise RoomError(
                    f"user {user!r} already reads {had} in {self.path}, not {given}; give {user}'s "
                    f"languages as {had} or leave {user} out (a user keeps their languages)"
                )
            other = None if user in existing else clash(user, existing)
            if other is not None:
                raise clash_error(user, other, ",".join(existing[other]))
        joining = {u: lang for u, lang in users.items() if u not in existing}
        if policy is None and created:
            policy = MemoryPolicy.parse(creator_policy(list(users)))
        if policy is not None:
            self.memory.set_policy(checked_policy(policy, {**existing, **joining}, self.path))
        for user, lang in joining.items():
            self._store.add_user(user, lang)

    def checked_policy(self, value: str | PolicyRecord | MemoryPolicy) -> MemoryPolicy:
        """``value`` as this room's policy: listed ids normalised; :class:`RoomError` naming a non-user."""
        return checked_policy(value, self.users, self.path)

    def close(self) -> None:
        self._store.close()

    def __enter__(self) -> ChatRoom:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def forget(self, fact_id: str | int, *, by: str, reason: str = "") -> None:
        """Remove remembered note ``fact_id`` from the knowledge base, leaving an audit row naming ``by``."""
        self.kb.forget(str(fact_id), by=by, reason=reason)

    # -- users ------------------------------------------------------------------------------------------
    @property
    def users(self) -> dict[str, str]:
        """User id -> ISO 639-3 code of their first language, in the order they joined."""
        return self._store.users()

    @property
    def readers(self) -> dict[str, tuple[str, ...]]:
        """User id -> every language they read (ISO 639-3), in order of preference; in the order they joined."""
        return self._store.readers()

    def add_user(self, user_id: str, language: Languages) -> str:
        """Add a user; returns their id in normal form (:mod:`aya_lab.room.identity`). ``language`` is one
        language or a list in order of preference (:mod:`aya_lab.room.readers`), each a code or a name
        ("Swahili", "sw", "swh"). :class:`RoomError` for a bad id or language list, or an id that is or
        looks like an existing user's."""
        normal, lang = checked_user(user_id, language)
        users = self.readers
        other = clash(normal, users)
        if other is not None:
            raise clash_error(user_id, other, ",".join(users[other]))
        self._store.add_user(normal, lang)
        return normal

    # -- reading ------------------------------------------------------------------------------------------
    def _values(self) -> AyaState:
        # LangGraph types a snapshot's values as a plain dict; they are this graph's state
        return cast(AyaState, self.app.get_state({"configurable": {"thread_id": THREAD}}).values or {})

    def history(self) -> list[ChatMessage]:
        """Every message of the room (originals, with their translations), oldest first."""
        return list(self._values().get("messages") or [])

    def feed(self, user: str) -> list[Delivery]:
        """What ``user`` has read, in their language, oldest first."""
        user = self._check_user(user)
        return [d for d in self._values().get("deliveries") or [] if d.user == user]

    def feeds(self) -> dict[str, list[Delivery]]:
        deliveries = self._values().get("deliveries") or []
        return {u: [d for d in deliveries if d.user == u] for u in self.users}

    def runs(self) -> list[RunReport]:
        return self._store.reports()

    def trace(self, run_id: str) -> list[NodeVisit]:
        """Every node visit of a run, in order, with its prompts, model outputs, token counts and timings."""
        visits = self._store.trace(checked_id(run_id, "run id"))
        if visits is None:
            known = self._store.run_ids()
            raise RoomError(f"no run {run_id!r} in this room; runs: {', '.join(known[-5:]) or 'none yet'}")
        return visits

    @property
    def graph(self) -> Graph:
        """The compiled graph's drawable view (``.draw_mermaid()``, ``.draw_ascii()``)."""
        return self.app.get_graph()

    def draw(self, fmt: str = "mermaid") -> str:
        return draw(self.spec, self._registry, format=fmt)

    def panel(self) -> RoomPanel:
        """An ipywidgets panel: every user's feed side by side, a speaker selector and an input box."""
        return RoomPanel(self)

    @property
    def spec_hash(self) -> str:
        return spec_hash(self.spec)

    # -- sending ------------------------------------------------------------------------------------------
    def check_user(self, user: str) -> str:
        """``user``'s id in the room (in normal form); :class:`RoomError` unless ``user`` is in the room
        (naming a close id and how to add one)."""
        return self._check_user(user)

    def _check_user(self, user: str) -> str:
        refusal = assistant_sender(checked_id(user))
        if refusal is not None:
            raise refusal
        users = self.users
        if isinstance(user, str) and user in users:
            return user
        normal = normal_id(user)
        stored = stored_ids(users)
        if normal not in stored:
            close = difflib.get_close_matches(normal, list(users), n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise RoomError(
                f"unknown user {shown_id(user)}{hint}; users: {', '.join(users) or 'none'} "
                f"(add one with room.add_user({shown_id(user)}, 'language'))"
            )
        return stored[normal]

    def _clean(self, user: str, text: str) -> str:
        """``text`` with control, bidi-override and stray invisible characters removed
        (:func:`~aya_lab.text_safety.clean_text`); refused when nothing else is left."""
        cleaned = clean_text(text)
        if text.strip() and not cleaned.strip():
            found = ", ".join(hostile_characters(text)[:3])
            raise RoomError(f"message from {user!r} holds only control or invisible characters ({found}); write text")
        return cleaned

    def _validate(self, user: str, text: str) -> str | None:
        """Refuse bad input from ``user`` (checked); the request to Aya (the one parse of the ``@aya``
        mention), or ``None``."""
        if not text.strip():
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
        """Send ``text`` as ``user``; returns the :class:`RunReport`. Bad input or a failed run changes nothing.

        Sends to one room file are serialized across processes: the room's lock is held from reading the
        state to committing it, and a run a dead writer left open is rolled back first.
        """
        user = self._check_user(user)
        text = checked_text(user, text)
        checked_size(user, text, self.max_message_tokens)  # before cleaning or tokenizing a megabyte
        text = self._clean(user, text)
        request = self._validate(user, text)
        with self._lock.hold():
            self._recover()
            return self._send_locked(user, text, request)

    def _send_locked(self, user: str, text: str, request: str | None) -> RunReport:
        users = self.users
        self._check_user(user)
        message = ChatMessage(sender=user, content=text.strip(), lang=users[user])
        run_id = uuid.uuid4().hex[:10]
        runtime = AyaRuntime(
            self.model,
            self.kb,
            request=request,
            parsed=True,
            translator_model=self.models["translator"],
            direction_models={direction_of(k, k): m for k, m in self.models.items() if is_direction_key(k)},
            node_order=self.spec.node_names(),
            memory=self.memory,
            run_id=run_id,
            readers=self.readers,
        )
        config = {"configurable": {"thread_id": THREAD}, "run_id": uuid.uuid4()}
        before = self.app.get_state({"configurable": {"thread_id": THREAD}}).config["configurable"].get("checkpoint_id")
        self._store.start_open_run(run_id, before)
        started = time.perf_counter()
        try:
            # LangGraph's overloads do not accept a plain dict config with run_id; the call is the documented one
            self.app.invoke({"incoming": message, "users": users}, config, context=runtime, durability="exit")  # type: ignore[call-overload]
            runtime.visits[:] = runtime.ordered_visits()
            report = check_run(self._values(), run_id, message, users, runtime, time.perf_counter() - started)
            self._record(report, runtime)
        except BaseException:
            self._abort_run(run_id, before)
            raise
        self.kb.commit_run(run_id)  # after the record: a kill here is committed by _recover
        return report

    def _record(self, report: RunReport, runtime: AyaRuntime) -> None:
        """Record the run and close its marker in one transaction: from here on the run is committed."""
        self._store.record_run(report, runtime.visits)

    def _abort_run(self, run_id: str, before: str | None) -> None:
        """Undo a run: exactly the checkpoints it wrote, its pending facts; then close its marker."""
        self._store.delete_since(THREAD, before)
        self.kb.discard_run(run_id)
        self._store.clear_open_run()

    def _recover(self) -> None:
        """Under the lock: roll back a run a killed writer left open; commit the pending facts of runs
        that were recorded (killed between the record and the KB commit); with the room's own KB,
        discard every other uncommitted fact."""
        left = self._store.open_run()
        if left is not None:
            self._abort_run(*left)
        for rid in self.kb.pending_runs():
            if self._store.is_recorded(rid):
                self.kb.commit_run(rid)
        if self._owns_kb:
            self.kb.discard_uncommitted()
