"""Document-level (cluster) bootstrap, its equality with sacrebleu's on segments, and Holm's correction."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sacrebleu.metrics import BLEU, CHRF
from sacrebleu.significance import PairedTest

from aya_lab.datasets.parallel import load_parallel
from aya_lab.errors import InputError
from aya_lab.eval.metrics import METRICS, make_metrics, score_corpus, scores_from_stats
from aya_lab.eval.report import Report
from aya_lab.eval.resampling import (
    analyse_group,
    bootstrap_indices,
    cluster_bootstrap_counts,
    exact_floor,
    family,
    holm,
    holm_column,
    mean_ci,
    paired_bootstrap,
    paired_equivalence,
    percentile_ci,
    percentile_p,
    units_for,
)
from aya_lab.eval.translation.evaluate import evaluate_translation
from aya_lab.eval.translation.systems import CopySystem
from aya_lab.langid import ECHO_CHRF, echoes
from aya_lab.sentence_chrf import SentenceChrF
from tests.eval.conftest import ENG, FRA, SWA
from tests.fakes import ReferenceSystem

FAST = dict(n_bootstrap=200, n_ar=200, progress=False)
NOISY = [" ".join(w for k, w in enumerate(s.split()) if k % 3) for s in SWA]  # every third word dropped
TWO_DOCS = ["d1"] * 7 + ["d2"] * 5


def test_cluster_counts_draw_whole_documents():
    counts = cluster_bootstrap_counts(2, 300, seed=3)  # two documents
    assert counts.shape == (300, 2) and (counts.sum(axis=1) == 2).all()  # as many documents as the set has
    assert {tuple(row) for row in counts.tolist()} == {(2, 0), (1, 1), (0, 2)}
    assert np.array_equal(cluster_bootstrap_counts(2, 300, seed=3), counts)  # seeded
    seg = cluster_bootstrap_counts(8, 20)  # segments as units: the plain segment bootstrap
    assert seg.shape == (20, 8) and (seg.sum(axis=1) == 8).all()


def test_document_bootstrap_gives_another_ci_than_the_segment_bootstrap():
    by_doc = units_for(TWO_DOCS, 12)
    by_seg = units_for(None, 12)
    assert (by_doc.kind, by_doc.n_units) == ("document", 2) and (by_seg.kind, by_seg.n_units) == ("segment", 12)
    hyps = {"copy": ENG, "noisy": NOISY}
    doc_scores, doc_tests = analyse_group(hyps, SWA, "swh", by_doc, baseline="copy", n_bootstrap=300, n_ar=300)
    seg_scores, seg_tests = analyse_group(hyps, SWA, "swh", by_seg, baseline="copy", n_bootstrap=300, n_ar=300)
    d, s = doc_scores["noisy"]["chrF"], seg_scores["noisy"]["chrF"]
    assert d.score == s.score  # the point estimate does not depend on the resampling unit
    assert (d.ci_low, d.ci_high) != (s.ci_low, s.ci_high)
    # two documents: three distinct resampled corpora (d1+d1, d1+d2, d2+d2), so the bounds are among their scores
    possible = [CHRF().corpus_score(NOISY[a:b], [SWA[a:b]]).score for a, b in ((0, 7), (0, 12), (7, 12))]
    assert min(abs(d.ci_low - x) for x in possible) < 1e-3 and min(abs(d.ci_high - x) for x in possible) < 1e-3
    # with 2 units approximate randomisation has only 4 distinct swaps: p cannot go below ~1/4
    assert doc_tests[("noisy", "chrF")]["p_ar"] > 0.2 and seg_tests[("noisy", "chrF")]["p_ar"] < 0.01
    t = doc_tests[("noisy", "chrF")]
    assert t["delta_low"] <= t["delta"] <= t["delta_high"] and t["delta"] == pytest.approx(
        d.score - doc_scores["copy"]["chrF"].score
    )


def sacrebleu_paired(hyps: dict[str, list[str]], test_type: str, n: int) -> dict[tuple[str, str], float]:
    """sacrebleu's own PairedTest of every system after the first against the first: p per (system, metric)."""
    test = PairedTest(list(hyps.items()), make_metrics("swh"), [SWA], test_type=test_type, n_samples=n)
    _, table = test()
    columns = [c for c in table if c != "System"]  # in METRICS order, under sacrebleu's names
    return {(s, m): r.p_value for m, c in zip(METRICS, columns) for s, r in zip(table["System"][1:], table[c][1:])}


