"""The registry of parallel test sets: where each set's files are, which pairs and splits it has.

One :class:`Source` subclass per known layout, registered in ``SOURCES``; :mod:`~.parallel` loads
from them. Also here: reading text files (UTF-8, NFC, one-line errors naming the file), checksum
verification and the errors every dataset request can raise. Simplification: only the layouts of
ntrex128, floresv1, mafand and the project's workplace set are known; a new set is a new subclass.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path

from aya_lab.errors import AyaLabError
from aya_lab.languages import UnknownLanguageError, get_language
from aya_lab.paths import data_dir, project_root

__all__ = [
    "DatasetError",
    "DatasetNotFoundError",
    "MisalignedFilesError",
    "DatasetInfo",
    "read_lines",
    "read_aligned",
    "cached_sha256",
    "verify_sums",
    "Source",
    "SOURCES",
]


class DatasetError(AyaLabError, ValueError):
    """A dataset request that cannot be served (unknown set, pair or split); the message is one line."""


class DatasetNotFoundError(DatasetError):
    """A known dataset whose files are not where they are looked for."""


class MisalignedFilesError(DatasetError):
    """Two files that should be line-aligned have different line counts."""


@dataclass
class DatasetInfo:
    """What ``aya-lab data list`` shows for one set."""

    name: str
    present: bool
    location: str
    languages: list[str]
    splits: list[str]
    license: str
    fetchable: bool


# -- reading files ---------------------------------------------------------------------------------


def read_lines(path: Path) -> list[str]:
    """Read a UTF-8 text file as NFC-normalised lines (LF or CRLF; only ``\\n`` ends a line).

    Raises :class:`DatasetError` (one line naming the file) when it cannot be read, is not UTF-8 or has
    no lines.
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise DatasetError(
            f"{path}: not UTF-8 text (byte 0x{exc.object[exc.start]:02x} at offset {exc.start}); "
            "re-save it as UTF-8, e.g. `iconv -f LATIN1 -t UTF-8`"
        ) from None
    except (PermissionError, IsADirectoryError) as exc:
        raise DatasetError(f"{path}: cannot be read ({exc.strerror or exc}); pass a readable text file") from None
    if text.startswith("\ufeff"):
        text = text[1:]
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if not lines:
        raise DatasetError(f"{path}: the file is empty; it needs one segment per line")
    return [unicodedata.normalize("NFC", line.rstrip("\r")) for line in lines]


_SHA_CACHE: dict[tuple[str, float, int], str] = {}


def cached_sha256(path: Path) -> str:
    """The SHA-256 hex digest of ``path``, computed once per (path, mtime, size)."""
    st = path.stat()
    key = (str(path.resolve()), st.st_mtime, st.st_size)
    if key not in _SHA_CACHE:
        _SHA_CACHE[key] = hashlib.sha256(path.read_bytes()).hexdigest()
    return _SHA_CACHE[key]


def verify_sums(folder: Path, paths: list[Path]) -> None:
    """Check each of ``paths`` against ``folder/SHA256SUMS``; a mismatch or no sums file is a :class:`DatasetError`."""
    sums_file = folder / "SHA256SUMS"
    if not sums_file.exists():
        raise DatasetError(f"cannot verify {folder}: no SHA256SUMS file there")
    expected = {}
    for line in sums_file.read_text(encoding="utf-8").splitlines():
        if line.strip():
            digest, name = line.split(maxsplit=1)
            expected[name.strip().lstrip("*")] = digest
    for path in paths:
        want = expected.get(path.name)
        if want is None:  # e.g. DOCUMENT_IDS.tsv: not every side file is listed
            continue
        if cached_sha256(path) != want:
            raise DatasetError(
                f"{path} does not match its SHA256SUMS entry (corrupt or edited); fetch it again with "
                f"`aya-lab data fetch {folder.name}`"
            )


def read_aligned(paths: list[Path]) -> list[list[str]]:
    """The lines of each file (:func:`read_lines`); files of different lengths are a :class:`MisalignedFilesError`."""
    columns = [read_lines(p) for p in paths]
    first = paths[0]
    for path, col in zip(paths[1:], columns[1:]):
        if len(col) != len(columns[0]):
            raise MisalignedFilesError(
                f"misaligned files: {first} has {len(columns[0])} lines but {path} has {len(col)}"
            )
    return columns


# -- sources ---------------------------------------------------------------------------------------


class Source:
    """One registered dataset: where its files are and which pairs/splits it has."""

    name: str = ""
    license: str = ""
    splits: tuple[str, ...] = ("test",)
    default_split: str = "test"
    fetchable: bool = True
    has_sums: bool = True

    def folder(self) -> Path:
        root = data_dir()
        if root is None:
            raise DatasetNotFoundError(
                f"dataset {self.name!r} not found: AYA_LAB_DATA_DIR is not set; point it at the data "
                f"folder or run `aya-lab data fetch {self.name} --dest DIR`"
            )
        return root / self.name

    def location(self) -> str:
        try:
            return str(self.folder())
        except DatasetNotFoundError:
            return "$AYA_LAB_DATA_DIR (unset)/" + self.name

    def present(self) -> bool:
        try:
            return bool(self.languages(self.default_split))
        except DatasetNotFoundError:
            return False

    def require(self) -> Path:
        folder = self.folder()
        if not folder.is_dir() or not self.languages(self.default_split):
            raise DatasetNotFoundError(
                f"dataset {self.name!r} not found: looked in {folder}; download it with "
                f"`aya-lab data fetch {self.name}`"
            )
        return folder

    def languages(self, split: str) -> list[str]:  # pragma: no cover - abstract
        raise NotImplementedError

    def pairs(self, split: str) -> list[tuple[str, str]]:  # pragma: no cover - abstract
        raise NotImplementedError

    def files(self, src: str, tgt: str, split: str) -> tuple[Path, Path, Path | None, Path | None]:
        """(source file, reference file, English file or None, doc-id file or None)."""
        raise NotImplementedError  # pragma: no cover


