"""Reading and splitting knowledge-base files.

Every ``*.md`` / ``*.markdown`` / ``*.txt`` under the folder is read (``README*`` and hidden files are
not part of the knowledge base) and validated before anything is stored: a file that is not UTF-8,
unreadable or empty, that links outside the folder, or that is not a regular file (a named pipe, socket
or device, which would block or never end) raises :class:`KnowledgeBaseError` with one line naming the
file and the fix. Files are opened without blocking and checked on the open file, never waited on.
Markdown is split by headers (h1-h3), then by size; each chunk starts with its header path.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from langchain_core.documents import Document

from aya_lab.errors import AyaLabError

__all__ = [
    "DEFAULT_CHUNK_OVERLAP",
    "DEFAULT_CHUNK_SIZE",
    "KB_SUFFIXES",
    "SPLITTER_VERSION",
    "Chunk",
    "KBDocument",
    "KnowledgeBaseError",
    "docs_hash",
    "read_documents",
    "split_documents",
]

SPLITTER_VERSION = "md-headers-h1h2h3+recursive.v1"
DEFAULT_CHUNK_SIZE = 400  # characters (~100 word pieces; all-MiniLM-L6-v2 was trained on <=128)
DEFAULT_CHUNK_OVERLAP = 50
KB_SUFFIXES = (".md", ".markdown", ".txt")
MAX_KB_FILE_BYTES = 2_000_000  # a policy document, not a corpus: larger files are refused
_HEADERS = (("#", "h1"), ("##", "h2"), ("###", "h3"))
_SPECIAL_KINDS = (
    (stat.S_ISFIFO, "a named pipe"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISDIR, "a folder"),
)


class KnowledgeBaseError(AyaLabError, RuntimeError):
    """A knowledge-base problem the user can fix; the message is one line naming the file and the fix."""


@dataclass(frozen=True)
class KBDocument:
    source: str  # path relative to the KB folder, POSIX style ("travel_policy.md")
    text: str
    digest: str


@dataclass(frozen=True)
class Chunk:
    source: str
    section: str
    text: str
    metadata: dict[str, Any]


def _is_kb_file(path: Path, root: Path) -> bool:
    rel = path.relative_to(root)
    if any(part.startswith(".") for part in rel.parts):
        return False
    if path.stem.lower() == "readme" or path.suffix.lower() not in KB_SUFFIXES:
        return False
    return path.is_symlink() or not path.is_dir()  # pipes, sockets, devices too: refused, never skipped


def _check_confined(path: Path, docs_dir: Path) -> None:
    """A KB file must lie inside the KB folder (a link out of it is refused), be a regular file and be
    of bounded size."""
    target = path.resolve()
    if not target.is_relative_to(docs_dir.resolve()):
        raise KnowledgeBaseError(
            f"KB file {path} links outside the KB folder (to {target}): copy the document into {docs_dir} "
            "or remove the link"
        )
    if target.exists():
        _check_regular(path, target.stat(), docs_dir)


def _check_regular(path: Path, info: os.stat_result, docs_dir: Path) -> None:
    """A regular file of bounded size; a named pipe, socket, device or folder is one line naming it."""
    if not stat.S_ISREG(info.st_mode):
        kind = next((name for test, name in _SPECIAL_KINDS if test(info.st_mode)), "a special file")
        raise KnowledgeBaseError(
            f"KB file {path} is not a regular file ({kind}), which cannot be read as a document: replace it "
            f"with a regular {'/'.join(KB_SUFFIXES)} file or remove it from {docs_dir}"
        )
    if info.st_size > MAX_KB_FILE_BYTES:
        raise KnowledgeBaseError(
            f"KB file {path} is {info.st_size} bytes, over the limit of {MAX_KB_FILE_BYTES}: "
            "split it into smaller documents"
        )


def _read_regular(path: Path, docs_dir: Path) -> bytes:
    """The bytes of ``path``, opened without blocking and checked to be a regular file *on the open file*
    (a pipe swapped in after the listing is refused, never waited on)."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    with os.fdopen(fd, "rb") as fh:
        _check_regular(path, os.fstat(fd), docs_dir)
        return fh.read(MAX_KB_FILE_BYTES + 1)


