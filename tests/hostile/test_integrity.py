"""Hostile input, group "integrity" (issue 37, item 2): files that are no room (or no knowledge base) at a
room's path, through ``ChatRoom.open``, ``KnowledgeBase.open`` and the CLI (``aya-lab chat``/``demo``).

Each refusal is one line naming the file and the fix, and leaves the folder exactly as it was: no
``-wal``/``-shm``/``.lock`` created, nothing deleted, another application's rows intact. A knowledge base
whose build fails at open (a full disk) leaves the room as it was.
"""

from __future__ import annotations

import errno
import shutil
import sqlite3
from pathlib import Path

import pytest
from langchain_core.embeddings import DeterministicFakeEmbedding
from langgraph.checkpoint.sqlite import SqliteSaver

import aya_lab.rag.knowledge_base as knowledge_base
from aya_lab.cli import main
from aya_lab.rag import KnowledgeBase, KnowledgeBaseError
from aya_lab.room import ChatRoom, RoomError
from aya_lab.sqlite_file import KNOWLEDGE_BASE, ROOM_FILE
from tests.fakes import FakeRoomModel
from tests.hostile.harness import assert_one_line, cli_refuses, snapshot, unchanged

integrity = pytest.mark.hostile("integrity")
DOCS = {"travel_policy.md": "# Travel policy\n## Flights\nEconomy class for flights under 6 hours.\n"}


@pytest.fixture
def work(tmp_path: Path) -> Path:
    """The folder the probes write in (the generation cache lives beside it, in ``tmp_path``)."""
    folder = tmp_path / "work"
    folder.mkdir()
    return folder


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    folder = tmp_path / "kb"
    folder.mkdir()
    for name, text in DOCS.items():
        (folder / name).write_text(text)
    return folder


@pytest.fixture
def fake_embeddings(monkeypatch):
    """Rooms opened by the CLI build their knowledge base with fake embeddings (no model is loaded)."""
    monkeypatch.setattr(knowledge_base, "default_embeddings", lambda: DeterministicFakeEmbedding(size=8))


def _open(path: Path, docs: Path, **kw) -> ChatRoom:
    return ChatRoom.open(
        path, model=FakeRoomModel(default="ok"), kb_dir=docs, embeddings=DeterministicFakeEmbedding(size=8), **kw
    )


def _refused(path: Path, docs: Path, *needles: str) -> str:
    with pytest.raises(RoomError) as err:
        _open(path, docs, users={"kofi": "en"})
    assert_one_line(str(err.value), str(path), *needles)
    return str(err.value)


def _sql(path: Path, *statements: str) -> None:
    conn = sqlite3.connect(path)
    for statement in statements:
        conn.execute(statement)
    conn.commit()
    conn.close()


def _rows(path: Path, table: str) -> list[tuple]:
    conn = sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True)
    try:
        return conn.execute(f"SELECT * FROM {table}").fetchall()
    finally:
        conn.close()


def firefox(path: Path) -> Path:
    """Another application's database: one place in a browser's history."""
    _sql(path, "CREATE TABLE moz_places (id INTEGER PRIMARY KEY, url TEXT)", "INSERT INTO moz_places VALUES (1, 'x')")
    return path


def langgraph_app(path: Path) -> Path:
    """Another LangGraph application's checkpoints (the tables a room holds too), with one of its threads."""
    conn = sqlite3.connect(path, check_same_thread=False)
    SqliteSaver(conn).setup()
    conn.execute("INSERT INTO checkpoints (thread_id, checkpoint_ns, checkpoint_id) VALUES ('room', '', 'c1')")
    conn.commit()
    conn.close()
    return path


def a_room(path: Path, docs: Path) -> Path:
    room = _open(path, docs, users={"kofi": "en", "lena": "de"})
    room.send("kofi", "hello")
    room.close()
    return path


FIX = "pick a new path"
FOREIGN = "another application's SQLite database"


# ----------------------------------------------------------------------------------- foreign files as a room


