"""Routing evaluation: accuracy, per-language scores, fallback, confusion, batching, sweeps, CLI."""

from __future__ import annotations

import pytest

from aya_lab.agents.routing import LLMRouter
from aya_lab.datasets.project import RoutingExample
from aya_lab.eval.routing import confusion_matrices, evaluate_routing, mcnemar_exact, sweep_routing
from aya_lab.eval.routing_sequences import (
    MultiIntentExample,
    evaluate_sequences,
    load_multi_intent,
    routers_paired,
    sequence_costs,
    step_accuracy,
)
from aya_lab.models.fake import FakeChatModel
from aya_lab.prompts import PromptError, load_prompt


def _examples() -> list[RoutingExample]:
    rows = [
        ("r901", "what is the per diem?", "eng", "query", "what is the per diem?"),
        ("r902", "summarize the last 3 messages", "eng", "summarize", "summarize the last 3 messages"),
        ("r903", "remember that the door code is 42", "eng", "remember", "remember that the door code is 42"),
        ("r904", "bonjour à tous", "fra", "chat", "hello everyone"),
        ("r905", "fasse das zusammen", "deu", "summarize", "summarize that"),
    ]
    return [RoutingExample(id=i, text=t, lang=lang, label=label, text_en=en) for i, t, lang, label, en in rows]


def _model() -> FakeChatModel:
    return FakeChatModel(
        rules=[
            ("<human> <request>bonjour à tous</request>", "Translation: hello everyone"),  # Aya's translation prompt
            ("<human> <request>fasse das zusammen</request>", "summarize it"),
            ("Request: <request>what is the per diem?</request>\nTool:", "Query."),
            ("Request: <request>summarize the last 3 messages</request>\nTool:", "I think summarize"),
            ("Request: <request>remember that the door code is 42</request>\nTool:", "chat"),  # wrong
            (
                "Request: <request>hello everyone</request>\nTool:",
                "banana",
            ),  # no tool named: keyword fallback -> chat (right)
            ("Request: <request>summarize it</request>\nTool:", "???"),  # fallback -> summarize (right)
        ],
        default="chat",
    )


def test_accuracy_per_language_fallback_and_confusion():
    model = _model()
    res = evaluate_routing(model, _examples(), n_bootstrap=200)
    ex = res.items.set_index("id")
    assert list(ex["routed_text"]) == [
        "what is the per diem?",
        "summarize the last 3 messages",
        "remember that the door code is 42",
        "hello everyone",
        "summarize it",
    ]
    assert list(ex["predicted"]) == ["query", "summarize", "chat", "chat", "summarize"]
    assert list(ex["fallback"]) == [0, 0, 0, 1, 1]
    assert "unparseable router answer" in ex.loc["r904", "log"]
    assert res.score("accuracy", lang="all") == pytest.approx(0.8)
    scores = res.df.set_index(["lang", "metric"])
    assert scores.loc[("eng", "accuracy"), "score"] == pytest.approx(2 / 3)
    assert scores.loc[("fra", "accuracy"), "score"] == 1.0 and scores.loc[("deu", "accuracy"), "n"] == 1
    assert scores.loc[("all", "fallback_rate"), "score"] == pytest.approx(0.4)
    low, high = scores.loc[("all", "accuracy"), ["ci_low", "ci_high"]]
    assert 0 <= low <= 0.8 <= high <= 1
    assert scores.loc[("all", "llm_calls"), "score"] == 7  # 5 routings + 2 translations
    assert model.batches == [2, 5]  # one batch of translations, one of router prompts
    conf = confusion_matrices(res)["baseline"]
    assert list(conf.index) == ["query", "summarize", "remember", "chat"] == list(conf.columns)
    assert conf.loc["remember", "chat"] == 1 and conf.loc["summarize", "summarize"] == 2
    assert int(conf.to_numpy().sum()) == 5
    assert set(res.df["prompt_hash"]) == {load_prompt("supervisor/baseline").content_hash}
    assert "remember" in res.table().to_string() or "all" in res.table().to_string()


def test_decisions_agree_with_the_llm_router():
    model = _model()
    res = evaluate_routing(model, _examples(), n_bootstrap=20)
    router = LLMRouter(model, load_prompt("supervisor/baseline"))
    for text, predicted in zip(res.items["routed_text"], res.items["predicted"]):
        assert router.route(text).tool == predicted


