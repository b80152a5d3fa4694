"""The scope read from labelled questions: the nearest pool questions, all in scope."""

import json

import numpy as np
import pytest

from aya_lab.errors import InputError
from aya_lab.rag.scope import (
    NEIGHBOURS,
    POOL_FILES,
    VOTE_WEIGHT,
    ScopePool,
    default_pool_paths,
    read_gold_sections,
    read_labelled_questions,
)
from aya_lab.rag.sections import Section, SectionMatch


class _Encoder:
    """Unit vectors at fixed angles: a question's angle is the number it starts with."""

    def encode(self, texts, *, passages=False, recorded=False):
        angles = np.radians([float(t.split()[0]) for t in texts])
        return np.stack([np.cos(angles), np.sin(angles)], axis=1).astype(np.float32)


POOL = [("0 a", True), ("10 b", True), ("20 c", True), ("90 d", False), ("100 e", True)]


def test_in_scope_only_when_every_nearest_labelled_question_is():
    pool = ScopePool(POOL, _Encoder(), k=3)
    assert [q for q, _, _ in pool.neighbours("5 q")] == ["0 a", "10 b", "20 c"] and pool.covers("5 q")
    assert not pool.covers("60 q")  # 90 is among its three nearest
    assert pool.neighbours("0 a")[0] == ("0 a", True, pytest.approx(1.0))  # an identical question counts too
    with pytest.raises(InputError, match="cannot look at 6 neighbours"):
        ScopePool(POOL, _Encoder(), k=6)
    with pytest.raises(ValueError, match="non-empty question"):
        pool.covers("  ")


def test_labelled_questions_are_read_strictly(tmp_path):
    good, bad = tmp_path / "good.jsonl", tmp_path / "bad.jsonl"
    good.write_text(json.dumps({"question": "q", "in_scope": False, "lang": "eng"}) + "\n\n")
    bad.write_text(json.dumps({"question": "q", "in_scope": "yes"}) + "\n")
    assert read_labelled_questions([good]) == [("q", False)]
    with pytest.raises(InputError, match=r"bad.jsonl:1: a labelled question needs a text 'question' and 'in_scope'"):
        read_labelled_questions([good, bad])
    with pytest.raises(InputError, match="missing.jsonl: cannot read the labelled questions"):
        read_labelled_questions([tmp_path / "missing.jsonl"])


def test_the_default_pool_is_the_development_sets_and_not_the_test_set():
    questions = read_labelled_questions(default_pool_paths())
    assert len(questions) == 960 and sum(not s for _, s in questions) == 192
    assert "questions_unseen11.jsonl" not in POOL_FILES  # the test set of this pool
    assert NEIGHBOURS == 5
    gold = read_gold_sections(default_pool_paths())  # aligned with the questions: every in-scope one has a section
    assert len(gold) == len(questions) and all(bool(g) == s for g, (_, s) in zip(gold, questions))


def test_labels_belong_to_the_handbook_they_were_written_for():
    from aya_lab.paths import kb_dir
    from aya_lab.rag.documents import read_documents
    from aya_lab.rag.sections import read_sections, sections_key

    handbook = read_sections(read_documents(kb_dir()))
    pool = ScopePool(POOL, _Encoder(), k=3, handbook=sections_key(handbook))
    assert pool.labels(sections_key(handbook)) and not pool.labels(sections_key(handbook[:-1]))  # one section less
    assert ScopePool(POOL, _Encoder(), k=3).labels(sections_key(handbook[:1]))  # a pool without a handbook: any


HOTELS, FLIGHTS = Section("travel.md", "Travel", "Hotels", ("h",)), Section("travel.md", "Travel", "Flights", ("f",))
GOLD = [frozenset({("travel.md", "Flights")}), frozenset({("travel.md", "Flights")}), frozenset(),
        frozenset(), frozenset({("travel.md", "Hotels")})]  # fmt: skip


def test_the_nearest_in_scope_questions_vote_for_their_gold_sections():
    pool = ScopePool(POOL, _Encoder(), k=3, gold=GOLD)
    # nearest in scope to 5: 0 a, 10 b (Flights), 20 c (no gold); 90 d is out of scope and never votes
    votes = pool.votes("5 q", voters=3)
    assert votes == {("travel.md", "Flights"): pytest.approx((np.cos(np.radians(5)) * 2) / 3)}
    assert pool.votes("5 q", voters=3, cosine=False) == {("travel.md", "Flights"): pytest.approx(2 / 3)}
    assert pool.votes("95 q", voters=1) == {("travel.md", "Hotels"): pytest.approx(np.cos(np.radians(5)))}
    # a vote turns a near tie; the margin stays the index's
    matches = [SectionMatch(HOTELS, 0.800, 0.05), SectionMatch(FLIGHTS, 0.795, 0.05)]
    reranked = pool.rerank(matches, "5 q")
    assert [m.section.heading for m in reranked] == ["Flights", "Hotels"] and reranked[0].margin == 0.05
    assert reranked[0].score == pytest.approx(0.795 + VOTE_WEIGHT * votes[("travel.md", "Flights")])
    far = [SectionMatch(HOTELS, 0.90, 0.05), SectionMatch(FLIGHTS, 0.80, 0.05)]  # too far apart for a vote to turn
    assert [m.section.heading for m in pool.rerank(far, "5 q")] == ["Hotels", "Flights"]
    with pytest.raises(InputError, match="got 2 gold section sets"):
        ScopePool(POOL, _Encoder(), k=3, gold=GOLD[:2])


def test_gold_sections_are_read_per_line(tmp_path):
    path = tmp_path / "q.jsonl"
    lines = [{"question": "a", "in_scope": True, "gold": [{"doc": "d.md", "section": "S"}]},
             {"question": "b", "in_scope": False, "gold": []}, {"question": "c", "in_scope": False}]  # fmt: skip
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n\n", encoding="utf-8")
    assert read_gold_sections([path]) == [frozenset({("d.md", "S")}), frozenset(), frozenset()]
