"""benchmarks/bench_engine_load.py loads a committed adapter both ways and shows what the lazy context saves."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

SCRIPT = Path(__file__).resolve().parent.parent / "benchmarks" / "bench_engine_load.py"


def test_an_engine_that_never_decodes_makes_no_context():
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--adapters", "1", "--repeats", "1"], capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr[-2000:]
    rows = {line.split()[0]: line.split()[1:] for line in done.stdout.strip().splitlines()[2:]}
    assert set(rows) == {"at-load", "on-first-use", "ratio"}
    eager_mb, lazy_mb = float(rows["at-load"][1]), float(rows["on-first-use"][1])
    assert eager_mb > lazy_mb + 300  # Gemma's 16 streams of 2,048 tokens: hundreds of MB never allocated


def test_too_many_adapters_is_one_line():
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--adapters", "999", "--repeats", "1"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode != 0 and "--adapters 999: only" in done.stderr
