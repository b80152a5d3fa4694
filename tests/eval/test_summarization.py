"""Summarizer evaluation: scoring rules on hand-computed cases, paired bootstrap, the evaluator, the CLI."""

from __future__ import annotations

import numpy as np
import pytest
from pandas import isnull as pd_isnull

from aya_lab.datasets.project import Transcript
from aya_lab.eval.report import Report
from aya_lab.eval.summarization import (
    bootstrap_indices,
    count_exact,
    count_parsed,
    evaluate_summarizers,
    last_n_correct,
    match_action_items,
    paired_bootstrap,
    prf,
    task_words,
)
from aya_lab.models.fake import FakeChatModel

IDS = ["a", "b", "c", "d", "e"]


@pytest.mark.parametrize(
    "ids, gold, ok",
    [
        (["d", "e"], 2, True),
        (["c", "d"], 2, False),  # the first/middle messages, not the last
        (["e"], 2, False),
        (IDS, 0, True),  # 0 = all
        (["b", "c", "d", "e"], 0, False),
        (IDS, 5, True),
        ([], 0, False),
    ],
)
def test_last_n_correct(ids, gold, ok):
    assert last_n_correct(ids, IDS, gold) is ok


@pytest.mark.parametrize(
    "parsed, gold, ok", [(None, 0, False), (None, 3, False), (3, 3, True), (0, 0, True), (4, 3, False), (0, 5, False)]
)
def test_count_exact_scores_an_unparseable_count_as_wrong(parsed, gold, ok):
    # the room falls back to "all" when it cannot read a count; the metric must not credit that
    assert count_exact(parsed, gold) is ok
    assert count_parsed(parsed) is (parsed is not None)


def test_prf_conventions():
    assert prf(0, 0, 0) == (1.0, 1.0, 1.0)  # nothing to find, nothing claimed
    assert prf(0, 2, 0) == (0.0, 0.0, 0.0)  # false items where there are none
    assert prf(0, 0, 2) == (0.0, 0.0, 0.0)  # missed everything
    p, r, f = prf(1, 3, 2)
    assert (p, r) == (1 / 3, 1 / 2) and f == pytest.approx(0.4)


def test_task_words_drop_stop_words_and_punctuation():
    assert task_words("Check whether the port storage-fees apply!") == {
        "check",
        "whether",
        "port",
        "storage",
        "fees",
        "apply",
    }


def test_action_items_partial_matches():
    gold = [("lena", "check whether port storage fees apply"), ("carlos", "email Tamu Foods about the two-day delay")]
    pred = [
        ("Lena ", "check if port storage fees apply"),  # same owner (case, spaces), paraphrase: match
        ("carlos", "book the meeting room"),  # right owner, different task
        ("mei", "email Tamu Foods about the delay"),
    ]  # right task, wrong owner
    matches = match_action_items(pred, gold)
    assert [(i, j) for i, j, _ in matches] == [(0, 0)]
    p, r, f = prf(len(matches), len(pred), len(gold))
    assert (p, r) == (1 / 3, 1 / 2) and f == pytest.approx(0.4)


def test_action_items_match_one_to_one_greedily_by_best_score():
    gold = [("kofi", "reset the VPN password for Sophie")]
    pred = [("kofi", "reset Sophie's VPN password today"), ("kofi", "reset the VPN password for Sophie")]
    matches = match_action_items(pred, gold)
    assert [(i, j) for i, j, _ in matches] == [(1, 0)]  # the exact one wins; the other is unmatched
    assert prf(len(matches), 2, 1)[:2] == (0.5, 1.0)
    assert match_action_items([], gold) == [] and match_action_items(pred, []) == []


def test_paired_bootstrap_identical_and_shifted():
    idx = bootstrap_indices(20, 500, seed=1)
    x = np.linspace(0, 1, 20)
    same = paired_bootstrap(x, x, idx)
    assert same["diff"] == 0 and same["p_value"] == 1.0 and (same["ci_low"], same["ci_high"]) == (0, 0)
    shifted = paired_bootstrap(x, x + 1, idx)
    assert shifted["diff"] == pytest.approx(1) and shifted["p_value"] < 0.01
    noisy = paired_bootstrap(x, x[::-1], idx)  # same values, reshuffled pairs: mean diff 0
    assert noisy["diff"] == pytest.approx(0) and noisy["p_value"] > 0.5
    assert np.array_equal(bootstrap_indices(20, 500, seed=1), idx)  # seeded


