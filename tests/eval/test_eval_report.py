"""The translation report: save/load with a format version, deterministic table HTML, plot, compare."""

from __future__ import annotations

import json

import matplotlib
import pytest

matplotlib.use("Agg")

from aya_lab.datasets.parallel import load_parallel  # noqa: E402
from aya_lab.errors import InputError  # noqa: E402
from aya_lab.eval.report import Report, ReportFormatError  # noqa: E402
from aya_lab.eval.translation.evaluate import evaluate_translation  # noqa: E402
from aya_lab.eval.translation.results import compare_translations as compare  # noqa: E402
from aya_lab.eval.translation.systems import CopySystem  # noqa: E402
from tests.fakes import ReferenceSystem  # noqa: E402

FAST = dict(n_bootstrap=100, n_ar=100, progress=False)


@pytest.fixture
def results(mini_data):
    sets = [load_parallel("ntrex128", "eng", t) for t in ("swh", "fra")]
    return evaluate_translation(
        [CopySystem("echo"), ReferenceSystem(sets, name="noisy", noise=0.3)],
        "ntrex128",
        ["eng-swh", "eng-fra"],
        resample="segment",  # 3 documents are too few for p < 0.05 at document level
        **FAST,
    )


def test_save_load_round_trip(results, tmp_path):
    path = results.save(tmp_path / "r.csv")
    assert (tmp_path / "r.items.csv").exists() and (tmp_path / "r.json").exists()
    back = Report.load(path)
    assert back.task == "translation" and back.systems == results.systems and back.baseline == "echo"
    assert back.table().to_html() == results.table().to_html()  # the task's own table, from the file
    assert back.df["significant"].tolist() == results.df["significant"].tolist()
    assert back.df["score"].round(6).tolist() == pytest.approx(results.df["score"].round(6).tolist(), nan_ok=True)
    assert back.items["hypothesis"].tolist() == results.items["hypothesis"].tolist()


def test_result_from_another_version_is_one_line(results, tmp_path):
    path = results.save(tmp_path / "r.csv")
    meta = json.loads((tmp_path / "r.json").read_text())
    meta["format_version"] = 0
    (tmp_path / "r.json").write_text(json.dumps(meta))
    with pytest.raises(ReportFormatError, match="not an aya_lab report of format v1") as err:
        Report.load(path)
    assert "\n" not in str(err.value)
    with pytest.raises(ValueError, match=r"\.csv"):
        results.save(tmp_path / "r.parquet")


def test_table_is_deterministic_and_marks_significance(results):
    html = results.table().to_html()
    assert html == results.table().to_html()
    assert "T_aya-results" in html
    data = results.table().data
    assert data.loc["noisy", ("pooled", "chrF")].endswith("*")  # 24 segments
    assert data.loc["noisy", ("eng-swh", "chrF")].endswith("‡")  # 12: too few to mark significant
    assert data.loc["echo", ("eng-swh", "target_lang_share")] == "0%"


def test_plot_bars_and_heatmap(results):
    ax = results.plot("chrF")
    assert len(ax.patches) == 4 and ax.get_title().startswith("chrF (e2e)")
    ax = results.plot("BLEU", heatmap=True)
    assert len(ax.images) == 1


def test_compare_two_saved_files(results, tmp_path, mini_data):
    a = Report.load(results.save(tmp_path / "a.csv"))
    sets = [load_parallel("ntrex128", "eng", t) for t in ("swh", "fra")]
    b = evaluate_translation([ReferenceSystem(sets, name="oracle")], "ntrex128", ["eng-swh", "eng-fra"], **FAST)
    table = compare(a, Report.load(b.save(tmp_path / "b.csv")), n_bootstrap=100, n_ar=100)
    assert set(table["pair"]) == {"eng-swh", "eng-fra"} and table["significant"].all()
    same = compare(a, a, system_a="echo", system_b="echo", n_bootstrap=100, n_ar=100)
    assert (same["p_ar"] == 1.0).all() and not same["significant"].any()


def test_reports_of_other_segments_are_refused_naming_what_each_scored(results, tmp_path, mini_data):
    sets = [load_parallel("ntrex128", "eng", "fra")]
    fewer = evaluate_translation([ReferenceSystem(sets, name="oracle")], "ntrex128", ["eng-fra"], n=6, **FAST)
    with pytest.raises(InputError) as err:
        compare(results, fewer)
    message = str(err.value)
    assert "\n" not in message and "A: ntrex128:eng-fra" in message and "n=6" in message and "--n" in message


def test_scores_from_few_units_are_marked_and_one_unit_shows_no_interval(mini_data):
    sets = [load_parallel("ntrex128", "eng", "fra")]
    systems = [CopySystem("echo"), ReferenceSystem(sets, name="noisy", noise=0.3)]
    few = evaluate_translation(systems, "ntrex128", ["eng-fra"], resample="auto", **FAST)
    assert few.df["few_units"].all() and (few.df["n_units"] > 1).all()  # the mini set's 3 documents
    chrf = few.table().data.loc["noisy", ("eng-fra", "chrF")]
    assert " ±" in chrf and " ‡" in chrf
    assert "‡ resampled from fewer than 20 units" in few.table().caption
    title, table = few.views()[0]
    assert title == few.table().caption and table.equals(few.table().data)  # the command prints the legend

    one = evaluate_translation(systems, "ntrex128", ["eng-fra"], n=2, resample="auto", **FAST)
    assert (one.df["n_units"] == 1).all()
    assert one.table().data.loc["noisy", ("eng-fra", "chrF")].endswith(" ‡") and "±" not in one.table().to_html()


def test_scores_from_enough_units_carry_no_mark(results):
    data = results.table().data  # 12 segments per pair, 24 pooled
    assert data.loc["noisy", ("eng-fra", "chrF")].count("‡") == 1
    assert "‡" not in data.loc["noisy", ("pooled", "chrF")] and " ±" in data.loc["noisy", ("pooled", "chrF")]
