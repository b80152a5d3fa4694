"""One ``usage()``: records, results and the room's traces of them add up the same way."""

from __future__ import annotations

from aya_lab.models.result import GenerationRecord, GenerationResult, usage

RESULTS = [GenerationResult("a", 10, 3, latency_s=0.5), GenerationResult("b", 7, 2, cached=True, latency_s=0.25)]


def test_records_and_results_cost_the_same():
    records = [GenerationRecord("m", "fp", "p", r) for r in RESULTS]
    expected = {"calls": 2, "prompt_tokens": 17, "completion_tokens": 5, "latency_s": 0.75}
    assert usage(records) == usage(RESULTS) == usage(iter(RESULTS)) == expected


def test_nothing_costs_zero():
    assert usage([]) == {"calls": 0, "prompt_tokens": 0, "completion_tokens": 0, "latency_s": 0.0}
    assert isinstance(usage([])["latency_s"], float)
