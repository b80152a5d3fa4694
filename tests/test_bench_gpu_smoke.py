"""benchmarks/bench_gpu.py --smoke: the GPU script's own code, on the CPU with tiny shapes, so it cannot rot."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

SCRIPT = Path(__file__).resolve().parent.parent / "benchmarks" / "bench_gpu.py"
MODELS = ["aya-expanse-8b", "gemma3-270m", "nllb-200-distilled-600m"]


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=600)


def test_smoke_prints_one_json_line_per_configuration():
    done = run("--smoke", "--batches", "1,3", "--new-tokens", "3", "--static-cache")
    assert done.returncode == 0, done.stderr[-2000:]
    header, *rows = [json.loads(line) for line in done.stdout.splitlines()]
    assert header["device_name"] == "cpu" and header["bandwidth"] == 4.8e12
    seen = {(r["model"], r["batch"], r["path"]) for r in rows}
    for model in MODELS:
        paths = ["raw", "aya_lab"] + (["aya_lab+static"] if model != "nllb-200-distilled-600m" else [])
        assert {(model, b, p) for b in (1, 3) for p in paths} <= seen
    assert len(rows) == len(seen) == 2 * 3 + 2 * 3 + 2 * 2
    for r in rows:
        assert r["new_tokens"] == 3 and r["tok_s"] > 0 and r["dtype"] == "float32"
        assert r["tok_s"] == pytest.approx(r["batch"] * 3 / r["seconds"], rel=0.01, abs=0.1)
        assert 0 < r["roofline_fraction"] < 1 and r["peak_gpu_gb"] is None
        assert r["ratio_vs_raw"] == 1.0 if r["path"] == "raw" else r["ratio_vs_raw"] > 0


def test_without_a_gpu_the_full_run_refuses_in_one_line():
    done = run("--models", "gemma3-270m")
    assert done.returncode == 2 and done.stderr.strip() == "error: no CUDA device; run with --smoke on a CPU"


def test_a_bad_model_name_is_named():
    done = run("--smoke", "--models", "gemma-3")
    assert done.returncode == 2 and "unknown model 'gemma-3'" in done.stderr


def test_imports_only_what_aya_lab_models_needs():
    """The GPU machine has torch and transformers, not LangChain/LangGraph or the rest of aya_lab."""
    code = (
        "import importlib.util, json, sys\n"
        f"spec = importlib.util.spec_from_file_location('bench_gpu', {str(SCRIPT)!r})\n"
        "spec.loader.exec_module(importlib.util.module_from_spec(spec))\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    modules = set(json.loads(done.stdout))
    tops = {m.split(".")[0] for m in modules}
    assert not tops & {
        "langchain",
        "langgraph",
        "langchain_community",
        "langchain_huggingface",
        "sentence_transformers",
    }
    ours = {m for m in modules if m.startswith("aya_lab.")}
    allowed = ("aya_lab.models", "aya_lab.paths", "aya_lab.languages", "aya_lab.prompts", "aya_lab.spotlight")
    allowed += ("aya_lab.settings", "aya_lab.errors", "aya_lab.refs")  # core, standard library only
    assert ours and all(m.startswith(allowed) for m in ours), sorted(ours)
