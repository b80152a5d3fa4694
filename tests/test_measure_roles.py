"""benchmarks/measure_roles.py on fake models with a tiny n: every role's rows, paired tests, bad input."""

import importlib.util
import sys
from pathlib import Path

import pytest

from aya_lab.models.fake import FakeChatModel
from tests.fakes import FakeRoomModel

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "measure_roles.py"
spec = importlib.util.spec_from_file_location("measure_roles", SCRIPT)
measure_roles = importlib.util.module_from_spec(spec)
sys.modules.setdefault("measure_roles", measure_roles)  # dataclasses look their module up there
spec.loader.exec_module(measure_roles)

CHAT_RULES = [("Tool:", "summarize"), ("Number:", "2"), ("Summary:", "Plans changed.\n- lena: send the report")]


class FakeCompletion(FakeChatModel):
    """A fake base model: answers the last line of a completion prompt, then rambles past the stop."""

    spec: str = "fake:base"
    has_chat_template: bool = False

    def answer(self, prompt: str) -> str:
        *_, before, last = prompt.rsplit("\n", 2)
        if last.startswith("Tool:"):
            return " query\nRequest: more"
        if last.startswith("Number:"):
            return " 0\nRequest: more"
        if last.startswith("Summary:"):
            return " A summary.\n- kofi: book the room\n\nMessages: more"
        return f" {before.split(': ', 1)[-1]}\nnext"  # a translation that copies the source


def _loader(spec, **kw):
    return FakeCompletion() if spec == "fake:base" else FakeRoomModel(rules=CHAT_RULES, default="chat")


def test_every_role_is_measured_with_paired_tests():
    cands = measure_roles.parse_candidates("fake:chat@chat,fake:base@completion", load=_loader)
    df = measure_roles.measure(cands, n=3, datasets=("workplace",), pairs=("eng-fra", "fra-eng"), n_bootstrap=50)
    assert list(df.columns) == measure_roles.COLUMNS
    assert set(df["candidate"]) == {"fake:chat@chat", "fake:base@completion"}
    tasks = set(df["task"])
    assert {"workplace eng-fra", "workplace fra-eng", "routing", "summarizer count", "summarizer actions"} <= tasks
    base = df[df["candidate"] == "fake:chat@chat"]
    other = df[df["candidate"] == "fake:base@completion"]
    assert base["p_value"].isna().all() and other["p_value"].notna().all()
    assert ((df["ci_low"] <= df["score"] + 1e-9) & (df["score"] <= df["ci_high"] + 1e-9)).all()
    routing = df[df["task"] == "routing"].set_index("candidate")
    assert routing.loc["fake:chat@chat", "n"] == 3
    em = df[df["metric"] == "exact match"].set_index("candidate")["score"]
    assert 0.0 <= em.min() <= em.max() <= 1.0
    table = measure_roles.format_table(df)
    assert "fake:base@completion" in table and "p=" in table


def test_completion_candidates_get_completion_prompts_cut_at_the_stop():
    (cand,) = measure_roles.parse_candidates("fake:base@completion", load=_loader)
    scores = measure_roles.summarizer_scores(cand, measure_roles.load_transcripts()[:2])
    assert list(scores.columns) == ["count_exact", "tp", "n_pred", "n_gold"]
    assert (scores["n_pred"] == 1).all()  # "- kofi: book the room", the rambling after the blank line cut
    assert all(p.endswith(("Number:", "Summary:", "English:")) for p in cand.model.prompts)


@pytest.mark.parametrize(
    "text,problem",
    [
        ("fake:base", "must be SPEC@chat or SPEC@completion"),
        ("fake:base@poem", "must be SPEC@chat or SPEC@completion"),
        ("fake:base@chat", "base model without a chat template; use fake:base@completion"),
        ("fake:chat@chat,fake:chat@chat", "distinct"),
        ("gemma3@completion", "did you mean 'gemma3-270m'"),
    ],
)
def test_bad_candidates_are_one_line(text, problem):
    with pytest.raises(ValueError, match=problem) as err:
        measure_roles.parse_candidates(text, load=_loader)
    assert "\n" not in str(err.value)


def test_unknown_role_is_refused():
    cands = measure_roles.parse_candidates("fake:chat@chat", load=_loader)
    with pytest.raises(ValueError, match="unknown role 'translater'"):
        measure_roles.measure(cands, roles=("translater",))
