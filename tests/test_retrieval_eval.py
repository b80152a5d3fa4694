"""Tests for aya_lab.eval.retrieval: recall@k, MRR, the "I don't know" rate, bootstrap CIs."""

from __future__ import annotations

import hashlib
import math
import re
from dataclasses import dataclass

import numpy as np
import pytest
from langchain_core.embeddings import Embeddings

from aya_lab.eval.retrieval import COLUMNS, bootstrap_ci, evaluate_retrieval, retrieval_summary
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
    assert value(df, "recall@1", "q002").value == 0.5  # no id: numbered by position
    assert value(df, "recall@3", "q002").value == 0.5 and value(df, "mrr", "q002").value == 1.0
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
    assert value(df, "recall@1", in_scope=True).value == pytest.approx((1 + 0 + 0.5) / 3)
    assert value(df, "idk", in_scope=False).value == 0.5
    assert value(df, "answered", in_scope=True).value == pytest.approx(2 / 3)
    assert value(df, "top_score", in_scope=False).n == 2
    again = evaluate_retrieval(ScriptedKB(RANKINGS), QUESTIONS, ks=(1, 3))
    assert again.equals(df)  # seeded: the same CIs every run
    assert df.attrs["n_bootstrap"] == 1000 and df.attrs["min_score"] == 0.5
    table = retrieval_summary(df)
    assert table.loc[("out-of-scope", "idk"), "value"] == 0.5
    assert table.loc[("in-scope", "recall@3"), "n"] == 3


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
