"""``docs=``: the first n segments of a set are few documents; spread the n over many instead."""

import pytest

from aya_lab.datasets import load_parallel
from aya_lab.datasets.parallel import DatasetError, select_segments

DOCS = [d for d in "aaaabbbbccccddddeeee"]  # 5 documents of 4 segments


def test_first_n_without_docs_or_without_document_ids():
    assert select_segments(20, 6, DOCS, None) == [0, 1, 2, 3, 4, 5]
    assert select_segments(20, 6, None, 3) == [0, 1, 2, 3, 4, 5]
    assert select_segments(20, None, DOCS, 3) == list(range(20))


def test_docs_spreads_the_segments_over_evenly_spaced_documents():
    keep = select_segments(20, 6, DOCS, 3)
    assert [DOCS[i] for i in keep] == ["a", "a", "c", "c", "e", "e"]  # first, middle and last document
    assert keep == sorted(keep)
    assert len({DOCS[i] for i in select_segments(20, 10, DOCS, 99)}) == 5  # more docs asked than exist: all


def test_bad_docs_is_refused():
    with pytest.raises(DatasetError, match="docs must be a positive"):
        select_segments(20, 6, DOCS, -1)


def test_load_parallel_keeps_ids_of_the_chosen_segments():
    first = load_parallel("workplace", "eng", "fra", n=12)
    spread = load_parallel("workplace", "eng", "fra", n=12, docs=4)
    assert len(set(first.doc_ids)) < len(set(spread.doc_ids)) == 4
    assert spread.dataset_id.endswith(":n=12:docs=4")
    full = load_parallel("workplace", "eng", "fra")
    for seg_id, src, doc in zip(spread.ids, spread.sources, spread.doc_ids, strict=True):
        i = int(seg_id.rsplit(":", 1)[1])
        assert full.sources[i] == src and full.doc_ids[i] == doc


def test_short_documents_are_topped_up_from_the_longer_ones():
    uneven = ["a"] * 2 + ["b"] * 6 + ["c"] * 6  # the first chosen document is shorter than n / docs
    keep = select_segments(len(uneven), 9, uneven, 3)
    assert len(keep) == 9 and keep == sorted(keep)
    assert [uneven[i] for i in keep].count("a") == 2  # all of the short one, the rest from the others
    assert select_segments(len(uneven), 13, uneven, 3) == list(range(13))  # n fits exactly: no more asked
    assert len(select_segments(len(uneven), 20, uneven, 3)) == 14  # fewer than n in the set: all of them
