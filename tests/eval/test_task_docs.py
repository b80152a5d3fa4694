"""docs/EVALUATION.md's example of adding a task runs as written and stays about 20 lines."""

from __future__ import annotations

import re

from aya_lab.eval.report import _REGISTERED  # noqa: PLC2701  # the test removes the task it registered
from aya_lab.paths import project_root


def _example() -> str:
    text = (project_root() / "docs" / "EVALUATION.md").read_text(encoding="utf-8")
    section = text.split("### Adding a task", 1)[1].split("\n## ", 1)[0]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


def test_the_adding_a_task_example_runs_and_its_table_shows_each_system(capsys):
    code = _example()
    assert len([line for line in code.splitlines() if line.strip()]) <= 20
    try:
        exec(compile(code, "EVALUATION.md", "exec"), {"__name__": "docs_example"})
    finally:
        _REGISTERED.pop("length", None)
    out = capsys.readouterr().out
    assert re.search(r"echo\s+2\b", out) and re.search(r"terse\s+0\.5\b", out)
