"""``aya-lab data synth summarize`` (issue 26, part 3): the committed file is what the command writes, loads as
transcripts, keeps the gold consistent with the messages and the request, and never reuses the evaluation
transcripts, their sentences or their cast."""

from __future__ import annotations

import json
import re
import unicodedata

import pytest

from aya_lab.cli import main
from aya_lab.datasets.project import load_transcripts, normalize_owner
from aya_lab.datasets.synth import synth_transcripts, write_synth
from aya_lab.datasets.synth_phrases import NUMBER_WORDS
from aya_lab.paths import project_root

SYNTH = project_root() / "data" / "synth" / "summarize.jsonl"
EVAL = [project_root() / "data" / "transcripts" / name for name in ("transcripts.jsonl", "unseen.jsonl")]
CJK = re.compile(r"[\u4e00-\u9fff]")


@pytest.fixture(scope="module")
def synth():
    return load_transcripts(SYNTH)


@pytest.fixture(scope="module")
def evaluation():
    return [t for path in EVAL for t in load_transcripts(path)]


def _pieces(text: str) -> set[str]:
    """Sentences (split at . ! ? and the CJK marks, also inside a line), lower-cased, punctuation dropped."""
    text = unicodedata.normalize("NFKC", text).lower()
    parts = re.split(r"[.!?。！？]+", text)
    return {" ".join(re.sub(r"[^\w\s]", " ", p).split()) for p in parts} - {""}


def test_the_committed_file_is_what_the_command_writes(tmp_path):
    assert SYNTH.read_bytes() == write_synth(tmp_path / "s.jsonl", n=300, seed=0).read_bytes()
    assert synth_transcripts(3, seed=1) == synth_transcripts(3, seed=1) != synth_transcripts(3, seed=2)


def test_the_cli_writes_the_file(tmp_path, capsys):
    out = tmp_path / "sub" / "s.jsonl"
    assert main(["data", "synth", "summarize", "--out", str(out), "--n", "4", "--seed", "3"]) == 0
    assert "wrote 4 transcripts (seed 3)" in capsys.readouterr().out
    assert [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()] == synth_transcripts(4, 3)
    assert main(["data", "synth", "summarize", "--out", str(out), "--n", "0"]) == 2
    assert capsys.readouterr().err.strip() == "error: n must be a positive number of transcripts, got 0"


def test_no_sentence_of_the_evaluation_transcripts_is_reused(synth, evaluation):
    def texts(ts):
        for t in ts:
            yield t.request
            yield t.reference_summary or ""
            for m in t.messages:
                yield m.text
                yield m.text_en or ""

    theirs = set().union(*(_pieces(x) for x in texts(evaluation)))
    ours = set().union(*(_pieces(x) for x in texts(synth)))
    assert len(ours) > 1000 and len(theirs) > 500
    assert ours.isdisjoint(theirs), sorted(ours & theirs)[:10]
    their_messages = {m.text for t in evaluation for m in t.messages}
    assert not any(m.text in their_messages for t in synth for m in t.messages)
    assert {m.sender for t in synth for m in t.messages}.isdisjoint({m.sender for t in evaluation for m in t.messages})


def test_the_generator_reads_no_evaluation_data(monkeypatch):
    import aya_lab.datasets.project as project

    def refuse(*args, **kwargs):
        raise AssertionError("the generator read evaluation transcripts")

    monkeypatch.setattr(project, "load_transcripts", refuse)
    monkeypatch.setattr(project, "default_paths", refuse)
    assert len(synth_transcripts(3, seed=0)) == 3


def test_a_forbidden_sentence_is_drawn_again():
    first = synth_transcripts(2, seed=5, forbidden=set())
    sentence = first[0]["messages"][0]["text_en"]
    again = synth_transcripts(2, seed=5, forbidden={" ".join(re.sub(r"[^\w\s]", " ", sentence.lower()).split())})
    assert all(m["text_en"] != sentence for r in again for m in r["messages"])


def test_shape_and_languages(synth):
    assert len(synth) == 300 and len({t.id for t in synth}) == 300
    for t in synth:
        assert 6 <= len(t.messages) <= 16 and t.reference_summary
        for m in t.messages:
            assert (m.text == m.text_en) == (m.lang == "eng"), (t.id, m.text)
            assert bool(CJK.search(m.text)) == (m.lang == "cmn"), (t.id, m.text)
    assert {t.request_lang for t in synth} == {"eng", "deu", "fra", "spa", "swh", "cmn"}
    assert {m.lang for t in synth for m in t.messages} == {"eng", "deu", "fra", "spa", "swh", "cmn"}


def test_the_request_names_the_gold_count(synth):
    for t in synth:
        n = t.gold_count
        if n == 0:
            assert not re.search(r"\d", t.request), t.request
            continue
        word = NUMBER_WORDS[t.request_lang][n - 2] if n <= 10 else None
        assert str(n) in re.findall(r"\d+", t.request) or (word and word in t.request), (t.id, t.request, n)
    assert sum(t.gold_count == 0 for t in synth) >= 30
    assert sum(t.gold_count and not re.search(r"\d", t.request) for t in synth) >= 30  # number words


def test_gold_items_lie_in_the_window_and_belong_to_their_speakers(synth):
    for t in synth:
        window = {normalize_owner(m.sender) for m in t.window}
        for item in t.gold_action_items:
            assert normalize_owner(item.owner) in window | {"all"}, (t.id, item)
            owner = "Everyone" if item.owner == "all" else item.owner.capitalize()
            assert f"{owner} will {item.task}" in (t.reference_summary or ""), (t.id, item)
    cut = [t for t in synth if 0 < t.gold_count < len(t.messages) and not t.gold_action_items]
    assert len(cut) >= 10  # windows that leave earlier action items out
