"""Few-shot examples from a test set's own held-apart data: the same number of examples for every language.

A completion prompt with a fixed pool gives examples only to the languages the pool has, so a
comparison across languages mixes few-shot and zero-shot prompts. :func:`held_apart_examples` draws
``k`` examples for one pair from the set itself, never from what is scored:

- from the set's ``dev`` split where it has one besides the scored split (FLORES v1 ``dev`` beside
  ``devtest``; MAFAND ``dev`` beside ``test``);
- otherwise (NTREX-128 has only ``test``) from the documents the scored selection does not use
  (``n`` and ``docs`` as given to the evaluator); a set with neither is refused.

Candidates are segments whose English side has ``min_words``..``max_words`` words (short examples keep
the prompt small); ``k`` are drawn with a seeded generator, each from a different document where the
set has documents. The records are read at run time from ``AYA_LAB_DATA_DIR`` and never written into
the repository (the sets' licences). :func:`as_records` turns them into inline records for
:meth:`aya_lab.prompts.PromptFile.with_examples`, keyed by ISO 639-3 code like ``data/fewshot`` pools.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass

from aya_lab.datasets import DatasetError, list_datasets, load_parallel
from aya_lab.datasets.parallel import ParallelSet

__all__ = ["HeldApartExample", "as_records", "held_apart_examples"]


@dataclass(frozen=True)
class HeldApartExample:
    """One example pair and where it came from (``doc_id`` empty where the set has no documents)."""

    dataset: str
    split: str
    doc_id: str
    segment: str
    eng: str
    other_code: str
    other: str


def _candidates(dataset: str, other: str, n: int | None, docs: int | None) -> tuple[str, ParallelSet, set[str]]:
    """The split to draw from, its segments (English source) and the documents to avoid."""
    splits = next((d.splits for d in list_datasets() if d.name == dataset), None)
    if splits is None:
        raise DatasetError(f"unknown dataset {dataset!r}; see `aya-lab data list`")
    scored = load_parallel(dataset, "eng", other, n=n, docs=docs)
    if "dev" in splits and scored.split != "dev":
        return "dev", load_parallel(dataset, "eng", other, split="dev"), set()
    if scored.doc_ids is None:
        raise DatasetError(
            f"{dataset} has no dev split and no document ids, so examples cannot be kept apart from the scored "
            "segments; use a set with a dev split or pass examples from elsewhere"
        )
    whole = load_parallel(dataset, "eng", other, split=scored.split)
    return scored.split, whole, set(scored.doc_ids)


def held_apart_examples(
    dataset: str,
    other: str,
    *,
    k: int = 3,
    n: int | None = None,
    docs: int | None = None,
    seed: int = 0,
    min_words: int = 6,
    max_words: int = 20,
) -> list[HeldApartExample]:
    """``k`` examples of English and ``other`` from ``dataset``, disjoint from the segments an evaluation
    with ``n``/``docs`` scores (see the module docstring); raises :class:`DatasetError` when fewer than
    ``k`` candidates qualify."""
    split, data, avoid = _candidates(dataset, other, n, docs)
    doc_ids = data.doc_ids or [""] * len(data)
    rows = [
        i
        for i, (eng, tgt) in enumerate(zip(data.sources, data.references))
        if min_words <= len(eng.split()) <= max_words and tgt.strip() and doc_ids[i] not in avoid
    ]
    rng = random.Random(f"{dataset}:{data.tgt}:{seed}")
    rng.shuffle(rows)
    chosen: list[int] = []
    used: set[str] = set()  # documents that gave an example already
    for i in rows:
        if not doc_ids[i] or doc_ids[i] not in used:
            chosen.append(i)
            used.add(doc_ids[i])
        if len(chosen) == k:
            break
    if len(chosen) < k:
        raise DatasetError(
            f"{dataset} {split}: only {len(chosen)} of {k} held-apart examples for eng-{data.tgt} have "
            f"{min_words}-{max_words} English words; lower k or widen the word range"
        )
    return [
        HeldApartExample(dataset, split, doc_ids[i], data.ids[i], data.sources[i], data.tgt, data.references[i])
        for i in chosen
    ]


def as_records(examples: Iterable[HeldApartExample]) -> list[dict[str, str]]:
    """Inline few-shot records (``{"eng": ..., CODE: ...}``) for :meth:`PromptFile.with_examples`."""
    return [{"eng": e.eng, e.other_code: e.other} for e in examples]
