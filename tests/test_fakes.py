"""The room fake keys on the prompt files' structure (their variables), not on their English wording; the
test doubles keep the whole contracts the agents are typed against."""

import shutil

import pytest

from aya_lab.agents.protocols import KnowledgeBaseLike, TextModel
from aya_lab.paths import prompts_dir
from aya_lab.prompts import PromptFile, load_prompt
from aya_lab.rag.facts import Fact
from aya_lab.rag.index import Retrieved
from tests.fakes import FakeKnowledgeBase, FakeRoomModel


def _ask(model: FakeRoomModel, prompt: PromptFile, **values: str) -> str:
    return model.generate_texts([prompt.render(**values)])[0].text


@pytest.mark.parametrize("variant", ["baseline", "strict"])
def test_user_translate_variants_answer_with_the_tagged_message(variant):
    prompt = load_prompt(f"user_translate/{variant}")
    values = {"target_language": "German", "message": "see you on Friday"}
    if "source_language" in prompt.variables:
        values["source_language"] = "English"
    context = "Context (recent messages, do not translate):\nkofi: Message: earlier\n"
    assert _ask(FakeRoomModel(), prompt, context=context, **values) == "[German] see you on Friday"


def test_aya_translate_answers_in_english_and_other_prompts_fall_through():
    model = FakeRoomModel(default="fallback")
    assert _ask(model, load_prompt("aya_translate/baseline"), request="muhtasari tafadhali") == (
        "[English] muhtasari tafadhali"
    )
    assert _ask(model, load_prompt("chat/baseline"), **_dummy_values("chat/baseline")) == "fallback"


def _dummy_values(ref: str) -> dict[str, str]:
    prompt = load_prompt(ref)
    return {v: "x" for v in prompt.variables if v not in prompt.defaults}


def test_rewording_a_prompt_file_keeps_the_fake_working(tmp_path, monkeypatch):
    root = tmp_path / "prompts"
    shutil.copytree(prompts_dir(), root)
    baseline = root / "user_translate" / "baseline.yaml"
    baseline.write_text(
        "description: reworded\n"
        "defaults: {context: ''}\n"
        "system: 'Render the line below in {target_language}; nothing else.'\n"
        "user: '{context}>> {message}'\n"
    )
    monkeypatch.setattr("aya_lab.prompts.load.prompts_dir", lambda: root)
    reworded = load_prompt("user_translate/baseline")
    assert "Render the line" in (reworded.system or "")
    assert _ask(FakeRoomModel(), reworded, target_language="Yoruba", message="hello") == "[Yoruba] hello"


def test_the_doubles_implement_the_whole_protocols():
    assert isinstance(FakeRoomModel(), TextModel) and FakeRoomModel().guard_checks == ("assistant",)
    hit = Retrieved("x", "a.md", "", 0.5)
    kb = FakeKnowledgeBase([hit, hit], created_at="2026-12-01")
    assert isinstance(kb, KnowledgeBaseLike) and kb.relevant("anything", k=1) == [hit]
    fact_id = kb.add_fact("the canteen opens at 8", author="kofi", run_id="r1")
    assert kb.facts() == [Fact(fact_id, "the canteen opens at 8", "kofi", "2026-12-01")]
    kb.forget(fact_id, by="lena", reason="wrong")
    assert kb.facts() == [] and kb.audit_rows == [(fact_id, "the canteen opens at 8", "kofi", "lena", "wrong")]