def _codes_in(folder: Path, pattern: str) -> dict[str, str]:
    """ISO 639-3 code -> the file's own code, for files matching ``pattern`` (one group: the code)."""
    out: dict[str, str] = {}
    if not folder.is_dir():
        return out
    rx = re.compile(pattern)
    for path in sorted(folder.iterdir()):
        m = rx.fullmatch(path.name)
        if not m:
            continue
        try:
            out[get_language(m.group(1)).code] = m.group(1)
        except UnknownLanguageError:
            continue
    return out


class _MultiWay(Source):
    """A multi-way set: ``<prefix>.<code>.txt`` per language, English original, optional doc ids."""

    prefix = ""
    doc_file: str | None = None

    def _root(self) -> Path:
        return self.folder()

    def _codes(self) -> dict[str, str]:
        return _codes_in(self._root(), re.escape(self.prefix) + r"\.([A-Za-z]{2,3}(?:-[A-Za-z]+)?)\.txt")

    def languages(self, split: str) -> list[str]:
        return sorted(self._codes())

    def pairs(self, split: str) -> list[tuple[str, str]]:
        langs = self.languages(split)
        if "eng" not in langs:
            return []
        return [(a, b) for a in langs for b in langs if a != b]

    def files(self, src, tgt, split):
        codes = self._codes()
        root = self._root()
        doc = root / self.doc_file if self.doc_file and (root / self.doc_file).exists() else None
        eng = root / f"{self.prefix}.{codes['eng']}.txt" if "eng" in codes else None
        return (root / f"{self.prefix}.{codes[src]}.txt", root / f"{self.prefix}.{codes[tgt]}.txt", eng, doc)


class _Ntrex(_MultiWay):
    name = "ntrex128"
    license = "CC-BY-SA-4.0"
    prefix = "ntrex128"
    doc_file = "DOCUMENT_IDS.tsv"


class _Workplace(_MultiWay):
    name = "workplace"
    license = "see data/workplace/README.md (written by the aya_lab authors)"
    prefix = "workplace"
    doc_file = "workplace.doc_id.txt"
    fetchable = False
    has_sums = False

    def folder(self) -> Path:
        return project_root() / "data" / "workplace"

    def require(self) -> Path:
        folder = self.folder()
        if not (folder / "workplace.eng.txt").exists():
            raise DatasetNotFoundError(
                f"dataset 'workplace' not found: looked for {folder / 'workplace.eng.txt'} (it ships "
                "with the aya_lab repository, not with `aya-lab data fetch`)"
            )
        return folder


class _EnglishPaired(Source):
    """Pairwise sets with English on one side; each pair has its own English file."""

    file_rx = ""  # groups: split, pair code as in the file names, file language

    def _scan(self) -> dict[tuple[str, str], dict[str, Path]]:
        """(split, ISO code of the non-English language) -> {'xx': path, 'eng': path, 'doc': path}."""
        folder = self.folder()
        out: dict[tuple[str, str], dict[str, Path]] = {}
        if not folder.is_dir():
            return out
        rx = re.compile(self.file_rx)
        for path in sorted(folder.iterdir()):
            m = rx.fullmatch(path.name)
            if not m:
                continue
            split, other, side = m.group("split"), m.group("other"), m.group("side")
            try:
                code = get_language(other).code
            except UnknownLanguageError:
                continue
            slot = out.setdefault((split, code), {})
            if side in ("en", "eng"):
                slot["eng"] = path
            elif side == "doc_id":
                slot["doc"] = path
            else:
                slot["xx"] = path
        return {k: v for k, v in out.items() if "xx" in v and "eng" in v}

    def languages(self, split: str) -> list[str]:
        codes = sorted({code for (s, code) in self._scan() if s == split})
        return ["eng", *codes] if codes else []

    def pairs(self, split: str) -> list[tuple[str, str]]:
        out = []
        for s, code in sorted(self._scan()):
            if s == split:
                out += [("eng", code), (code, "eng")]
        return out

    def files(self, src, tgt, split):
        other = tgt if src == "eng" else src
        slot = self._scan()[(split, other)]
        side = {"eng": slot["eng"], other: slot["xx"]}
        return side[src], side[tgt], slot["eng"], slot.get("doc")


class _Flores(_EnglishPaired):
    name = "floresv1"
    license = "CC-BY-SA-4.0"
    splits = ("dev", "devtest")
    default_split = "devtest"
    file_rx = r"floresv1\.(?P<split>dev|devtest)\.(?P<other>[a-z]{2,3})-en\.(?P<side>[a-z]{2,3}|doc_id)\.txt"


class _Mafand(_EnglishPaired):
    name = "mafand"
    license = "CC-BY-NC-4.0"
    splits = ("dev", "test", "train")  # train: for fine-tuning (aya-lab tune) and example pools, never scored
    default_split = "test"
    file_rx = r"mafand\.(?P<split>dev|test|train)\.en-(?P<other>[a-z]{2,3})\.(?P<side>[a-z]{2,3})\.txt"


SOURCES: dict[str, Source] = {s.name: s for s in (_Ntrex(), _Flores(), _Mafand(), _Workplace())}
