"""The two floors (copy, other-sentence) and the echo check that also catches copied few-shot examples."""

from __future__ import annotations

import pytest

from aya_lab.datasets.parallel import load_parallel
from aya_lab.eval.translation.evaluate import evaluate_translation
from aya_lab.eval.translation.scoring import echo_flags, echo_shares, pool_sentences
from aya_lab.eval.translation.specs import SystemSpecError
from aya_lab.eval.translation.systems import CopySystem, ShuffledReferenceSystem, resolve_system
from aya_lab.prompts import load_pool
from tests.fakes import ReferenceSystem

FAST = dict(n_bootstrap=50, n_ar=50, progress=False)
POOL_SWH = load_pool("translations")[0]["swh"]  # "Printa ya ghorofa ya pili imeishiwa karatasi tena."


class ExampleParrot:
    """A fake system that answers every segment with one of the few-shot pool's examples."""

    name = "parrot"

    def translate(self, texts, src, tgt, *, context=None):
        return [POOL_SWH for _ in texts]

    def signature(self):
        return {"model_fingerprint": "fake-parrot", "prompt_hash": "-", "graph_spec_hash": "-"}


def _outputs(res, system):
    return res.items[(res.items.system == system) & (res.items.hop == "e2e")]


def test_other_sentence_floor_is_a_derangement_of_the_pairs_references(mini_data):
    ds = load_parallel("ntrex128", "eng", "swh")
    res = evaluate_translation(["other-sentence", "copy"], "ntrex128", ["eng-swh", "eng-fra"], chunk_size=5, **FAST)
    for pair in ("eng-swh", "eng-fra"):
        out = _outputs(res, "other-sentence")
        out = out[out.pair == pair]
        hyps, refs = list(out.hypothesis), list(out.reference)
        assert all(h != r for h, r in zip(hyps, refs))  # never its own reference
        assert sorted(hyps) == sorted(refs)  # a permutation: every reference used once, same language
    # the same outputs whatever the chunking, and from run to run (fixed seed)
    again = evaluate_translation(["other-sentence"], "ntrex128", ["eng-swh"], chunk_size=64, **FAST)
    assert list(_outputs(again, "other-sentence").hypothesis) == list(
        _outputs(res, "other-sentence").query("pair == 'eng-swh'").hypothesis
    )
    other_seed = ShuffledReferenceSystem(seed=1)
    other_seed.use_references("eng", "swh", ds.sources, ds.references)
    assert other_seed.translate(ds.sources, "eng", "swh") != list(_outputs(again, "other-sentence").hypothesis)
    lang = res.df[(res.df.metric == "target_lang_share") & (res.df.pair == "eng-swh")].set_index("system")["score"]
    assert lang["other-sentence"] == 1.0 and lang["copy"] == 0.0  # it writes the language ...
    chrf = res.df[(res.df.metric == "chrF") & (res.df.pair == "eng-swh")].set_index("system")["score"]
    assert chrf["other-sentence"] < 40  # ... without translating


def test_floor_signatures_and_spec():
    floor = resolve_system("other-sentence")
    assert isinstance(floor, ShuffledReferenceSystem) and floor.name == "other-sentence" and floor.floor
    assert floor.signature()["model_fingerprint"] == "floor:other-sentence(seed=0)"
    assert resolve_system("other-sentence:7").signature()["model_fingerprint"] == "floor:other-sentence(seed=7)"
    assert resolve_system("shuffled=other-sentence").name == "shuffled"
    assert CopySystem().floor and CopySystem().signature()["model_fingerprint"] == "copy-source"
    with pytest.raises(SystemSpecError, match="numeric seed.*'x'"):
        resolve_system("other-sentence:x")


def test_other_sentence_bad_input_is_one_line():
    floor = ShuffledReferenceSystem()
    with pytest.raises(ValueError, match="no references for eng-swh; run it through evaluate_translation"):
        floor.translate(["a"], "eng", "swh")
    with pytest.raises(ValueError, match="at least two different references for eng-swh, got 1"):
        floor.use_references("eng", "swh", ["a", "b"], ["x", "x"])
    floor.use_references("eng", "swh", ["a", "b"], ["x", "y"])
    assert floor.translate(["b", "a"], "eng", "swh") == ["x", "y"]
    with pytest.raises(ValueError, match="source 'c' is not in the eng-swh references"):
        floor.translate(["c"], "eng", "swh")


def test_echo_of_a_fewshot_example_is_counted_apart_from_echo_of_the_source(mini_data):
    sets = [load_parallel("ntrex128", "eng", "swh")]
    res = evaluate_translation(
        [CopySystem("copy"), ExampleParrot(), ReferenceSystem(sets, name="oracle")], "ntrex128", ["eng-swh"], **FAST
    )
    df = res.df[res.df.pair == "eng-swh"]
    share = {
        m: df[df.metric == m].set_index("system")["score"]
        for m in ("echo_share", "echo_source_share", "echo_example_share")
    }
    assert share["echo_example_share"]["parrot"] == 1.0 and share["echo_source_share"]["parrot"] == 0.0
    assert share["echo_source_share"]["copy"] == 1.0 and share["echo_example_share"]["copy"] == 0.0
    assert share["echo_share"]["parrot"] == 1.0 and share["echo_share"]["copy"] == 1.0
    assert share["echo_share"]["oracle"] == 0.0  # real translations are not taken for examples


def test_echo_flags_near_copies_and_languages():
    assert POOL_SWH in pool_sentences("eng", "swh")
    assert pool_sentences("eng", "hau") and not any("Printa" in s for s in pool_sentences("eng", "hau"))
    assert pool_sentences("hau", "yor") == []  # no example in either language: nothing to copy
    near = "printa ya ghorofa ya pili imeishiwa karatasi tena"  # case and final stop changed
    english_example = load_pool("translations")[0]["eng"]
    flags = echo_flags([near, english_example, "Habari za asubuhi", ""], ["a b c"] * 4, "eng", "swh")
    assert flags == [(False, True), (False, True), (False, False), (False, False)]
    shares = echo_shares(["same text here", POOL_SWH], ["same text here", "x"], "eng", "swh")
    assert shares == {"echo_share": 1.0, "echo_source_share": 0.5, "echo_example_share": 0.5}
    with pytest.raises(ValueError, match="2 outputs but 1 sources"):
        echo_flags(["a", "b"], ["a"], "eng", "swh")
