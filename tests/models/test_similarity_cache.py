"""The generation cache keeps the encoder's similarity scores: recorded in readwrite mode, read back in
replay mode (which computes a miss but writes nothing), so a replayed notebook gives the recorded score."""

from __future__ import annotations

import sqlite3

import numpy as np

from aya_lab.models.cache import GenerationCache

PAIRS = [("Hello", "Bonjour"), ("the budget is due", "le budget est dû")]


def test_recorded_scores_come_back_by_position_and_misses_stay_out(tmp_path):
    path = tmp_path / "g.sqlite"
    cache = GenerationCache(path, mode="readwrite")
    assert cache.get_similarities("enc", PAIRS) == {}  # no table yet
    cache.put_similarities("enc", PAIRS[:1], [0.8125])
    assert cache.get_similarities("enc", PAIRS) == {0: 0.8125}
    assert cache.get_similarities("other-encoder", PAIRS) == {}  # the encoder is part of the key
    assert cache.get_similarities("enc", [PAIRS[0][::-1]]) == {}  # order matters: source, then output
    cache.close()
    replay = GenerationCache(path, mode="replay")
    replay.put_similarities("enc", PAIRS[1:], [0.5])  # replay never writes
    assert replay.get_similarities("enc", PAIRS) == {0: 0.8125}
    replay.close()
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT COUNT(*) FROM similarities").fetchone()[0] == 1


def test_the_guard_reads_a_recorded_score_instead_of_encoding(tmp_path, monkeypatch):
    from aya_lab.agents import faithfulness
    from aya_lab.models import cache as cache_module
    from aya_lab.rag.sentence_encoder import ENCODER_NAME

    recorded = GenerationCache(tmp_path / "g.sqlite", mode="readwrite")
    recorded.put_similarities(ENCODER_NAME, PAIRS, [0.25, 0.75])
    monkeypatch.setattr(cache_module, "get_default_cache", lambda: recorded)
    monkeypatch.setattr(faithfulness, "get_default_cache", lambda: recorded)
    monkeypatch.setattr(faithfulness, "similarity", lambda a, b: (_ for _ in ()).throw(AssertionError("encoded")))
    scores = faithfulness.faithfulness_scores([" Hello", "the budget is due"], ["Bonjour ", "le budget est dû"])
    assert np.array_equal(scores, [0.25, 0.75])  # texts are stripped before the lookup, as before the encoder
