"""The hostile-input run's shared checks (issue 37): every case is refused in one line, with no traceback,
and leaves the files it could touch exactly as they were.

Each ``tests/hostile/test_<group>.py`` marks its cases ``@pytest.mark.hostile(group)``; docs/SECURITY.md
reports the count per group (``pytest tests/hostile -m hostile --collect-only -q`` lists them).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from aya_lab.cli import main

__all__ = ["assert_one_line", "cli_refuses", "snapshot", "unchanged"]


def snapshot(root: Path) -> dict[str, str]:
    """Every file and folder under ``root`` (relative path -> sha256 of a file, ``"dir"`` of a folder)."""
    out: dict[str, str] = {}
    for p in sorted(root.rglob("*")):
        rel = str(p.relative_to(root))
        if p.is_symlink():
            out[rel] = f"link:{p.readlink()}"
        elif p.is_dir():
            out[rel] = "dir"
        elif p.is_file():
            out[rel] = hashlib.sha256(p.read_bytes()).hexdigest()
        else:
            out[rel] = "special"
    return out


@contextmanager
def unchanged(root: Path, *, ignore_shm: bool = False) -> Iterator[None]:
    """Assert that the ``with`` block created, changed and removed nothing under ``root``.

    ``ignore_shm`` leaves SQLite's ``-shm`` files out: the WAL index of an open room, which a mere reader
    updates, holds no data and is rebuilt from the WAL (the database and its WAL are still compared).
    Leave it off where creating a ``-shm`` is itself the failure (a refused foreign file)."""

    def taken() -> dict[str, str]:
        return {k: v for k, v in snapshot(root).items() if not (ignore_shm and k.endswith("-shm"))}

    before = taken()
    yield
    after = taken()
    created = sorted(set(after) - set(before))
    removed = sorted(set(before) - set(after))
    changed = sorted(k for k in set(before) & set(after) if before[k] != after[k])
    assert not (created or removed or changed), f"created {created}, removed {removed}, changed {changed}"


def assert_one_line(message: str, *needles: str) -> None:
    """One line of text (no traceback), naming each of ``needles`` (the bad value, the fix)."""
    text = message.rstrip("\n")
    assert text and "\n" not in text, f"not one line: {message!r}"
    assert "Traceback" not in text, text
    for needle in needles:
        assert needle in text, f"{needle!r} not in {text!r}"


def cli_refuses(capsys, argv: list[str], *needles: str) -> str:
    """Run ``aya-lab ARGV``: exit status 2 and one ``error:`` line on stderr naming ``needles``; returns it."""
    status = main(argv)
    err = capsys.readouterr().err
    assert status == 2, f"status {status}, stderr {err!r}"
    assert err.startswith("error: "), err
    assert_one_line(err, *needles)
    return err
