"""Tests for aya_lab.eval.retrieval: hit@k, recall@k, MRR, the "I don't know" rate, bootstrap CIs, and the
retrieval report (its items, table, files and the generated command)."""

from __future__ import annotations

import hashlib
import json
import math
import re
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pytest
from langchain_core.embeddings import Embeddings

from aya_lab.cli import build_parser
from aya_lab.eval import Report, run
from aya_lab.eval.configs import RetrievalConfig
from aya_lab.eval.retrieval import bootstrap_ci, evaluate_retrieval, retrieval_by_question, retrieval_table
from aya_lab.eval.tasks import run_command
from aya_lab.rag import DEFAULT_CHUNK_OVERLAP, DEFAULT_CHUNK_SIZE, KnowledgeBase, Retrieved


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


def value(rep, metric, qid=None, in_scope=None, system="embedder"):
    """One question's ``metric`` (from the items), or the aggregate row of a scope (from ``df``)."""
    if qid is not None:
        sel = rep.items[(rep.items.system == system) & (rep.items.id == qid)]
        assert len(sel) == 1, (metric, qid)
        return sel.iloc[0][metric]
    scope = "in-scope" if in_scope else "out-of-scope"
    sel = rep.df[(rep.df.system == system) & (rep.df.metric == metric) & (rep.df.scope == scope)]
    assert len(sel) == 1, (metric, in_scope)
    return sel.iloc[0]


def test_per_question_metrics_are_exact():
    kb = ScriptedKB(RANKINGS)
    rep = evaluate_retrieval(kb, QUESTIONS, ks=(1, 3))
    assert rep.task == "retrieval" and rep.systems == ["embedder"] and rep.units == ["scope"] and rep.paired.empty
    assert {k for _, k in kb.asked} == {10}  # the whole ranking by default
    assert value(rep, "recall@1", "qa") == 1.0 and value(rep, "mrr", "qa") == 1.0
    assert value(rep, "recall@1", "qb") == 0.0 and value(rep, "recall@3", "qb") == 1.0
    assert value(rep, "mrr", "qb") == 0.5
    # two gold documents, the first source is one of them: recall@1 = 1 / min(1, 2), recall@3 = 1 / min(3, 2)
    assert value(rep, "recall@1", "q002") == 1.0  # no id: numbered by position
    assert value(rep, "recall@3", "q002") == 0.5 and value(rep, "mrr", "q002") == 1.0
    assert value(rep, "hit@1", "qa") == 1.0 and value(rep, "hit@1", "qb") == 0.0
    assert value(rep, "hit@3", "qb") == 1.0 and value(rep, "hit@1", "q002") == 1.0
    assert value(rep, "answered", "q002") == 0.0 and value(rep, "answered", "qa") == 1.0
    assert value(rep, "idk", "qd") == 1.0 and value(rep, "idk", "qe") == 0.0
    assert value(rep, "top_score", "qe") == 0.6
    assert value(rep, "retrieved", "qb") == "it.md,leave.md,travel.md"
    assert rep.items.loc[rep.items.in_scope, "idk"].isna().all()  # idk is for out-of-scope questions only
    assert set(rep.df.signature) == {"kb:scripted"} and rep.meta["min_score"] == 0.5
    assert rep.meta["kb_signature"] == "kb:scripted"


