"""A named pipe (or socket, device) in the knowledge-base folder never blocks reading it: it is refused
with one line naming the file and the fix, as a link out of the folder is (tests/test_confined_names.py).

Each read runs in a daemon thread joined with a timeout, so a regression fails instead of hanging (a
reader blocked on a FIFO is released by opening the FIFO for writing afterwards).
"""

from __future__ import annotations

import os
import socket
import tempfile
import threading
from pathlib import Path

import pytest

from aya_lab.rag import documents
from aya_lab.rag.documents import KnowledgeBaseError, read_documents

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")

TIMEOUT = 20.0


def _read_guarded(docs: Path, fifo: Path | None = None) -> list | BaseException:
    """``read_documents(docs)``, or the exception it raised; fails the test if it does not return in time."""
    out: list = []

    def run() -> None:
        try:
            out.append(read_documents(docs))
        except BaseException as exc:  # handed to the test
            out.append(exc)

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(TIMEOUT)
    if worker.is_alive():
        if fifo is not None:  # unblock the reader so the thread ends
            fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
            os.close(fd)
        pytest.fail(f"read_documents({docs}) blocked for over {TIMEOUT:.0f} s on a non-regular file")
    return out[0]


@pytest.fixture
def docs(tmp_path):
    d = tmp_path / "kb"
    d.mkdir()
    (d / "travel.md").write_text("# Travel\nEconomy class.\n", encoding="utf-8")
    return d


def _assert_refused(result, path: Path, kind: str, docs: Path) -> None:
    assert isinstance(result, KnowledgeBaseError), result
    text = str(result)
    assert "\n" not in text
    assert text.startswith(f"KB file {path} is not a regular file ({kind})")
    assert f"remove it from {docs}" in text


def test_a_named_pipe_in_the_kb_folder_is_refused_without_blocking(docs):
    fifo = docs / "minutes.md"
    os.mkfifo(fifo)
    _assert_refused(_read_guarded(docs, fifo), fifo, "a named pipe", docs)


def test_a_link_to_a_named_pipe_inside_the_folder_is_refused_without_blocking(docs):
    fifo = docs / ".pipe"  # hidden, so not listed itself; reached through the link
    os.mkfifo(fifo)
    link = docs / "notes.md"
    link.symlink_to(fifo)
    _assert_refused(_read_guarded(docs, fifo), link, "a named pipe", docs)


def test_a_pipe_swapped_in_after_the_listing_is_refused_on_the_open_file(docs, monkeypatch):
    """The check on the path can race with a swap; the open file is checked too."""
    fifo = docs / "late.md"
    os.mkfifo(fifo)
    monkeypatch.setattr(documents, "_check_confined", lambda path, docs_dir: None)  # the listing saw a file
    _assert_refused(_read_guarded(docs, fifo), fifo, "a named pipe", docs)


def test_a_socket_in_the_kb_folder_is_refused():
    with tempfile.TemporaryDirectory(prefix="kb") as short:  # a unix socket path must be short
        docs = Path(short)
        (docs / "a.md").write_text("# A\ntext\n", encoding="utf-8")
        sock_path = docs / "chat.md"
        with socket.socket(socket.AF_UNIX) as sock:
            sock.bind(str(sock_path))
            _assert_refused(_read_guarded(docs), sock_path, "a socket", docs)


def test_a_link_to_a_device_is_refused_as_outside_the_folder(docs):
    link = docs / "zero.md"
    link.symlink_to("/dev/zero")
    result = _read_guarded(docs)
    assert isinstance(result, KnowledgeBaseError) and "links outside the KB folder" in str(result)


def test_regular_files_and_folders_named_like_documents_read_as_before(docs):
    (docs / "archive.md").mkdir()  # a folder named like a document is walked, not read
    (docs / "archive.md" / "old.md").write_text("# Old\nkept\n", encoding="utf-8")
    result = _read_guarded(docs)
    assert [d.source for d in result] == ["archive.md/old.md", "travel.md"]
    assert result[1].text == "# Travel\nEconomy class.\n"
