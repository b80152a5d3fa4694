"""The project's own data sets load and meet the constraints their READMEs state."""

from __future__ import annotations

import json
import re
from collections import Counter
from itertools import groupby

import pytest

from aya_lab.datasets.project import (
    ROUTING_LABELS,
    CorpusError,
    Transcript,
    default_paths,
    list_kb_documents,
    load_rag_questions,
    load_routing_examples,
    load_transcripts,
    load_workplace,
    load_workplace_doc_ids,
)
from aya_lab.paths import project_root

DATA = project_root() / "data"
CJK = re.compile(r"[\u4e00-\u9fff]")


def _norm(text: str) -> str:
    return " ".join(text.lower().split())


# --- READMEs -------------------------------------------------------------------------------------


@pytest.mark.parametrize("folder", ["", "kb", "rag", "transcripts", "routing", "workplace"])
def test_every_set_has_a_readme_saying_how_it_was_made(folder):
    readme = DATA / folder / "README.md"
    assert readme.is_file(), readme
    text = readme.read_text(encoding="utf-8")
    if folder:
        assert "2026-11-30" in text and "CC-BY-4.0" in text


# --- knowledge base ------------------------------------------------------------------------------

REQUIRED_KB = {
    "travel_policy.md",
    "leave_policy.md",
    "expenses_policy.md",
    "it_policy.md",
    "security_policy.md",
    "remote_work_policy.md",
}


def test_kb_documents_present_and_sized():
    docs = list_kb_documents()
    names = {p.name for p in docs}
    assert REQUIRED_KB <= names
    assert "README.md" not in names
    for doc in docs:
        text = doc.read_text(encoding="utf-8")
        assert text.startswith("# "), doc.name
        assert 300 <= len(text.split()) <= 600, (doc.name, len(text.split()))


@pytest.mark.parametrize(
    "fact, docs",
    [
        ("within 30 days", ["travel_policy.md", "expenses_policy.md"]),
        ("45 eur", ["travel_policy.md", "expenses_policy.md"]),
        ("it-security@kivu.example within 1 hour", ["travel_policy.md", "it_policy.md"]),
        ("300 eur", ["expenses_policy.md", "remote_work_policy.md"]),
        ("company vpn", ["security_policy.md", "remote_work_policy.md"]),
    ],
)
def test_shared_facts_agree_across_documents(fact, docs):
    for name in docs:
        assert fact in _norm((DATA / "kb" / name).read_text(encoding="utf-8")), (fact, name)


def test_list_kb_documents_missing_folder(tmp_path):
    with pytest.raises(CorpusError, match="not found"):
        list_kb_documents(tmp_path / "nope")


# --- RAG questions -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def questions():
    return load_rag_questions()


def test_rag_counts(questions):
    assert len(questions) >= 40
    assert sum(not q.in_scope for q in questions) >= 8
    assert sum(q.in_scope for q in questions) >= 32
    assert [q.id for q in questions] == [f"q{i:03d}" for i in range(1, len(questions) + 1)]


def test_rag_gold_docs_exist_and_contain_keywords(questions):
    kb = {p.name: _norm(p.read_text(encoding="utf-8")) for p in list_kb_documents()}
    for q in questions:
        for doc in q.gold_docs:
            assert doc in kb, (q.id, doc)
        if q.in_scope:
            assert q.answer_keywords, q.id
            text = " ".join(kb[d] for d in q.gold_docs)
            for kw in q.answer_keywords:
                assert _norm(kw) in text, (q.id, kw)


def test_rag_questions_are_paraphrased_not_copied(questions):
    kb = " ".join(_norm(p.read_text(encoding="utf-8")) for p in list_kb_documents())
    for q in questions:
        assert _norm(q.question).rstrip("?") not in kb, q.id


# --- transcripts ---------------------------------------------------------------------------------


@pytest.fixture(scope="module", params=["transcripts", "unseen"])
def transcripts(request):
    """Both summarizer sets: the first (``t001``...) and the unseen one (``u001``...), held to the same rules."""
    return load_transcripts(request.param)


NUMBER_WORDS = {
    # eng
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "thirteen": 13,
    "fourteen": 14,
    "fifteen": 15,
    "sixteen": 16,
    # fra / deu / spa
    "deux": 2,
    "trois": 3,
    "quatre": 4,
    "cinq": 5,
    "zwei": 2,
    "drei": 3,
    "vier": 4,
    "fünf": 5,
    "dos": 2,
    "tres": 3,
    "cuatro": 4,
    "cinco": 5,
    "sept": 7,
    "huit": 8,
    "neuf": 9,
    "dix": 10,
    "sechs": 6,
    "sieben": 7,
    "acht": 8,
    "neun": 9,
    "zehn": 10,
    "seis": 6,
    "siete": 7,
    "ocho": 8,
    "nueve": 9,
    "diez": 10,
    # swh
    "mbili": 2,
    "tatu": 3,
    "nne": 4,
    "tano": 5,
    "sita": 6,
    "saba": 7,
    "nane": 8,
    "tisa": 9,
    "kumi": 10,
    # cmn
    "两": 2,
    "二": 2,
    "三": 3,
    "四": 4,
    "五": 5,
    "六": 6,
    "七": 7,
    "八": 8,
    "九": 9,
    "十": 10,
}
ALL_WORDS = (
    "everything",
    "whole",
    "conversation",
    "conversación",
    "toute la",
    "gespräch",
    "unterhaltung",
    "yote",
    "全部",
)