def test_segment_units_reproduce_sacrebleu_exactly():
    hyps = {"base": ENG, "noisy": NOISY, "other": FRA}
    scores, tests = analyse_group(hyps, SWA, "swh", units_for(None, 12), baseline="base", n_bootstrap=150, n_ar=150)
    ar = sacrebleu_paired(hyps, "ar", 150)
    assert len(ar) == 6
    for key in ar:
        assert tests[key]["p_ar"] == ar[key]
        t = tests[key]  # the bootstrap p is read off the same resamples as the delta's CI: they agree
        assert (t["p_bootstrap"] < 0.05) == (t["delta_low"] > 0 or t["delta_high"] < 0)
    corpus = score_corpus(NOISY, SWA, "swh", n_bootstrap=150)
    for metric in METRICS:
        assert scores["noisy"][metric] == corpus[metric]  # score, CI bounds, signature, reliable


def test_evaluation_records_the_resampled_unit(mini_data):
    sets = [load_parallel("ntrex128", "eng", "swh"), load_parallel("mafand", "eng", "swh")]
    res = evaluate_translation(
        [CopySystem("copy"), ReferenceSystem(sets, name="oracle")], ["ntrex128", "mafand"], ["eng-swh"], **FAST
    )
    chrf = res.df[(res.df.metric == "chrF") & (res.df.system == "oracle")].set_index("dataset_id")
    assert chrf.loc["ntrex128:eng-swh:test", ["resample_unit", "n_units"]].tolist() == ["document", 3]
    assert chrf.loc["mafand:eng-swh:test", ["resample_unit", "n_units"]].tolist() == ["block of 5", 3]  # 12 = 5+5+2
    assert chrf["few_units"].all()  # 3 units each: far too few for a trustworthy interval, and flagged
    pooled = res.df[(res.df.pair == "pooled") & (res.df.metric == "chrF")].iloc[0]
    assert (pooled.resample_unit, pooled.n_units) == ("document+block of 5", 6)
    out = res.items[(res.items.system == "oracle") & (res.items.dataset_id == "ntrex128:eng-swh:test")]
    assert list(out.doc_id) == ["doc.a"] * 5 + ["doc.b"] * 4 + ["doc.c"] * 3


def test_pooled_pairs_of_one_source_text_resample_its_documents_once(mini_data):
    res = evaluate_translation([CopySystem("copy"), CopySystem("copy2")], ["ntrex128"], ["eng-swh", "eng-fra"], **FAST)
    pooled = res.df[(res.df.pair == "pooled") & (res.df.metric == "chrF")].iloc[0]
    # the same three English documents translated into two languages: three units, not six
    assert (pooled.resample_unit, pooled.n_units) == ("document", 3)
    into_english = evaluate_translation(
        [CopySystem("copy"), CopySystem("copy2")], ["ntrex128"], ["swh-eng", "fra-eng"], **FAST
    )
    pooled = into_english.df[(into_english.df.pair == "pooled") & (into_english.df.metric == "chrF")].iloc[0]
    assert pooled.n_units == 3  # a multi-parallel set: the same documents, and one English reference


def test_holm_by_hand():
    assert holm([0.01, 0.04, 0.03, 0.005]).tolist() == pytest.approx([0.03, 0.06, 0.06, 0.02])
    got = holm([float("nan"), 0.5, 0.01])
    assert np.isnan(got[0]) and got[1:].tolist() == pytest.approx([0.5, 0.02])
    assert holm([0.3, 0.9]).tolist() == pytest.approx([0.6, 0.9]) and holm([]).size == 0
    assert holm([0.6, 0.7]).tolist() == [1.0, 1.0]  # capped at 1


def test_holm_matches_statsmodels():
    multitest = pytest.importorskip("statsmodels.stats.multitest")
    p = np.random.default_rng(0).uniform(0, 0.2, size=9)
    assert holm(p) == pytest.approx(multitest.multipletests(p, method="holm")[1])


