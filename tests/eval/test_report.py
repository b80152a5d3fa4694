"""The evaluation contract: one Report type (save/load, tables, one Holm policy), the task registry, run()
and the command generated from a task's config."""

from __future__ import annotations

import json
import os

import numpy as np
import pandas as pd
import pytest

from aya_lab.errors import InputError
from aya_lab.eval import Report, run
from aya_lab.eval.configs import SummariesConfig
from aya_lab.eval.report import ReportFormatError, task
from aya_lab.eval.resampling import holm, holm_column
from aya_lab.eval.task_cli import option_values
from aya_lab.models.fake import FakeChatModel


def _report() -> Report:
    df = pd.DataFrame(
        {
            "system": ["a", "a", "b", "b"],
            "lang": ["eng", "swh", "eng", "swh"],
            "metric": ["accuracy"] * 4,
            "score": [0.5, 0.25, 0.75, np.nan],
            "ci_low": [0.4, 0.1, 0.6, np.nan],
            "ci_high": [0.6, 0.4, 0.9, np.nan],
            "note": ["", "", "", ""],
        }
    )
    items = pd.DataFrame({"system": ["a", "b"], "id": ["r1", "r1"], "text": ["NA", ""], "correct": [True, False]})
    paired = pd.DataFrame(
        {
            "baseline": ["a", "a"],
            "system": ["b", "b"],
            "lang": ["eng", "swh"],
            "metric": ["accuracy"] * 2,
            "p": [0.01, 0.04],
        }
    )
    return Report("custom", df, items, holm_column(paired), {"baseline": "a", "units": ["lang"]})


def test_a_report_round_trips_through_its_files_with_types_intact(tmp_path):
    rep = _report()
    path = rep.save(tmp_path / "r.csv")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.csv", "r.items.csv", "r.json", "r.paired.csv"]
    back = Report.load(path)
    assert back.task == "custom" and back.baseline == "a" and back.units == ["lang"] and back.systems == ["a", "b"]
    pd.testing.assert_frame_equal(back.df, rep.df)
    assert back.items["text"].tolist() == ["NA", ""]  # text stays text: "NA" is not a missing value
    assert back.items["correct"].tolist() == [True, False]
    pd.testing.assert_frame_equal(back.paired, rep.paired)


def test_a_save_that_fails_midway_leaves_the_report_that_was_there(tmp_path):
    path = _report().save(tmp_path / "r.csv")
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    broken = _report()
    broken.df = broken.df.assign(score=[9.0, 9.0, 9.0, 9.0])
    broken.frames["bad"] = pd.DataFrame({"x": [1]})
    broken.frames["bad"].to_csv = lambda *a, **k: (_ for _ in ()).throw(OSError(28, "No space left on device"))
    with pytest.raises(OSError, match="No space left"):
        broken.save(path)  # df, items and paired were written before the frame that failed
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before  # nor a temporary file beside them
    assert Report.load(path).df["score"].tolist()[:3] == [0.5, 0.25, 0.75]
    assert oct(path.stat().st_mode & 0o777) == oct(0o666 & ~_umask())  # a plain file's mode, not owner-only


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def test_load_refuses_what_is_not_a_report_in_one_line(tmp_path):
    (tmp_path / "x.csv").write_text("a,b\n1,2\n")
    with pytest.raises(ReportFormatError, match="no readable x.json"):
        Report.load(tmp_path / "x.csv")
    (tmp_path / "x.json").write_text(json.dumps({"format": "aya_lab.eval.report", "format_version": 0}))
    with pytest.raises(ReportFormatError, match="not an aya_lab report of format v1"):
        Report.load(tmp_path / "x.csv")
    with pytest.raises(InputError, match="no report file at"):
        Report.load(tmp_path / "missing.csv")
    with pytest.raises(InputError, match="use a .csv name"):
        _report().save(tmp_path / "r.parquet")


def test_holm_is_one_family_per_metric_and_sets_significance():
    paired = pd.DataFrame({"metric": ["m", "m", "m", "k"], "p": [0.01, 0.03, 0.04, 0.04]})
    out = holm_column(paired)
    assert out["p_holm"].tolist() == pytest.approx([*holm([0.01, 0.03, 0.04]), 0.04])
    assert out["p_holm"].tolist() == pytest.approx([0.03, 0.06, 0.06, 0.04])
    assert out["significant"].tolist() == [True, False, False, True]


def test_generic_views_and_one_score():
    rep = _report()
    assert rep.score("accuracy", "b", lang="eng") == 0.75
    with pytest.raises(InputError, match="2 custom scores match"):
        rep.score("accuracy", "a")
    table = rep.table()
    assert table.loc["b", ("swh", "accuracy")] == "n/a" and table.loc["a", ("eng", "accuracy")] == "0.5 [0.4, 0.6]"


def test_unknown_task_and_options_get_one_line_naming_them():
    with pytest.raises(InputError, match="unknown evaluation task 'sumaries'; the tasks are: .*summaries"):
        task("sumaries")
    with pytest.raises(InputError, match="has no option 'n_boot'; its options are: variants"):
        run("summaries", n_boot=3)
    with pytest.raises(InputError, match="summaries option n=0: Input should be greater than 0"):
        run("summaries", n=0)


def test_run_goes_through_the_config_and_returns_a_report():
    model = FakeChatModel(default="2")
    rep = run("summaries", SummariesConfig(variants=["two_call", "lead-1"]), model=model, n=2, n_bootstrap=20)
    assert isinstance(rep, Report) and rep.task == "summaries" and rep.systems == ["two_call", "lead-1"]
    assert list(rep.table().columns) == ["two_call", "lead-1", "lead-1 - two_call"]


def test_the_generated_command_parses_a_configs_fields(capsys):
    from aya_lab.cli import build_parser

    args = build_parser().parse_args(["eval", "run", "summaries", "--variants", "one_call, lead-2", "--no-progress"])
    assert option_values(args, SummariesConfig) == {"variants": ["one_call", "lead-2"], "progress": False}
    from aya_lab.eval.tasks import run_command

    args = build_parser().parse_args(["eval", "run", "summaries", "--n-bootstrap", "-1"])
    assert run_command(args) == 2
    assert capsys.readouterr().err.startswith("error: summaries option n_bootstrap=-1:")
