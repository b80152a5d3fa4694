"""Which SQLite file is whose: the project's marker, and a look at a file that creates nothing beside it.

**The marker.** Every SQLite file the project makes carries two header fields, written when the file is
created, in the transaction that makes its schema (:func:`stamp_sql`):

* ``PRAGMA application_id``: a project constant per kind of file, :data:`ROOM_FILE` (``0x4179_6152``,
  "AyaR") for a room, :data:`KNOWLEDGE_BASE` (``0x4179_614B``, "AyaK") for a knowledge base;
* ``PRAGMA user_version``: that kind's format version (1). A file of a higher version was made by a
  newer aya_lab and is refused, not rewritten.

Another application's database has another application id (or 0). A file from before the marker has 0
too; each kind decides what such a file must hold to be taken as its own (:attr:`SqliteFile.tables`) and
stamps it when it opens it for writing.

**Looking creates nothing.** :func:`inspect` opens the file read-only; when the file has no ``-wal``
beside it, as ``immutable`` (SQLite then creates no ``-wal``/``-shm``/journal: a refused file leaves
nothing behind). With a ``-wal`` there (a live WAL database, or one whose writer was killed: the
``-wal`` may hold all its data, which ``immutable`` would not see) it reads it as it is, so the newest
committed state is what is judged; a ``-shm`` SQLite makes for that is removed afterwards, and no file
that was there is ever deleted.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

__all__ = [
    "KNOWLEDGE_BASE",
    "ROOM_FILE",
    "FileKind",
    "SqliteFile",
    "ensure_marked_schema",
    "file_problem",
    "inspect",
    "marker",
    "marker_problem",
    "read_only",
    "stamp_sql",
]

SQLITE_HEADER = b"SQLite format 3\x00"


@dataclass(frozen=True)
class FileKind:
    """A kind of SQLite file the project makes: its name in messages, application id and format version."""

    name: str
    app_id: int
    version: int


ROOM_FILE = FileKind("room file", 0x41796152, 1)
KNOWLEDGE_BASE = FileKind("knowledge-base store", 0x4179614B, 1)
_KINDS = (ROOM_FILE, KNOWLEDGE_BASE)


@dataclass(frozen=True)
class SqliteFile:
    """What :func:`inspect` read: the marker fields, each table's columns, and ``PRAGMA quick_check``'s first
    complaint (``None`` when the file is sound)."""

    app_id: int
    version: int
    tables: dict[str, tuple[str, ...]]
    damage: str | None

    def is_marked(self, kind: FileKind) -> bool:
        return self.app_id == kind.app_id


def stamp_sql(kind: FileKind) -> str:
    """The statements that mark a file as ``kind`` (run them in the transaction that makes its schema)."""
    return f"PRAGMA application_id = {kind.app_id}; PRAGMA user_version = {kind.version};"


def ensure_marked_schema(conn: sqlite3.Connection, schema: str, kind: FileKind) -> None:
    """Make ``schema`` (``CREATE TABLE IF NOT EXISTS`` statements) on ``conn``: in a file already marked as
    ``kind`` nothing is written; in any other (a new file, or one from before the marker) the tables and
    the marker are made in one transaction, so a file never holds one without the other. ``conn`` is in
    autocommit mode (``isolation_level=None``)."""
    if marker(conn) == (kind.app_id, kind.version):
        conn.executescript(schema)  # every table exists: nothing is written
        return
    try:
        conn.executescript(f"BEGIN IMMEDIATE; {schema} {stamp_sql(kind)} COMMIT;")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise


def marker(conn: sqlite3.Connection) -> tuple[int, int]:
    """``(application_id, user_version)`` of an open connection's main database."""
    return conn.execute("PRAGMA application_id").fetchone()[0], conn.execute("PRAGMA user_version").fetchone()[0]


def has_sqlite_header(path: Path) -> bool:
    """Whether ``path`` starts with SQLite's 16-byte header (``OSError`` when it cannot be read)."""
    with path.open("rb") as fh:
        return fh.read(len(SQLITE_HEADER)) == SQLITE_HEADER


