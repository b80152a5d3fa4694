"""Our scores are sacrebleu's own; p-values behave; tokenizers and reliability follow the language."""

from __future__ import annotations

import pytest
from conftest import ENG, FRA, SWA
from hypothesis import given, settings
from hypothesis import strategies as st
from sacrebleu.metrics import BLEU, CHRF

from aya_lab.eval.metrics import bleu_reliable, bleu_tokenizer, score_corpus
from aya_lab.eval.resampling import analyse_group, units_for
from aya_lab.langid import echo_share, target_share

REFS = SWA * 3
HYPS = [" ".join(s.split()[: max(1, len(s.split()) - 2)]) for s in REFS]


def test_scores_equal_sacrebleu_own():
    ours = score_corpus(HYPS, REFS, "swh", n_bootstrap=200)
    assert ours["BLEU"].score == pytest.approx(BLEU().corpus_score(HYPS, [REFS]).score, abs=1e-9)
    assert ours["chrF"].score == pytest.approx(CHRF().corpus_score(HYPS, [REFS]).score, abs=1e-9)
    assert ours["chrF++"].score == pytest.approx(CHRF(word_order=2).corpus_score(HYPS, [REFS]).score, abs=1e-9)
    for s in ours.values():
        assert s.ci_low <= s.score + 1.0 and s.score - 1.0 <= s.ci_high and s.ci_low <= s.ci_high
    assert ours["BLEU"].signature.startswith("nrefs:1|bs:200|seed:12345|case:mixed|eff:no|tok:13a")
    assert "nw:2" in ours["chrF++"].signature and "nw:0" in ours["chrF"].signature


@settings(max_examples=15, deadline=None)
@given(st.lists(st.sampled_from(ENG + FRA + SWA + ["", "a", "..."]), min_size=1, max_size=8))
def test_scores_equal_sacrebleu_on_any_outputs(hyps):
    refs = (SWA * 2)[: len(hyps)]
    ours = score_corpus(hyps, refs, "swh", n_bootstrap=1)
    assert ours["BLEU"].score == BLEU().corpus_score(hyps, [refs]).score
    assert ours["chrF"].score == CHRF().corpus_score(hyps, [refs]).score


def test_bleu_tokenizer_and_reliability_by_target():
    assert bleu_tokenizer("zh") == "zh" and bleu_reliable("cmn")
    assert bleu_tokenizer("Khmer") == "char" and not bleu_reliable("khm")
    assert not bleu_reliable("lao") and not bleu_reliable("tha")
    assert bleu_tokenizer("swh") == "13a" and bleu_reliable("swh")
    ours = score_corpus(["我们明天开会"], ["我们明天开会。"], "cmn", n_bootstrap=1)
    assert "tok:zh" in ours["BLEU"].signature
    assert ours["BLEU"].score == BLEU(tokenize="zh").corpus_score(["我们明天开会"], [["我们明天开会。"]]).score


def test_identical_systems_are_not_significant_and_copying_references_is():
    hyps = {"base": HYPS, "same": list(HYPS), "oracle": list(REFS)}
    _, tests = analyse_group(hyps, REFS, "swh", units_for(None, len(REFS)), baseline="base", n_bootstrap=200, n_ar=200)
    for metric in ("BLEU", "chrF", "chrF++"):
        assert (tests[("same", metric)]["p_bootstrap"], tests[("same", metric)]["p_ar"]) == (1.0, 1.0)
        assert tests[("oracle", metric)]["p_bootstrap"] < 0.05
        assert tests[("oracle", metric)]["p_ar"] < 0.05


def test_chrf_bootstrap_with_zero_scores_does_not_crash():
    # sacrebleu 2.6 mixes float and float32 here; the wrapper recovers with sacrebleu's own CI
    hyps = ["नेपाली"] * 20
    refs = ENG[:10] * 2
    out = score_corpus(hyps, refs, "eng", n_bootstrap=100)
    assert out["chrF"].score == CHRF().corpus_score(hyps, [refs]).score


def test_output_language_check():
    assert target_share(SWA, "swh", src="eng") == 1.0
    assert target_share(ENG, "swh", src="eng") == 0.0
    assert target_share(SWA, "hau") is None  # lingua does not cover Hausa: n/a
    assert echo_share(ENG, ENG) == 1.0
    assert echo_share(SWA, ENG) == 0.0