def test_results_adjust_each_comparison_across_pairs(mini_data, tmp_path):
    sets = [load_parallel("ntrex128", "eng", t) for t in ("swh", "fra", "yor")]
    res = evaluate_translation(
        [CopySystem("copy"), ReferenceSystem(sets, name="oracle"), ReferenceSystem(sets, name="noisy", noise=0.3)],
        "ntrex128",
        ["eng-swh", "eng-fra", "eng-yor"],
        **FAST,
    )
    for system in ("oracle", "noisy"):
        table = res.select(metric="chrF", hop="e2e")[lambda d: d.system != res.baseline].query(
            f"system == '{system}' and pair != 'pooled'"
        )
        raw = np.maximum(table["p_bootstrap"], table["p_ar"])
        assert table["p_holm"].tolist() == pytest.approx(holm(raw).tolist())
        assert (table["p_holm"] >= raw).all() and (table["significant_holm"] == (table["p_holm"] < 0.05)).all()
    assert res.df[res.df.pair == "pooled"]["p_holm"].isna().all()
    assert res.df[res.df.system == "copy"]["p_holm"].isna().all()  # the baseline is not tested
    back = Report.load(res.save(tmp_path / "r.csv"))
    cols = ["p_holm", "significant_holm", "resample_unit", "n_units", "delta_low"]
    assert back.df[cols].astype(str).equals(res.df[cols].astype(str))
    assert list(back.items["doc_id"]) == list(res.items["doc_id"])


def test_percentile_p_is_below_alpha_exactly_when_the_percentile_ci_excludes_zero():
    rng = np.random.default_rng(7)
    for _ in range(3000):
        size = int(rng.integers(20, 1500))
        samples = rng.normal(rng.normal(0, 0.3), 0.1, size)
        if rng.random() < 0.3:
            samples = np.round(samples, 1)  # ties, and samples exactly at 0
        low, high = percentile_ci(samples)
        assert (percentile_p(samples) < 0.05) == (low > 0 or high < 0)
    assert percentile_p(np.zeros(50)) == 1.0  # identical systems
    assert percentile_p(np.ones(999)) == pytest.approx(1 / 1000)  # every resample on one side: the floor
    assert percentile_p(np.linspace(-1, 1, 1001)) == 1.0
    assert np.isnan(percentile_p(np.array([])))


def test_holm_column_refuses_a_p_value_that_disagrees_with_its_interval():
    table = pd.DataFrame({"metric": ["m"], "delta": [0.1], "ci_low": [-0.02], "ci_high": [0.2], "p": [0.02]})
    with pytest.raises(AssertionError, match="holds 0"):
        holm_column(table)
    assert holm_column(table.assign(p=0.2))["p_holm"].tolist() == [0.2]


def test_family_adjusts_every_test_of_a_notebook_together():
    a = pd.DataFrame({"metric": ["x", "y"], "p": [0.01, 0.04]})
    b = pd.DataFrame({"metric": ["z"], "p": [0.02], "extra": [1]})
    out = family({"first": a, "second": b})
    assert out["test"].tolist() == ["first", "first", "second"]
    assert out["p_family"].tolist() == pytest.approx([0.03, 0.04, 0.04])  # Holm over all three
    assert out["significant"].tolist() == [True, True, True] and "extra" in out
    with pytest.raises(InputError, match="second has no 'p' column"):
        family({"first": a, "second": b.drop(columns="p")})
    with pytest.raises(InputError, match="no tests"):
        family({})


def test_a_test_on_fewer_than_twenty_units_stays_in_the_family_but_is_never_significant():
    documents = pd.DataFrame({"metric": ["x", "y"], "p": [0.001, 0.001], "n_units": [60, 5]})
    items = pd.DataFrame({"metric": ["z"], "p": [0.001]})  # no n_units: resampled items, not clusters
    out = family({"documents": documents, "items": items})
    assert out["p_family"].tolist() == pytest.approx([0.003, 0.003, 0.003])  # the few-unit test still counts
    assert out["few_units"].tolist() == [False, True, False]
    assert out["significant"].tolist() == [True, False, True]


def test_equivalence_is_the_90_percent_interval_inside_the_margin():
    rng = np.random.default_rng(3)
    for _ in range(400):
        n = int(rng.integers(20, 80))
        a = rng.integers(0, 2, n).astype(float)
        b = np.where(rng.random(n) < rng.uniform(0, 0.4), 1 - a, a)  # b differs from a on some items
        margin = float(rng.uniform(0.02, 0.3))
        t = paired_equivalence(a, b, margin, n_bootstrap=500, seed=int(rng.integers(1000)))
        assert t["equivalent"] == (-margin < t["ci90_low"] and t["ci90_high"] < margin)
        assert t["p_tost"] == max(t["p_lower"], t["p_upper"])
    same = np.ones(30)
    assert paired_equivalence(same, same, 0.1)["equivalent"]  # identical: equivalent
    far = paired_equivalence(np.zeros(30), np.ones(30), 0.1)
    assert not far["equivalent"] and far["p_upper"] == 1.0
    with pytest.raises(InputError, match="margin must be positive"):
        paired_equivalence(same, same, 0.0)