@integrity
def test_another_applications_database_is_refused_and_keeps_its_row(work, docs):
    path = firefox(work / "places.sqlite")
    with unchanged(work):
        _refused(path, docs, FOREIGN, "moz_places", "not an aya_lab room file", "it was not modified", FIX)
    assert _rows(path, "moz_places") == [(1, "x")]


@integrity
def test_another_langgraph_applications_checkpoints_are_not_a_room(work, docs):
    path = langgraph_app(work / "agent.sqlite")
    with unchanged(work):
        _refused(path, docs, FOREIGN, "tables checkpoints, writes", "it was not modified", FIX)
    assert _rows(path, "checkpoints")[0][:3] == ("room", "", "c1")


@integrity
def test_a_hand_made_checkpoints_table_is_refused_before_a_send_can_fail_on_it(work, docs):
    path = work / "room.sqlite"
    _sql(path, "CREATE TABLE checkpoints (x)")
    with unchanged(work):
        _refused(path, docs, FOREIGN, "tables checkpoints", FIX)


@integrity
def test_room_tables_beside_a_foreign_table_are_refused(work, docs):
    path = work / "room.sqlite"
    _sql(path, "CREATE TABLE aya_room_users (user_id TEXT, lang TEXT, position INTEGER)", "CREATE TABLE invoices (id)")
    with unchanged(work):
        _refused(path, docs, FOREIGN, "invoices", FIX)


@integrity
def test_unmarked_room_tables_with_the_wrong_checkpoint_columns_are_refused(work, docs):
    path = work / "room.sqlite"
    _sql(path, "CREATE TABLE aya_room_meta (name TEXT, value TEXT)", "CREATE TABLE checkpoints (x)")
    with unchanged(work):
        _refused(path, docs, FOREIGN, "aya_room_meta, checkpoints", FIX)


@integrity
def test_a_room_marked_by_another_application_is_refused(work, docs):
    path = a_room(work / "room.sqlite", docs)
    _sql(path, "PRAGMA application_id = 305419896")
    with unchanged(work):
        _refused(path, docs, "another application's SQLite file (application id 0x12345678)", FIX)


@integrity
def test_a_room_of_a_newer_format_is_refused_not_rewritten(work, docs):
    path = a_room(work / "room.sqlite", docs)
    _sql(path, f"PRAGMA user_version = {ROOM_FILE.version + 1}")
    with unchanged(work):
        _refused(path, docs, f"format {ROOM_FILE.version + 1}", "made by a newer aya_lab", "upgrade aya_lab", FIX)


@integrity
def test_a_knowledge_base_given_as_the_room_is_named_as_one(work, docs):
    a_room(work / "room.sqlite", docs)
    kb = work / "room.kb.sqlite"
    with unchanged(work):
        _refused(kb, docs, "is an aya_lab knowledge-base store, not an aya_lab room file", FIX)


@integrity
def test_a_symlink_to_a_foreign_database_is_refused_and_both_stay(work, docs, tmp_path):
    target = firefox(tmp_path / "places.sqlite")
    link = work / "room.sqlite"
    link.symlink_to(target)
    data = target.read_bytes()
    with unchanged(work):
        _refused(link, docs, FOREIGN, "moz_places", FIX)
    assert link.is_symlink() and target.read_bytes() == data
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kb", "places.sqlite", "work"]


# ------------------------------------------------------------------------- refusals leave nothing beside


@integrity
def test_a_truncated_room_is_refused_and_leaves_no_wal_files(work, docs):
    path = a_room(work / "room.sqlite", docs)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with unchanged(work):
        _refused(path, docs, "corrupted SQLite file", FIX)
    assert not Path(f"{path}-wal").exists() and not Path(f"{path}-shm").exists()


@integrity
def test_a_room_corrupted_in_the_middle_is_refused_and_leaves_no_wal_files(work, docs):
    path = work / "room.sqlite"
    room = _open(path, docs, users={"kofi": "en", "lena": "de"})
    for i in range(20):
        room.send("kofi", f"message number {i} with some words to fill the pages " * 5)
    room.close()
    page = 4096
    with path.open("r+b") as fh:  # the header page stays intact
        fh.seek(3 * page)
        fh.write(b"\x07" * page * 2)
    with unchanged(work):
        _refused(path, docs, "corrupted SQLite file", FIX)


