"""README's findings point at the notebook section whose code asserts them (issue 28: claims within evidence)."""

from __future__ import annotations

import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = re.compile(r"\[notebook (\d\d)\]\((notebooks/[^)\s]+\.ipynb)\) › \*([^*]+)\*")
HEADING = re.compile(r"^(#{2,3}) (.+?)\s*$", re.M)


def findings_section() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    start = text.index("## What the notebooks found")
    return text[start : text.index("\n## ", start + 1)]


def asserting_code(notebook: Path, section: str) -> list[str]:
    """The code cells from the markdown heading ``section`` to the next heading of its level or above."""
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    level, code = None, []
    for cell in cells:
        source = "".join(cell["source"])
        if cell["cell_type"] == "markdown":
            for hashes, title in HEADING.findall(source):
                if level is not None and len(hashes) <= level:
                    return code
                if title.strip() == section:
                    level = len(hashes)
        elif level is not None:
            code.append(source)
    assert level is not None, f"{notebook.name} has no heading '{section}'"
    return code


def test_every_finding_names_a_notebook_section_that_asserts():
    refs = REFERENCE.findall(findings_section())
    assert len({r[1] for r in refs}) >= 6, refs
    for number, path, section in refs:
        notebook = ROOT / path
        assert notebook.name.startswith(number) and notebook.is_file(), path
        code = asserting_code(notebook, section)
        assert any(re.search(r"^\s*assert ", c, re.M) for c in code), f"{path} › {section}: no assert in its code"


def test_a_section_without_an_assert_is_caught(tmp_path):
    nb = {"cells": [{"cell_type": "markdown", "source": ["## Findings\n"]},
                    {"cell_type": "code", "source": ["print('x')\n"]},
                    {"cell_type": "markdown", "source": ["## Next\n"]},
                    {"cell_type": "code", "source": ["assert True\n"]}]}  # fmt: skip
    path = tmp_path / "01_x.ipynb"
    path.write_text(json.dumps(nb), encoding="utf-8")
    assert asserting_code(path, "Findings") == ["print('x')\n"]
    assert asserting_code(path, "Next") == ["assert True\n"]
