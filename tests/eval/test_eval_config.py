"""EvalConfig: the evaluator's options as one validated value, the keywords that override it, and the
record of it in the results' meta."""

from __future__ import annotations

import dataclasses
import json

import pytest

from aya_lab.datasets.parallel import MAX_CONTEXT_WINDOW
from aya_lab.eval import EvalConfig as exported
from aya_lab.eval.configs import RESAMPLE, RUN_ONLY, EvalConfig
from aya_lab.eval.report import Report
from aya_lab.eval.translation.evaluate import evaluate_translation
from aya_lab.eval.translation.systems import CopySystem

FAST = dict(n_bootstrap=20, n_ar=20, progress=False, langid=False)
OLD_META_KEYS = {"kind", "dataset", "split", "n", "pairs", "dataset_ids", "licenses", "baseline", "systems"}
OLD_META_KEYS |= {"n_bootstrap", "n_ar", "chunk_size", "context_window", "aya_lab_version", "sacrebleu_version"}
OLD_META_KEYS |= {"resample", "generations"}


def test_defaults_are_the_evaluators_former_defaults():
    cfg = EvalConfig()
    assert exported is EvalConfig
    assert (cfg.n, cfg.docs, cfg.split, cfg.baseline, cfg.checkpoint, cfg.progress) == (None,) * 6
    assert (cfg.chunk_size, cfg.context_window, cfg.n_bootstrap, cfg.n_ar) == (64, MAX_CONTEXT_WINDOW, 1000, 10000)
    assert (cfg.langid, cfg.verify, cfg.resample) == (True, False, "auto") and RESAMPLE == ("auto", "segment")
    with pytest.raises(dataclasses.FrozenInstanceError):
        cfg.n = 3  # type: ignore[misc]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"resample": "document"}, "resample must be one of auto, segment, got 'document'"),
        ({"chunk_size": 0}, "chunk_size must be positive, got 0"),
        ({"docs": 0}, "docs must be a positive number of documents, got 0"),
        ({"n": -2}, "n must be a positive number of segments, got -2"),
        ({"context_window": -1}, "context_window must be >= 0 (0: no context), got -1"),
        ({"n_ar": -5}, "n_ar must be >= 0 (0: no resampling), got -5"),
        ({"n_bootstrap": 5}, "n_bootstrap=5: 5 resamples are too few for a 95% interval; use 0 (none) or at least 20"),
    ],
)
def test_a_bad_value_is_one_line_naming_the_option(options, message):
    with pytest.raises(ValueError) as made:
        EvalConfig(**options)
    assert str(made.value) == message
    with pytest.raises(ValueError) as replaced:
        EvalConfig().with_options(**options)  # validated again on replace
    assert str(replaced.value) == message


def test_bad_values_fail_before_any_data_is_loaded(mini_data):
    with pytest.raises(ValueError, match="chunk_size must be positive"):
        evaluate_translation([CopySystem()], "no-such-set", "eng-swh", chunk_size=0)
    with pytest.raises(ValueError, match="docs must be a positive"):
        evaluate_translation([CopySystem()], "no-such-set", "eng-swh", n=4, docs=0)


def test_an_unknown_option_names_itself_and_the_valid_ones(mini_data):
    with pytest.raises(TypeError) as info:
        evaluate_translation([CopySystem()], "ntrex128", "eng-swh", chunksize=8)
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith("unknown evaluation option 'chunksize' (did you mean 'chunk_size'?); options: n, docs,")
    assert all(name in message for name in EvalConfig.options())
    with pytest.raises(TypeError, match="unknown evaluation option 'colour'; options: "):
        EvalConfig().with_options(colour="red")
    with pytest.raises(TypeError, match="config must be an EvalConfig, got dict"):
        evaluate_translation([CopySystem()], "ntrex128", "eng-swh", config={"n": 4})


def test_keywords_and_positional_n_override_the_config(mini_data):
    base = EvalConfig(n=6, chunk_size=2, **FAST)
    assert base.with_options() is base
    assert base.with_options(n=3).n == 3 and base.n == 6
    res = evaluate_translation([CopySystem("a"), CopySystem("b")], "ntrex128", "eng-swh", config=base)
    assert len(res.items) == 2 * 6 and res.meta["chunk_size"] == 2
    positional = evaluate_translation([CopySystem("a")], "ntrex128", "eng-swh", 4, config=base, chunk_size=3)
    assert (positional.meta["n"], positional.meta["chunk_size"]) == (4, 3)
    keywords = evaluate_translation([CopySystem("a")], "ntrex128", "eng-swh", n=4, chunk_size=3, **FAST)
    assert keywords.items.equals(positional.items)
    assert {k: keywords.meta[k] for k in base.as_meta()} == {k: positional.meta[k] for k in base.as_meta()}


def test_meta_records_the_config_under_the_same_keys(mini_data, tmp_path):
    ckpt = tmp_path / "run.partial.jsonl"
    cfg = EvalConfig(n=4, docs=2, resample="segment", checkpoint=ckpt, **FAST)
    res = evaluate_translation([CopySystem("a"), CopySystem("b")], "ntrex128", "eng-swh", config=cfg)
    assert OLD_META_KEYS <= set(res.meta)  # saved results stay comparable with earlier ones
    recorded = {k: res.meta[k] for k in cfg.as_meta()}
    assert recorded == {**cfg.as_meta(), "split": "test", "baseline": "a"}  # split and baseline as resolved
    assert {"docs": 2, "langid": False, "verify": False, "resample": "segment"}.items() <= res.meta.items()
    assert not set(RUN_ONLY) & set(res.meta)  # how the run was watched and resumed is not a result
    res.save(tmp_path / "r.csv")
    again = Report.load(tmp_path / "r.csv")
    assert {k: again.meta[k] for k in cfg.as_meta()} == recorded
    assert json.loads((tmp_path / "r.json").read_text())["meta"]["n"] == 4


@pytest.mark.parametrize("task", ["summaries", "routing", "answers", "attacks", "translation"])
def test_a_task_refuses_too_few_resamples_in_one_line_before_it_loads_anything(capsys, tmp_path, task):
    from aya_lab.cli import main
    from aya_lab.eval.tasks import task_config

    out = tmp_path / "report.csv"
    assert main(["eval", "run", task, "--n-bootstrap", "7", "--out", str(out)]) == 2
    assert list(tmp_path.iterdir()) == []  # no report, no partial file
    err = capsys.readouterr().err
    assert (
        err == f"error: {task} option n_bootstrap=7: Value error, 7 resamples are too few for a 95% interval; "
        "use 0 (none) or at least 20\n"
    )
    for none in (1,) if task == "attacks" else (0, 1):  # no intervals: still allowed (attacks needs one draw)
        assert task_config(task, n_bootstrap=none).n_bootstrap == none
