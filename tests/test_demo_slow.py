"""The demo, end to end on each role's embedded default model (slow: real Gemma 3 and SmolLM2 generations)."""

import io

import pytest

from aya_lab.demo import SCRIPT, USERS, run_demo
from aya_lab.langid import detect


@pytest.mark.slow
def test_demo_end_to_end_on_the_default_models(tmp_path):
    out = io.StringIO()
    room = run_demo(tmp_path / "demo.sqlite", out=out, max_new_tokens=48)
    try:
        text = out.getvalue()
        assert "translator: model gemma3-270m" in text and "aya: model smollm2" in text
        first = text.splitlines()[:2]  # the engine and its threads, on the first lines
        assert all(" on llama.cpp 0.3.36, " in line and " threads, cpu " in line for line in first), first
        runs = room.runs()
        assert len(runs) == len(SCRIPT)
        for report, (sender, message) in zip(runs, SCRIPT):
            assert report.sender == sender and set(report.delivered) == set(USERS)
            assert report.delivered[sender] == message
            assert (report.aya_reply is not None) == ("@aya" in message)
        assert runs[4].aya_tools == ["summarize", "query"]  # one request, two tools, one reply
        assert runs[4].aya_reply is not None and set(runs[4].aya_reply) == set(USERS)
        assert all(len(room.feed(u)) == len(SCRIPT) + 2 for u in USERS)  # 6 messages + 2 replies
        # Kofi's English line reaches Sophie in French and Lena in German, translated by the default translator;
        # both read English too, so a translation the guard withholds reaches them as the marked original
        for user, lang, name in (("sophie", "fra", "FRENCH"), ("lena", "deu", "GERMAN")):
            got = room.feed(user)[2]
            assert (got.lang == lang and detect(got.text, lang, "eng") == name) or (
                got.lang == "eng" and got.text == f"[eng] {SCRIPT[2][1]}"
            ), got
        assert room.readers == {u: tuple(langs) for u, langs in USERS.items()}
        for user in USERS:
            assert f"--- feed of {user}" in text
    finally:
        room.close()
