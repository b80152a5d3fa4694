"""Parallel test sets: one registry, one loader, one error line per kind of bad input.

``load_parallel(name, src, tgt, split=None, n=None)`` returns a :class:`ParallelSet` of aligned,
NFC-normalised segments with ids, document ids, the English side (for pivot scoring), a dataset id and
the license. Names:

- ``ntrex128`` — multi-way (English original, any two of its languages), split ``test``;
- ``floresv1`` — ``xx-en`` pairs in either direction, splits ``dev``/``devtest`` (default ``devtest``);
- ``mafand`` — ``en-xx`` pairs in either direction, splits ``dev``/``test`` (default ``test``);
- ``workplace`` — the project's own set in ``data/workplace/`` (English source, some references);
- ``files:SRC.txt,REF.txt`` — any two line-aligned files a user brings (as sacrebleu's CLI takes them).

External sets are read from ``AYA_LAB_DATA_DIR`` (layout: ``$AYA_LAB_DATA_DIR/README.md``). Files are
checked for equal line counts on every load; ``verify=True`` also checks them against the set's
``SHA256SUMS`` (once per file and modification time). Simplification: only the layouts above are
known; a new set is a new :class:`_Source` subclass registered in ``_SOURCES``.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

from aya_lab.languages import Language, UnknownLanguageError, get_language
from aya_lab.paths import data_dir, project_root

__all__ = [
    "MAX_CONTEXT_WINDOW",
    "DatasetError",
    "DatasetNotFoundError",
    "MisalignedFilesError",
    "ParallelSet",
    "DatasetInfo",
    "load_parallel",
    "available_pairs",
    "list_datasets",
    "dataset_names",
    "parse_pair",
    "read_lines",
]

MAX_CONTEXT_WINDOW = 10
"""The most preceding segments of its document a system is ever shown (evaluator and systems)."""


class DatasetError(ValueError):
    """A dataset request that cannot be served (unknown set, pair or split); the message is one line."""


class DatasetNotFoundError(DatasetError):
    """A known dataset whose files are not where they are looked for."""


class MisalignedFilesError(DatasetError):
    """Two files that should be line-aligned have different line counts."""


@dataclass
class ParallelSet:
    """Aligned segments of one dataset, pair and split.

    ``english`` is the English side aligned with ``sources`` (``None`` when the set has none); pivot
    evaluation scores its first hop against it. ``doc_ids`` is ``None`` when the set has no documents.
    """

    name: str
    src: str
    tgt: str
    split: str
    sources: list[str]
    references: list[str]
    ids: list[str]
    doc_ids: list[str] | None
    dataset_id: str
    license: str
    english: list[str] | None = None
    files: list[str] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.sources)

    @property
    def pair(self) -> str:
        return f"{self.src}-{self.tgt}"

    def contexts(self, window: int = MAX_CONTEXT_WINDOW) -> list[list[str]]:
        """For each segment, the up to ``window`` preceding source segments of its document, oldest first."""
        return document_contexts(self.sources, self.doc_ids, window)


def document_contexts(texts: list[str], doc_ids: list[str] | None, window: int = MAX_CONTEXT_WINDOW) -> list[list[str]]:
    """Preceding segments of the same document (oldest first); empty lists when there are no doc ids."""
    if doc_ids is None or window <= 0:
        return [[] for _ in texts]
    out: list[list[str]] = []
    start = 0
    for i in range(len(texts)):
        if i == 0 or doc_ids[i] != doc_ids[i - 1]:
            start = i
        out.append(list(texts[max(start, i - window) : i]))
    return out


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
    """Read a UTF-8 text file as NFC-normalised lines (LF or CRLF; only ``\\n`` ends a line)."""
    text = Path(path).read_text(encoding="utf-8")
    if text.startswith("\ufeff"):
        text = text[1:]
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [unicodedata.normalize("NFC", line.rstrip("\r")) for line in lines]


_SHA_CACHE: dict[tuple[str, float, int], str] = {}


def _sha256(path: Path) -> str:
    st = path.stat()
    key = (str(path.resolve()), st.st_mtime, st.st_size)
    if key not in _SHA_CACHE:
        _SHA_CACHE[key] = hashlib.sha256(path.read_bytes()).hexdigest()
    return _SHA_CACHE[key]


def _verify_sums(folder: Path, paths: list[Path]) -> None:
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
        if _sha256(path) != want:
            raise DatasetError(
                f"{path} does not match its SHA256SUMS entry (corrupt or edited); fetch it again with "
                f"`aya-lab data fetch {folder.name}`"
            )


def _read_aligned(paths: list[Path]) -> list[list[str]]:
    columns = [read_lines(p) for p in paths]
    first = paths[0]
    for path, col in zip(paths[1:], columns[1:]):
        if len(col) != len(columns[0]):
            raise MisalignedFilesError(
                f"misaligned files: {first} has {len(columns[0])} lines but {path} has {len(col)}"
            )
    return columns


# -- sources ---------------------------------------------------------------------------------------


class _Source:
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


class _MultiWay(_Source):
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


class _EnglishPaired(_Source):
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
    splits = ("dev", "test")
    default_split = "test"
    file_rx = r"mafand\.(?P<split>dev|test)\.en-(?P<other>[a-z]{2,3})\.(?P<side>[a-z]{2,3})\.txt"


_SOURCES: dict[str, _Source] = {s.name: s for s in (_Ntrex(), _Flores(), _Mafand(), _Workplace())}


def dataset_names() -> list[str]:
    """Registered dataset names (``files:`` is accepted too but is not listed)."""
    return list(_SOURCES)


def _source(name: str) -> _Source:
    key = name.strip().lower()
    if key not in _SOURCES:
        raise DatasetError(f"unknown dataset {name!r}; known: {', '.join(_SOURCES)}, or files:SRC.txt,REF.txt")
    return _SOURCES[key]


def _split(source: _Source, split: str | None) -> str:
    split = split or source.default_split
    if split not in source.splits:
        raise DatasetError(f"{source.name} has no split {split!r}; available: {', '.join(source.splits)}")
    return split


def parse_pair(pair: str | tuple[str, str]) -> tuple[str, str]:
    """``"eng-swh"``, ``"en-sw"``, ``"eng>zho-CN"`` or ``("eng", "Swahili")`` -> ISO 639-3 codes."""
    if isinstance(pair, (tuple, list)):
        if len(pair) != 2:
            raise DatasetError(f"a language pair has two languages, got {pair!r}")
        return get_language(pair[0]).code, get_language(pair[1]).code
    text = str(pair).strip()
    for sep in (">", ":", "→"):
        if sep in text:
            a, b = text.split(sep, 1)
            return get_language(a).code, get_language(b).code
    positions = [i for i, ch in enumerate(text) if ch == "-"]
    for i in positions:
        try:
            return get_language(text[:i]).code, get_language(text[i + 1 :]).code
        except UnknownLanguageError:
            continue
    if not positions:
        raise DatasetError(f"cannot read language pair {pair!r}; write it as SRC-TGT, e.g. eng-swh")
    # re-raise the error of the most plausible split, naming the bad language
    a, b = text.split("-", 1)
    get_language(a)
    get_language(b)
    raise DatasetError(f"cannot read language pair {pair!r}")  # pragma: no cover


def _fmt_pairs(pairs: list[tuple[str, str]]) -> str:
    return ", ".join(f"{a}-{b}" for a, b in pairs) or "(none)"


def available_pairs(name: str, split: str | None = None) -> list[tuple[str, str]]:
    """The (src, tgt) ISO 639-3 pairs ``name`` can serve (raises when the set is missing)."""
    if name.startswith("files:"):
        raise DatasetError("a files: dataset has whatever pair you give it; pass src and tgt")
    source = _source(name)
    split = _split(source, split)
    source.require()
    return source.pairs(split)


def list_datasets() -> list[DatasetInfo]:
    """Every registered set, present or not, with its languages (ISO 639-3) and splits."""
    out = []
    for source in _SOURCES.values():
        present = source.present()
        langs = source.languages(source.default_split) if present else []
        out.append(
            DatasetInfo(
                source.name, present, source.location(), langs, list(source.splits), source.license, source.fetchable
            )
        )
    return out


def _files_dataset(spec: str, src: Language, tgt: Language, n: int | None) -> ParallelSet:
    body = spec[len("files:") :]
    parts = [p for p in body.split(",") if p.strip()]
    if len(parts) != 2:
        raise DatasetError(f"files: takes two comma-separated paths (files:SRC.txt,REF.txt), got {spec!r}")
    paths = [Path(p.strip()).expanduser() for p in parts]
    for p in paths:
        if not p.is_file():
            raise DatasetNotFoundError(f"file not found: {p}")
    sources, refs = _read_aligned(paths)
    digest = hashlib.sha256(b"".join(_sha256(p).encode() for p in paths)).hexdigest()[:12]
    if n is not None:
        sources, refs = sources[:n], refs[:n]
    name = f"files:{paths[0].name},{paths[1].name}"
    english = sources if src.code == "eng" else refs if tgt.code == "eng" else None
    did = f"{name}:{src.code}-{tgt.code}:sha={digest}" + (f":n={n}" if n is not None else "")
    return ParallelSet(
        name="files",
        src=src.code,
        tgt=tgt.code,
        split="-",
        sources=sources,
        references=refs,
        ids=[f"files:{i}" for i in range(len(sources))],
        doc_ids=None,
        dataset_id=did,
        license="unknown (user-supplied files)",
        english=english,
        files=[str(p) for p in paths],
    )


def load_parallel(
    name: str,
    src: str,
    tgt: str,
    split: str | None = None,
    n: int | None = None,
    *,
    verify: bool = False,
) -> ParallelSet:
    """Load aligned segments of dataset ``name`` for ``src`` -> ``tgt`` (any accepted language spelling).

    ``n`` keeps the first ``n`` segments (deterministic). ``verify=True`` checks the files against the
    set's ``SHA256SUMS`` (cached per file). Raises :class:`DatasetError` subclasses with one-line
    messages: unknown set/split, missing set (where it was looked for and the fetch command), a pair
    the set lacks (the available pairs), misaligned files (both files and their line counts).
    """
    src_l, tgt_l = get_language(src), get_language(tgt)
    if src_l.code == tgt_l.code:
        raise DatasetError(f"source and target are both {src_l}; pick two different languages")
    if n is not None and n <= 0:
        raise DatasetError(f"n must be a positive number of segments, got {n}")
    if name.startswith("files:"):
        return _files_dataset(name, src_l, tgt_l, n)
    source = _source(name)
    split = _split(source, split)
    folder = source.require()
    pairs = source.pairs(split)
    if (src_l.code, tgt_l.code) not in pairs:
        raise DatasetError(
            f"{source.name} ({split}) has no pair {src_l.code}-{tgt_l.code}; available: {_fmt_pairs(pairs)}"
        )
    src_path, ref_path, eng_path, doc_path = source.files(src_l.code, tgt_l.code, split)
    paths = [src_path, ref_path] + ([eng_path] if eng_path and eng_path not in (src_path, ref_path) else [])
    if doc_path is not None:
        paths.append(doc_path)
    if verify and source.has_sums:
        _verify_sums(folder, paths)
    columns = dict(zip(paths, _read_aligned(paths)))
    sources, refs = columns[src_path], columns[ref_path]
    english = columns[eng_path] if eng_path else None
    doc_ids = columns[doc_path] if doc_path else None
    total = len(sources)
    if n is not None:
        sources, refs = sources[:n], refs[:n]
        english = english[:n] if english is not None else None
        doc_ids = doc_ids[:n] if doc_ids is not None else None
    did = f"{source.name}:{src_l.code}-{tgt_l.code}:{split}" + (f":n={n}" if n is not None and n < total else "")
    return ParallelSet(
        name=source.name,
        src=src_l.code,
        tgt=tgt_l.code,
        split=split,
        sources=sources,
        references=refs,
        ids=[f"{source.name}:{split}:{i}" for i in range(len(sources))],
        doc_ids=doc_ids,
        dataset_id=did,
        license=source.license,
        english=english,
        files=[str(p) for p in paths],
    )
