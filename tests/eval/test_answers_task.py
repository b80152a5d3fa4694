"""The answers task: Aya's replies to policy questions in any language, scored for the gold fact and "I don't know"."""

import json

import pandas as pd
import pytest

from aya_lab.errors import InputError
from aya_lab.eval import run
from aya_lab.rag.margins import scope_margins

QUESTIONS = [
    {"id": "t001", "lang": "deu", "question": "Wie lautet unsere Reiserichtlinie für Flüge?",
     "gold": [{"doc": "travel_policy.md", "section": "Flights"}], "fact": "Economy class", "in_scope": True},
    {"id": "t002", "lang": "eng", "question": "What is the nightly hotel limit?",
     "gold": [{"doc": "travel_policy.md", "section": "Hotels"}], "fact": "150 EUR", "in_scope": True},
    {"id": "t003", "lang": "spa", "question": "¿Cuándo son las elecciones del comité de empresa?",
     "gold": [], "fact": "", "in_scope": False},
]  # fmt: skip


@pytest.fixture
def questions(tmp_path):
    path = tmp_path / "questions.jsonl"
    path.write_text("".join(json.dumps(q, ensure_ascii=False) + "\n" for q in QUESTIONS), encoding="utf-8")
    return path


def test_quotes_are_scored_per_language_and_scope(questions):
    report = run("answers", questions=str(questions), n_bootstrap=50)
    items = report.items.set_index("id")
    assert items.loc["t001", "reply"].startswith('From travel_policy.md, "Flights": "Economy class')
    assert items.loc["t001", "fact"] == 1.0 and items.loc["t001", "right_section"] == 1.0
    assert items.loc["t003", "idk"] == 1.0 and items["invented"].sum() == 0
    # the section ranked first is kept whether or not the scope rule answers from it, with the rule's margin
    assert items.loc["t001", "ranked_first"] == 1.0 and pd.isna(items.loc["t003", "ranked_first"])
    assert items.loc["t001", "margin"] >= scope_margins().min_margin > items.loc["t003", "margin"]
    assert report.score("ranked_first", "quote", lang="deu", scope="in-scope") == 1.0
    assert report.score("fact", "quote", lang="all", scope="in-scope") == 1.0
    assert report.score("idk", "quote", lang="spa", scope="out-of-scope") == 1.0
    assert report.paired.empty  # one system: nothing to pair


def test_a_bad_answer_mode_is_one_line_before_any_work(questions):
    with pytest.raises(InputError, match="systems") as err:
        run("answers", questions=str(questions), systems=["guess"])
    assert "\n" not in str(err.value)


def test_the_glossary_and_neighbours_modes_answer_a_swahili_question_the_written_search_leaves_unanswered(tmp_path):
    leave = {"id": "t004", "lang": "swh", "question": "Nina siku ngapi za likizo ya kulipwa kila mwaka?",
             "gold": [{"doc": "leave_policy.md", "section": "Annual leave"}], "fact": "25 days", "in_scope": True}  # fmt: skip
    path = tmp_path / "questions.jsonl"
    path.write_text("".join(json.dumps(q, ensure_ascii=False) + "\n" for q in [*QUESTIONS, leave]), encoding="utf-8")
    report = run("answers", questions=str(path), systems=["quote", "glossary", "neighbours", "voted"], n_bootstrap=50)
    items = report.items.set_index(["system", "id"])
    assert items.loc[("quote", "t004"), "idk"] == 1.0  # written only, its margin is below min_margin
    for mode in ("glossary", "neighbours", "voted"):  # the glossary by its own margin, the others by labelled questions
        assert items.loc[(mode, "t004"), "reply"].startswith('From leave_policy.md, "Annual leave": "Full-time')
        assert items.loc[(mode, "t003"), "idk"] == 1.0  # out of scope stays "I don't know"
        assert items.loc[(mode, "t002"), "fact"] == 1.0  # English is searched as written
    glossed, written = items.loc[("glossary", "t004"), "margin"], items.loc[("quote", "t004"), "margin"]
    assert glossed >= scope_margins().glossed_margin and written < scope_margins().min_margin
    assert items.loc[("neighbours", "t001"), "fact"] == 1.0
    assert set(report.paired["system"]) == {"glossary", "neighbours", "voted"}
    assert set(report.paired["baseline"]) == {"quote"}


def test_scoring_a_development_set_leaves_it_out_of_the_pool(monkeypatch):
    from aya_lab.eval import grounding
    from aya_lab.rag.scope import POOL_FILES

    seen = []
    monkeypatch.setattr(grounding.ScopePool, "shared", classmethod(lambda cls, paths=None, k=5: seen.append(paths)))
    grounding._scope_pool("unseen3")
    grounding._scope_pool("elsewhere/questions.jsonl")
    grounding._scope_pool("unseen6", ["dev", "unseen6", "unseen"])
    assert [p.name for p in seen[0]] == [f for f in POOL_FILES if f != "questions_unseen3.jsonl"]
    assert [p.name for p in seen[1]] == list(POOL_FILES)  # a set outside the pool leaves nothing out
    assert [p.name for p in seen[2]] == ["questions_dev.jsonl", "questions_unseen.jsonl"]  # a pool given by name


def test_the_neighbour_count_is_an_option_and_a_pool_too_small_for_it_is_one_line(questions, tmp_path):
    pool = tmp_path / "pool.jsonl"
    labelled = [{"question": "What is the nightly hotel limit?", "in_scope": True},
                {"question": "Wann ist die Betriebsratswahl?", "in_scope": False}]  # fmt: skip
    pool.write_text("".join(json.dumps(q, ensure_ascii=False) + "\n" for q in labelled), encoding="utf-8")
    one = run(
        "answers", questions=str(questions), systems=["neighbours"], pool=[str(pool)], neighbours=1, n_bootstrap=0
    )
    two = run(
        "answers", questions=str(questions), systems=["neighbours"], pool=[str(pool)], neighbours=2, n_bootstrap=0
    )
    # one neighbour: the nearest label decides; two: one out-of-scope label among them refuses every question
    assert one.items.set_index("id").loc["t002", "idk"] == 0.0 and (two.items["idk"] == 1.0).all()
    with pytest.raises(InputError, match="cannot look at 3 neighbours") as err:
        run("answers", questions=str(questions), systems=["neighbours"], pool=[str(pool)], neighbours=3)
    assert "\n" not in str(err.value)
    with pytest.raises(InputError, match="neighbours=0"):
        run("answers", questions=str(questions), systems=["neighbours"], neighbours=0)


def test_labels_of_another_handbook_neither_decide_scope_nor_vote(questions, tmp_path, monkeypatch):
    import shutil

    from aya_lab.paths import kb_dir
    from aya_lab.rag.scope import ScopePool

    docs = tmp_path / "handbook"
    docs.mkdir()
    shutil.copy(kb_dir() / "travel_policy.md", docs)  # a handbook of one document: not the one the labels are of
    monkeypatch.setattr(ScopePool, "rerank", lambda *a: pytest.fail("voted with another handbook's labels"))
    monkeypatch.setattr(ScopePool, "covers", lambda *a: pytest.fail("scoped by another handbook's labels"))
    report = run("answers", questions=str(questions), systems=["voted"], docs=str(docs), n_bootstrap=0)
    assert len(report.items) == 3 and report.items.set_index("id").loc["t003", "idk"] == 1.0  # decided by the margin
