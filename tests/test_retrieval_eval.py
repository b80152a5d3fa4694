"""Tests for aya_lab.eval.retrieval: hit@k, recall@k, MRR, the "I don't know" rate, bootstrap CIs."""

from __future__ import annotations

import hashlib
import math
import re
from dataclasses import dataclass

import numpy as np
import pytest
from langchain_core.embeddings import Embeddings

from aya_lab.eval.retrieval import (
    COLUMNS,
    bootstrap_ci,
    evaluate_retrieval,
    retrieval_by_question,
    retrieval_summary,
)
from aya_lab.rag import KnowledgeBase, Retrieved


class ScriptedKB:
    """Answers each question with a fixed ranking of (source, score) pairs."""

    min_score = 0.5
    signature = "kb:scripted"

    def __init__(self, rankings: dict[str, list[tuple[str, float]]]) -> None:
        self.rankings = rankings
        self.asked: list[tuple[str, int]] = []

    def __len__(self) -> int:
        return 10

    def retrieve(self, query: str, k: int = 4) -> list[Retrieved]:
        self.asked.append((query, k))
        return [Retrieved(f"chunk of {s}", s, "", score) for s, score in self.rankings[query][:k]]


@dataclass
class Q:
    question: str
    gold_docs: list[str]
    in_scope: bool
    id: str | None = None


RANKINGS = {
    # gold first
    "a": [("travel.md", 0.9), ("travel.md", 0.8), ("leave.md", 0.4)],
    # gold second distinct source (the repeated chunk of it.md does not count twice)
    "b": [("it.md", 0.7), ("it.md", 0.6), ("leave.md", 0.55), ("travel.md", 0.3)],
    # two gold docs, one in the top 3, the other at rank 4; best score under the threshold
    "c": [("security.md", 0.45), ("it.md", 0.4), ("leave.md", 0.3), ("travel.md", 0.2)],
    # out of scope, refused
    "d": [("travel.md", 0.2)],
    # out of scope, not refused
    "e": [("leave.md", 0.6)],
}
QUESTIONS = [
    {"id": "qa", "question": "a", "gold_docs": ["travel.md"], "in_scope": True},
    Q("b", ["leave.md"], True, id="qb"),
    {"question": "c", "gold_docs": ["security.md", "travel.md"], "in_scope": True},
    {"id": "qd", "question": "d", "gold_docs": [], "in_scope": False},
    Q("e", [], False, id="qe"),
]


def value(df, metric, qid=None, in_scope=None):
    if qid is None:
        sel = df[(df.level == "aggregate") & (df.metric == metric) & (df.in_scope == in_scope)]
    else:
        sel = df[(df.level == "question") & (df.metric == metric) & (df.id == qid)]
    assert len(sel) == 1, (metric, qid, in_scope)
    return sel.iloc[0]


def test_per_question_metrics_are_exact():
    kb = ScriptedKB(RANKINGS)
    df = evaluate_retrieval(kb, QUESTIONS, ks=(1, 3))
    assert list(df.columns) == COLUMNS
    assert {k for _, k in kb.asked} == {10}  # the whole ranking by default
    assert value(df, "recall@1", "qa").value == 1.0 and value(df, "mrr", "qa").value == 1.0
    assert value(df, "recall@1", "qb").value == 0.0 and value(df, "recall@3", "qb").value == 1.0
    assert value(df, "mrr", "qb").value == 0.5
    # two gold documents, the first source is one of them: recall@1 = 1 / min(1, 2), recall@3 = 1 / min(3, 2)
    assert value(df, "recall@1", "q002").value == 1.0  # no id: numbered by position
    assert value(df, "recall@3", "q002").value == 0.5 and value(df, "mrr", "q002").value == 1.0
    assert value(df, "hit@1", "qa").value == 1.0 and value(df, "hit@1", "qb").value == 0.0
    assert value(df, "hit@3", "qb").value == 1.0 and value(df, "hit@1", "q002").value == 1.0
    assert value(df, "answered", "q002").value == 0.0 and value(df, "answered", "qa").value == 1.0
    assert value(df, "idk", "qd").value == 1.0 and value(df, "idk", "qe").value == 0.0
    assert value(df, "top_score", "qe").value == 0.6
    assert value(df, "recall@1", "qb").retrieved == "it.md,leave.md,travel.md"
    assert not ((df.level == "question") & (df.metric == "idk") & df.in_scope).any()
    assert set(df.kb_signature) == {"kb:scripted"} and set(df.min_score) == {0.5}


