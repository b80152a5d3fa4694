"""Cost tables: calls, tokens and recorded model seconds per arm of a comparison."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from aya_lab.datasets.project import RoutingExample
from aya_lab.eval.report import COST_COLUMNS, cost_table, generation_costs, routing_costs, translation_costs
from aya_lab.eval.routing import sweep_routing
from aya_lab.eval.translation.evaluate import evaluate_translation
from aya_lab.eval.translation.systems import CopySystem
from aya_lab.models.fake import FakeChatModel
from aya_lab.models.result import GenerationRecord, GenerationResult, publish, record_generations

FAST = dict(n_bootstrap=50, n_ar=50, progress=False)


class TimedSystem:
    """Copies its input and reports one generation per segment: 5 prompt tokens, 3 generated, 0.5 s."""

    name = "timed"

    def translate(self, texts, src, tgt, *, context=None):
        for text in texts:
            publish(GenerationRecord("fake:timed", "fp", text, GenerationResult(text, 5, 3, latency_s=0.5)))
        return [t.upper() for t in texts]

    def signature(self) -> dict[str, str]:
        return {"model_fingerprint": "fp", "prompt_hash": "-", "graph_spec_hash": "-"}


def test_translation_costs_sum_pairs_and_carry_recorded_seconds(mini_data):
    res = evaluate_translation([TimedSystem(), CopySystem()], "ntrex128", "eng-swh,eng-fra", n=4, **FAST)
    per_pair = res.df[(res.df["metric"] == "latency_s") & (res.df["system"] == "timed") & (res.df["pair"] != "pooled")]
    assert list(per_pair["score"]) == [2.0, 2.0]
    costs = translation_costs(res, device="cpu")
    assert list(costs.columns) == COST_COLUMNS
    assert list(costs.index) == ["timed", "copy"]
    timed = costs.loc["timed"]
    assert (timed["calls"], timed["prompt tokens"], timed["generated tokens"]) == (8, 40, 24)
    assert timed["model s"] == 4.0 and timed["generated tokens/s"] == 6.0 and timed["device"] == "cpu"
    copy = costs.loc["copy"]
    assert copy["calls"] == 0 and copy["model s"] == 0.0 and math.isnan(copy["generated tokens/s"])


def test_a_resumed_run_keeps_the_recorded_seconds(mini_data, tmp_path):
    ckpt = tmp_path / "ckpt.jsonl"
    first = evaluate_translation([TimedSystem()], "ntrex128", "eng-swh", n=4, checkpoint=ckpt, **FAST)
    again = evaluate_translation([TimedSystem()], "ntrex128", "eng-swh", n=4, checkpoint=ckpt, **FAST)
    assert translation_costs(again).loc["timed", "model s"] == translation_costs(first).loc["timed", "model s"] == 2.0


class TimedChatModel(FakeChatModel):
    """A scripted chat model whose every generation took 0.25 s."""

    def _generate_uncached(self, prompts: list[str], repeat: int = 0) -> list[GenerationResult]:
        out = super()._generate_uncached(prompts, repeat)
        return [GenerationResult(r.text, r.prompt_tokens, r.completion_tokens, latency_s=0.25) for r in out]


def test_routing_costs_include_the_request_translations():
    examples = [
        RoutingExample(
            id="r1", text="what is the per diem?", lang="eng", label="query", text_en="what is the per diem?"
        ),
        RoutingExample(id="r2", text="bonjour", lang="fra", label="chat", text_en="hello"),
    ]
    model = TimedChatModel(rules=[("<request>bonjour</request>", "hello")], default="query", spec="fake:timed-router")
    sweep = sweep_routing(["baseline", "fewshot"], model, examples, n_bootstrap=20)
    costs = routing_costs(sweep, device="cpu")
    assert list(costs.index) == ["baseline", "fewshot"]
    # each variant: 2 router calls + the 1 shared translation, 0.25 s each
    assert list(costs["calls"]) == [3, 3] and list(costs["model s"]) == [0.8, 0.8]  # 0.75 rounded to 0.1 s
    assert sweep.meta["translation_cost"]["calls"] == 1
    assert sweep.meta["translation_cost"]["latency_s"] == pytest.approx(0.25)


def test_generation_costs_group_records_by_model():
    with record_generations() as records:
        publish(GenerationRecord("a", "fa", "p", GenerationResult("x", 10, 4, latency_s=2.0)))
        publish(GenerationRecord("b", "fb", "p", GenerationResult("y", 1, 0, latency_s=0.0)))
        publish(GenerationRecord("a", "fa", "q", GenerationResult("z", 10, 4, latency_s=2.0)))
    costs = generation_costs(records, device="cuda")
    assert list(costs.index) == ["a", "b"]
    assert costs.loc["a", "calls"] == 2 and costs.loc["a", "generated tokens/s"] == 2.0
    assert math.isnan(costs.loc["b", "generated tokens/s"]) and set(costs["device"]) == {"cuda"}


def test_bad_input_is_one_clear_line():
    with pytest.raises(ValueError, match="no cost rows"):
        cost_table(pd.DataFrame({"system": ["a"], "metric": ["chrF"], "score": [1.0]}), "system")
    with pytest.raises(ValueError, match="no column 'prompt'"):
        cost_table(pd.DataFrame({"system": ["a"], "metric": ["llm_calls"], "score": [1.0]}), "prompt")
    with pytest.raises(ValueError, match="record_generations"):
        generation_costs([])