def read_documents(docs_dir: Path) -> list[KBDocument]:
    """Read and validate every KB file; raise KnowledgeBaseError (one line) on the first bad one."""
    if not docs_dir.exists():
        raise KnowledgeBaseError(
            f"KB folder {docs_dir} does not exist: create it with .md files, or name a folder that has them "
            "(docs_dir= in Python, --docs on the command line)"
        )
    if not docs_dir.is_dir():
        raise KnowledgeBaseError(
            f"KB folder {docs_dir} is not a folder: name the folder that holds the .md files, not a file"
        )
    try:
        paths = sorted(
            (p for p in docs_dir.rglob("*") if _is_kb_file(p, docs_dir)),
            key=lambda p: p.relative_to(docs_dir).as_posix(),
        )
    except OSError as exc:
        raise KnowledgeBaseError(
            f"KB folder {docs_dir} cannot be listed ({exc.strerror or exc}): fix its permissions"
        ) from None
    if not paths:
        raise KnowledgeBaseError(
            f"KB folder {docs_dir} holds no {'/'.join(KB_SUFFIXES)} documents (README is not indexed): "
            "add at least one document"
        )
    docs = []
    for path in paths:
        _check_confined(path, docs_dir)
        try:
            data = _read_regular(path, docs_dir)
        except PermissionError:
            raise KnowledgeBaseError(
                f"KB file {path} cannot be read (permission denied): make it readable (chmod a+r) "
                f"or remove it from {docs_dir}"
            ) from None
        except OSError as exc:
            raise KnowledgeBaseError(
                f"KB file {path} cannot be read ({exc.strerror or exc}): fix it or remove it from {docs_dir}"
            ) from None
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise KnowledgeBaseError(
                f"KB file {path} is not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start}): "
                f"re-save it as UTF-8 or remove it from {docs_dir}"
            ) from None
        text = text.removeprefix("\ufeff")
        if not text.strip():
            raise KnowledgeBaseError(f"KB file {path} is empty: write its text or remove it from {docs_dir}")
        docs.append(KBDocument(path.relative_to(docs_dir).as_posix(), text, hashlib.sha256(data).hexdigest()))
    return docs


def split_documents(docs: Sequence[KBDocument], chunk_size: int, chunk_overlap: int) -> list[Chunk]:
    """Markdown header sections, then RecursiveCharacterTextSplitter; each chunk starts with its header path."""
    from langchain_text_splitters import MarkdownHeaderTextSplitter, RecursiveCharacterTextSplitter

    by_header = MarkdownHeaderTextSplitter(headers_to_split_on=list(_HEADERS), strip_headers=True)
    by_size = RecursiveCharacterTextSplitter(chunk_size=chunk_size, chunk_overlap=chunk_overlap)
    chunks: list[Chunk] = []
    for doc in docs:
        if doc.source.lower().endswith((".md", ".markdown")):
            sections = by_header.split_text(doc.text)
        else:
            sections = [Document(page_content=doc.text)]
        index = 0
        for sec in sections:
            headers = [sec.metadata[key] for _, key in _HEADERS if sec.metadata.get(key)]
            section = headers[-1] if headers else ""
            prefix = " > ".join(headers)
            for piece in by_size.split_text(sec.page_content):
                text = f"{prefix}\n{piece}" if prefix else piece
                meta = {"source": doc.source, "section": section, "headers": headers, "chunk": index}
                chunks.append(Chunk(doc.source, section, text, meta))
                index += 1
        if index == 0:  # a file of headers only: keep it findable by its headers
            meta = {"source": doc.source, "section": "", "headers": [], "chunk": 0}
            chunks.append(Chunk(doc.source, "", doc.text.strip(), meta))
    return chunks


def docs_hash(docs: Sequence[KBDocument]) -> str:
    h = hashlib.sha256()
    for doc in docs:
        h.update(f"{doc.source}\0{doc.digest}\n".encode())
    return h.hexdigest()
