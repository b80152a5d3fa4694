"""evaluate_translation end to end with fake systems: rows, pivot hops, context, resuming, costs."""

from __future__ import annotations

import math

import pytest

from aya_lab.datasets.parallel import load_parallel
from aya_lab.eval.translation.evaluate import evaluate_translation
from aya_lab.eval.translation.results import COLUMNS
from aya_lab.eval.translation.specs import SystemSpecError, register_system_kind
from aya_lab.eval.translation.systems import CopySystem, PivotSystem, resolve_system
from aya_lab.models.fake import FakeChatModel, FakeModelError
from tests.fakes import ChatModelTranslator, ReferenceSystem

FAST = dict(n_bootstrap=100, n_ar=100, progress=False)


def _sets(*pairs):
    return [load_parallel("ntrex128", a, b) for a, b in pairs]


def test_tidy_rows_significance_and_language_check(mini_data):
    sets = _sets(("eng", "swh"), ("eng", "yor"))
    res = evaluate_translation(
        [CopySystem("echo"), ReferenceSystem(sets, name="oracle"), ReferenceSystem(sets, name="noisy", noise=0.3)],
        "ntrex128",
        "eng-swh,eng-yor",
        resample="segment",  # 12 segments in 3 documents: a document-level test cannot reach p < 0.05
        **FAST,
    )
    df = res.df
    assert list(df.columns) == COLUMNS
    assert set(df["pair"]) == {"eng-swh", "eng-yor", "pooled"}
    assert set(df["hop"]) == {"e2e"}
    row = df[(df.system == "oracle") & (df.pair == "eng-swh") & (df.metric == "chrF")].iloc[0]
    assert row.score == pytest.approx(100.0) and row.significant and row.p_ar < 0.05
    assert row.dataset_id == "ntrex128:eng-swh:test" and row.model_fingerprint == "fake-oracle-0.0"
    assert row.n == 12 and row.sacrebleu_signature.startswith("nrefs:1|bs:100")
    base = df[(df.system == "echo") & (df.metric == "BLEU")]
    assert base["p_bootstrap"].isna().all() and not base["significant"].any()
    share = df[(df.metric == "target_lang_share") & (df.pair == "eng-swh")].set_index("system")["score"]
    assert share["echo"] == 0.0 and share["oracle"] == 1.0
    echo = df[(df.metric == "echo_share") & (df.pair == "eng-yor")].set_index("system")["score"]
    assert echo["echo"] == 1.0 and echo["oracle"] == 0.0
    pooled = df[(df.pair == "pooled") & (df.system == "oracle") & (df.metric == "BLEU")].iloc[0]
    assert pooled.n == 24 and pooled.significant
    assert len(res.items) == 3 * 2 * 12


def test_identical_system_is_not_significant(mini_data):
    res = evaluate_translation([CopySystem("a"), CopySystem("b")], "ntrex128", ["eng-fra"], **FAST)
    b = res.df[(res.df.system == "b") & res.df.metric.isin(["BLEU", "chrF", "chrF++"])]
    assert (b["p_bootstrap"] == 1.0).all() and not b["significant"].any()


def test_pivot_reports_per_hop_scores(mini_data):
    sets = _sets(("swh", "yor"), ("swh", "eng"), ("eng", "yor"))
    oracle = ReferenceSystem(sets, name="oracle")
    res = evaluate_translation([oracle, PivotSystem(oracle, name="pivot")], "ntrex128", ["swh-yor"], **FAST)
    chrf = res.df[(res.df.metric == "chrF") & (res.df.system == "pivot")].set_index("hop")["score"]
    assert set(chrf.index) == {"e2e", "src-pivot", "pivot-tgt"}
    assert chrf["src-pivot"] == pytest.approx(100) and chrf["pivot-tgt"] == pytest.approx(100)
    assert chrf["e2e"] == pytest.approx(100)
    hop1 = res.items[(res.items.system == "pivot") & (res.items.hop == "src-pivot")]
    assert list(hop1["reference"]) == sets[1].references  # scored against the English side
    # PivotSystem.translate gives the same end-to-end output as the evaluator's hops
    direct = PivotSystem(oracle).translate(sets[0].sources, "swh", "yor", context=sets[0].contexts())
    assert direct == list(res.items[(res.items.system == "pivot") & (res.items.hop == "e2e")]["hypothesis"])


def test_context_comes_from_document_ids(mini_data):
    sets = _sets(("eng", "swh"))
    system = ReferenceSystem(sets)
    evaluate_translation([system], "ntrex128", ["eng-swh"], chunk_size=4, **FAST)
    assert system.calls == 3
    assert system.seen_context[0] == [] and system.seen_context[4] == sets[0].sources[:4]
    assert system.seen_context[5] == []  # doc.b starts at segment 5


def test_killed_run_resumes_from_checkpoint(mini_data, tmp_path):
    sets = _sets(("eng", "swh"))
    ckpt = tmp_path / "run.partial.jsonl"
    flaky = ReferenceSystem(sets, name="sys", fail_after=2)
    with pytest.raises(FakeModelError):
        evaluate_translation([flaky], "ntrex128", ["eng-swh"], chunk_size=4, checkpoint=ckpt, **FAST)
    again = ReferenceSystem(sets, name="sys")
    res = evaluate_translation([again], "ntrex128", ["eng-swh"], chunk_size=4, checkpoint=ckpt, **FAST)
    assert again.calls == 1  # only the missing chunk
    assert res.df[(res.df.metric == "chrF")]["score"].iloc[0] == pytest.approx(100)


def test_llm_calls_and_tokens_are_counted(mini_data):
    model = FakeChatModel.from_spec("fake:echo")
    res = evaluate_translation([ChatModelTranslator(model)], "ntrex128", ["eng-fra"], n=5, **FAST)
    calls = res.df[res.df.metric == "llm_calls"]["score"].iloc[0]
    tokens = res.df[res.df.metric == "completion_tokens"]["score"].iloc[0]
    assert calls == 5 and tokens == sum(len(s.split()) for s in load_parallel("ntrex128", "eng", "fra", n=5).sources)


def test_bad_input_is_one_clear_line(mini_data):
    with pytest.raises(ValueError, match="at least one system"):
        evaluate_translation([], "ntrex128", ["eng-swh"])
    with pytest.raises(ValueError, match="unique; repeated: echo"):
        evaluate_translation([CopySystem("echo"), CopySystem("echo")], "ntrex128", ["eng-swh"])
    with pytest.raises(ValueError, match="baseline 'x'"):
        evaluate_translation([CopySystem("echo")], "ntrex128", ["eng-swh"], baseline="x")
    with pytest.raises(ValueError, match="available: "):
        evaluate_translation([CopySystem("echo")], "mafand", ["eng-yor"])


def test_system_specs_resolve_through_the_registry(mini_data):
    assert isinstance(resolve_system("copy"), CopySystem)
    named = resolve_system("floor=copy")
    assert named.name == "floor"
    piv = resolve_system("pivot:copy")
    assert isinstance(piv, PivotSystem) and piv.name == "pivot(copy)"
    with pytest.raises(
        SystemSpecError, match="unknown system 'nope:x'; valid systems: copy, other-sentence.*gemma3-270m"
    ):
        resolve_system("nope:x")
    register_system_kind("test-echo", lambda rest: CopySystem(rest or "echo"), replace=True)
    res = evaluate_translation(["test-echo:e1", "copy"], "ntrex128", "eng-swh", n=3, **FAST)
    assert res.systems == ["e1", "copy"]
    assert not math.isnan(res.df[res.df.metric == "BLEU"]["score"].iloc[0])
