"""Retrieval floors: the random ranking's exact expectations and BM25 over the same chunks, systems of the
retrieval report beside the embedder, on hand-made inputs whose figures are computable by hand."""

from __future__ import annotations

import pytest

from aya_lab.eval.retrieval import SYSTEMS, BM25Ranker, evaluate_retrieval, floors_table, random_expectation
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
    rep = evaluate_retrieval(kb, QUESTIONS, ks=(1, 3), floors=True, n_bootstrap=200)
    assert rep.systems == list(SYSTEMS) and rep.baseline == "embedder"
    got = rep.df[rep.df.scope == "in-scope"].set_index(["metric", "system"])
    assert got.loc[("hit@1", "embedder"), "score"] == 1.0  # the oracle
    assert got.loc[("hit@1", "random"), "score"] == pytest.approx(1 / 5)  # 5 documents, one gold each
    assert got.loc[("mrr", "random"), "score"] == pytest.approx(sum(1 / r for r in range(1, 6)) / 5)
    assert got.loc[("hit@1", "bm25"), "score"] == 1.0  # both questions share a rare word with their gold chunk
    assert set(got["n"]) == {2}  # in-scope questions only
    floors = rep.df[rep.df.system != "embedder"]
    assert set(floors.metric) == {"hit@1", "recall@1", "hit@3", "recall@3", "mrr"}  # ranking metrics only
    low, high = got.loc[("hit@1", "random"), ["ci_low", "ci_high"]]
    assert low == high == pytest.approx(1 / 5)  # the same expectation for every question
    paired = rep.paired.set_index(["metric", "system"])
    diff = paired.loc[("hit@1", "random")]  # the floor minus the embedder
    # two questions, both worse: every resample agrees, but no exact test on 2 pairs goes below p = 0.5
    assert diff["delta"] == pytest.approx(1 / 5 - 1) and diff["p"] == 0.5 and not diff["significant"]
    assert paired.loc[("hit@1", "bm25"), "delta"] == 0.0
    assert paired.loc[("hit@1", "bm25"), "p"] == 1.0  # identical per question
    assert set(rep.items.loc[rep.items.system != "embedder", "id"]) == {"q1", "q2"}  # floors: in scope only
    assert rep.items.loc[rep.items.system == "bm25", "retrieved"].str.startswith("it.md").any()
    table = floors_table(rep)
    assert list(table.columns) == ["embedder", "bm25", "random", "bm25 - embedder", "random - embedder"]
    assert table.loc["hit@1", "random"].startswith("0.200") and table.loc["hit@1", "random - embedder"][0] == "-"
    assert not table.loc["hit@1", "random - embedder"].endswith("*")  # 2 questions: too few to test
    assert rep.table().loc[("in-scope", "hit@1"), "random"] == pytest.approx(1 / 5)


def test_the_floors_rank_the_chunks_given():
    kb = OracleKB({q["question"]: (q["gold_docs"] or ["travel.md"])[0] for q in QUESTIONS})
    rep = evaluate_retrieval(kb, QUESTIONS, ks=(1,), floors=True, chunks=CHUNKS[:4], n_bootstrap=0)
    assert rep.score("hit@1", "random", scope="in-scope") == pytest.approx(1 / 3 / 2)  # 3 documents, q2's not there
    assert "3 documents" in rep.df.loc[rep.df.system == "random", "signature"].iloc[0]


def test_no_in_scope_question_is_one_line():
    kb = OracleKB({"what is the weather": "travel.md"})
    with pytest.raises(ValueError, match="no in-scope questions"):
        evaluate_retrieval(kb, QUESTIONS[2:], ks=(1,), floors=True)
    with pytest.raises(ValueError, match="this retrieval report has no floors"):
        floors_table(evaluate_retrieval(kb, QUESTIONS[2:], ks=(1,)))
