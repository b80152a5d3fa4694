"""The room file's integrity: is it a room, one writer at a time, recovery after a kill.

* :func:`room_file_problem` says, before anything is created beside it, why a path cannot be a room:
  not a regular file (``/dev/null``, a folder, a pipe; or a path in ``/dev``, ``/proc``, ``/sys``), a
  file or folder the room cannot write (named with the fix), not an SQLite file (garbage), an
  unreadable or corrupted one (``PRAGMA quick_check``, so damage in the middle of the file is found
  before a knowledge base is built beside it), an SQLite file without the room's marker
  (:data:`~aya_lab.sqlite_file.ROOM_FILE`; another application's database, even another LangGraph
  application's checkpoints) unless it is a room from before the marker
  (:func:`~aya_lab.room.store.is_legacy_room`), another application's or a newer format's marker; and the
  same for the knowledge base beside it (:func:`~aya_lab.rag.store.kb_file_problem`). It only reads,
  creating nothing beside the file (:func:`~aya_lab.sqlite_file.read_only`), so a refused file is never
  modified and no ``-wal``/``-shm`` is left beside it.
* :func:`removed_if_failed` deletes what opening a *new* room created (the room file, its knowledge base,
  their ``-wal``/``-shm``, the ``.lock``, new folders) when the opening fails, so a refusal leaves nothing.
* :class:`RoomLock` is an exclusive OS lock (``fcntl.flock``) on ``<room file>.lock``: a send holds it
  from reading the state to committing it, so sends from several processes (or threads) are serialized.
  The OS releases it when the holder dies, so a killed writer never leaves the room locked.
* A run's marker (:meth:`~aya_lab.room.store.RoomStore.start_open_run`) found under the lock means a
  writer died mid-run: the room rolls that run back (checkpoints, with
  :meth:`~aya_lab.room.store.RoomStore.delete_since`, and knowledge-base facts).

The SQL on the room file (its tables, the marker, the checkpoint rollback) is :mod:`aya_lab.room.store`'s.

Simplified, and why: this is POSIX-only (``fcntl``), like the machines the project runs on.
"""

from __future__ import annotations

import fcntl
import os
import stat
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from aya_lab.paths import file_kind, system_folder
from aya_lab.rag.store import kb_file_problem
from aya_lab.room.store import is_legacy_room
from aya_lab.sqlite_file import ROOM_FILE, file_problem

__all__ = ["RoomLock", "lock_path", "removed_if_failed", "room_file_problem"]


def lock_path(room: Path) -> Path:
    """``runs/demo.sqlite`` -> ``runs/demo.sqlite.lock``."""
    return room.with_name(room.name + ".lock")


def companions(room: Path) -> list[Path]:
    """The files a room writes beside ``room``: its knowledge base, both ``-wal``/``-shm``, the lock."""
    kb = room.with_suffix(".kb.sqlite")
    return [Path(f"{p}{s}") for p in (room, kb) for s in ("-wal", "-shm")] + [kb, lock_path(room)]


def _place_problem(path: Path) -> str | None:
    """A room path that is no regular file, lies in a special folder, or cannot be written."""
    new = "pick a new path for the room (a file, e.g. runs/demo.sqlite)"
    for p in (path, *companions(path)):
        if p.exists() and not stat.S_ISREG(p.stat().st_mode):
            what = "room file" if p == path else "a file the room writes beside it,"
            return f"{what} {p} is {file_kind(p.stat().st_mode)}: {new}"
    system = system_folder(path)
    if system:
        return f"room file {path} lies in {system}, a system folder: {new}"
    if path.exists() and not os.access(path, os.R_OK | os.W_OK):
        return f"room file {path} is read-only: make it writable (chmod u+rw {path}), or open a copy at a new path"
    folder = next(p for p in (path.parent, *path.parent.parents) if p.exists())
    if not folder.is_dir() or not os.access(folder, os.W_OK | os.X_OK):
        return (
            f"folder {folder} is not writable, and the room writes {path.name}-wal, {path.name}-shm and "
            f"{lock_path(path).name} beside {path.name}: make it writable (chmod u+w {folder}), or {new}"
        )
    return None


def room_file_problem(path: Path) -> str | None:
    """Why ``path`` cannot be opened as a room (one line naming the file and the fix), or ``None``.

    A missing or empty file is a new room. Nothing is written, nothing is created beside the file.
    """
    fix = "move it aside or pick a new path for the room"
    place = _place_problem(path)
    if place:
        return place
    if path.exists():
        problem = file_problem(path, ROOM_FILE, fix, is_legacy_room)
        if problem:
            return problem
    kb = path.with_suffix(".kb.sqlite")
    return kb_file_problem(kb, "move it aside, or pick a new path for the room") if kb.exists() else None


@contextmanager
def removed_if_failed(path: Path) -> Iterator[None]:
    """Run the ``with`` block (which creates the room at ``path``); if it raises and ``path`` was a new
    room, delete every file and folder the block created (the room, its knowledge base, their WAL
    files, the lock), then re-raise. An existing room is never touched."""
    if path.exists():
        yield
        return
    files = [p for p in (path, *companions(path)) if not p.exists()]
    folders = [p for p in (path.parent, *path.parent.parents) if not p.exists()]
    try:
        yield
    except BaseException:
        for p in files:
            p.unlink(missing_ok=True)
        for folder in folders:  # deepest first; only the empty folders this open made
            try:
                folder.rmdir()
            except OSError:
                break
        raise


class RoomLock:
    """An exclusive, cross-process lock on one room file (``fcntl.flock`` on ``<room>.lock``).

    Each :meth:`hold` opens its own file description, so two threads of one process exclude each other
    too. Not re-entrant: a thread holding it must not ask again.
    """

    def __init__(self, room: Path) -> None:
        self.path = lock_path(room)
        self._local = threading.local()

    @contextmanager
    def hold(self, *, blocking: bool = True) -> Iterator[bool]:
        """Hold the lock for the ``with`` block; yields ``False`` (not held) when ``blocking=False`` and
        another writer has it."""
        if getattr(self._local, "held", False):
            raise RuntimeError(f"{self.path} is already held by this thread (a send inside a send?)")
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | (0 if blocking else fcntl.LOCK_NB))
            except BlockingIOError:
                yield False
                return
            self._local.held = True
            try:
                yield True
            finally:
                self._local.held = False
                fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)