def test_chrf_scores_of_many_rows_are_sacrebleus_bit_for_bit():
    """The resampling scores chrF rows in one numpy pass; each score equals sacrebleu's, float32 and float64."""
    rng = np.random.default_rng(0)
    for metric in (CHRF(), CHRF(word_order=2)):
        n, k = 2000, 3 * metric.order
        hyp, ref = rng.integers(50, 5000, (n, metric.order)), rng.integers(50, 5000, (n, metric.order))
        stats = np.zeros((n, k))
        stats[:, 0::3], stats[:, 1::3] = hyp, ref
        stats[:, 2::3] = np.floor(np.minimum(hyp, ref) * rng.random((n, metric.order))) + 1
        stats[:5, 2] = 0  # a row without a unigram match: sacrebleu's own path
        for rows in (stats, (rng.random((n, 1)) * stats).astype(np.float32)):  # bootstrap rows are float32
            expected = [float(metric._compute_score_from_stats(row).score) for row in rows]
            assert np.array_equal(scores_from_stats(metric, rows), np.array(expected))


def test_bleu_scores_of_many_rows_are_sacrebleus_bit_for_bit():
    """BLEU rows skip sacrebleu's per-row objects, smoothed or not; each score is still its own (the settings the
    fast path does not take, effective order and add-k, go through sacrebleu)."""
    rng = np.random.default_rng(1)
    metrics = (
        BLEU(),
        BLEU(tokenize="char"),
        BLEU(smooth_method="floor"),
        BLEU(smooth_method="floor", smooth_value=0.3),
    )
    for metric in (*metrics, BLEU(smooth_method="none"), BLEU(effective_order=True), BLEU(smooth_method="add-k")):
        n, order = 2000, metric.max_ngram_order
        total = rng.integers(20, 3000, (n, order))
        correct = np.floor(total * rng.random((n, order))) + 1
        lengths = rng.integers(100, 4000, (n, 2))
        stats = np.concatenate([lengths, correct, total], axis=1).astype(float)
        stats[:5, 2 + order - 1] = 0  # no 4-gram match: smoothing
        stats[5:8, 0] = stats[5:8, 1] + 7  # longer than the reference: no brevity penalty
        stats[8:400, 2 : 2 + order] *= rng.random((392, order)) < 0.5  # orders without a match, in any pattern
        stats[400:420, 2 : 2 + order] = 0  # no match at all: 0
        stats[420:440, 2 + order + 2 :] = stats[420:440, 4 : 2 + order] = 0  # no 3- or 4-grams: sacrebleu stops there
        stats[440:450, 0] = 0  # an empty system output
        for rows in (stats, np.floor(rng.random((n, 1)) * stats + 1).astype(np.float32)):
            expected = [float(metric._compute_score_from_stats(row.copy()).score) for row in rows]  # add-k writes to it
            assert np.array_equal(scores_from_stats(metric, rows), np.array(expected))


def test_sentence_chrf_of_many_pairs_is_sacrebleus_bit_for_bit():
    """The echo check's chrF reuses each text's n-grams; every score is still CHRF().sentence_score's."""
    rng = np.random.default_rng(2)
    words = ["the", "invoice", "Rechnung", "paid", "Mombasa", "a", "ló", "kesho", ".", "!", "  ", "12"]
    texts = [" ".join(rng.choice(words, int(rng.integers(0, 12)))) for _ in range(60)] + ["", "x"]
    chrf, reference = SentenceChrF(), CHRF()
    for hyp in texts[:30]:
        for ref in texts:
            assert chrf.score(hyp, ref) == reference.sentence_score(hyp, [ref]).score, (hyp, ref)


def test_a_pairs_score_is_kept_and_the_oldest_pairs_go_first(monkeypatch):
    import aya_lab.sentence_chrf as sentence_chrf

    monkeypatch.setattr(sentence_chrf, "SCORE_MEMO", 2)
    chrf = SentenceChrF()
    first = chrf.score("the invoice is paid", "the invoice was paid")
    monkeypatch.setattr(chrf.metric, "_get_match_statistics", lambda *a: pytest.fail("a kept pair scored again"))
    assert chrf.score("the invoice is paid", "the invoice was paid") == first
    monkeypatch.undo()  # the instance keeps the size it was made with
    for ref in ("a", "b"):
        chrf.score("the invoice is paid", ref)
    assert chrf._scores.keys() == [("the invoice is paid", "a"), ("the invoice is paid", "b")]