@contextmanager
def read_only(path: Path) -> Iterator[sqlite3.Connection]:
    """A connection that cannot write ``path`` and creates nothing beside it (see the module docstring)."""
    wal, shm = Path(f"{path}-wal"), Path(f"{path}-shm")
    live, made_shm = wal.exists(), not shm.exists()
    uri = f"file:{quote(str(path.resolve()))}?mode=ro" + ("" if live else "&immutable=1")
    conn = sqlite3.connect(uri, uri=True, timeout=30)
    try:
        yield conn
    finally:
        conn.close()
        if live and made_shm:  # SQLite made it to read the -wal a killed writer left alone
            shm.unlink(missing_ok=True)


def inspect(path: Path) -> SqliteFile:
    """The marker, tables and soundness of the SQLite file ``path``, read-only, creating nothing
    (``sqlite3.DatabaseError`` when SQLite cannot read it; ``quick_check`` reads every page)."""
    with read_only(path) as conn:
        app_id, version = marker(conn)
        names = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        tables = {n: tuple(r[1] for r in conn.execute("SELECT * FROM pragma_table_info(?)", (n,))) for n in names}
        first = conn.execute("PRAGMA quick_check(1)").fetchone()
    damage = None if first is None or first[0] == "ok" else str(first[0]).splitlines()[0]
    return SqliteFile(app_id, version, tables, damage)


def marker_problem(path: Path, found: SqliteFile, kind: FileKind, fix: str) -> str | None:
    """Why a marked file is not a ``kind`` this version can open (one line naming ``path`` and ``fix``),
    or ``None``. An unmarked file (application id 0) is the caller's to judge."""
    if found.app_id == 0:
        return None
    if found.app_id != kind.app_id:
        other = next((k.name for k in _KINDS if k.app_id == found.app_id), None)
        what = (
            f"an aya_lab {other}" if other else f"another application's SQLite file (application id {found.app_id:#x})"
        )
        return f"{path} is {what}, not an aya_lab {kind.name}; it was not modified: {fix}"
    if found.version > kind.version:
        return (
            f"{path} is an aya_lab {kind.name} of format {found.version}, made by a newer aya_lab (this one reads "
            f"format {kind.version}); it was not modified: upgrade aya_lab, or {fix}"
        )
    return None


def _unreadable(path: Path, exc: sqlite3.DatabaseError, fix: str) -> str | None:
    if isinstance(exc, sqlite3.OperationalError) and ("locked" in str(exc) or "busy" in str(exc)):
        return None  # a writer holds it: a live database, checked again when it is opened for writing
    return f"{path} is a corrupted SQLite file ({exc}); it was not modified: {fix}"


def file_problem(path: Path, kind: FileKind, fix: str, unmarked_is_ours: Callable[[SqliteFile], bool]) -> str | None:
    """Why the existing file ``path`` cannot be opened as ``kind`` (one line naming it and ``fix``), or ``None``.

    Refused: a file that cannot be read, no SQLite file, a corrupted one (``quick_check``), another kind or
    application's marker, a newer format, and an unmarked file holding tables (``SqliteFile.tables``) for
    which ``unmarked_is_ours`` says no. An empty file and an SQLite file without tables are new files.
    Reads only; creates nothing beside ``path`` (:func:`read_only`).
    """
    try:
        if path.stat().st_size == 0:
            return None
        if not has_sqlite_header(path):
            return f"{path} is not a {kind.name} (not an SQLite file); it was not modified: {fix}"
        found = inspect(path)
    except OSError as exc:
        return f"{path} cannot be read ({exc.strerror}): make it readable, or {fix}"
    except sqlite3.DatabaseError as exc:
        return _unreadable(path, exc, fix)
    if found.damage:
        return f"{path} is a corrupted SQLite file (quick_check: {found.damage}); it was not modified: {fix}"
    if found.app_id == 0 and found.tables and not unmarked_is_ours(found):
        names = sorted(t for t in found.tables if not t.startswith("sqlite_"))
        shown = ", ".join(names[:5]) + (", ..." if len(names) > 5 else "")
        return (
            f"{path} is another application's SQLite database (tables {shown}), not an aya_lab {kind.name}; "
            f"it was not modified: {fix}"
        )
    return marker_problem(path, found, kind, fix)
