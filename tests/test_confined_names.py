"""Names confined to their folder (issue 11): prompt names to ``prompts/``, knowledge-base files to the
KB folder. A name or link that leads out is refused in one line that echoes nothing of the target."""

from __future__ import annotations

import pytest

from aya_lab.prompts import PromptError, load_prompt
from aya_lab.rag.documents import KnowledgeBaseError, read_documents

SECRET = "description: SECRET outside the prompts folder\nuser: 'SECRET {message}'\n"


@pytest.fixture
def prompts(tmp_path):
    root = tmp_path / "prompts"
    (root / "user_translate").mkdir(parents=True)
    (root / "user_translate" / "baseline.yaml").write_text("description: ok\nuser: '{message}'\n", encoding="utf-8")
    (tmp_path / "x.yaml").write_text(SECRET, encoding="utf-8")  # a valid prompt file, outside the folder
    return root


@pytest.mark.parametrize("name", ["user_translate/../../x", "../x", "user_translate/../baseline"])
def test_a_prompt_name_that_leaves_the_folder_is_refused(prompts, name):
    with pytest.raises(PromptError) as exc:
        load_prompt(name, prompts)
    text = str(exc.value)
    assert "\n" not in text and "SECRET" not in text
    assert text == f"prompt name {name!r} leaves the prompts folder; write TASK/VARIANT, e.g. user_translate/strict"
    assert load_prompt("user_translate/baseline", prompts).description == "ok"


def test_the_packaged_prompts_refuse_the_same_names():
    with pytest.raises(PromptError, match=r"prompt name 'user_translate/\.\./\.\./x' leaves the prompts folder"):
        load_prompt("user_translate/../../x")
    with pytest.raises(PromptError, match="leaves the prompts folder"):
        load_prompt("../../../etc/passwd", task="user_translate")


def test_a_prompt_variant_linked_out_of_the_folder_is_refused(prompts, tmp_path):
    (prompts / "user_translate" / "evil.yaml").symlink_to(tmp_path / "x.yaml")
    with pytest.raises(PromptError, match="leaves the prompts folder") as exc:
        load_prompt("user_translate/evil", prompts)
    assert "SECRET" not in str(exc.value)


@pytest.fixture
def kb(tmp_path):
    docs, outside = tmp_path / "kb", tmp_path / "outside"
    docs.mkdir()
    outside.mkdir()
    (docs / "travel.md").write_text("# Travel\nEconomy class.\n", encoding="utf-8")
    (outside / "payroll.md").write_text("# Payroll\nSECRET salaries.\n", encoding="utf-8")
    return docs, outside


def test_a_kb_file_linked_out_of_the_folder_is_refused(kb):
    docs, outside = kb
    (docs / "payroll.md").symlink_to(outside / "payroll.md")
    with pytest.raises(KnowledgeBaseError) as exc:
        read_documents(docs)
    text = str(exc.value)
    assert "\n" not in text and "SECRET" not in text
    assert text.startswith(f"KB file {docs / 'payroll.md'} links outside the KB folder")


def test_a_kb_subfolder_linked_out_of_the_folder_is_never_read(kb):
    docs, outside = kb
    (docs / "hr").symlink_to(outside, target_is_directory=True)
    try:
        found = read_documents(docs)
    except KnowledgeBaseError as exc:  # refusing the link is as good as skipping it
        assert "SECRET" not in str(exc) and "outside the KB folder" in str(exc)
        return
    assert [d.source for d in found] == ["travel.md"]
    assert not any("SECRET" in d.text for d in found)


def test_a_link_inside_the_kb_folder_is_indexed(kb):
    docs, _ = kb
    (docs / "sub").mkdir()
    (docs / "sub" / "leave.md").write_text("# Leave\n25 days.\n", encoding="utf-8")
    (docs / "leave_link.md").symlink_to(docs / "sub" / "leave.md")
    assert [d.source for d in read_documents(docs)] == ["leave_link.md", "sub/leave.md", "travel.md"]
