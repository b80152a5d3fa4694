"""Routing and tool sequences as tasks: their reports round-trip through their files (the confusion and
floor frames too), render their own tables once loaded, and run from the generated command."""

from __future__ import annotations

import pandas as pd
import pytest

from aya_lab.datasets.project import RoutingExample
from aya_lab.errors import InputError
from aya_lab.eval import Report, run
from aya_lab.eval.resampling import ALPHA
from aya_lab.eval.routing import MAJORITY, confusion_matrices, routing_table, sweep_routing
from aya_lab.eval.routing_sequences import (
    MultiIntentExample,
    evaluate_sequences,
    paths_paired,
    routers_paired,
    sequence_costs,
    sequence_table,
)
from aya_lab.models.fake import FakeChatModel


def _requests() -> list[RoutingExample]:
    rows = [
        ("r1", "what is the per diem?", "eng", "query", "what is the per diem?"),
        ("r2", "summarize the last 3 messages", "eng", "summarize", "summarize the last 3 messages"),
        ("r3", "remember that the door code is 42", "eng", "remember", "remember that the door code is 42"),
        ("r4", "bonjour à tous", "fra", "chat", "hello everyone"),
        ("r5", "fasse das zusammen", "deu", "summarize", "summarize that"),
        ("r6", "hello there", "eng", "chat", "hello there"),
    ]
    return [RoutingExample(id=i, text=t, lang=lang, label=label, text_en=en) for i, t, lang, label, en in rows]


def _model() -> FakeChatModel:
    return FakeChatModel(
        rules=[
            ("route requests to one tool and answer with one word", "chat"),  # the few-shot prompt
            ("per diem", "query"),
            ("Tool:", "summarize"),
        ],
        default="chat",
    )


def _routing() -> Report:
    return sweep_routing(["baseline", "fewshot"], _model(), _requests(), translate="gold", n_bootstrap=50)


def test_a_routing_report_round_trips_with_its_confusion_and_floor_frames(tmp_path):
    rep = _routing()
    assert rep.task == "routing" and rep.units == ["lang"] and rep.baseline == "baseline"
    assert list(rep.df.columns[:7]) == ["system", "lang", "metric", "score", "ci_low", "ci_high", "n"]
    assert list(rep.frames) == ["confusion", "floor"] and set(rep.frames["floor"]["system"]) == {MAJORITY}
    path = rep.save(tmp_path / "route.csv")
    names = sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("route."))
    assert names == [f"route.{x}" for x in ("confusion.csv", "csv", "floor.csv", "items.csv", "json", "paired.csv")]
    back = Report.load(path)
    pd.testing.assert_frame_equal(back.df, rep.df)
    pd.testing.assert_frame_equal(back.paired, rep.paired)
    pd.testing.assert_frame_equal(back.items[["system", "id", "predicted"]], rep.items[["system", "id", "predicted"]])
    for name in ("confusion", "floor"):
        pd.testing.assert_frame_equal(back.frames[name], rep.frames[name])
    before, after = confusion_matrices(rep), confusion_matrices(back)
    assert list(after) == ["baseline", "fewshot"]
    for system in before:
        pd.testing.assert_frame_equal(after[system], before[system])
    assert after["fewshot"].loc["query", "chat"] == 1 and int(after["baseline"].to_numpy().sum()) == 6
    pd.testing.assert_frame_equal(back.table(), rep.table())  # the task's hook, found from the loaded report
    assert back.meta["translation_cost"]["calls"] == 0 and back.meta["variants"] == ["baseline", "fewshot"]


def test_the_routing_table_and_paired_tests():
    rep = _routing()
    table = routing_table(rep)
    assert table.index.names == ["system", "lang"] and list(table.columns) == ["accuracy", "fallback_rate", "n"]
    assert [s for s, _ in table.index][-1] == MAJORITY and ("fewshot", "deu") in table.index
    assert table.loc[("baseline", "all"), "n"] == 6
    assert rep.score("accuracy", lang="all") == pytest.approx(3 / 6)  # per diem and the two summarize requests
    assert rep.score("accuracy", "fewshot", lang="all") == pytest.approx(2 / 6)  # the two chat requests
    acc = rep.paired.set_index("metric").loc["accuracy"]
    assert (acc["baseline"], acc["system"], acc["b"], acc["c"]) == ("baseline", "fewshot", 3, 2)
    assert acc["delta"] == pytest.approx(-1 / 6) and acc["p_holm"] == acc["p"]  # one comparison: Holm changes nothing
    assert acc["significant"] == (acc["p"] < ALPHA)
    assert list(rep.paired.columns[-2:]) == ["p_holm", "significant"] and "p_mcnemar" in rep.paired


