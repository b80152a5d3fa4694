"""Floors for routing (majority class) and summaries (copy-the-transcript, lead-N), on hand-made inputs
whose figures are computable by hand."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from sacrebleu.metrics import CHRF

from aya_lab.eval import evaluate_routing, evaluate_summarizers, sweep_routing
from aya_lab.eval.routing import MAJORITY, majority_label
from aya_lab.eval.summarization import transcript_messages
from aya_lab.eval.summary_scoring import SummaryFloor, is_summary_floor
from aya_lab.models.fake import FakeChatModel


def _request(i: int, label: str, lang: str) -> SimpleNamespace:
    return SimpleNamespace(id=f"r{i}", text=f"request {i}", lang=lang, label=label, text_en=None)


# six English requests: query x3, summarize x2, chat x1 -> majority "query", accuracy 3/6
REQUESTS = [
    _request(0, "query", "eng"),
    _request(1, "query", "eng"),
    _request(2, "summarize", "eng"),
    _request(3, "query", "eng"),
    _request(4, "chat", "eng"),
    _request(5, "summarize", "eng"),
]


def test_majority_label_counts_and_breaks_ties_alphabetically():
    assert majority_label(["b", "a", "b"]) == "b"
    assert majority_label(["b", "a"]) == "a"
    with pytest.raises(ValueError, match="at least one"):
        majority_label([])


def _floor_rows(df):
    assert set(df["system"]) == {MAJORITY} and set(df["metric"]) == {"accuracy"}
    return df.set_index("lang")


def test_routing_reports_the_majority_class_floor_beside_the_router(tmp_path):
    model = FakeChatModel(rules=[("Tool:", "chat")], default="chat")
    res = evaluate_routing(model, REQUESTS, translate=False, n_bootstrap=200)
    floor = _floor_rows(res.frames["floor"])
    assert MAJORITY not in set(res.df["system"])  # the router's own rows stay as they were
    assert floor.loc["all", "score"] == pytest.approx(3 / 6)
    assert floor.loc["all", "ci_low"] <= 0.5 <= floor.loc["all", "ci_high"]
    assert floor.loc["all", "model_fingerprint"] == "floor:majority-class(query)"
    assert (MAJORITY, "all") in res.table().index
    res.save(tmp_path / "route.csv")
    assert (tmp_path / "route.floor.csv").read_text().startswith("system,lang,metric,score")
    assert res.score("accuracy", lang="all") == pytest.approx(1 / 6)  # the router's own figure is still the first row


def test_the_floor_is_per_language_the_share_of_the_global_majority_label():
    mixed = [*REQUESTS[:3], _request(6, "chat", "swh"), _request(7, "query", "swh")]
    model = FakeChatModel(rules=[("Tool:", "chat")], default="chat")
    floor = _floor_rows(evaluate_routing(model, mixed, translate=False, n_bootstrap=50).frames["floor"])
    assert floor.loc["eng", "score"] == pytest.approx(2 / 3) and floor.loc["swh", "score"] == pytest.approx(1 / 2)
    sweep = sweep_routing(["baseline", "fewshot"], model, mixed, translate=False, n_bootstrap=50)
    assert _floor_rows(sweep.frames["floor"]).loc["all", "score"] == pytest.approx(3 / 5)
    assert sweep.systems == ["baseline", "fewshot"]  # the floor is no variant of the paired tests


def _transcript(messages: list[str], reference: str) -> SimpleNamespace:
    msgs = [SimpleNamespace(sender=f"u{i}", text=t, lang="eng", text_en=None) for i, t in enumerate(messages)]
    return SimpleNamespace(
        id="t0",
        messages=msgs,
        request="summarize",
        request_lang="eng",
        gold_count=0,
        gold_action_items=[],
        reference_summary=reference,
    )


def test_summary_floors_copy_the_transcript_or_its_lead():
    t = _transcript(["the budget is due friday", "lena reviews it", "lunch at noon"], "budget due friday")
    history = transcript_messages(t)
    copy, lead = SummaryFloor("copy-transcript").summarize("x", history), SummaryFloor("lead-2").summarize("x", history)
    assert copy.summary == "the budget is due friday lena reviews it lunch at noon"
    assert lead.summary == "the budget is due friday lena reviews it"
    assert lead.message_ids == ["t0-m00", "t0-m01"] and lead.count_requested is None and lead.calls == 0
    assert [is_summary_floor(v) for v in ("lead-3", "lead-0", "copy-transcript", "two_call")] == [1, 0, 1, 0]


def test_summary_floors_are_scored_with_the_summarizers_metrics():
    t = _transcript(["the budget is due friday", "lena reviews it", "lunch at noon"], "budget due friday")
    model = FakeChatModel(default="0")
    res = evaluate_summarizers(["two_call", "copy-transcript", "lead-1"], model=model, transcripts=[t], n_bootstrap=20)
    per = res.items.set_index("system")
    expected = CHRF().sentence_score("the budget is due friday", ["budget due friday"]).score
    assert per.loc["lead-1", "summary_chrF"] == pytest.approx(expected)
    assert per.loc["copy-transcript", "count_exact"] == 0.0 and per.loc["copy-transcript", "llm_calls"] == 0.0
    assert per.loc["copy-transcript", "action_f1"] == 1.0  # no gold and no predictions: P = R = F1 = 1
    sig = res.df[res.df["system"] == "lead-1"]["model_fingerprint"].iloc[0]
    assert sig == "floor:lead-1"
    assert "lead-1 - two_call" in res.table().columns  # tested against the baseline like a variant


def test_summaries_without_resamples_have_scores_and_no_intervals():
    t = _transcript(["the budget is due friday", "lena reviews it", "lunch at noon"], "budget due friday")
    res = evaluate_summarizers(
        ["copy-transcript", "lead-1"], model=FakeChatModel(default="0"), transcripts=[t], n_bootstrap=0
    )
    micro = res.df[res.df["metric"] == "action_f1_micro"]
    assert micro["score"].notna().all() and micro["ci_low"].isna().all()  # n_bootstrap 0 is allowed: no CI


def test_requests_are_translated_by_the_translator_given_not_the_chat_model():
    t = _transcript(["the budget is due friday", "lena reviews it", "lunch at noon"], "budget due friday")
    t.request, t.request_lang = "fasse die letzten 2 Nachrichten zusammen", "deu"
    chat, translator = FakeChatModel(default="0"), FakeChatModel(default="summarize the last 2 messages")
    res = evaluate_summarizers(["copy-transcript"], model=chat, transcripts=[t], translator=translator, n_bootstrap=0)
    assert res.items["request_en"].tolist() == ["summarize the last 2 messages"]
    assert res.meta["translator"] == translator.spec


def test_the_cli_names_a_bad_floor_variant(capsys):
    from aya_lab.cli import main

    for bad in ("lead-x", "lead-0"):
        assert main(["eval", "run", "summaries", "--variants", bad, "--no-progress"]) == 2
        err = capsys.readouterr().err
        assert f"unknown summarizer variant {bad!r}" in err and "copy-transcript, lead-N" in err


def test_mafand_has_no_document_ids_so_it_is_resampled_in_contiguous_blocks(mini_data):
    from aya_lab.datasets import load_parallel
    from aya_lab.eval import CopySystem, evaluate_translation

    assert load_parallel("mafand", "eng", "swa", n=4).doc_ids is None
    res = evaluate_translation([CopySystem()], "mafand", "eng-swa", n=4, n_bootstrap=20, n_ar=10, langid=False)
    assert set(res.df["resample_unit"]) == {"block of 5"}
    seg = evaluate_translation([CopySystem()], "mafand", "eng-swa", n=4, n_bootstrap=20, n_ar=10, langid=False,
                               resample="segment")  # fmt: skip
    assert set(seg.df["resample_unit"]) == {"segment"}  # sacrebleu's own unit, on request
    ntrex = evaluate_translation([CopySystem()], "ntrex128", "eng-swa", n=4, n_bootstrap=20, n_ar=10, langid=False)
    assert "document" in set(ntrex.df["resample_unit"])  # where ids exist, documents are the units


def test_with_no_model_given_requests_are_translated_by_the_translator_role(monkeypatch):
    import aya_lab.eval.summarization as summarization
    from aya_lab.models import default_model_spec

    loaded = []

    def fake_load(spec):
        loaded.append(spec)
        return FakeChatModel(default="summarize the last 2 messages")

    monkeypatch.setattr(summarization, "_chat_model", fake_load)
    t = _transcript(["the budget is due friday", "lena reviews it", "lunch at noon"], "budget due friday")
    t.request, t.request_lang = "fasse die letzten 2 Nachrichten zusammen", "deu"
    evaluate_summarizers(["copy-transcript"], transcripts=[t], n_bootstrap=0)
    assert loaded == [None, default_model_spec("translator")]  # the chat model's default, then the translator role's
    loaded.clear()
    evaluate_summarizers(["copy-transcript"], model="smollm2", transcripts=[t], n_bootstrap=0)
    assert loaded == ["smollm2"]  # a model given and no translator: the model translates too
    loaded.clear()
    evaluate_summarizers(["copy-transcript"], transcripts=[t], translate_requests=False, n_bootstrap=0)
    assert loaded == [None]  # requests read as written: no translator model is loaded


def test_the_command_line_loads_a_translator_only_when_requests_are_translated(monkeypatch):
    import argparse

    import aya_lab.eval.tasks as tasks
    from aya_lab.eval.configs import SummariesConfig

    loaded = []
    monkeypatch.setattr(tasks, "load_chat_model", lambda spec, **_: loaded.append(spec) or FakeChatModel(default="0"))
    monkeypatch.setattr(tasks, "env", lambda: argparse.Namespace(cache_mode="off"))
    args = argparse.Namespace(max_new_tokens=8, batch_size=1)
    with tasks._with_models("summaries", SummariesConfig(model="smollm2"), args) as config:
        assert config.translator is not None
    assert loaded == ["smollm2"] and config.translator is config.model  # --model translates too, loaded once
    loaded.clear()
    with tasks._with_models("summaries", SummariesConfig(model="smollm2", translate_requests=False), args) as config:
        assert config.translator is None
    assert loaded == ["smollm2"]  # requests read as written: no translator loaded
