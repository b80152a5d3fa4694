"""One progress bar for a whole translation sweep: segments of every system x pair x hop, cache hits shown."""

from __future__ import annotations

import io

import pytest
from tqdm.std import tqdm as std_tqdm

import aya_lab.eval.progress as progress
from aya_lab.datasets.parallel import load_parallel
from aya_lab.eval.translation.evaluate import evaluate_translation
from aya_lab.eval.translation.systems import CopySystem, PivotSystem
from aya_lab.models.fake import FakeChatModel
from tests.fakes import ChatModelTranslator, ReferenceSystem

FAST = dict(n_bootstrap=20, n_ar=20, langid=False)


@pytest.fixture
def bars(monkeypatch):
    """Every bar the evaluator opens, rendered into a string buffer instead of stderr."""
    made: list[std_tqdm] = []

    class Captured(std_tqdm):
        def __init__(self, *args, **kwargs):
            kwargs["file"] = io.StringIO()
            kwargs["mininterval"] = 0
            super().__init__(*args, **kwargs)
            made.append(self)

    monkeypatch.delenv("TQDM_DISABLE", raising=False)
    monkeypatch.setattr(progress, "tqdm", Captured)
    return made


def test_one_bar_counts_every_segment_and_shows_cache_hits(mini_data, bars):
    sets = [load_parallel("ntrex128", a, b) for a, b in (("eng", "fra"), ("eng", "swh"), ("swh", "eng"))]
    oracle = ReferenceSystem(sets, name="oracle")
    chat = ChatModelTranslator(FakeChatModel.from_spec("fake:echo"))
    systems = [CopySystem("copy"), chat, PivotSystem(oracle, name="pivot")]
    res = evaluate_translation(systems, "ntrex128", ["eng-fra", "swh-fra"], n=5, chunk_size=2, progress=True, **FAST)
    (bar,) = bars
    # 2 pairs x 5 segments for copy and chat; the pivot takes one hop on eng-fra, three on swh-fra
    assert bar.total == 5 * (2 + 2 + 1 + 3) and bar.n == bar.total and bar.unit == "seg"
    assert bar.postfix == "cache_hits=0, generated=10"
    assert res.meta["generations"] == {"segments": 40, "cache_hits": 0, "generated": 10, "resumed": 0}
    again = evaluate_translation([chat], "ntrex128", ["eng-fra", "swh-fra"], n=5, chunk_size=2, progress=True, **FAST)
    second = bars[1]
    assert second.n == second.total == 10 and second.postfix == "cache_hits=10, generated=0"
    assert "cache_hits=10" in second.fp.getvalue()  # what a terminal shows
    assert again.meta["generations"]["cache_hits"] == 10


def test_resumed_chunks_are_shown_and_no_bar_when_off(mini_data, bars, tmp_path):
    ckpt = tmp_path / "run.jsonl"
    evaluate_translation(
        [CopySystem("copy")], "ntrex128", ["eng-fra"], n=6, chunk_size=4, checkpoint=ckpt, progress=False, **FAST
    )
    assert bars == []  # progress=False: no bar at all
    res = evaluate_translation(
        [CopySystem("copy")], "ntrex128", ["eng-fra"], n=6, chunk_size=4, checkpoint=ckpt, progress=True, **FAST
    )
    assert bars[0].n == 6 and bars[0].postfix == "cache_hits=0, generated=0, resumed=6"
    assert res.meta["generations"]["resumed"] == 6


def test_counter_without_a_bar():
    counter = progress.SweepCounter()
    counter.add(3)
    counter.add(2, resumed=True)
    assert counter.as_dict() == {"segments": 5, "cache_hits": 0, "generated": 0, "resumed": 2}
