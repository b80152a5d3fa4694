"""Parallel test sets: one loader, one error line per kind of bad input.

``load_parallel(name, src, tgt, split=None, n=None)`` returns a :class:`ParallelSet` of aligned,
NFC-normalised segments with ids, document ids, the English side (for pivot scoring), a dataset id and
the license. Names:

- ``ntrex128`` — multi-way (English original, any two of its languages), split ``test``;
- ``floresv1`` — ``xx-en`` pairs in either direction, splits ``dev``/``devtest`` (default ``devtest``);
- ``mafand`` — ``en-xx`` pairs in either direction, splits ``dev``/``test`` (default ``test``) and ``train``
  (read by ``aya-lab tune`` only; ``aya-lab data fetch`` does not download it);
- ``workplace`` — the project's own set in ``data/workplace/`` (English source, some references);
- ``files:SRC.txt,REF.txt`` or ``files:eng-swh:SRC.txt,REF.txt`` — any two line-aligned files a user
  brings (as sacrebleu's CLI takes them); such a set has exactly one language pair
  (:func:`plan_datasets`).

External sets are read from ``AYA_LAB_DATA_DIR`` (layout: ``$AYA_LAB_DATA_DIR/README.md``). Files are
checked for equal line counts on every load; ``verify=True`` also checks them against the set's
``SHA256SUMS`` (once per file and modification time). The registry of sets and the file reading
live in :mod:`~.sources`; this module re-exports their public names.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from aya_lab.datasets.sources import (
    SOURCES,
    DatasetError,
    DatasetInfo,
    DatasetNotFoundError,
    MisalignedFilesError,
    Source,
    cached_sha256,
    read_aligned,
    read_lines,
    verify_sums,
)
from aya_lab.languages import Language, UnknownLanguageError, get_language

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
    "plan_datasets",
    "split_files_spec",
]

MAX_CONTEXT_WINDOW = 10
"""The most preceding segments of its document a system is ever shown (evaluator and systems)."""


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


def dataset_names() -> list[str]:
    """Registered dataset names (``files:`` is accepted too but is not listed)."""
    return list(SOURCES)


def _source(name: str) -> Source:
    key = name.strip().lower()
    if key not in SOURCES:
        raise DatasetError(f"unknown dataset {name!r}; known: {', '.join(SOURCES)}, or files:SRC.txt,REF.txt")
    return SOURCES[key]


def _split(source: Source, split: str | None) -> str:
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
    for source in SOURCES.values():
        present = source.present()
        langs = source.languages(source.default_split) if present else []
        out.append(
            DatasetInfo(
                source.name, present, source.location(), langs, list(source.splits), source.license, source.fetchable
            )
        )
    return out


def split_files_spec(spec: str) -> tuple[tuple[str, str] | None, list[Path]]:
    """``files:[SRC-TGT:]SRC.txt,REF.txt`` -> (the pair it names or ``None``, the two paths)."""
    body = spec[len("files:") :]
    pair = None
    head, sep, tail = body.partition(":")
    if sep and "," not in head:
        try:
            pair = parse_pair(head)
            body = tail
        except (DatasetError, UnknownLanguageError):
            pair = None
    parts = [p for p in body.split(",") if p.strip()]
    if len(parts) != 2:
        raise DatasetError(
            f"files: takes two comma-separated paths (files:SRC.txt,REF.txt or files:eng-swh:SRC.txt,REF.txt), got {spec!r}"
        )
    return pair, [Path(p.strip()).expanduser() for p in parts]


def plan_datasets(
    datasets: str | Sequence[str], pairs: Sequence[str | tuple[str, str]] | str | None
) -> list[tuple[str, str, str]]:
    """``(dataset, src, tgt)`` for every dataset and pair an evaluation should load.

    A registered set serves each of ``pairs``. A ``files:`` set has exactly one pair: the one its spec
    names (``files:eng-swh:SRC,REF``), else ``pairs``, which must then be a single pair; anything else
    raises :class:`DatasetError` (a ``files:`` set cannot tell Swahili from Hausa, so it is never
    scored under a pair it was not given). Several file pairs in one run: one spec per pair, each
    naming its languages.
    """
    names = [datasets] if isinstance(datasets, str) else list(datasets)
    if not names:
        raise DatasetError("no dataset given; pass e.g. ntrex128 or files:eng-swh:SRC.txt,REF.txt")
    if isinstance(pairs, str):
        pairs = [p for p in pairs.split(",") if p.strip()]
    pair_list = list(dict.fromkeys(parse_pair(p) for p in pairs or []))
    plan: list[tuple[str, str, str]] = []
    for name in names:
        if not name.startswith("files:"):
            if not pair_list:
                raise DatasetError(f"no language pairs given for {name}; pass e.g. --pairs eng-swh")
            plan += [(name, a, b) for a, b in pair_list]
            continue
        own, _ = split_files_spec(name)
        if own is None and len(pair_list) != 1:
            given = _fmt_pairs(pair_list)
            raise DatasetError(
                f"{name} holds one language pair but --pairs gives {given}; pass one pair, or name "
                "each file pair's languages: files:eng-swh:SRC,REF (repeat --dataset for more)"
            )
        plan.append((name, *(own or pair_list[0])))
    return list(dict.fromkeys(plan))


def _files_dataset(spec: str, src: Language, tgt: Language, n: int | None) -> ParallelSet:
    own, paths = split_files_spec(spec)
    if own is not None and own != (src.code, tgt.code):
        raise DatasetError(f"{spec} is {own[0]}-{own[1]}; it cannot be loaded as {src.code}-{tgt.code}")
    for p in paths:
        if not p.is_file():
            raise DatasetNotFoundError(f"{spec}: no file {str(p)!r}; pass files:SRC.txt,REF.txt of existing files")
    sources, refs = read_aligned(paths)
    digest = hashlib.sha256(b"".join(cached_sha256(p).encode() for p in paths)).hexdigest()[:12]
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


def _set_paths(src: Path, ref: Path, eng: Path | None, doc: Path | None) -> list[Path]:
    """The files one pair reads, each once: source, reference, English side, document ids."""
    paths = [src, ref] + ([eng] if eng and eng not in (src, ref) else [])
    return paths + ([doc] if doc is not None else [])


def select_segments(total: int, n: int | None, doc_ids: Sequence[str] | None, docs: int | None) -> list[int]:
    """Indices of the segments to keep, in file order.

    Without ``n``: all. Without ``docs`` or document ids: the first ``n``. Otherwise ``docs`` documents
    (all of them when the set has fewer) evenly spaced in order of first appearance, and from each its
    first ``ceil(n / docs)`` segments — more from the longer ones where some are shorter, so that ``n``
    are kept whenever the chosen documents hold ``n`` — cut to ``n`` in file order: the first 100
    segments of NTREX-128 are only 7 documents, too few to resample.
    """
    if n is None or n >= total:
        return list(range(total))
    if not docs or doc_ids is None:
        return list(range(n))
    if docs < 1:
        raise DatasetError(f"docs must be a positive number of documents, got {docs}")
    order = list(dict.fromkeys(doc_ids))
    k = min(docs, len(order))
    chosen = {order[round(i * (len(order) - 1) / max(k - 1, 1))] for i in range(k)} if k > 1 else {order[0]}
    per_doc = -(-n // len(chosen))
    rank: list[int] = []  # rank[i]: position of segment i within its document
    seen: dict[str, int] = {}
    for d in doc_ids:
        rank.append(seen.get(d, 0))
        seen[d] = rank[-1] + 1
    in_chosen = [i for i, d in enumerate(doc_ids) if d in chosen]
    keep = [i for i in in_chosen if rank[i] < per_doc][:n]
    # Chosen documents shorter than per_doc leave keep short: top up round-robin from the longer ones.
    extra = sorted((i for i in in_chosen if rank[i] >= per_doc), key=lambda i: (rank[i], i))
    return sorted(keep + extra[: max(0, n - len(keep))])


def _require_pair(source: Source, split: str, src: str, tgt: str) -> None:
    pairs = source.pairs(split)
    if (src, tgt) not in pairs:
        raise DatasetError(f"{source.name} ({split}) has no pair {src}-{tgt}; available: {_fmt_pairs(pairs)}")


def load_parallel(
    name: str,
    src: str,
    tgt: str,
    split: str | None = None,
    n: int | None = None,
    *,
    verify: bool = False,
    docs: int | None = None,
) -> ParallelSet:
    """Load aligned segments of dataset ``name`` for ``src`` -> ``tgt`` (any accepted language spelling).

    ``n`` keeps the first ``n`` segments (deterministic); with ``docs`` and a set that has document ids,
    the ``n`` come from ``docs`` documents spread over the set (:func:`select_segments`). ``verify=True`` checks the files against the
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
    _require_pair(source, split, src_l.code, tgt_l.code)
    src_path, ref_path, eng_path, doc_path = source.files(src_l.code, tgt_l.code, split)
    paths = _set_paths(src_path, ref_path, eng_path, doc_path)
    if verify and source.has_sums:
        verify_sums(folder, paths)
    columns = dict(zip(paths, read_aligned(paths)))
    sources, refs = columns[src_path], columns[ref_path]
    english = columns[eng_path] if eng_path else None
    doc_ids = columns[doc_path] if doc_path else None
    total = len(sources)
    keep = select_segments(total, n, doc_ids, docs)
    sources, refs = [sources[i] for i in keep], [refs[i] for i in keep]
    english = [english[i] for i in keep] if english is not None else None
    doc_ids = [doc_ids[i] for i in keep] if doc_ids is not None else None
    cut = n is not None and n < total
    did = f"{source.name}:{src_l.code}-{tgt_l.code}:{split}" + (f":n={n}" if cut else "")
    did += f":docs={docs}" if cut and docs and doc_ids is not None else ""
    return ParallelSet(
        name=source.name,
        src=src_l.code,
        tgt=tgt_l.code,
        split=split,
        sources=sources,
        references=refs,
        ids=[f"{source.name}:{split}:{i}" for i in keep],
        doc_ids=doc_ids,
        dataset_id=did,
        license=source.license,
        english=english,
        files=[str(p) for p in paths],
    )
