"""prompts/README.md stays true: every schema key, every task and every variable a prompt file uses is documented."""

from __future__ import annotations

import hashlib
import json
import re

import pytest

from aya_lab.paths import project_root, prompts_dir
from aya_lab.prompts import ExamplesSpec, PromptFile, fewshot_dir, list_variants, load_prompt

README = project_root() / "prompts" / "README.md"


@pytest.fixture(scope="module")
def text() -> str:
    if not README.is_file():
        pytest.skip("no checkout: prompts/README.md is not installed beside the package")
    return README.read_text(encoding="utf-8")


def _task_rows(text: str) -> dict[str, str]:
    """``{task: its row}`` from the 'Variables per task' table."""
    section = text.split("## Variables per task", 1)[1].split("\n## ", 1)[0]
    return {m.group(1): m.group(0) for m in re.finditer(r"^\| `([a-z_]+)` \|.*$", section, re.M)}


def test_every_schema_key_is_documented(text):
    keys = set(PromptFile.model_fields) - {"task", "variant"}
    missing = sorted(k for k in keys if f"`{k}`" not in text)
    assert not missing, f"prompts/README.md does not document the key(s) {missing}"
    missing = sorted(k for k in ExamplesSpec.model_fields if f"`{k}`" not in text)
    assert not missing, f"prompts/README.md does not document examples.{missing[0]}"


def test_every_task_and_variable_is_documented(text):
    rows = _task_rows(text)
    tasks = sorted(p.name for p in prompts_dir().iterdir() if p.is_dir())
    assert sorted(rows) == tasks
    for task in tasks:
        for variant in list_variants(task, completion=True):
            for name in load_prompt(f"{task}/{variant}").variables:
                assert f"`{name}`" in rows[task], f"{task}/{variant} uses {{{name}}}, not in the README's {task} row"


def test_the_documented_hash_recipe_matches_the_code(text):
    """The README's recipe, followed literally, gives every prompt file's content_hash."""
    assert "first 16 hex digits of the SHA-256" in text and "`pool_sha256`" in text
    for task in sorted(p.name for p in prompts_dir().iterdir() if p.is_dir()):
        for variant in list_variants(task, completion=True):
            prompt = load_prompt(f"{task}/{variant}")
            data = prompt.model_dump(exclude={"task", "variant"})
            for key, default in (("format", "chat"), ("examples", None), ("stop", None), ("untrusted", [])):
                if data[key] == default:
                    del data[key]
            if prompt.examples is not None:
                for key, default in (("nearest", None), ("skip", 0)):
                    if data["examples"][key] == default:
                        del data["examples"][key]
            if prompt.examples is not None and prompt.examples.records is None:
                del data["examples"]["records"]
                pool = fewshot_dir() / f"{prompt.examples.pool}.yaml"
                data["pool_sha256"] = hashlib.sha256(pool.read_bytes()).hexdigest()[:16]
            payload = json.dumps(data, sort_keys=True, ensure_ascii=False).encode()
            assert hashlib.sha256(payload).hexdigest()[:16] == prompt.content_hash, f"{task}/{variant}"
