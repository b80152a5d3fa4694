"""combine_summarizer_runs: variants of runs on different models joined into one paired comparison."""

from __future__ import annotations

import pytest

from aya_lab.errors import InputError
from aya_lab.eval.summarization import combine_summarizer_runs, evaluate_summarizers
from aya_lab.models.fake import FakeChatModel

ONECALL_RIGHT = "COUNT: 3\nSUMMARY: The cargo is late.\nACTIONS:\n- none"
ONECALL_WRONG = "no format at all"


def _run(answer: str, *, translate: bool = True):
    model = FakeChatModel(default=answer)
    return evaluate_summarizers(("one_call",), model=model, n=4, n_bootstrap=50, translate_requests=translate)


def test_labels_become_variants_and_the_first_is_the_baseline():
    wrong, right = _run(ONECALL_WRONG), _run(ONECALL_RIGHT, translate=False)
    both = combine_summarizer_runs({"prompted": (wrong, "one_call"), "tuned": (right, "one_call")}, n_bootstrap=50)
    assert both.systems == ["prompted", "tuned"] and both.baseline == "prompted"
    per = both.items.set_index(["system", "transcript_id"])["count_parsed"]
    assert per["prompted"].sum() == 0 and per["tuned"].sum() == 4  # rows relabelled, not re-scored
    parsed = both.paired.set_index("metric").loc["count_parsed"]
    assert parsed["system"] == "tuned" and parsed["delta"] == pytest.approx(1.0)
    assert both.meta["sources"]["tuned"]["translate_requests"] is False
    assert both.meta["transcript_ids"] == wrong.meta["transcript_ids"]


def test_same_result_as_one_run_when_both_come_from_it():
    # two variants of one run, combined, give the paired table that run computed itself (same seed)
    res = evaluate_summarizers(("two_call", "one_call"), model=FakeChatModel(default="2"), n=4, n_bootstrap=50)
    both = combine_summarizer_runs({"two_call": (res, "two_call"), "one_call": (res, "one_call")}, n_bootstrap=50)
    cols = ["metric", "delta", "ci_low", "ci_high", "p", "p_holm"]
    assert both.paired[cols].equals(res.paired[cols])


def test_refuses_runs_on_other_transcripts_and_unknown_variants():
    a, b = (
        _run(ONECALL_RIGHT),
        evaluate_summarizers(("one_call",), model=FakeChatModel(default="x"), n=3, n_bootstrap=50),
    )
    with pytest.raises(InputError, match="other transcripts"):
        combine_summarizer_runs({"a": (a, "one_call"), "b": (b, "one_call")})
    with pytest.raises(InputError, match="no variant 'two_call'"):
        combine_summarizer_runs({"a": (a, "one_call"), "b": (a, "two_call")})
    with pytest.raises(InputError, match="at least two"):
        combine_summarizer_runs({"a": (a, "one_call")})