def test_aggregates_with_seeded_bootstrap_ci():
    df = evaluate_retrieval(ScriptedKB(RANKINGS), QUESTIONS, ks=(1, 3))
    mrr = value(df, "mrr", in_scope=True)
    assert mrr.value == pytest.approx((1 + 0.5 + 1) / 3) and mrr.n == 3
    assert mrr.ci_low <= mrr.value <= mrr.ci_high <= 1.0
    assert value(df, "recall@1", in_scope=True).value == pytest.approx((1 + 0 + 1) / 3)
    assert value(df, "recall@3", in_scope=True).value == pytest.approx((1 + 1 + 0.5) / 3)
    assert value(df, "hit@3", in_scope=True).value == 1.0
    assert value(df, "idk", in_scope=False).value == 0.5
    assert value(df, "answered", in_scope=True).value == pytest.approx(2 / 3)
    assert value(df, "top_score", in_scope=False).n == 2
    again = evaluate_retrieval(ScriptedKB(RANKINGS), QUESTIONS, ks=(1, 3))
    assert again.equals(df)  # seeded: the same CIs every run
    assert df.attrs["n_bootstrap"] == 1000 and df.attrs["min_score"] == 0.5
    table = retrieval_summary(df)
    assert table.loc[("out-of-scope", "idk"), "value"] == 0.5
    assert table.loc[("in-scope", "recall@3"), "n"] == 3


def test_hit_and_recall_normalised_by_the_places_gold_can_fill():
    """hit@k: any gold document in the first k distinct sources; recall@k: |gold ∩ top k| / min(k, |gold|)."""
    rankings = {
        # three gold documents (it, leave, travel); a non-gold source at rank 2, a repeated chunk of it.md
        "three": [("it.md", 0.9), ("it.md", 0.85), ("security.md", 0.8), ("leave.md", 0.7), ("travel.md", 0.6)],
        # the same three gold documents, none first
        "late": [("security.md", 0.9), ("travel.md", 0.8), ("hr.md", 0.7), ("it.md", 0.6), ("leave.md", 0.5)],
    }
    gold = ["it.md", "leave.md", "travel.md"]
    questions = [Q("three", gold, True, id="q3"), Q("late", gold, True, id="ql")]
    df = evaluate_retrieval(ScriptedKB(rankings), questions, ks=(1, 2, 3, 5))
    got = {
        (m, q): value(df, m, q).value
        for m in ("hit@1", "hit@2", "recall@1", "recall@2", "recall@3", "recall@5")
        for q in ("q3", "ql")
    }
    assert got[("recall@1", "q3")] == 1.0  # one place, filled by gold: not 1/3
    assert got[("recall@2", "q3")] == 0.5  # it.md, security.md: 1 of 2 places
    assert got[("recall@3", "q3")] == pytest.approx(2 / 3) and got[("recall@5", "q3")] == 1.0
    assert got[("hit@1", "q3")] == got[("hit@2", "q3")] == 1.0
    assert got[("hit@1", "ql")] == 0.0 and got[("recall@1", "ql")] == 0.0  # recall@1 equals hit@1
    assert got[("hit@2", "ql")] == 1.0 and got[("recall@2", "ql")] == 0.5
    assert got[("recall@3", "ql")] == pytest.approx(1 / 3) and got[("recall@5", "ql")] == 1.0
    assert value(df, "mrr", "q3").value == 1.0 and value(df, "mrr", "ql").value == 0.5
    assert not (df.metric == "recall_raw@1").any()  # the un-normalised share is no longer reported
    assert value(df, "recall@1", in_scope=True).value == value(df, "hit@1", in_scope=True).value == 0.5


