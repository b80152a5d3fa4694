"""The sentence vectors shipped with the project: read before the cache and the engine, and complete."""

import numpy as np
import pytest

from aya_lab.errors import InputError
from aya_lab.rag import sentence_encoder
from aya_lab.rag.scope import room_texts, write_room_vectors
from aya_lab.rag.sentence_encoder import SentenceEncoder, multilingual_encoder, recorded_name
from aya_lab.rag.vector_record import read_vector_record, shipped_vectors, write_vector_record


def test_a_record_reads_back_and_a_file_that_is_not_one_is_a_one_line_error(tmp_path):
    path = tmp_path / "v.npz"
    write_vector_record(path, {("e:query", "a"): np.ones(3), ("e:passage", "a"): np.zeros(3)})
    assert [p.name for p in tmp_path.iterdir()] == ["v.npz"]  # no temporary file beside it
    record = read_vector_record(path)
    assert sorted(record) == [("e:passage", "a"), ("e:query", "a")] and record["e:query", "a"].dtype == np.float32
    assert read_vector_record(tmp_path / "none.npz") == {}
    (tmp_path / "bad.npz").write_bytes(b"not numpy")
    with pytest.raises(InputError, match=r"bad.npz: not a record of sentence vectors; write it again with `python -m"):
        read_vector_record(tmp_path / "bad.npz")


def test_recorded_vectors_come_from_the_shipped_record_before_the_engine(monkeypatch):
    marked = np.full(multilingual_encoder().dim, 0.5, dtype=np.float32)
    monkeypatch.setattr(sentence_encoder, "shipped_vectors", lambda: {(recorded_name(True), "a text"): marked})
    encoder = SentenceEncoder(threads=1)
    assert np.array_equal(encoder.encode(["a text"], passages=True, recorded=True)[0], marked)
    assert not np.array_equal(encoder.encode(["a text"], passages=True)[0], marked)  # not recorded: the engine's
    assert not np.array_equal(encoder.encode(["a text"], recorded=True)[0], marked)  # a query is another vector


def test_the_shipped_record_holds_every_room_text_as_the_encoder_embeds_it(tmp_path):
    shipped = shipped_vectors()
    expected = {(name, text) for name, texts in room_texts().items() for text in texts}
    assert set(shipped) == expected, "run `python -m aya_lab.rag.scope` after changing the handbook or the pool"
    sample = sorted(expected)[::60]  # both kinds, every language; another CPU rounds a little differently
    encoder = SentenceEncoder(threads=1)
    for name, text in sample:
        live = encoder.encode([text], passages=name == recorded_name(True))[0]
        # another CPU's kernels round differently (the third decimal of a cosine): compare by cosine, which still
        # tells a query from a passage of the same text (0.94-0.98 here) and one text from another
        assert float(live @ shipped[name, text]) > 0.995, text
    assert write_room_vectors(tmp_path / "again.npz") == len(expected)
    again = read_vector_record(tmp_path / "again.npz")
    assert all(np.array_equal(again[k], shipped[k]) for k in expected)
