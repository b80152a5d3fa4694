"""benchmarks/bench_scoring.py runs on a real test set and finds every fast path equal to sacrebleu's."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parent.parent / "benchmarks" / "bench_scoring.py"


@pytest.mark.skipif(not os.environ.get("AYA_LAB_DATA_DIR"), reason="needs NTREX-128 under AYA_LAB_DATA_DIR")
def test_every_part_is_timed_both_ways_and_equal():
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--n", "20", "--repeats", "1"], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    rows = [line.split() for line in done.stdout.splitlines()[2:]]
    assert [r[0] for r in rows] == ["statistics", "again", "BLEU", "echo"] and all(r[-1] == "True" for r in rows)
