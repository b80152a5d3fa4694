"""``KnowledgeBase.open_readonly``: the view shows what the store holds, cannot write (the file stays
byte-identical), and refuses a missing, foreign, unbuilt or old-layout file in one line with the fix."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from langchain_core.embeddings import DeterministicFakeEmbedding

from aya_lab.errors import AyaLabError
from aya_lab.rag import KnowledgeBase, KnowledgeBaseError, ReadOnlyKnowledgeBase

FACT = "The Hamburg office kitchen closes at 18:00."


@pytest.fixture
def stored(tmp_path: Path) -> tuple[Path, tuple]:
    """A built store with a fact, a forgotten fact and a pending one; what the writable store reported."""
    docs = tmp_path / "kb"
    docs.mkdir()
    (docs / "leave_policy.md").write_text("# Leave policy\n## Annual leave\nEmployees have 25 days of leave.\n")
    path = tmp_path / "room.kb.sqlite"
    with KnowledgeBase.open(path, docs, DeterministicFakeEmbedding(size=16)) as kb:
        kb.add_fact(FACT, author="kofi")
        gone = kb.add_fact("the door code is 42", author="lena")
        kb.add_fact("pending, never committed", author="amara", run_id="r1")
        kb.forget(gone, by="sophie", reason="wrong")
        return path, (kb.facts(), kb.audit(), kb.sources(), len(kb), kb.meta(), kb.fingerprint)


@pytest.fixture
def built(stored) -> Path:
    return stored[0]


def test_the_view_shows_what_the_store_holds(stored):
    built, (facts, audit, sources, size, meta, fingerprint) = stored
    with KnowledgeBase.open_readonly(built) as view:
        assert isinstance(view, ReadOnlyKnowledgeBase)
        assert [(f.text, f.author) for f in view.facts()] == [(FACT, "kofi")] and view.facts() == facts
        assert view.audit() == audit and view.audit()[0]["removed_by"] == "sophie"
        assert view.sources() == sources and len(view) == size and view.meta() == meta
        assert view.embedder == fingerprint and view.documents() == ["leave_policy.md"]
        assert f"{size} items" in repr(view)
    assert "closed" in repr(view)
    with pytest.raises(KnowledgeBaseError, match="is closed"):
        view.facts()


def test_the_view_cannot_write_and_leaves_the_file_byte_identical(built):
    before = built.read_bytes()
    with KnowledgeBase.open_readonly(built) as view:
        view.facts(), view.audit(), view.sources(), len(view), view.meta(), view.documents()
        assert not hasattr(view, "add_fact") and not hasattr(view, "forget")
        for statement in ("DELETE FROM kb_facts", "CREATE TABLE x (a)", "UPDATE kb_meta SET value = ''"):
            with pytest.raises(sqlite3.OperationalError, match="readonly|read-only|query_only"):
                view._db.execute(statement)
    assert built.read_bytes() == before
    with KnowledgeBase.open_readonly(built) as again:  # and nothing it tried took effect
        assert [f.text for f in again.facts()] == [FACT]


def test_a_missing_file_names_the_path_and_the_fix(tmp_path):
    missing = tmp_path / "nowhere" / "room.kb.sqlite"
    with pytest.raises(KnowledgeBaseError) as err:
        KnowledgeBase.open_readonly(missing)
    message = str(err.value)
    assert isinstance(err.value, AyaLabError) and "\n" not in message
    assert message.startswith(f"no knowledge base at {missing}") and "open its room once" in message
    assert not missing.parent.exists()  # nothing was created
    with pytest.raises(KnowledgeBaseError, match=r"\(a folder\)"):
        KnowledgeBase.open_readonly(tmp_path)


def test_a_foreign_unbuilt_or_old_file_is_refused_in_one_line(tmp_path, built):
    garbage = tmp_path / "garbage.sqlite"
    garbage.write_bytes(b"not a database at all" * 100)
    foreign, unbuilt, old = tmp_path / "foreign.sqlite", tmp_path / "unbuilt.sqlite", tmp_path / "old.sqlite"
    old.write_bytes(built.read_bytes())
    for path, script in (
        (foreign, "CREATE TABLE customers (id INTEGER);"),
        (unbuilt, "CREATE TABLE kb_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"),
        (old, "DROP TABLE kb_fact_audit;"),  # a store from before facts had runs and an audit
    ):
        conn = sqlite3.connect(path)
        conn.executescript(script)
        conn.close()
    for path, what in (
        (garbage, "is not a knowledge-base store"),
        (foreign, "is not a knowledge-base store"),
        (unbuilt, "has never been built: open its room once"),
        (old, "older layout: open its room"),
    ):
        before = path.read_bytes()
        with pytest.raises(KnowledgeBaseError, match=what) as err:
            KnowledgeBase.open_readonly(path)
        assert "\n" not in str(err.value) and str(path) in str(err.value)
        assert path.read_bytes() == before
