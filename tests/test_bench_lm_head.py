"""benchmarks/bench_lm_head.py runs on an embedded model and reports the head's real shape."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

SCRIPT = Path(__file__).resolve().parent.parent / "benchmarks" / "bench_lm_head.py"


def test_reports_the_vocabulary_by_width_and_both_timings():
    args = [sys.executable, str(SCRIPT), "--model", "smollm2", "--batch", "3", "--rounds", "2"]
    done = subprocess.run(args, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    line = done.stdout.strip().splitlines()[-1]
    m = re.search(r"LM head (\d+) x (\d+) .* 1 row ([\d.]+) ms, 3 rows ([\d.]+) ms, ratio ([\d.]+)", line)
    assert m, line
    assert (int(m[1]), int(m[2])) == (49152, 576)  # SmolLM2-135M's vocabulary and hidden size
    assert float(m[3]) > 0 and float(m[4]) > 0
    assert float(m[5]) == pytest.approx(float(m[4]) / float(m[3]), rel=0.05)  # ms are printed rounded