def test_by_question_is_one_wide_row_per_question_in_input_order():
    df = evaluate_retrieval(ScriptedKB(RANKINGS), QUESTIONS, ks=(1, 3))
    wide = retrieval_by_question(df)
    assert list(wide.index) == ["qa", "qb", "q002", "qd", "qe"]
    assert wide.loc["qb", "hit@1"] == 0.0 and wide.loc["qb", "hit@3"] == 1.0 and wide.loc["qb", "mrr"] == 0.5
    assert wide.loc["qb", "retrieved"] == "it.md,leave.md,travel.md" and wide.loc["qb", "question"] == "b"
    assert wide.loc["qe", "idk"] == 0.0 and math.isnan(wide.loc["qe", "hit@1"]) and math.isnan(wide.loc["qa", "idk"])
    assert [bool(x) for x in wide["in_scope"]] == [True, True, True, False, False]
    with pytest.raises(ValueError, match="no per-question rows"):
        retrieval_by_question(df[df.level == "aggregate"])


def test_threshold_override_and_depth():
    kb = ScriptedKB(RANKINGS)
    df = evaluate_retrieval(kb, QUESTIONS, ks=(1,), min_score=0.65, depth=2)
    assert {k for _, k in kb.asked} == {2}
    assert value(df, "idk", in_scope=False).value == 1.0
    assert value(df, "mrr", "q002").value == 1.0
    assert value(df, "recall@1", "qb").retrieved == "it.md"


def test_bootstrap_ci_properties():
    low, high = bootstrap_ci([1.0] * 5)
    assert low == high == 1.0
    vals = np.r_[np.ones(30), np.zeros(70)]
    low, high = bootstrap_ci(vals, seed=1)
    assert 0.2 < low < 0.3 < high < 0.4
    assert bootstrap_ci(vals, seed=1) == (low, high)
    assert all(math.isnan(x) for x in bootstrap_ci([]))


def test_bad_questions_are_reported():
    kb = ScriptedKB(RANKINGS)
    with pytest.raises(ValueError, match="question 0 has no 'question'"):
        evaluate_retrieval(kb, [{"gold_docs": ["a.md"], "in_scope": True}])
    with pytest.raises(ValueError, match="in scope but names no gold_docs"):
        evaluate_retrieval(kb, [{"question": "a", "gold_docs": [], "in_scope": True}])
    with pytest.raises(ValueError, match="no questions"):
        evaluate_retrieval(kb, [])
    with pytest.raises(ValueError, match="ks must be positive"):
        evaluate_retrieval(kb, QUESTIONS, ks=(0,))


class BagOfWords(Embeddings):
    """Hashed bag of words (texts sharing words score higher)."""

    def _vec(self, text: str) -> list[float]:
        v = [0.0] * 128
        for w in re.findall(r"[a-z]{3,}", text.lower()):
            v[int(hashlib.md5(w.encode()).hexdigest(), 16) % 128] += 1.0
        return v

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [self._vec(t) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return self._vec(text)


def test_on_a_real_knowledge_base(tmp_path):
    folder = tmp_path / "kb"
    folder.mkdir()
    (folder / "travel.md").write_text("# Travel\n\n## Flights\n\nEconomy class flights under six hours.\n")
    (folder / "leave.md").write_text("# Leave\n\n## Annual\n\nTwenty five days annual leave.\n")
    questions = [
        {"question": "economy flights", "gold_docs": ["travel.md"], "in_scope": True},
        {"question": "annual leave days", "gold_docs": ["leave.md"], "in_scope": True},
        {"question": "zebra volcano", "gold_docs": [], "in_scope": False},
    ]
    with KnowledgeBase.open(tmp_path / "kb.sqlite", folder, BagOfWords()) as kb:
        df = evaluate_retrieval(kb, questions)
        assert value(df, "recall@1", in_scope=True).value == 1.0
        assert value(df, "idk", in_scope=False).value == 1.0
        assert df.kb_signature.iloc[0] == kb.signature
