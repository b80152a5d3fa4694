"""docs/SECURITY.md's table of the hostile-input run states the number of cases per group that the suite
really collects, so the page cannot claim cases that were dropped (or hide new ones)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from tests.hostile.count_plugin import MARK

ROOT = Path(__file__).resolve().parents[2]


def _documented() -> dict[str, int]:
    text = (ROOT / "docs" / "SECURITY.md").read_text(encoding="utf-8")
    section = text[text.index("## The hostile-input run") :]
    return {g: int(n) for g, n in re.findall(r"^\| ([a-z_]+) \| (\d+) \|", section, re.MULTILINE)}


def test_the_documented_counts_are_the_collected_ones():
    cmd = [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider"]
    cmd += ["-p", "tests.hostile.count_plugin", "-m", "hostile", "tests/hostile"]
    out = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, check=True).stdout
    line = next(x for x in out.splitlines() if x.startswith(MARK))
    collected = json.loads(line[len(MARK) :])
    documented = _documented()
    assert documented == collected
    assert sum(collected.values()) >= 120  # issue 37's floor for the run