@integrity
def test_a_foreign_wal_mode_database_is_refused_and_leaves_no_wal_files(work, docs):
    path = work / "app.sqlite"
    _sql(path, "PRAGMA journal_mode = WAL", "CREATE TABLE notes (t TEXT)", "INSERT INTO notes VALUES ('keep')")
    assert sorted(p.name for p in work.iterdir()) == ["app.sqlite"]
    with unchanged(work):
        _refused(path, docs, FOREIGN, "notes", FIX)
    assert _rows(path, "notes") == [("keep",)]


@integrity
def test_a_live_foreign_wal_database_is_judged_by_its_wal_which_is_kept(work, docs):
    path = work / "live.sqlite"
    writer = sqlite3.connect(path)
    writer.execute("PRAGMA journal_mode = WAL")
    writer.execute("CREATE TABLE notes (t TEXT)")
    writer.execute("INSERT INTO notes VALUES ('only in the wal')")
    writer.commit()  # no checkpoint yet: the table and its row are in app.sqlite-wal only
    try:
        before = sorted(p.name for p in work.iterdir())
        assert before == ["live.sqlite", "live.sqlite-shm", "live.sqlite-wal"]
        main_file = path.read_bytes()
        _refused(path, docs, FOREIGN, "notes", FIX)
        assert sorted(p.name for p in work.iterdir()) == before and path.read_bytes() == main_file
        assert writer.execute("SELECT t FROM notes").fetchall() == [("only in the wal",)]
    finally:
        writer.close()
    assert _rows(path, "notes") == [("only in the wal",)]


@integrity
def test_a_killed_foreign_writers_wal_without_shm_is_read_and_kept(work, docs, tmp_path):
    live = tmp_path / "live.sqlite"
    writer = sqlite3.connect(live)
    writer.execute("PRAGMA journal_mode = WAL")
    writer.execute("CREATE TABLE notes (t TEXT)")
    writer.commit()
    path = work / "left.sqlite"  # what a killed writer may leave: the file and its -wal (data), no -shm
    shutil.copy(live, path)
    shutil.copy(f"{live}-wal", f"{path}-wal")
    writer.close()
    with unchanged(work):
        _refused(path, docs, FOREIGN, "notes", FIX)


# --------------------------------------------------------------------------------- the knowledge base beside


@integrity
@pytest.mark.parametrize(
    ("make", "needles"),
    [
        (lambda p: p.write_bytes(b"my notes, not a database\n" * 40), ("is not a knowledge-base store",)),
        (firefox, (FOREIGN, "moz_places", "not an aya_lab knowledge-base store")),
        (langgraph_app, (FOREIGN, "checkpoints, writes")),
        (lambda p: _sql(p, "CREATE TABLE kb_meta (key, value)", "PRAGMA application_id = 7"), ("id 0x7",)),
        (
            lambda p: (
                _sql(p, "CREATE TABLE kb_meta (key, value)", f"PRAGMA application_id = {KNOWLEDGE_BASE.app_id}")
                or _sql(p, f"PRAGMA user_version = {KNOWLEDGE_BASE.version + 5}")
            ),
            ("made by a newer aya_lab", "upgrade aya_lab"),
        ),
    ],
    ids=["garbage", "foreign", "langgraph", "other-app-id", "newer-format"],
)
def test_a_file_that_is_no_knowledge_base_beside_a_new_room_is_refused(work, docs, make, needles):
    kb = work / "room.kb.sqlite"
    make(kb)
    with unchanged(work), pytest.raises(RoomError) as err:
        _open(work / "room.sqlite", docs, users={"kofi": "en"})
    assert_one_line(str(err.value), str(kb), *needles, "it was not modified", "move it aside, or pick a new path")


@integrity
def test_a_room_file_given_as_a_knowledge_base_is_named_as_one(work, docs):
    room = a_room(work / "room.sqlite", docs)
    with unchanged(work), pytest.raises(KnowledgeBaseError) as err:
        KnowledgeBase.open(room, docs_dir=docs, embeddings=DeterministicFakeEmbedding(size=8))
    assert_one_line(
        str(err.value), str(room), "is an aya_lab room file, not an aya_lab knowledge-base store", "db_path"
    )


