"""The room file's store: its schema is made once, the run marker and records, the checkpoint rollback,
and the pin on LangGraph's private checkpoint schema that :meth:`RoomStore.delete_since` depends on."""

from __future__ import annotations

import operator
import sqlite3
from typing import Annotated, TypedDict

import pytest
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import END, START, StateGraph

from aya_lab.room.runs import RunReport
from aya_lab.room.state import NodeVisit
from aya_lab.room.store import CHECKPOINT_COLUMNS, OPEN_RUN, RoomStore, is_room_table

ROOM_TABLES = {"aya_room_users", "aya_room_runs", "aya_room_meta", "aya_memory_meta", "aya_memory_pending"}

# LangGraph's private schema as langgraph-checkpoint-sqlite 3.1 makes it: (column, primary-key position).
# A LangGraph upgrade that changes it fails here: read RoomStore.delete_since again before updating this.
PINNED_CHECKPOINT_SCHEMA = {
    "checkpoints": [
        ("thread_id", 1),
        ("checkpoint_ns", 2),
        ("checkpoint_id", 3),
        ("parent_checkpoint_id", 0),
        ("type", 0),
        ("checkpoint", 0),
        ("metadata", 0),
    ],
    "writes": [
        ("thread_id", 1),
        ("checkpoint_ns", 2),
        ("checkpoint_id", 3),
        ("task_id", 4),
        ("task_path", 0),
        ("idx", 5),
        ("channel", 0),
        ("type", 0),
        ("value", 0),
    ],
}


def _tables(conn: sqlite3.Connection) -> set[str]:
    return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def test_a_fresh_sqlite_saver_makes_the_private_schema_the_store_depends_on():
    conn = sqlite3.connect(":memory:", check_same_thread=False)
    SqliteSaver(conn).setup()
    assert _tables(conn) == set(PINNED_CHECKPOINT_SCHEMA)
    schema = {t: [(r[1], r[5]) for r in conn.execute(f"PRAGMA table_info({t})")] for t in PINNED_CHECKPOINT_SCHEMA}
    assert schema == PINNED_CHECKPOINT_SCHEMA, "LangGraph's checkpoint schema changed: review RoomStore.delete_since"
    for table, columns in CHECKPOINT_COLUMNS.items():  # what the store names is part of the pin
        assert set(columns) <= {name for name, _ in schema[table]}


def test_the_public_api_still_cannot_delete_one_runs_checkpoints():
    """Why the store keeps its SQL: SqliteSaver deletes whole threads only. When it implements
    ``delete_for_runs`` this fails: consider rolling back through it instead."""
    assert SqliteSaver.delete_for_runs is BaseCheckpointSaver.delete_for_runs
    with pytest.raises(NotImplementedError):
        SqliteSaver(sqlite3.connect(":memory:", check_same_thread=False)).delete_for_runs(["run"])


def test_the_schema_is_made_once_and_every_table_belongs_to_a_room(tmp_path):
    path = tmp_path / "room.sqlite"
    store = RoomStore(path)
    tables = _tables(store.conn)
    assert ROOM_TABLES | set(CHECKPOINT_COLUMNS) <= tables
    assert all(is_room_table(t) for t in tables)
    version = store.conn.execute("PRAGMA schema_version").fetchone()[0]
    store.add_user("amara", "swh")
    store.close()
    again = RoomStore(path)  # reopening writes no schema
    assert again.conn.execute("PRAGMA schema_version").fetchone()[0] == version
    assert _tables(again.conn) == tables and again.users() == {"amara": "swh"}
    again.close()
    assert not is_room_table("customers")


def _report(run_id: str, message_id: str, sender: str) -> RunReport:
    return RunReport(run_id, message_id, sender, {sender: "Ijumaa ü"}, None, None, ["ingest"], 0, 0, 0, 0, 0.5)


def test_a_recorded_run_closes_its_marker_in_the_same_transaction(tmp_path):
    store = RoomStore(tmp_path / "room.sqlite")
    assert store.open_run() is None
    store.start_open_run("r1", "cp0")
    assert store.open_run() == ("r1", "cp0")
    assert store.conn.execute("SELECT name FROM aya_room_meta").fetchall() == [(OPEN_RUN,)]
    visit = NodeVisit("ingest", 1.0, 0.5, note="Ijumaa ü")
    store.record_run(_report("r1", "m1", "amara"), [visit])
    assert store.open_run() is None and store.is_recorded("r1") and not store.is_recorded("r2")
    assert store.reports() == [_report("r1", "m1", "amara")] and store.run_ids() == ["r1"]
    assert store.trace("r1") == [visit] and store.trace("r2") is None
    store.start_open_run("r2", None)
    with pytest.raises(sqlite3.IntegrityError):  # a failed record changes nothing: the marker stays
        store.record_run(_report("r1", "m2", "lena"), [])
    assert store.open_run() == ("r2", None) and store.run_ids() == ["r1"]
    store.close()


class _State(TypedDict):
    log: Annotated[list[str], operator.add]


def _app(store: RoomStore):
    graph = StateGraph(_State)
    graph.add_node("step", lambda state: {"log": ["step"]})
    graph.add_edge(START, "step")
    graph.add_edge("step", END)
    return graph.compile(checkpointer=store.checkpointer)


def _ids(app, config) -> set[str]:
    return {c.config["configurable"]["checkpoint_id"] for c in app.get_state_history(config)}


def test_delete_since_removes_exactly_the_checkpoints_after_before(tmp_path):
    store = RoomStore(tmp_path / "room.sqlite")
    app = _app(store)
    room, other = {"configurable": {"thread_id": "room"}}, {"configurable": {"thread_id": "other"}}
    app.invoke({"log": ["a"]}, room)
    app.invoke({"log": ["x"]}, other)
    before = app.get_state(room).config["configurable"]["checkpoint_id"]
    kept = _ids(app, room)
    other_ids = _ids(app, other)
    app.invoke({"log": ["b"]}, room)
    assert app.get_state(room).values["log"] == ["a", "step", "b", "step"]
    deleted = store.delete_since("room", before)
    assert deleted and not set(deleted) & kept
    marks = ", ".join("?" * len(deleted))
    for table in CHECKPOINT_COLUMNS:  # their pending writes went with them
        sql = f"SELECT COUNT(*) FROM {table} WHERE checkpoint_id IN ({marks})"
        assert store.conn.execute(sql, deleted).fetchone()[0] == 0
    assert app.get_state(room).values["log"] == ["a", "step"]
    assert _ids(app, room) == kept
    assert _ids(app, other) == other_ids and len(other_ids) == len(kept)  # another thread is never touched
    assert store.delete_since("room", before) == []
    assert len(store.delete_since("room", None)) == len(kept)  # no checkpoint before: all of them
    assert app.get_state(room).values == {}
    store.close()
