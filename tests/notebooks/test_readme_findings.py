"""Every finding README states comes from a notebook section that asserts it (issue 38).

README's "What the notebooks found" lists findings, one bullet each. Each bullet names where it is computed,
``[notebook NN](notebooks/NN_name.ipynb) › *Section*``; the check reads that notebook's jupytext pair and
requires the section (a ``## Section`` or ``### Section`` heading, up to the next one) to exist and to hold at least one
``assert`` in its code, so a figure README states is one a re-recording that changes it would fail on.
"""

from __future__ import annotations

import re
from pathlib import Path

from aya_lab.paths import project_root

CITATION = re.compile(r"\[notebook \d+\]\((notebooks/[\w.]+\.ipynb)\) › \*([^*]+)\*")


def findings(readme: str) -> list[str]:
    """The bullets of README's "What the notebooks found" section."""
    section = readme.split("## What the notebooks found", 1)[1].split("\n## ", 1)[0]
    return [b.strip() for b in re.split(r"\n(?=- \*\*)", section) if b.strip().startswith("- **")]


def section_code(notebook_py: str, heading: str) -> str | None:
    """The code of the ``## heading`` (or ``###``) section of a jupytext percent notebook, up to the next such
    heading, or ``None``: no such heading."""
    parts = re.split(r"^# ###? ", notebook_py, flags=re.M)
    for part in parts[1:]:
        title, _, body = part.partition("\n")
        if title.strip() == heading:
            return "\n".join(line for line in body.splitlines() if not line.startswith("#"))
    return None


def test_every_finding_cites_a_notebook_section_that_asserts():
    root = project_root()
    bullets = findings((root / "README.md").read_text(encoding="utf-8"))
    assert len(bullets) >= 6, "README lists its findings as bullets"
    problems = []
    for bullet in bullets:
        cited = CITATION.findall(bullet)
        if not cited:
            problems.append(f"no notebook section cited: {bullet[:70]}")
        for ipynb, heading in cited:
            code = section_code(Path(root / ipynb).with_suffix(".py").read_text(encoding="utf-8"), heading)
            if code is None:
                problems.append(f"{ipynb} has no section '## {heading}'")
            elif not re.search(r"^\s*assert\b", code, flags=re.M):
                problems.append(f"{ipynb} › {heading}: no assert in its code")
    assert not problems, "\n".join(problems)


def test_the_check_finds_a_missing_section_and_a_section_without_asserts():
    notebook = "# %% [markdown]\n# ## Has\n# %%\nx = 1\nassert x\n# %% [markdown]\n# ## Hasnt\n# %%\ny = 2\n"
    assert "assert x" in (section_code(notebook, "Has") or "")
    assert "assert" not in (section_code(notebook, "Hasnt") or "x")
    assert section_code(notebook, "Missing") is None
    assert findings("## What the notebooks found\n\n- **A** x\n- **B** y\n\n## Next\n- **C**") == ["- **A** x", "- **B** y"]