def test_aggregates_with_seeded_bootstrap_ci():
    rep = evaluate_retrieval(ScriptedKB(RANKINGS), QUESTIONS, ks=(1, 3))
    mrr = value(rep, "mrr", in_scope=True)
    assert mrr.score == pytest.approx((1 + 0.5 + 1) / 3) and mrr.n == 3
    assert mrr.ci_low <= mrr.score <= mrr.ci_high <= 1.0
    assert value(rep, "recall@1", in_scope=True).score == pytest.approx((1 + 0 + 1) / 3)
    assert value(rep, "recall@3", in_scope=True).score == pytest.approx((1 + 1 + 0.5) / 3)
    assert value(rep, "hit@3", in_scope=True).score == 1.0
    assert value(rep, "idk", in_scope=False).score == 0.5
    assert rep.score("answered", scope="in-scope") == pytest.approx(2 / 3)
    assert value(rep, "top_score", in_scope=False).n == 2
    again = evaluate_retrieval(ScriptedKB(RANKINGS), QUESTIONS, ks=(1, 3))
    assert again.df.equals(rep.df) and again.items.equals(rep.items)  # seeded: the same CIs every run
    assert rep.meta["n_bootstrap"] == 1000 and rep.meta["ks"] == [1, 3]


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
    rep = evaluate_retrieval(ScriptedKB(rankings), questions, ks=(1, 2, 3, 5))
    got = {
        (m, q): value(rep, m, q)
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
    assert value(rep, "mrr", "q3") == 1.0 and value(rep, "mrr", "ql") == 0.5
    assert not (rep.df.metric == "recall_raw@1").any()  # the un-normalised share is no longer reported
    assert value(rep, "recall@1", in_scope=True).score == value(rep, "hit@1", in_scope=True).score == 0.5


def test_by_question_is_one_wide_row_per_question_in_input_order():
    rep = evaluate_retrieval(ScriptedKB(RANKINGS), QUESTIONS, ks=(1, 3))
    wide = retrieval_by_question(rep)
    assert list(wide.index) == ["qa", "qb", "q002", "qd", "qe"]
    assert wide.loc["qb", "hit@1"] == 0.0 and wide.loc["qb", "hit@3"] == 1.0 and wide.loc["qb", "mrr"] == 0.5
    assert wide.loc["qb", "retrieved"] == "it.md,leave.md,travel.md" and wide.loc["qb", "question"] == "b"
    assert wide.loc["qe", "idk"] == 0.0 and math.isnan(wide.loc["qe", "hit@1"]) and math.isnan(wide.loc["qa", "idk"])
    assert [bool(x) for x in wide["in_scope"]] == [True, True, True, False, False]
    assert list(wide.columns[:3]) == ["question", "in_scope", "retrieved"] and wide.index.name == "id"
    with pytest.raises(ValueError, match="no per-question rows of 'bm25'"):
        retrieval_by_question(rep, "bm25")


def test_the_table_is_the_summary_per_scope_and_metric():
    rep = evaluate_retrieval(ScriptedKB(RANKINGS), QUESTIONS, ks=(1, 3))
    table = rep.table()
    assert list(table.columns) == ["score", "ci_low", "ci_high", "n"]
    assert table.index.names == ["scope", "metric"] and table.index.is_monotonic_increasing
    assert table.loc[("out-of-scope", "idk"), "score"] == 0.5
    assert table.loc[("in-scope", "recall@3"), "n"] == 3
    assert table.loc[("in-scope", "mrr"), "score"] == value(rep, "mrr", in_scope=True).score
    assert len(table) == len(rep.df)  # every aggregate, one row each
    pd.testing.assert_frame_equal(table, retrieval_table(rep, "embedder"))
    with pytest.raises(ValueError, match="no system 'bm25' in this retrieval report; it has: embedder"):
        retrieval_table(rep, "bm25")


def test_the_report_round_trips_through_its_files_with_its_items(tmp_path):
    rep = evaluate_retrieval(ScriptedKB(RANKINGS), QUESTIONS, ks=(1, 3), n_bootstrap=50)
    back = Report.load(rep.save(tmp_path / "retrieval.csv"))
    assert back.task == "retrieval" and back.baseline == "embedder" and back.units == ["scope"]
    pd.testing.assert_frame_equal(back.df, rep.df)
    pd.testing.assert_frame_equal(back.items, rep.items)
    pd.testing.assert_frame_equal(back.table(), rep.table())  # the task's own table, found by its name
    pd.testing.assert_frame_equal(retrieval_by_question(back), retrieval_by_question(rep))


def test_threshold_override_and_depth():
    kb = ScriptedKB(RANKINGS)
    rep = evaluate_retrieval(kb, QUESTIONS, ks=(1,), min_score=0.65, depth=2)
    assert {k for _, k in kb.asked} == {2}
    assert value(rep, "idk", in_scope=False).score == 1.0
    assert value(rep, "mrr", "q002") == 1.0
    assert value(rep, "retrieved", "qb") == "it.md"


def test_bootstrap_ci_properties():
    low, high = bootstrap_ci([1.0] * 5)  # 5 of 5: every resample is 1, so the low bound is Clopper-Pearson's
    assert high == 1.0 and low == pytest.approx(0.025 ** (1 / 5)) and round(low, 3) == 0.478
    assert bootstrap_ci([0.0] * 5) == (0.0, pytest.approx(1 - 0.025 ** (1 / 5)))
    assert bootstrap_ci([2.0] * 5) == (2.0, 2.0)  # not a share: no bound is added
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
        rep = evaluate_retrieval(kb, questions)
        assert value(rep, "recall@1", in_scope=True).score == 1.0
        assert value(rep, "idk", in_scope=False).score == 1.0
        assert rep.df.signature.iloc[0] == kb.signature == rep.meta["kb_signature"]


def _handbook(tmp_path):
    folder = tmp_path / "kb"
    folder.mkdir()
    (folder / "travel.md").write_text("# Travel\n\n## Flights\n\nEconomy class flights under six hours.\n")
    (folder / "leave.md").write_text("# Leave\n\n## Annual\n\nTwenty five days annual leave.\n")
    return folder


def test_run_builds_a_store_from_the_config_and_reads_questions_from_a_file(tmp_path):
    records = [
        {
            "id": "q001",
            "question": "economy flights",
            "gold_docs": ["travel.md"],
            "answer_keywords": [],
            "in_scope": True,
        },
        {
            "id": "q002",
            "question": "annual leave days",
            "gold_docs": ["leave.md"],
            "answer_keywords": [],
            "in_scope": True,
        },
        {"id": "q003", "question": "zebra volcano", "gold_docs": [], "answer_keywords": [], "in_scope": False},
    ]
    path = tmp_path / "questions.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    rep = run(
        "retrieval", docs=str(_handbook(tmp_path)), embedder=BagOfWords(), questions=str(path), ks=[1], n_bootstrap=20
    )
    assert rep.systems == ["embedder", "bm25", "random"] and rep.meta["ks"] == [1]  # floors by default
    assert rep.score("hit@1", scope="in-scope") == 1.0 and rep.score("hit@1", "random", scope="in-scope") == 0.5
    assert list(rep.paired["system"].unique()) == ["bm25", "random"] and set(rep.paired.metric) == {
        "hit@1",
        "recall@1",
        "mrr",
    }
    assert list(rep.table().columns) == ["score", "ci_low", "ci_high", "n", "bm25", "random"]
    assert list(rep.items.loc[rep.items.system == "embedder", "id"]) == ["q001", "q002", "q003"]
    store = tmp_path / "kept.sqlite"  # a store path: built there and kept
    again = run("retrieval", kb=str(store), docs=str(tmp_path / "kb"), embedder=BagOfWords(), questions=str(path),
                ks=[1], n_bootstrap=20)  # fmt: skip
    assert store.is_file() and again.df.equals(rep.df)


