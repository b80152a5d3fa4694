"""Files written whole or not at all.

A core module: reports, calibration records and generated data sets are written through it, so an error while
writing (a full disk, a frame that cannot be serialised, Ctrl-C) leaves what the files held before.

* :func:`write_files` writes every file of a set to a temporary name of its own beside it (unique per call, so
  two processes writing the same path never share one), and only when all are written renames them into place,
  in the order given: a reader that reads the last file first (a report's ``.json``) sees either the old set or
  the new one, but for the instant between the renames. On an error nothing is renamed and every temporary file
  is removed.
* :func:`write_text` is the one-file case.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path

__all__ = ["write_files", "write_text"]


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


_FILE_MODE = 0o666 & ~_umask()
"""What a plain ``open(path, "w")`` would give a new file (a temporary file is created owner-only)."""


def write_files(writers: Mapping[Path, Callable[[Path], object]]) -> None:
    """Call each ``writer`` with a temporary path beside its target, then rename every temporary file onto its
    target in the mapping's order; folders are created. Nothing is renamed unless every writer returned."""
    staged: list[tuple[Path, Path]] = []
    try:
        for target, writer in writers.items():
            target.parent.mkdir(parents=True, exist_ok=True)
            handle, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
            os.close(handle)
            os.chmod(name, _FILE_MODE)
            staged.append((Path(name), target))
            writer(Path(name))
        for tmp, target in staged:
            os.replace(tmp, target)
    finally:
        for tmp, _ in staged:
            tmp.unlink(missing_ok=True)


def write_text(path: Path, text: str) -> None:
    """``text`` as ``path``'s UTF-8 content, whole or not at all."""
    write_files({path: lambda tmp: tmp.write_text(text, encoding="utf-8")})