def test_reaches_and_echoes_give_the_plain_definitions_verdicts():
    """The bound only skips scores that cannot reach the threshold: every verdict is the unbounded one."""
    rng = np.random.default_rng(3)
    words = ["the", "invoice", "Rechnung", "paid", "Mombasa", "a", "kesho", ".", "12"]
    texts = [" ".join(rng.choice(words, int(rng.integers(0, 10)))) for _ in range(40)] + ["", " the invoice "]
    chrf, reference = SentenceChrF(), CHRF()
    for hyp in texts:
        for ref in texts:
            plain = reference.sentence_score(hyp, [ref]).score
            for threshold in (30.0, ECHO_CHRF):
                assert chrf.reaches(hyp, ref, threshold) == (plain >= threshold), (hyp, ref, threshold)
            copied = bool(hyp.strip()) and (hyp.strip() == ref.strip() or plain >= ECHO_CHRF)
            assert echoes(hyp, ref) == copied, (hyp, ref)


def test_a_paired_test_on_few_differing_items_is_never_more_significant_than_an_exact_test_can_be():
    assert [exact_floor(m) for m in (0, 1, 2, 5, 6)] == [1.0, 1.0, 0.5, 0.0625, 0.03125]
    two = paired_bootstrap([1.0, 1.0], [0.0, 0.0], bootstrap_indices(2, 1000, 0))
    assert two["diff"] == -1.0 and two["p_value"] == 0.5  # every resample agrees; the bootstrap alone: 0.001
    many = paired_bootstrap([1.0] * 30, [0.0] * 30, bootstrap_indices(30, 1000, 0))
    assert many["p_value"] == pytest.approx(1 / 1001)  # 30 differing items: the bootstrap's own floor binds
    same = paired_bootstrap([0.5, 0.2], [0.5, 0.2], bootstrap_indices(2, 100, 0))
    assert same["diff"] == 0.0 and same["p_value"] == 1.0


def test_a_mean_of_zero_one_values_at_a_boundary_gets_the_exact_bound_and_other_means_do_not():
    ones = np.array([1.0, 1.0, np.nan])  # n/a left out: 2 of 2
    assert mean_ci(ones, np.ones(50)) == (pytest.approx(0.025**0.5), 1.0)
    assert mean_ci(np.zeros(4), np.zeros(50)) == (0.0, pytest.approx(1 - 0.025**0.25))
    assert mean_ci(np.array([0.5, 0.5]), np.full(50, 0.5)) == (0.5, 0.5)  # not a share: as resampled
    mixed = np.array([0.0, 1.0, 1.0, 0.0])
    boot = mixed[bootstrap_indices(4, 200, 0)].mean(axis=1)
    assert mean_ci(mixed, boot) == percentile_ci(boot)  # a share inside (0, 1): the bootstrap's interval


def test_a_share_held_by_few_units_gets_the_exact_far_bound_and_a_common_one_keeps_its_bootstrap_interval():
    from scipy.stats import beta

    from aya_lab.eval.resampling import RARE, share_ci

    totals = np.full(160, 3.0)  # 160 messages, 3 deliveries each
    one = np.zeros(160)
    one[7] = 1.0  # one made-up delivery: 1 of 480
    low, high = share_ci(0.0, 0.006, one, totals)  # what the percentiles of such a share look like
    assert low == 0.0 and high == pytest.approx(beta.ppf(0.975, 2, 159)) and 0.034 < high < 0.035
    common = np.r_[np.full(RARE, 1.0), np.zeros(155)]
    assert share_ci(0.001, 0.02, common, totals) == (0.001, 0.02)  # RARE units hold it: the bootstrap's own
    full = totals.copy()
    full[3] = 2.0  # every delivery useful but one
    low, high = share_ci(0.99, 1.0, full, totals)
    assert high == 1.0 and low == pytest.approx(beta.ppf(0.025, 159, 2))
    assert share_ci(float("nan"), float("nan"), one, totals) == (pytest.approx(np.nan, nan_ok=True),) * 2