@integrity
def test_knowledge_base_open_refuses_a_foreign_database_and_keeps_it(work, docs):
    path = firefox(work / "handbook.sqlite")
    with unchanged(work), pytest.raises(KnowledgeBaseError) as err:
        KnowledgeBase.open(path, docs_dir=docs, embeddings=DeterministicFakeEmbedding(size=8))
    assert_one_line(str(err.value), str(path), FOREIGN, "moz_places", "it was not modified", "pass another db_path")
    assert _rows(path, "moz_places") == [(1, "x")]


@integrity
def test_a_zero_byte_knowledge_base_is_built_in_place(work, docs):
    kb = work / "room.kb.sqlite"
    kb.touch()
    room = _open(work / "room.sqlite", docs, users={"kofi": "en"})
    try:
        assert [r.source for r in room.kb.retrieve("flights", k=1)] == ["travel_policy.md"]
    finally:
        room.close()
    conn = sqlite3.connect(kb)
    assert conn.execute("PRAGMA application_id").fetchone()[0] == KNOWLEDGE_BASE.app_id
    conn.close()


# ------------------------------------------------------------------------ the knowledge base's build fails


class DiskFull:
    """The disk fills while the knowledge base writes its chunks: SQLite rolls the transaction back itself
    (as on ``SQLITE_FULL``) and the write raises; or the write raises ``OSError(ENOSPC)`` (``enospc``)."""

    def __init__(self, monkeypatch, enospc: bool = False) -> None:
        self.conns: list[sqlite3.Connection] = []
        self.enospc = enospc
        self.real = knowledge_base.connect
        monkeypatch.setattr(knowledge_base, "connect", self.connect)
        monkeypatch.setattr(knowledge_base, "to_blob", self.to_blob)

    def connect(self, db_path):
        self.conns.append(self.real(db_path))
        return self.conns[-1]

    def to_blob(self, vector):
        if self.enospc:
            raise OSError(errno.ENOSPC, "No space left on device")
        self.conns[-1].execute("ROLLBACK")
        raise sqlite3.OperationalError("database or disk is full")


DISK_FULL = ("could not build the knowledge base at", "disk full", "nothing was changed", "free space")


@integrity
@pytest.mark.parametrize("error", ["sqlite-full", "enospc"])
def test_a_full_disk_while_a_new_room_builds_its_knowledge_base_leaves_nothing(work, docs, monkeypatch, error):
    DiskFull(monkeypatch, enospc=error == "enospc")
    path = work / "sub" / "room.sqlite"
    with unchanged(work), pytest.raises(KnowledgeBaseError) as err:
        _open(path, docs, users={"kofi": "en"})
    assert_one_line(str(err.value), str(path.with_suffix(".kb.sqlite")), *DISK_FULL)
    assert "cannot rollback" not in str(err.value)


@integrity
def test_a_full_disk_while_an_existing_room_rebuilds_its_knowledge_base_changes_nothing(work, docs, monkeypatch):
    path = a_room(work / "room.sqlite", docs)
    (docs / "leave_policy.md").write_text("# Leave\n## Annual\n25 days of annual leave.\n")  # a rebuild is due
    DiskFull(monkeypatch)
    with unchanged(work), pytest.raises(KnowledgeBaseError) as err:
        _open(path, docs)
    assert_one_line(str(err.value), *DISK_FULL)


@integrity
def test_the_cli_says_the_disk_is_full_in_one_line_and_leaves_nothing(work, monkeypatch, fake_embeddings, capsys):
    DiskFull(monkeypatch)
    with unchanged(work):
        cli_refuses(capsys, ["chat", str(work / "r.sqlite"), "--model", "fake:ok", "--user", "kofi:en"], *DISK_FULL)


# ------------------------------------------------------------------------------------------- the CLI


