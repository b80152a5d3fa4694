"""Prompt files: loading, variables, hashes, variants, errors."""

import pytest

from aya_lab.paths import prompts_dir
from aya_lab.prompts import PromptError, list_variants, load_prompt

TASKS = [
    "user_translate",
    "aya_translate",
    "supervisor",
    "query",
    "summarizer_count",
    "summarizer_summary",
    "summarizer_onecall",
    "chat",
]


@pytest.mark.parametrize("task", TASKS)
def test_every_task_has_a_loadable_baseline(task):
    p = load_prompt(f"{task}/baseline")
    assert p.name == f"{task}/baseline" and p.description and p.variables
    assert len(p.content_hash) == 16


def test_render_fills_variables_and_defaults():
    p = load_prompt("user_translate/baseline")
    msgs = p.render(target_language="German", message="The meeting moved to Friday.")
    assert msgs[0].type == "system" and "into German" in msgs[0].content
    assert msgs[-1].content == "Message: The meeting moved to Friday."
    with_ctx = p.render(target_language="German", message="ok", context="Context:\nlena | hi\n")
    assert with_ctx[-1].content.startswith("Context:\nlena | hi\nMessage: ok")


def test_missing_variable_names_itself():
    with pytest.raises(PromptError, match=r"prompt 'user_translate/baseline' needs variable 'target_language'"):
        load_prompt("user_translate/baseline").render(message="x")


def test_unexpected_variable_is_refused():
    with pytest.raises(PromptError, match=r"has no variable 'colour'"):
        load_prompt("chat/baseline").render(request="hi", colour="red")


def test_variants_listed_baseline_first():
    assert list_variants("user_translate")[0] == "baseline"
    assert "strict" in list_variants("user_translate")


def test_unknown_variant_lists_the_known_ones():
    with pytest.raises(
        PromptError, match=r"no prompt variant 'strikt' for task 'user_translate'; variants: baseline, strict"
    ):
        load_prompt("user_translate/strikt")


def test_unknown_key_in_file_is_located(tmp_path):
    (tmp_path / "t").mkdir()
    (tmp_path / "t" / "v.yaml").write_text("description: d\nuser: '{x}'\nsytem: oops\n")
    with pytest.raises(PromptError, match=r"v.yaml: sytem: Extra inputs are not permitted"):
        load_prompt("t/v", root=tmp_path)


def test_hash_changes_with_content(tmp_path):
    (tmp_path / "t").mkdir()
    f = tmp_path / "t" / "v.yaml"
    f.write_text("description: d\nuser: 'Say {x}'\n")
    h1 = load_prompt("t/v", root=tmp_path).content_hash
    f.write_text("description: d\nuser: 'Say {x}!'\n")
    import os

    os.utime(f, ns=(1, 2))
    assert load_prompt("t/v", root=tmp_path).content_hash != h1


def test_chat_template_composes():
    from aya_lab.models.fake import FakeChatModel

    chain = load_prompt("chat/baseline").chat_template() | FakeChatModel(responses=["Hello!"])
    assert chain.invoke({"request": "hi"}).content == "Hello!"


def test_prompts_dir_exists():
    assert (prompts_dir() / "user_translate" / "baseline.yaml").exists()