def _requested_count(request: str) -> int | None:
    """The N a request asks for (0 = all), read the way a person would; None if unclear."""
    text = request.lower()
    if m := re.search(r"\d+", text):
        return int(m.group())
    for word, n in NUMBER_WORDS.items():
        if re.search(rf"(?<![a-zà-ÿ]){re.escape(word)}(?![a-zà-ÿ])", text) or (CJK.match(word) and word in text):
            return n
    if any(w in text for w in ALL_WORDS):
        return 0
    return None


def test_transcript_counts_and_shape(transcripts):
    assert len(transcripts) >= 44
    prefix = transcripts[0].id[0]
    assert prefix in "tu" and [t.id for t in transcripts] == [
        f"{prefix}{i:03d}" for i in range(1, len(transcripts) + 1)
    ]
    for t in transcripts:
        assert 6 <= len(t.messages) <= 16, t.id
        assert 3 <= len(t.senders) <= 6, t.id
        assert t.gold_count <= len(t.messages), t.id
        assert 1 <= len(re.findall(r"[.!?](?:\s|$)", t.reference_summary)) <= 3, t.id


def test_transcript_gold_count_matches_request(transcripts):
    for t in transcripts:
        assert _requested_count(t.request) == t.gold_count, (t.id, t.request)


def test_transcript_request_variety(transcripts):
    assert sum(t.gold_count == 0 for t in transcripts) >= 4
    assert sum(t.gold_count == len(t.messages) for t in transcripts) >= 2
    assert {t.request_lang for t in transcripts} >= {"eng", "fra", "deu", "spa"}
    assert sum(not re.search(r"\d", t.request) and t.gold_count for t in transcripts) >= 4  # number words
    assert sum("action item" in t.request for t in transcripts) >= 3
    assert sum(not t.gold_action_items for t in transcripts) >= 5


def test_action_item_owners_speak_in_the_window(transcripts):
    for t in transcripts:
        window_senders = {m.sender for m in t.window}
        for item in t.gold_action_items:
            assert item.owner in window_senders | {"all"}, (t.id, item)  # "all": an instruction to everyone
            assert item.task == item.task.strip() and item.task[0].islower(), (t.id, item.task)


def test_some_transcripts_have_action_items_only_before_the_window(transcripts):
    """Windows that cut off earlier action items: a summarizer reading the first N would be wrong."""
    cut = [t for t in transcripts if 0 < t.gold_count < len(t.messages) and not t.gold_action_items]
    assert len(cut) >= 4


def test_transcript_message_languages_are_truthful(transcripts):
    speaker_langs: dict[str, set[str]] = {}
    for t in transcripts:
        for m in t.messages:
            if m.lang == "eng":
                assert m.text == m.text_en, (t.id, m.text)
                continue
            speaker_langs.setdefault(m.sender, set()).add(m.lang)
            assert m.text != m.text_en, (t.id, m.text)
            assert bool(CJK.search(m.text)) == (m.lang == "cmn"), (t.id, m.text)
    # each speaker writes in English or in one other language of their own
    assert all(len(langs) == 1 for langs in speaker_langs.values()), speaker_langs
    assert {next(iter(v)) for v in speaker_langs.values()} >= {"fra", "deu", "spa", "cmn", "swh"}


# --- routing -------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def routing():
    return load_routing_examples()


def test_routing_counts_and_balance(routing):
    assert len(routing) >= 100
    labels = Counter(r.label for r in routing)
    assert set(labels) == set(ROUTING_LABELS)
    assert min(labels.values()) >= 22
    langs = Counter(r.lang for r in routing)
    assert {"eng", "fra", "deu", "spa", "cmn", "swh"} <= set(langs)
    assert 0.4 <= langs["eng"] / len(routing) <= 0.6
    for label in ROUTING_LABELS:  # every label seen in at least four languages
        assert len({r.lang for r in routing if r.label == label}) >= 4, label


def test_routing_english_gloss(routing):
    assert len({r.text for r in routing}) == len(routing)
    for r in routing:
        if r.lang == "eng":
            assert r.text_en == r.text, r.id
        else:
            assert r.text_en != r.text, r.id


# --- workplace -----------------------------------------------------------------------------------

WORKPLACE_FILES = ["eng", "fra", "deu", "spa", "cmn"]


