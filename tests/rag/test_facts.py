"""Remembered facts with authority and transactions: author and time, pending until the run commits,
discarded with a failed run, removable with an audit row, migrated from the old schema."""

from __future__ import annotations

import dataclasses
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from langchain_core.embeddings import DeterministicFakeEmbedding

from aya_lab.rag import Fact, KnowledgeBase, KnowledgeBaseError

FACT = "The Hamburg office kitchen closes at 18:00."


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    d = tmp_path / "kb"
    d.mkdir()
    (d / "leave_policy.md").write_text("# Leave policy\n## Annual leave\nEmployees have 25 days of leave.\n")
    return d


@pytest.fixture
def kb(tmp_path: Path, docs: Path):
    with KnowledgeBase.open(tmp_path / "kb.sqlite", docs, DeterministicFakeEmbedding(size=16), min_score=-1) as kb:
        yield kb


def _texts(kb: KnowledgeBase, query: str = FACT) -> list[str]:
    return [r.text for r in kb.retrieve(query, k=20)]


def test_a_fact_stores_its_author_and_time(kb):
    before = datetime.now(UTC).replace(microsecond=0)
    fid = kb.add_fact(f"  {FACT} ", author=" kofi ")
    (fact,) = kb.facts()
    assert isinstance(fact, Fact) and isinstance(fid, str) and fact.id == fid
    assert (fact.text, fact.author) == (FACT, "kofi")
    created = datetime.fromisoformat(fact.created_at)
    assert created.utcoffset() == timedelta(0) and before <= created <= datetime.now(UTC)
    with pytest.raises(dataclasses.FrozenInstanceError):
        fact.text = "changed"  # type: ignore[misc]
    hit = kb.retrieve(FACT, k=1)[0]
    assert (hit.text, hit.kind, hit.author) == (FACT, "fact", "kofi")


@pytest.mark.parametrize("author", ["", "  ", None])
def test_a_fact_needs_an_author(kb, author):
    with pytest.raises(ValueError, match="author") as err:
        kb.add_fact(FACT, author=author)
    assert "\n" not in str(err.value) and kb.facts() == []


def test_a_pending_fact_is_invisible_until_its_run_commits(kb, tmp_path, docs):
    n, ntotal = len(kb), kb.vectorstore.index.ntotal
    fid = kb.add_fact(FACT, author="kofi", run_id="run1")
    assert kb.facts() == [] and FACT not in _texts(kb) and len(kb) == n
    assert kb.vectorstore.index.ntotal == ntotal and kb.pending_runs() == ["run1"]
    with KnowledgeBase.open(tmp_path / "kb.sqlite", docs, DeterministicFakeEmbedding(size=16)) as other:
        assert FACT not in _texts(other) and other.vectorstore.index.ntotal == ntotal  # built from the file
        assert "remembered" not in other.sources() and len(other) == n
    assert kb.commit_run("other") == 0 and kb.facts() == []
    assert kb.commit_run("run1") == 1
    assert [f.id for f in kb.facts()] == [fid] and _texts(kb)[0] == FACT and len(kb) == n + 1
    assert kb.pending_runs() == [] and kb.commit_run("run1") == 0


def test_a_discarded_run_leaves_nothing_and_keeps_other_runs(kb):
    kb.add_fact("Committed at once.", author="lena")
    kb.add_fact(FACT, author="kofi", run_id="failed")
    kb.add_fact("Another run's fact.", author="amara", run_id="alive")
    assert kb.discard_run("failed") == 1
    assert kb.pending_runs() == ["alive"]
    assert kb.commit_run("failed") == 0 and FACT not in _texts(kb)
    assert kb.commit_run("alive") == 1
    assert [f.text for f in kb.facts()] == ["Committed at once.", "Another run's fact."]


def test_discard_uncommitted_drops_every_pending_fact_only(kb, tmp_path, docs):
    kb.add_fact("Committed at once.", author="lena")
    kb.add_fact(FACT, author="kofi", run_id="killed1")
    kb.add_fact("Second.", author="kofi", run_id="killed2")
    kb.close()
    with KnowledgeBase.open(tmp_path / "kb.sqlite", docs, DeterministicFakeEmbedding(size=16)) as again:
        assert again.pending_runs() == ["killed1", "killed2"]  # survive the process, still invisible
        assert again.discard_uncommitted() == 2
        assert again.pending_runs() == [] and [f.text for f in again.facts()] == ["Committed at once."]