def test_translation_modes():
    gold = evaluate_routing(_model(), _examples(), translate="gold", n_bootstrap=20)
    assert list(gold.items["routed_text"])[3:] == ["hello everyone", "summarize that"]
    raw = evaluate_routing(_model(), _examples(), translate=False, n_bootstrap=20)
    assert list(raw.items["routed_text"])[3:] == ["bonjour à tous", "fasse das zusammen"]
    assert raw.df.set_index(["lang", "metric"]).loc[("all", "llm_calls"), "score"] == 5
    with pytest.raises(ValueError, match="translate must be"):
        evaluate_routing(_model(), _examples(), translate="yes")


def test_mcnemar_exact():
    assert mcnemar_exact(0, 0) == 1.0
    assert mcnemar_exact(3, 3) == 1.0
    assert mcnemar_exact(0, 5) == pytest.approx(2 / 32)
    assert mcnemar_exact(10, 0) == pytest.approx(2 / 1024)
    assert mcnemar_exact(1, 4) == pytest.approx(2 * 6 / 32)


def test_sweep_identical_variants_are_not_significant():
    model = FakeChatModel(rules=[("Tool:", "summarize")], default="x")
    sw = sweep_routing(["baseline", "fewshot"], model=model, examples=_examples(), translate="gold", n_bootstrap=200)
    assert sw.systems == ["baseline", "fewshot"]
    acc = sw.paired[sw.paired["metric"] == "accuracy"].iloc[0]
    assert (acc["delta"], acc["p"], acc["p_mcnemar"], acc["b"], acc["c"]) == (0, 1.0, 1.0, 0, 0)
    assert not acc["significant"] and acc["p_holm"] == 1.0
    assert set(sw.df["system"]) == {"baseline", "fewshot"} and len(sw.items) == 10


def test_sweep_detects_a_better_variant():
    model = FakeChatModel(
        rules=[
            ("route requests to one tool and answer with one word", "chat"),  # the few-shot prompt
            ("Tool:", "summarize"),
        ],
        default="x",
    )
    ex = [
        RoutingExample(id=f"r{i:03d}", text=f"hello {i}", lang="eng", label="chat", text_en=f"hello {i}")
        for i in range(12)
    ]
    sw = sweep_routing(["baseline", "fewshot"], model=model, examples=ex, n_bootstrap=200)
    acc = sw.paired[sw.paired["metric"] == "accuracy"].iloc[0]
    assert (acc["score_baseline"], acc["score_system"], acc["b"], acc["c"]) == (0.0, 1.0, 0, 12)
    assert acc["p_mcnemar"] < 0.01 and acc["p"] < 0.01 and acc["significant"]


def test_bad_input():
    with pytest.raises(ValueError, match="no prompt variants"):
        sweep_routing([], model=_model(), examples=_examples())
    with pytest.raises(PromptError, match="no prompt variant 'nope'"):
        sweep_routing(["baseline", "nope"], model=_model(), examples=_examples())
    with pytest.raises(ValueError, match="unique"):
        sweep_routing(["baseline", "supervisor/baseline"], model=_model(), examples=_examples())
    with pytest.raises(ValueError, match="n must be positive"):
        evaluate_routing(_model(), _examples(), n=0)
    with pytest.raises(ValueError, match="no routing examples"):
        evaluate_routing(_model(), [])


def test_default_examples_and_save(tmp_path):
    res = evaluate_routing(FakeChatModel(default="query"), n=6, n_bootstrap=20)
    assert res.meta["dataset_id"] == "routing" and len(res.items) == 6
    res.save(tmp_path / "r.csv")
    for name in ("r.csv", "r.items.csv", "r.paired.csv", "r.confusion.csv", "r.floor.csv", "r.json"):
        assert (tmp_path / name).exists()