@integrity
@pytest.mark.parametrize(
    ("make", "needles"),
    [
        (firefox, (FOREIGN, "moz_places")),
        (langgraph_app, (FOREIGN, "checkpoints, writes")),
        (lambda p: p.write_bytes(b"SQLite format 3\x00" + b"\x07" * 4000), ("corrupted SQLite file",)),
    ],
    ids=["foreign", "langgraph", "corrupted"],
)
def test_chat_refuses_a_file_that_is_no_room(work, capsys, monkeypatch, make, needles):
    monkeypatch.setattr("builtins.input", lambda prompt="": "hello")  # a send would go through
    path = work / "room.sqlite"
    make(path)
    with unchanged(work):
        cli_refuses(capsys, ["chat", str(path), "--model", "fake:ok", "--user", "kofi:en"], str(path), *needles, FIX)


@integrity
@pytest.mark.parametrize(
    ("make", "needles"),
    [
        (firefox, (FOREIGN, "moz_places", "it was not modified")),
        (langgraph_app, (FOREIGN, "checkpoints, writes")),
        (lambda p: p.write_text("meeting notes\n" * 100), ("not a room file",)),
    ],
    ids=["foreign", "langgraph", "text"],
)
def test_demo_never_deletes_a_file_that_is_no_room(work, capsys, make, needles):
    path = work / "demo.sqlite"
    make(path)
    with unchanged(work):
        cli_refuses(capsys, ["demo", "--model", "fake:ok", "--room", str(path)], str(path), *needles)


@integrity
def test_demo_never_replaces_a_room_it_did_not_create(work, docs, capsys):
    path = a_room(work / "team.sqlite", docs)
    with unchanged(work):
        cli_refuses(
            capsys,
            ["demo", "--model", "fake:ok", "--room", str(path)],
            str(path),
            "a room that aya-lab demo did not create",
            "it was not modified",
            "pick a new --room path, or delete it yourself",
        )


def _demo(path: Path, capsys) -> None:
    assert main(["demo", "--model", "fake:ok", "--room", str(path)]) == 0, capsys.readouterr().err
    capsys.readouterr()


@integrity
def test_demo_keeps_a_demo_room_whose_knowledge_base_was_swapped_for_a_foreign_file(work, capsys, fake_embeddings):
    path = work / "demo.sqlite"
    _demo(path, capsys)
    kb = path.with_suffix(".kb.sqlite")
    kb.unlink()
    firefox(kb)
    with unchanged(work):
        cli_refuses(capsys, ["demo", "--model", "fake:ok", "--room", str(path)], str(kb), FOREIGN, "moz_places")


def test_demo_replaces_the_room_it_created(work, capsys, fake_embeddings):
    path = work / "demo.sqlite"
    _demo(path, capsys)
    _demo(path, capsys)  # the second run starts afresh
    room = ChatRoom.open(path, model=FakeRoomModel(default="x"), embeddings=DeterministicFakeEmbedding(size=8))
    try:
        assert len(room.runs()) == 6  # not twelve
    finally:
        room.close()


# ---------------------------------------------------------------------------- what a room file carries


def test_a_new_room_and_its_knowledge_base_carry_the_marker(work, docs):
    path = a_room(work / "room.sqlite", docs)
    for file, kind in ((path, ROOM_FILE), (path.with_suffix(".kb.sqlite"), KNOWLEDGE_BASE)):
        conn = sqlite3.connect(file)
        assert conn.execute("PRAGMA application_id").fetchone()[0] == kind.app_id
        assert conn.execute("PRAGMA user_version").fetchone()[0] == kind.version
        conn.close()


def test_a_room_from_before_the_marker_still_opens_and_is_stamped(work, docs):
    path = a_room(work / "room.sqlite", docs)
    _sql(path, "PRAGMA application_id = 0", "PRAGMA user_version = 0")
    files = snapshot(work)
    room = _open(path, docs)
    try:
        assert room.users == {"kofi": "eng", "lena": "deu"} and len(room.history()) == 1
    finally:
        room.close()
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA application_id").fetchone()[0] == ROOM_FILE.app_id
    conn.close()
    assert set(snapshot(work)) == set(files)