def test_an_identical_fact_is_kept_once_across_runs(kb):
    first = kb.add_fact(FACT, author="lena")
    assert kb.add_fact(FACT, author="kofi", run_id="r1") == first  # already committed: not stored again
    kb.forget(first, by="lena")
    a = kb.add_fact(FACT, author="kofi", run_id="r1")
    assert kb.add_fact(FACT, author="kofi", run_id="r1") == a
    kb.add_fact(FACT, author="amara", run_id="r2")
    assert kb.commit_run("r1") == 1 and kb.commit_run("r2") == 0  # the second copy is dropped
    assert [(f.text, f.author) for f in kb.facts()] == [(FACT, "kofi")]


def test_forget_removes_from_search_and_vector_store_with_an_audit_row(kb, tmp_path, docs):
    keep = kb.add_fact("Standups are at 09:30.", author="lena")
    fid = kb.add_fact(FACT, author="kofi")
    ntotal = kb.vectorstore.index.ntotal
    with KnowledgeBase.open(tmp_path / "kb.sqlite", docs, DeterministicFakeEmbedding(size=16)) as other:
        assert FACT in _texts(other)  # another connection had it indexed
        kb.forget(fid, by="amara", reason="wrong:\nit closes at 17:00")
        assert FACT not in _texts(other)
    assert FACT not in _texts(kb) and kb.vectorstore.index.ntotal == ntotal - 1
    assert all(d.page_content != FACT for d in kb.vectorstore.docstore._dict.values())
    assert [f.id for f in kb.facts()] == [keep]
    (row,) = kb.audit()
    assert {k: row[k] for k in ("fact_id", "text", "author", "removed_by", "reason")} == {
        "fact_id": fid,
        "text": FACT,
        "author": "kofi",
        "removed_by": "amara",
        "reason": "wrong: it closes at 17:00",
    }
    assert datetime.fromisoformat(row["removed_at"]).utcoffset() == timedelta(0) and row["created_at"]


def test_forget_an_unknown_id_is_one_line_saying_how_to_see_ids(kb):
    fid = kb.add_fact(FACT, author="kofi")
    for bad in ("999", "nope"):
        with pytest.raises(KnowledgeBaseError, match=r"no fact .* KnowledgeBase\.facts\(\)") as err:
            kb.forget(bad, by="lena")
        assert "\n" not in str(err.value) and repr(bad) in str(err.value) and fid in str(err.value)
    with pytest.raises(ValueError, match="by="):
        kb.forget(fid, by=" ")
    assert [f.id for f in kb.facts()] == [fid] and kb.audit() == []


def test_ids_are_never_reused(kb):
    first = kb.add_fact("One.", author="kofi", run_id="r")
    kb.discard_run("r")
    second = kb.add_fact("Two.", author="kofi")
    kb.forget(second, by="kofi")
    third = kb.add_fact("Three.", author="kofi")
    assert len({first, second, third}) == 3


def test_an_old_facts_table_is_migrated(tmp_path, docs):
    path = tmp_path / "kb.sqlite"
    emb = DeterministicFakeEmbedding(size=16)
    with KnowledgeBase.open(path, docs, emb) as kb:
        kb.add_fact(FACT, author="lena")
        kb.add_fact("Standups are at 09:30.", author="x")
    conn = sqlite3.connect(path)  # rewrite the facts table as the schema before authority was
    blobs = [r[0] for r in conn.execute("SELECT embedding FROM kb_facts ORDER BY id")]
    conn.executescript(
        "DROP TABLE kb_facts; DROP TABLE kb_fact_audit; CREATE TABLE kb_facts (id INTEGER PRIMARY KEY, "
        "text TEXT NOT NULL, source TEXT NOT NULL, author TEXT, created_at TEXT NOT NULL, embedding BLOB NOT NULL);"
    )
    conn.executemany(
        "INSERT INTO kb_facts VALUES (?, ?, 'remembered', ?, '2026-11-01T10:00:00+00:00', ?)",
        [(4, FACT, "lena", blobs[0]), (9, "Standups are at 09:30.", None, blobs[1])],
    )
    conn.commit()
    conn.close()
    with KnowledgeBase.open(path, docs, emb) as kb:
        assert [(f.id, f.text, f.author) for f in kb.facts()] == [
            ("4", FACT, "lena"),
            ("9", "Standups are at 09:30.", "unknown"),
        ]
        assert kb.retrieve(FACT, k=1)[0].text == FACT
        assert int(kb.add_fact("New.", author="kofi")) > 9
        kb.forget("9", by="kofi")
        assert [a["author"] for a in kb.audit()] == ["unknown"]
