"""The ``--out`` file of an ``eval`` command, checked before any work starts (no model loaded, no
progress bar, no ``.partial.jsonl`` written): :func:`out_problem` says in one line what is wrong with
it and how to fix it, or returns None.

Refused: a name that does not end in the expected suffix (``.csv``); a path in ``/proc``, ``/sys`` or
``/dev`` (system folders, never results); an existing folder; an existing file that is not text of that
format (binary, or not UTF-8), which writing would destroy; a file, or the folder it would be created in,
that this process may not write; a path whose parent is a file. The files written beside ``--out``
(``<stem>.partial.jsonl``, ``<stem>.outputs.csv`` ...) are checked the same way when named.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from aya_lab.paths import system_folder

__all__ = ["out_problem"]

_FIX = "choose a file in a folder you can write, e.g. --out runs/results.csv"


def _existing_file_problem(path: Path, suffix: str, label: str) -> str | None:
    if path.is_dir():
        return (
            f"{label} {str(path)!r} is a folder; name a {suffix} file in it, e.g. {str(path / ('results' + suffix))!r}"
        )
    if not path.is_file():
        return f"{label} {str(path)!r} exists and is not a regular file; {_FIX}"
    try:
        head = path.read_bytes()[:65536]
        head.decode("utf-8")
        binary = b"\x00" in head
    except UnicodeDecodeError:
        binary = True
    if binary:
        return f"{label} {str(path)!r} exists and is not a {suffix} file (binary): writing would destroy it; {_FIX}"
    if not os.access(path, os.W_OK):
        return f"{label} {str(path)!r} exists and is not writable; {_FIX}"
    return None


def _folder_problem(path: Path, label: str) -> str | None:
    """Why the file ``path`` cannot be created in its folder (the nearest existing ancestor), or None."""
    parent = path.parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    if not parent.is_dir():
        return f"{label} {str(path)!r} lies under {str(parent)!r}, which is a file, not a folder; {_FIX}"
    if not os.access(parent, os.W_OK | os.X_OK):
        return f"{label} {str(path)!r}: the folder {str(parent)!r} is not writable; {_FIX}"
    return None


def out_problem(out: str | None, suffix: str = ".csv", beside: Sequence[str] = ()) -> str | None:
    """Why ``out`` (and the files named ``<stem><b>`` for each ``b`` of ``beside``) cannot be written as
    this command's results, in one line with the fix, or None (also for no ``out``)."""
    if not out:
        return None
    if not out.lower().endswith(suffix):
        return f"--out must name a {suffix} file, not {out!r}; e.g. --out runs/results{suffix}"
    path = Path(out).expanduser()
    folder = system_folder(path)
    if folder:
        return f"--out {out!r} is in {folder}, a system folder, not a place for results; {_FIX}"
    stem = path.with_suffix("")
    for target in (path, *(stem.with_name(stem.name + b) for b in beside)):
        label = "--out" if target == path else "the file beside --out"
        kind = suffix if target == path else target.suffix
        problem = _existing_file_problem(target, kind, label) if target.exists() else _folder_problem(target, label)
        if problem:
            return problem
    return None
