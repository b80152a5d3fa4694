"""forest: Δ metric against a named system per pair with paired-bootstrap CIs; deltas."""

from __future__ import annotations

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")

from aya_lab.datasets.parallel import load_parallel  # noqa: E402
from aya_lab.eval.report import Report  # noqa: E402
from aya_lab.eval.translation.evaluate import evaluate_translation  # noqa: E402
from aya_lab.eval.translation.results import deltas as paired_deltas  # noqa: E402
from aya_lab.eval.translation.results import deltas_across, forest, translation_report  # noqa: E402
from aya_lab.eval.translation.systems import CopySystem  # noqa: E402
from tests.fakes import ReferenceSystem  # noqa: E402

FAST = dict(n_bootstrap=100, n_ar=50, progress=False)
PAIRS = ["eng-swh", "eng-fra"]


@pytest.fixture
def results(mini_data):
    sets = [load_parallel("ntrex128", "eng", t) for t in ("swh", "fra")]
    systems = [CopySystem("copy"), ReferenceSystem(sets, name="oracle"), ReferenceSystem(sets, name="noisy", noise=0.3)]
    return evaluate_translation([*systems, "other-sentence"], "ntrex128", PAIRS, **FAST)


def test_forest_draws_one_point_and_error_bar_per_system_and_pair(results):
    import matplotlib.pyplot as plt

    ax = forest(results, metric="chrF", against="copy")
    assert len(ax.containers) == 3  # oracle, noisy, other-sentence
    xs = []
    for container in ax.containers:
        line, _, (bars,) = container.lines[0], container.lines[1], container.lines[2]
        assert len(line.get_xdata()) == 2 and len(bars.get_segments()) == 2  # one per pair
        xs += list(line.get_xdata())
    assert [t.get_text() for t in ax.get_yticklabels()] == PAIRS
    zero = [ln for ln in ax.lines if list(ln.get_xdata()) == [0, 0]]
    assert len(zero) == 1  # the line at 0
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["oracle", "noisy", "other-sentence"]
    assert "documents" in ax.get_xlabel()
    deltas = paired_deltas(results, "chrF", against="copy")
    assert sorted(xs) == pytest.approx(sorted(deltas["delta"]))
    _, given = plt.subplots()
    assert forest(results, "BLEU", against="other-sentence", ax=given) is given
    plt.close("all")


def test_deltas_match_the_paired_tests_against_the_baseline(results):
    deltas = paired_deltas(results, "chrF")  # against the baseline, copy
    tests = results.select(metric="chrF", hop="e2e")[lambda d: d.system != results.baseline].query("pair != 'pooled'")
    merged = deltas.merge(tests, on=["system", "pair"], suffixes=("", "_t"))
    assert len(merged) == 3 * len(PAIRS)
    assert np.allclose(merged["delta"], merged["delta_t"])
    assert np.allclose(merged["ci_low"], merged["delta_low"]) and np.allclose(merged["ci_high"], merged["delta_high"])
    assert (merged["resample_unit"] == "document").all() and (merged["n_units"] == 3).all()
    oracle = deltas[deltas.system == "oracle"]
    assert (oracle["ci_low"] > 0).all()  # the oracle beats copying on both pairs
    other = paired_deltas(results, "chrF", against="other-sentence").set_index(["system", "pair"])
    assert (other.loc["oracle", "delta"] > 0).all() and (
        other.loc["copy", "delta"] == -deltas.set_index(["system", "pair"]).loc["other-sentence", "delta"]
    ).all()


def test_a_saved_result_gives_the_same_deltas(results, tmp_path):
    back = Report.load(results.save(tmp_path / "r.csv"))
    cols = ["system", "pair", "delta", "ci_low", "ci_high", "resample_unit", "n_units"]
    assert paired_deltas(back, "chrF", against="copy")[cols].equals(
        paired_deltas(results, "chrF", against="copy")[cols]
    )


def test_forest_bad_input_is_one_line(results, tmp_path):
    with pytest.raises(ValueError, match="no system 'nllb' in this result; it has: copy, oracle"):
        forest(results, against="nllb")
    with pytest.raises(ValueError, match="no outputs for hop 'src-pivot'"):
        paired_deltas(results, against="copy", hop="src-pivot")
    bare = translation_report(results.df, None, results.meta)
    with pytest.raises(ValueError, match="no saved segment outputs"):
        forest(bare)


def test_deltas_across_reports_is_one_row_per_key_and_floor(mini_data):
    runs = {}
    for tgt in ("swh", "fra"):
        refs = [load_parallel("ntrex128", "eng", tgt)]
        systems = [CopySystem("copy"), ReferenceSystem(refs, name="oracle"), "other-sentence"]
        runs[f"eng-{tgt}", "NTREX-128"] = evaluate_translation(systems, "ntrex128", [f"eng-{tgt}"], **FAST)
    table = deltas_across(runs, "oracle", ("copy", "other-sentence"))
    assert table.index.names == ["direction", "test set", "against"] and len(table) == 4
    one = paired_deltas(runs["eng-fra", "NTREX-128"], "chrF", against="copy").set_index("system")
    assert table.loc[("eng-fra", "NTREX-128", "copy"), "delta"] == one.loc["oracle", "delta"]
    assert table["significant"].all()  # the oracle beats both floors on both pairs
    named = deltas_across(runs, {key: "copy" for key in runs}, ("other-sentence",), names=("pair", "set"))
    assert named.index.names == ["pair", "set", "against"] and len(named) == 2
    with pytest.raises(ValueError, match="no system 'nllb' against 'copy' in the report for"):
        deltas_across(runs, "nllb", ("copy",))