def test_the_configs_chunking_defaults_are_the_knowledge_bases():
    assert (RetrievalConfig().chunk_size, RetrievalConfig().chunk_overlap) == (
        DEFAULT_CHUNK_SIZE,
        DEFAULT_CHUNK_OVERLAP,
    )


def test_an_open_kb_refuses_the_options_of_a_store_the_task_builds():
    with pytest.raises(ValueError, match="^chunk_size: options of a store the task builds, but an open kb was given$"):
        run("retrieval", kb=ScriptedKB(RANKINGS), questions=QUESTIONS, chunk_size=200, floors=False)
    rep = run("retrieval", kb=ScriptedKB(RANKINGS), questions=QUESTIONS, ks=[1, 3], floors=False, n_bootstrap=1000)
    pd.testing.assert_frame_equal(rep.df, evaluate_retrieval(ScriptedKB(RANKINGS), QUESTIONS, ks=(1, 3)).df)


def test_the_generated_command_lists_the_configs_options(capsys):
    with pytest.raises(SystemExit) as done:
        build_parser().parse_args(["eval", "run", "retrieval", "--help"])
    assert done.value.code == 0
    text = capsys.readouterr().out
    for flag in ("--kb", "--docs", "--questions", "--embedder", "--chunk-size", "--chunk-overlap", "--ks",
                 "--min-score", "--depth", "--floors", "--no-floors", "--n-bootstrap", "--seed", "--out"):  # fmt: skip
        assert flag in text, flag
    assert "(default: 1,3,5)" in text and "(default: 400)" in text


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--ks", "1,0"], "error: retrieval option ks.1='0': Input should be greater than or equal to 1"),
        (["--embedder", "e5"], "error: retrieval option embedder='e5': Value error, the embedders by name are: "),
        (["--chunk-overlap", "400"], "error: retrieval option chunk_overlap=400: Value error, the overlap must be"),
        (["--min-score", "2"], "error: retrieval option min_score=2.0: Input should be less than or equal to 1"),
    ],
    ids=["k", "embedder", "overlap", "threshold"],
)
def test_a_bad_option_is_one_line_before_anything_runs(capsys, argv, message):
    assert run_command(build_parser().parse_args(["eval", "run", "retrieval", *argv])) == 2
    err = capsys.readouterr().err
    assert err.startswith(message) and err.count("\n") == 1, err