def test_workplace_files_line_aligned():
    eng = load_workplace("eng")
    assert len(eng) >= 60
    for lang in WORKPLACE_FILES:
        lines = load_workplace(lang)
        assert len(lines) == len(eng), lang
        assert all(line == line.strip() for line in lines), lang
        raw = (default_paths()["workplace"] / f"workplace.{lang}.txt").read_bytes()
        assert raw.endswith(b"\n") and b"\r" not in raw and b"\n\n" not in raw
        if lang == "cmn":
            assert all(CJK.search(line) for line in lines)
        elif lang != "eng":
            assert sum(a == b for a, b in zip(lines, eng)) == 0, lang
    assert load_workplace("zh") == load_workplace("cmn")


def test_workplace_doc_ids_group_small_conversations():
    ids = load_workplace_doc_ids()
    assert len(ids) == len(load_workplace("eng"))
    groups = [(key, len(list(run))) for key, run in groupby(ids)]
    assert len({k for k, _ in groups}) == len(groups), "each doc id forms one contiguous block"
    assert all(4 <= n <= 8 for _, n in groups), groups


# --- located errors ------------------------------------------------------------------------------

GOOD_Q = {
    "id": "q001",
    "question": "How long?",
    "gold_docs": ["travel_policy.md"],
    "answer_keywords": ["x"],
    "in_scope": True,
}


def _write(path, rows):
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows), encoding="utf-8")
    return path


def test_malformed_field_is_located(tmp_path):
    bad = dict(GOOD_Q, id="q002", gold_docs="travel_policy.md")
    path = _write(tmp_path / "questions.jsonl", [GOOD_Q, bad])
    with pytest.raises(CorpusError) as info:
        load_rag_questions(path)
    msg = str(info.value)
    assert "questions.jsonl:2: gold_docs:" in msg and "\n" not in msg


@pytest.mark.parametrize(
    "row, where",
    [
        ("{not json", ":1: <json>:"),
        (dict(GOOD_Q, extra="x"), ":1: extra:"),
        (dict(GOOD_Q, in_scope=False), ":1: gold_docs:"),
        (dict(GOOD_Q, id="Q1"), ":1: id:"),
    ],
)
def test_rag_errors_are_located(tmp_path, row, where):
    path = _write(tmp_path / "q.jsonl", [row])
    with pytest.raises(CorpusError, match=re.escape(where)):
        load_rag_questions(path)


def test_duplicate_ids_rejected(tmp_path):
    path = _write(tmp_path / "q.jsonl", [GOOD_Q, GOOD_Q])
    with pytest.raises(CorpusError, match=r"q\.jsonl:2: id: 'q001' already used on line 1"):
        load_rag_questions(path)


def _transcript(**over):
    msgs = [
        {"sender": "kofi", "lang": "eng", "text": "Please send it.", "text_en": "Please send it."},
        {"sender": "lena", "lang": "de", "text": "Ich schicke es.", "text_en": "I'll send it."},
        {"sender": "mei", "lang": "eng", "text": "Thanks.", "text_en": "Thanks."},
    ]
    row = {
        "id": "t001",
        "messages": msgs,
        "request": "summarize the last 2 messages",
        "request_lang": "English",
        "gold_count": 2,
        "gold_action_items": [{"owner": "lena", "task": "send it"}],
        "reference_summary": "Lena sends it.",
    }
    row.update(over)
    return row


def test_transcript_languages_normalised_and_window(tmp_path):
    (t,) = load_transcripts(_write(tmp_path / "t.jsonl", [_transcript()]))
    assert isinstance(t, Transcript)
    assert t.request_lang == "eng" and t.messages[1].lang == "deu"
    assert [m.sender for m in t.window] == ["lena", "mei"]


@pytest.mark.parametrize(
    "over, where",
    [
        ({"gold_count": 4}, ":1: gold_count:"),
        ({"gold_count": 1}, ":1: gold_action_items: owner 'lena'"),
        ({"request_lang": "klingon"}, ":1: request_lang:"),
        (
            {
                "messages": [{"sender": "kofi", "lang": "xx", "text": "a", "text_en": "a"}],
                "gold_count": 0,
                "gold_action_items": [],
            },
            ":1: messages.0.lang:",
        ),
    ],
)
def test_transcript_errors_are_located(tmp_path, over, where):
    path = _write(tmp_path / "t.jsonl", [_transcript(**over)])
    with pytest.raises(CorpusError, match=re.escape(where)):
        load_transcripts(path)


def test_routing_bad_label_is_located(tmp_path):
    row = {"id": "r001", "text": "hi", "lang": "eng", "label": "greet", "text_en": "hi"}
    path = _write(tmp_path / "r.jsonl", [row])
    with pytest.raises(CorpusError, match=r"r\.jsonl:1: label:"):
        load_routing_examples(path)


def test_workplace_empty_line_is_located(tmp_path):
    (tmp_path / "workplace.eng.txt").write_text("one\n\nthree\n", encoding="utf-8")
    with pytest.raises(CorpusError, match=r"workplace\.eng\.txt:2: <line>: empty segment"):
        load_workplace("eng", tmp_path)


def test_missing_file(tmp_path):
    with pytest.raises(CorpusError, match="file not found"):
        load_transcripts(tmp_path / "none.jsonl")