def test_cli_routing(tmp_path, capsys):
    from aya_lab.cli import main

    out = tmp_path / "route.csv"
    argv = ["eval", "run", "routing", "--model", "fake:query", "--n", "8", "--n-bootstrap", "20"]
    assert main([*argv, "--variants", "baseline", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "accuracy" in text and "confusion (baseline; rows gold" in text and "who decided" in text
    assert out.exists() and (tmp_path / "route.confusion.csv").exists() and (tmp_path / "route.floor.csv").exists()
    sweep = ["eval", "run", "routing", "--model", "fake:chat", "--variants", "baseline,fewshot", "--n", "8"]
    assert main([*sweep, "--translate", "gold", "--n-bootstrap", "20", "--out", str(tmp_path / "sweep.csv")]) == 0
    text = capsys.readouterr().out
    assert "paired against baseline" in text and "p_mcnemar" in text and (tmp_path / "sweep.paired.csv").exists()


@pytest.mark.parametrize(
    "task, argv, needle",
    [
        ("routing", ["--variants", ""], "variants=[]"),
        ("routing", ["--variants", " , "], "variants=[]"),
        ("routing", ["--variants", "nope"], "no prompt variant 'nope'"),
        ("routing", ["--variants", "baseline,nope"], "no prompt variant 'nope'"),
        ("routing", ["--n", "-1"], "n=-1: Input should be greater than 0"),
        ("routing", ["--data", "/nonexistent/r.jsonl"], "file not found"),
        ("routing", ["--translate", "maybe"], "use true, false, gold or auto"),
        ("sequences", ["--routers", "keyword,nope", "--n", "2"], "routers.1='nope'"),
        ("sequences", ["--paths", "sideways", "--n", "2"], "paths.0='sideways'"),
    ],
)
def test_cli_routing_bad_input_is_one_line(task, argv, needle, capsys):
    from aya_lab.cli import main

    assert main(["eval", "run", task, "--model", "fake:query", *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: ") and needle in err and "\n" not in err


# -- tool sequences: single- and multi-intent, per router, on both paths --------------------------------


def _multi():
    rows = [
        ("m901", "summarize the last 5 messages and remember the action items", "eng", ("summarize", "remember")),
        ("m902", "quelle est la politique de voyage, et retiens que je pars lundi", "fra", ("query", "remember")),
        ("m903", "what is the per diem, and remember that I leave Monday", "eng", ("query", "remember")),
    ]
    return [MultiIntentExample(i, t, lang, tools, t) for i, t, lang, tools in rows]


def test_step_accuracy():
    assert step_accuracy(["a", "b"], ["a", "b"]) == 1.0
    assert step_accuracy(["a", "b"], ["a"]) == 0.5
    assert step_accuracy(["a"], ["b", "a"]) == 0.0


def test_sequences_per_router_and_path():
    model = _model()
    res = evaluate_sequences(model, single=_examples(), multi=_multi(), paths=("room", "original"), n_bootstrap=50)
    df = res.df.set_index(["system", "path", "set", "metric"])["score"]
    # one-step routers never get a two-tool request right; the keyword rules (remember before query)
    # get the first tool of the summarize request only: 1 step right of 2, on 1 request of 3
    assert df[("keyword", "original", "multi", "sequence_accuracy")] == 0.0
    assert df[("keyword", "original", "multi", "step_accuracy")] == pytest.approx(1 / 6)
    assert df[("multi", "original", "multi", "sequence_accuracy")] == 1.0
    # on single intents the re-deciding router is the LLM router (same decisions)
    for path in ("room", "original"):
        assert df[("multi", path, "single", "sequence_accuracy")] == df[("llm", path, "single", "sequence_accuracy")]
    # the room path routes the model's English; the original path the text as written
    ex = res.items
    fr = ex[(ex["id"] == "r904") & (ex["system"] == "keyword")].set_index("path")["routed_text"]
    assert fr["original"] == "bonjour à tous" and fr["room"] == "hello everyone"
    assert set(res.table().columns) == {
        "single sequence_accuracy", "single step_accuracy", "multi sequence_accuracy", "multi step_accuracy"
    }  # fmt: skip


def test_the_multi_intent_set_loads_and_bad_lines_are_located(tmp_path):
    items = load_multi_intent()
    assert len(items) >= 30 and len({i.lang for i in items}) >= 5 and all(len(i.tools) >= 2 for i in items)
    bad = tmp_path / "m.jsonl"
    bad.write_text('{"text": "x", "lang": "eng", "tools": ["fly"]}\n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"m.jsonl:1: needs a text and tools"):
        load_multi_intent(bad)


def test_the_keyword_fallback_reads_the_original_of_a_model_translation_not_of_a_gold_one():
    german = RoutingExample(
        id="r906",
        text="Wie lautet unsere Reiserichtlinie?",
        lang="deu",
        label="query",
        text_en="What are our rules for flights?",
    )
    model = FakeChatModel(
        rules=[
            ("<human> <request>Wie lautet unsere Reiserichtlinie?</request>", "What is our flight line?"),
            ("\nTool:", "???"),  # no tool named: the keyword fallback decides
        ],
        default="chat",
    )
    translated = evaluate_routing(model, [german], n_bootstrap=20).items.iloc[0]
    assert translated["routed_text"] == "What is our flight line?" and translated["predicted"] == "query"
    assert "'richtlinie' in the original request" in translated["log"]
    gold = evaluate_routing(model, [german], translate="gold", n_bootstrap=20).items.iloc[0]
    assert gold["predicted"] == "chat" and "original" not in gold["log"]  # a given translation: English only


def test_sequences_decide_two_requests_translated_alike_by_their_own_originals():
    rows = [("r907", "Wie lautet die Reiserichtlinie?", "query"), ("r908", "Wie geht es dir heute?", "chat")]
    single = [RoutingExample(id=i, text=t, lang="deu", label=label, text_en="x") for i, t, label in rows]
    model = FakeChatModel(
        rules=[("<human> <request>Wie", "The truck arrived late."), ("\nTool:", "???")],  # both: one echo
        default="chat",
    )
    res = evaluate_sequences(model, routers=("llm",), paths=("room",), single=single, multi=[], n_bootstrap=20)
    ex = res.items.set_index("id")
    assert list(ex["routed_text"]) == ["The truck arrived late."] * 2
    assert ex.loc["r907", "predicted"] == "query" and ex.loc["r908", "predicted"] == "chat"


def test_the_loop_router_in_the_sequence_evaluation_counts_calls_failures_and_is_paired():
    model = FakeChatModel(
        rules=[
            ("Observation: [remember done]\nDecision:</transcript>", "Final Answer: done"),
            ("Observation: [summarize done]\nDecision:</transcript>", "Action: remember\nAction Input: the items"),
            ("summarize the last 5 messages and remember the action items\nDecision:</transcript>",
             "Action: summarize\nAction Input: the last 5 messages"),
            ("<transcript>", "no idea"),  # every other loop prompt: unparseable, the keyword fallback decides
            ("\nTool:", "query"),
        ],
        default="chat",
    )  # fmt: skip
    res = evaluate_sequences(
        model, routers=("multi", "loop"), paths=("gold",), sets=("unseen",), unseen=_multi(), n_bootstrap=50
    )
    ex = res.items[res.items["system"] == "loop"].set_index("id")
    assert list(ex["predicted"]) == ["summarize > remember", "remember", "remember"]  # keywords: remember first
    assert list(ex["calls"]) == [3, 2, 2] and list(ex["parse_failures"]) == [0, 1, 1]  # then "Final Answer"
    assert list(ex["fallback_rate"]) == [0.0, 1.0, 1.0] and list(ex["steps"]) == [2, 1, 1]
    df = res.df.set_index(["system", "metric"])["score"]
    assert df[("loop", "parse_failure_rate")] == pytest.approx(2 / 7)
    assert df[("loop", "sequence_accuracy")] == pytest.approx(1 / 3) and df[("multi", "sequence_accuracy")] == 1.0
    paired = routers_paired(res, "multi", "loop").iloc[0]
    assert (paired["set"], paired["n"], paired["b"], paired["c"]) == ("unseen", 3, 2, 0)
    assert paired["delta"] == pytest.approx(-2 / 3)
    assert res.paired[["baseline", "system", "delta"]].iloc[0].tolist() == ["multi", "loop", paired["delta"]]
    costs = sequence_costs(res).loc[("loop", "gold", "unseen")]
    assert costs["calls/request"] == pytest.approx(7 / 3) and costs["parse_failure_rate"] == pytest.approx(2 / 7)
    with pytest.raises(ValueError, match="not both run"):
        routers_paired(res, "multi", "keyword")


def test_cli_sequences_with_the_loop_router_on_the_unseen_set(capsys):
    from aya_lab.cli import main

    argv = ["eval", "run", "sequences", "--model", "fake:query", "--n", "4", "--n-bootstrap", "20"]
    assert main([*argv, "--routers", "multi,loop", "--paths", "gold", "--sets", "unseen"]) == 0
    text = capsys.readouterr().out
    assert "unseen sequence_accuracy" in text and "parse_failure_rate" in text and "loop against multi" in text
    assert main([*argv, "--sets", "elsewhere"]) == 2
    assert "sets.0='elsewhere'" in capsys.readouterr().err


def test_paired_binary_counts_the_discordant_pairs_and_needs_both_tests_to_call_a_difference():
    from aya_lab.eval.resampling import bootstrap_indices, paired_binary

    a = [1] * 20 + [0] * 20
    b = [1] * 20 + [1] * 15 + [0] * 5  # b right on 15 requests a got wrong, never the reverse
    t = paired_binary(a, b, bootstrap_indices(40, 500, 0))
    assert (t["only_a"], t["only_b"]) == (0, 15)
    assert t["diff"] == pytest.approx(15 / 40)
    assert t["p_mcnemar"] == pytest.approx(mcnemar_exact(0, 15)) and t["p_mcnemar"] < 0.05
    assert t["significant"] and t["ci_low"] > 0
    same = paired_binary(a, a, bootstrap_indices(40, 500, 0))
    assert (same["only_a"], same["only_b"], same["p_mcnemar"], same["significant"]) == (0, 0, 1.0, False)
