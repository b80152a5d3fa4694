"""Retrieval floors: the random ranking's exact expectations and BM25 over the same chunks, side by side
with the embedder, on hand-made inputs whose figures are computable by hand."""

from __future__ import annotations

import pytest

from aya_lab.eval.retrieval_floors import BM25Ranker, compare_retrieval, floors_table, random_expectation
from aya_lab.rag import Retrieved

CHUNKS = [
    ("travel.md", "book trains and flights through the travel desk"),
    ("travel.md", "hotel rooms up to 120 euros a night"),
    ("leave.md", "annual leave is 25 days, request it in the portal"),
    ("it.md", "reset your password at the it helpdesk"),
    ("security.md", "badges must be worn at all times"),
    ("expenses.md", "submit receipts within 30 days"),
]


def test_random_expectation_by_hand():
    one = random_expectation(6, 1, 1, ks=(1, 3, 6))
    assert one["hit@1"] == pytest.approx(1 / 6)
    assert one["hit@3"] == pytest.approx(1 - 10 / 20)  # 1 - C(5,3)/C(6,3)
    assert one["hit@6"] == pytest.approx(1.0)
    assert one["recall@3"] == pytest.approx(0.5)
    assert one["mrr"] == pytest.approx(sum(1 / r for r in range(1, 7)) / 6)  # H6 / 6
    two = random_expectation(4, 2, 2, ks=(1, 2))
    assert two["hit@1"] == pytest.approx(0.5)
    assert two["hit@2"] == pytest.approx(1 - 1 / 6)  # 1 - C(2,2)/C(4,2)
    assert two["recall@2"] == pytest.approx((2 * 2 / 4) / 2)
    assert two["mrr"] == pytest.approx(1 * 3 / 6 + (1 / 2) * 2 / 6 + (1 / 3) * 1 / 6)
    missing = random_expectation(6, 0, 1, ks=(1,))  # the gold document is not in the knowledge base
    assert missing == {"hit@1": 0.0, "recall@1": 0.0, "mrr": 0.0}


def test_random_expectation_refuses_impossible_counts():
    with pytest.raises(ValueError, match="gold found"):
        random_expectation(3, 4, 4, ks=(1,))


def test_bm25_ranks_the_chunk_sharing_the_rare_words_first():
    ranker = BM25Ranker(CHUNKS)
    hits = ranker.retrieve("how do I reset my password", k=2)
    assert hits[0].source == "it.md" and hits[0].score > hits[1].score
    assert ranker.retrieve("annual leave days", k=1)[0].source == "leave.md"
    assert len(ranker) == 6 and ranker.signature.startswith("bm25okapi(k1=1.5,b=0.75")
    tie = ranker.retrieve("zebra", k=3)  # no word in common: all score 0, the chunks' order kept
    assert [h.source for h in tie] == ["travel.md", "travel.md", "leave.md"]
    with pytest.raises(ValueError, match="at least one chunk"):
        BM25Ranker([])


class OracleKB:
    """Always ranks the question's first gold document first, then the rest in CHUNKS order."""

    min_score = 0.5
    signature = "kb:oracle"

    def __init__(self, gold: dict[str, str]) -> None:
        self.gold = gold

    def __len__(self) -> int:
        return len(CHUNKS)

    def chunks(self):
        return CHUNKS

    def retrieve(self, query: str, k: int = 4):
        first = self.gold[query]
        order = [c for c in CHUNKS if c[0] == first] + [c for c in CHUNKS if c[0] != first]
        return [Retrieved(text, source, "", 1.0 - 0.1 * i) for i, (source, text) in enumerate(order[:k])]


QUESTIONS = [
    {"id": "q1", "question": "how do I reset my password", "gold_docs": ["it.md"], "in_scope": True},
    {"id": "q2", "question": "what do badges require", "gold_docs": ["security.md"], "in_scope": True},
    {"id": "q3", "question": "what is the weather", "gold_docs": [], "in_scope": False},
]


def test_the_three_rankings_side_by_side_with_cis():
    kb = OracleKB({q["question"]: (q["gold_docs"] or ["travel.md"])[0] for q in QUESTIONS})
    df = compare_retrieval(kb, QUESTIONS, ks=(1, 3), n_bootstrap=200)
    got = df.set_index(["metric", "system"])
    assert got.loc[("hit@1", "embedder"), "value"] == 1.0  # the oracle
    assert got.loc[("hit@1", "random"), "value"] == pytest.approx(1 / 5)  # 5 documents, one gold each
    assert got.loc[("mrr", "random"), "value"] == pytest.approx(sum(1 / r for r in range(1, 6)) / 5)
    assert got.loc[("hit@1", "bm25"), "value"] == 1.0  # both questions share a rare word with their gold chunk
    assert set(got["n"]) == {2}  # in-scope questions only
    low, high = got.loc[("hit@1", "random"), ["ci_low", "ci_high"]]
    assert low == high == pytest.approx(1 / 5)  # the same expectation for every question
    diff = got.loc[("hit@1", "embedder - random")]
    assert diff["value"] == pytest.approx(1 - 1 / 5) and diff["p_value"] < 0.05
    assert got.loc[("hit@1", "embedder - bm25"), "value"] == 0.0
    assert got.loc[("hit@1", "embedder - bm25"), "p_value"] == 1.0  # identical per question
    table = floors_table(df)
    assert list(table.columns) == ["embedder", "bm25", "random", "embedder - bm25", "embedder - random"]
    assert table.loc["hit@1", "random"].startswith("0.200") and table.loc["hit@1", "embedder - random"][0] == "+"


def test_no_in_scope_question_is_one_line():
    with pytest.raises(ValueError, match="no in-scope questions"):
        compare_retrieval(OracleKB({"what is the weather": "travel.md"}), QUESTIONS[2:], ks=(1,))