def _multi() -> list[MultiIntentExample]:
    rows = [
        ("m1", "summarize the last 5 messages and remember the action items", "eng", ("summarize", "remember")),
        ("m2", "what is the per diem, and remember that I leave Monday", "eng", ("query", "remember")),
    ]
    return [MultiIntentExample(i, t, lang, tools, t) for i, t, lang, tools in rows]


def test_a_sequences_report_round_trips_and_keeps_its_views(tmp_path):
    rep = evaluate_sequences(
        FakeChatModel(rules=[("Tool:", "query")], default="chat"), routers=("keyword", "llm", "multi"),
        paths=("room", "original"), single=_requests(), multi=_multi(), n_bootstrap=50,
    )  # fmt: skip
    assert rep.task == "sequences" and rep.systems == ["keyword", "llm", "multi"] and rep.baseline == "keyword"
    assert rep.units == ["model", "path", "set"]
    assert set(rep.paired["system"]) == {"llm", "multi"} and len(rep.paired) == 2 * 2 * 2  # x paths x sets
    assert rep.paired["p_holm"].notna().all()
    back = Report.load(rep.save(tmp_path / "seq.csv"))
    pd.testing.assert_frame_equal(back.df, rep.df)
    pd.testing.assert_frame_equal(back.paired, rep.paired)
    table = back.table()
    pd.testing.assert_frame_equal(table, sequence_table(rep))
    assert table.index.names == ["model", "system", "path"] and "multi sequence_accuracy" in table.columns
    pd.testing.assert_frame_equal(routers_paired(back, "keyword", "multi"), routers_paired(rep, "keyword", "multi"))
    paths = paths_paired(back, "room", "original")
    assert list(paths["system"].unique()) == ["keyword", "llm", "multi"] and set(paths["set"]) == {"single", "multi"}
    assert sequence_costs(back).index.names == ["system", "path", "set"]
    assert rep.score("sequence_accuracy", "multi", path="original", set="multi") == 1.0


def test_the_generated_commands_have_the_configs_options(capsys):
    from aya_lab.cli import build_parser

    for name, option in (("routing", "--translate"), ("sequences", "--loop-prompt")):
        with pytest.raises(SystemExit) as done:
            build_parser().parse_args(["eval", "run", name, "--help"])
        assert done.value.code == 0
        text = capsys.readouterr().out
        assert option in text and "--n-bootstrap" in text and "--out PATH.csv" in text


@pytest.mark.parametrize(
    "argv, needle",
    [
        (["routing", "--translate", "sideways"], "routing option translate='sideways': Value error, use true, false"),
        (["routing", "--n", "0"], "routing option n=0: Input should be greater than 0"),
        (["sequences", "--routers", "keyword,nope"], "sequences option routers.1='nope': Input should be 'keyword'"),
        (["sequences", "--paths", " , "], "sequences option paths=[]: List should have at least 1 item"),
    ],
)
def test_a_bad_option_is_one_line_before_any_model_loads(argv, needle, capsys):
    from aya_lab.cli import build_parser
    from aya_lab.eval.tasks import run_command

    assert run_command(build_parser().parse_args(["eval", "run", *argv, "--model", "no-such-model"])) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: ") and needle in err and "\n" not in err


def test_run_routing_and_sequences_from_python_and_the_command(tmp_path, capsys):
    rep = run("routing", variants=["baseline"], model=_model(), translate="model", n=4, n_bootstrap=20)
    assert rep.systems == ["baseline"] and rep.meta["translate"] is True and rep.paired.empty
    with pytest.raises(InputError, match="the sequences task has no option 'router'"):
        run("sequences", router=["llm"])
    from aya_lab.cli import build_parser
    from aya_lab.eval.tasks import run_command

    out = tmp_path / "seq.csv"
    argv = ["eval", "run", "sequences", "--model", "fake:query", "--routers", "keyword,loop", "--paths", "gold"]
    argv += ["--sets", "unseen", "--n", "3", "--n-bootstrap", "20", "--out", str(out)]
    assert run_command(build_parser().parse_args(argv)) == 0
    assert "unseen sequence_accuracy" in capsys.readouterr().out
    back = Report.load(out)
    assert back.systems == ["keyword", "loop"] and back.meta["loop_prompt"] == "router_loop/baseline"