def _transcripts() -> list[Transcript]:
    msgs = [
        {"sender": "amara", "lang": "swh", "text": "Mzigo umechelewa.", "text_en": "The cargo is late."},
        {"sender": "lena", "lang": "deu", "text": "Ich prüfe die Gebühren.", "text_en": "I'll check the fees."},
        {"sender": "carlos", "lang": "spa", "text": "Escribiré a Tamu Foods.", "text_en": "I'll email Tamu Foods."},
        {"sender": "kofi", "lang": "eng", "text": "ok thanks", "text_en": "ok thanks"},
    ]
    quiet = [
        {"sender": "tunde", "lang": "eng", "text": "Morning all", "text_en": "Morning all"},
        {"sender": "priya", "lang": "eng", "text": "Hi Tunde", "text_en": "Hi Tunde"},
    ]
    return [
        Transcript(
            id="t901",
            messages=msgs,
            request="fasse die letzten zwei Nachrichten zusammen",
            request_lang="deu",
            gold_count=2,
            gold_action_items=[{"owner": "carlos", "task": "email Tamu Foods about the delay"}],
            reference_summary="Carlos will email Tamu Foods about the late cargo.",
        ),
        Transcript(
            id="t902",
            messages=quiet,
            request="summarize everything",
            request_lang="eng",
            gold_count=0,
            gold_action_items=[],
            reference_summary="Tunde and Priya say good morning.",
        ),
    ]


def _model() -> FakeChatModel:
    return FakeChatModel(
        rules=[
            ("<human> <request>fasse die letzten", "summarize the last two messages"),  # Aya's request translation
            ("summarize everything</request>\nNumber:", "0"),
            ("Number:", "2"),
            ("tunde: Morning all", "They greet each other.\n- none"),
            (
                "\n\nSummary:",
                "Carlos will email Tamu Foods.\n- carlos: email Tamu Foods about the delay\n"
                "- lena: check the port fees",
            ),
            ("COUNT: <number", "COUNT: ALL\nSUMMARY: The cargo is late.\nACTIONS:\n- none"),
        ]
    )


def test_evaluate_summarizers_scores_hand_computed_cases():
    model = _model()
    res = evaluate_summarizers(("two_call", "one_call"), model=model, transcripts=_transcripts(), n_bootstrap=200)
    per = res.items.set_index(["system", "transcript_id"])
    t1 = per.loc[("two_call", "t901")]
    assert t1["request_en"] == "summarize the last two messages" and t1["request_translation_calls"] == 1
    assert (t1["count_requested"], t1["count_exact"], t1["last_n_correct"]) == (2, 1.0, 1.0)
    assert (t1["action_tp"], t1["action_n_pred"], t1["action_n_gold"]) == (1, 2, 1)
    assert (t1["action_precision"], t1["action_recall"]) == (0.5, 1.0)
    assert t1["action_f1"] == pytest.approx(2 / 3)
    assert t1["llm_calls"] == 2 and t1["prompt_tokens"] > 0
    o1 = per.loc[("one_call", "t901")]
    assert (o1["count_requested"], o1["count_exact"], o1["last_n_correct"]) == (0, 0.0, 0.0)
    assert (o1["action_precision"], o1["action_recall"], o1["action_f1"]) == (0.0, 0.0, 0.0)
    assert o1["llm_calls"] == 1
    for variant in ("two_call", "one_call"):  # whole conversation, no items either side
        t2 = per.loc[(variant, "t902")]
        assert (t2["last_n_correct"], t2["action_f1"]) == (1.0, 1.0)
        assert t2["request_translation_calls"] == 0
    # one_call wrote no COUNT line on t902: the room falls back to "all" (gold), but the metric says wrong
    assert per.loc[("two_call", "t902"), "count_exact"] == 1.0
    assert pd_isnull(per.loc[("one_call", "t902"), "count_requested"])
    assert per.loc[("one_call", "t902"), ["count_exact", "count_parsed"]].tolist() == [0.0, 0.0]
    means = res.df.set_index(["system", "metric"])["score"]
    assert means[("two_call", "action_f1")] == pytest.approx((2 / 3 + 1) / 2)
    assert means[("one_call", "count_exact")] == 0.0 and means[("one_call", "last_n_correct")] == 0.5
    assert means[("one_call", "count_parsed")] == 0.5 and means[("two_call", "count_parsed")] == 1.0
    assert means[("two_call", "action_precision_micro")] == 0.5
    assert means[("one_call", "action_f1_micro")] == 0.0
    assert 0 < means[("two_call", "summary_chrF")] <= 100
    row = res.df[(res.df["system"] == "two_call") & (res.df["metric"] == "count_exact")].iloc[0]
    assert row["n"] == 2 and row["model_fingerprint"] == model.fingerprint and row["prompt_hash"] != "-"
    assert "nc:6" in res.df[res.df["metric"] == "summary_chrF_corpus"]["note"].iloc[0]  # the sacrebleu signature
    paired = res.paired.set_index("metric")
    assert paired.loc["llm_calls", "delta"] == -1 and paired.loc["llm_calls", "baseline"] == "two_call"
    assert set(paired["system"]) == {"one_call"}
    table = res.table()
    assert list(table.columns) == ["two_call", "one_call", "one_call - two_call"]


def test_identical_variants_are_not_significantly_different():
    from aya_lab.eval import summarization

    per_a = evaluate_summarizers(["two_call"], model=_model(), transcripts=_transcripts(), n_bootstrap=100)
    frame = per_a.items
    twin = frame.assign(system="twin")
    both = summarization.pd.concat([frame, twin], ignore_index=True)
    paired = summarization.summary_paired_table(
        both, ["two_call", "twin"], bootstrap_indices(2, 100), summarization.SUMMARY_METRICS
    )
    assert (paired["delta"] == 0).all() and (paired["p"] == 1.0).all() and not paired["significant"].any()


def test_requests_as_written_when_not_translating():
    res = evaluate_summarizers(
        ["two_call"], model=_model(), transcripts=_transcripts()[:1], translate_requests=False, n_bootstrap=50
    )
    row = res.items.iloc[0]
    assert row["request_en"] == row["request"] and row["request_translation_calls"] == 0


@pytest.mark.parametrize(
    "variants, kwargs, needle",
    [
        ([], {}, "no summarizer variants"),
        (["two_call", "three_call"], {}, "unknown summarizer variant 'three_call'"),
        (["one_call", "one_call"], {}, "unique"),
        (["one_call"], {"n": 0}, "n must be positive"),
    ],
)
def test_bad_input(variants, kwargs, needle):
    with pytest.raises(ValueError, match=needle):
        evaluate_summarizers(variants, model=_model(), transcripts=_transcripts(), **kwargs)


def test_default_transcripts_and_save(tmp_path):
    res = evaluate_summarizers(model=FakeChatModel(default="3"), n=3, n_bootstrap=50)
    assert list(res.items["transcript_id"].unique()) == ["t001", "t002", "t003"]
    assert res.meta["dataset_id"] == "transcripts" and res.baseline == "two_call"
    out = res.save(tmp_path / "summ.csv")
    for name in ("summ.csv", "summ.items.csv", "summ.paired.csv", "summ.json"):
        assert (tmp_path / name).exists()
    assert out.read_text().startswith("system,metric,score")
    back = Report.load(out)
    assert back.task == "summaries" and back.systems == res.systems and back.table().equals(res.table())
    assert back.items["summary"].tolist() == res.items["summary"].tolist()


def test_cli_summaries(tmp_path, capsys):
    from aya_lab.cli import main

    out = tmp_path / "s.csv"
    argv = ["eval", "run", "summaries", "--model", "fake:2", "--n", "2", "--n-bootstrap", "20", "--out", str(out)]
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "count_exact" in text and "one_call - two_call" in text and out.exists()


@pytest.mark.parametrize(
    "argv, needle",
    [
        (["--variants", ""], "variants=[]"),
        (["--variants", "two_call,five_call"], "unknown summarizer variant 'five_call'"),
        (["--n", "0"], "n=0: Input should be greater than 0"),
        (["--out", "x.txt"], "--out must name a .csv"),
        (["--data", "/nonexistent/t.jsonl"], "file not found"),
        (["--model", "nonsense"], "unknown model spec"),
    ],
)
def test_cli_summaries_bad_input_is_one_line(argv, needle, capsys):
    from aya_lab.cli import main

    assert main(["eval", "run", "summaries", "--model", "fake:2", *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: ") and needle in err and "\n" not in err
