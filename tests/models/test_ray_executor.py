"""The Ray engine: same outputs as local, a killed worker's batch retried, one cache, a clear error for an
unreachable cluster. Runs a real local Ray cluster (2 CPUs, loopback only) once for the module."""

from __future__ import annotations

import time

import pytest
from langchain_core.messages import HumanMessage

from aya_lab.models import GenerationCache, load_model
from aya_lab.models.engine import executor_from_env, make_executor
from aya_lab.models.executor import EngineError, LocalExecutor, current_executor, use_executor
from aya_lab.models.ray_executor import RayExecutor
from aya_lab.settings import SettingsError

pytestmark = pytest.mark.ray


@pytest.fixture(scope="module")
def ray_executor():
    ray = pytest.importorskip("ray")
    executor = RayExecutor(num_actors=2, num_cpus=2)
    executor._ray()
    yield executor
    executor.shutdown()
    ray.shutdown()


def conversations(n: int, tag: str = "") -> list[list[HumanMessage]]:
    return [[HumanMessage(f"segment {tag}{i} " + "word " * (i % 5))] for i in range(n)]


def test_ray_gives_the_same_outputs_as_local_and_caches_on_the_driver(ray_executor, tmp_path):
    convs = conversations(9)
    local = load_model("fake:echo", batch_size=2, reuse=False)
    local.cache = GenerationCache(tmp_path / "local.sqlite")
    expected = [r.text for r in local.generate_texts(convs)]
    remote = load_model("fake:echo", batch_size=2, reuse=False)
    remote.cache = GenerationCache(tmp_path / "ray.sqlite")
    with use_executor(ray_executor):
        got = [r.text for r in remote.generate_texts(convs)]
    assert got == expected
    assert remote.batches == []  # the driver's model generated nothing itself
    assert len(remote.cache) == len(set(expected)) == 9
    with use_executor(ray_executor):  # second run: every prompt is a cache hit, nothing is sent
        again = remote.generate_texts(convs)
    assert all(r.cached for r in again)


@pytest.fixture
def one_thread():
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # as many threads as an actor has: the same float reductions
    yield
    torch.set_num_threads(threads)


@pytest.mark.integration
def test_a_tiny_real_model_is_byte_identical_on_ray(ray_executor, tiny_llama_dir, tmp_path, one_thread):
    spec = f"hf:{tiny_llama_dir}"
    convs = conversations(6, "x")
    local = load_model(spec, settings={"max_new_tokens": 6}, batch_size=3, reuse=False)
    local.cache = GenerationCache(tmp_path / "a.sqlite")
    remote = load_model(spec, settings={"max_new_tokens": 6}, batch_size=3, reuse=False)
    remote.cache = GenerationCache(tmp_path / "b.sqlite")
    with use_executor(ray_executor):
        got = [r.text for r in remote.generate_texts(convs)]
    assert got == [r.text for r in local.generate_texts(convs)]


@pytest.mark.integration
def test_llama_cpp_on_ray_matches_local_and_stops_at_the_batch_stop_strings(ray_executor, tmp_path):
    from aya_lab.prompts import COMPLETION_KEY

    def completion(text):  # distinct first words: no prompt shares a prefix with another
        return [HumanMessage(text, additional_kwargs={COMPLETION_KEY: {"stop": ["\n"]}})]

    convs = [completion(f"{w} list:\n1. one\n2.") for w in ("Apple", "Bread", "Cloud", "Dance")]
    local = load_model("smollm2", settings={"max_new_tokens": 8}, batch_size=2, reuse=False, threads=1)
    local.cache = GenerationCache(tmp_path / "a.sqlite")
    local.engine.forget()
    expected = [r.text for r in local.generate_texts(convs)]
    remote = load_model("smollm2", settings={"max_new_tokens": 8}, batch_size=2, reuse=False, threads=1)
    remote.cache = GenerationCache(tmp_path / "b.sqlite")
    with use_executor(ray_executor):
        got = [r.text for r in remote.generate_texts(convs)]
    assert got == expected and all("\n" not in t for t in got)


def test_a_killed_worker_is_replaced_and_its_batch_retried(ray_executor):
    import ray

    model = load_model("fake:slow-echo", batch_size=1, reuse=False)
    batches = [[f"prompt {i}"] for i in range(6)]
    before = ray_executor.retried_batches
    run = ray_executor.run(model, batches, 0)
    seen = [next(run)]  # both actors are busy now (0.5 s a batch); one just finished
    for actor in ray_executor.actors(model):
        ray.kill(actor)  # the busy one dies mid-batch, the idle one before its next batch
    seen += list(run)
    assert sorted(b[0] for b, _ in seen) == sorted(b[0] for b in batches)  # each batch exactly once
    assert all(r[0].text == b[0] for b, r in seen)
    assert ray_executor.retried_batches > before


def test_an_unreachable_cluster_is_one_line_naming_the_address():
    started = time.monotonic()
    with pytest.raises(EngineError, match=r"cannot reach the Ray cluster at ray://127\.0\.0\.1:1 .*ray start --head"):
        RayExecutor(address="ray://127.0.0.1:1")._ray()
    assert time.monotonic() - started < 20


def test_engines_by_name_and_from_the_environment(monkeypatch):
    assert isinstance(make_executor("local"), LocalExecutor)
    assert isinstance(make_executor("ray", "auto"), RayExecutor)
    with pytest.raises(EngineError, match="unknown engine 'spark'"):
        make_executor("spark")
    monkeypatch.setenv("AYA_LAB_ENGINE", "ray")
    monkeypatch.setenv("AYA_LAB_RAY_ADDRESS", "ray://head:10001")
    assert executor_from_env().address == "ray://head:10001"
    monkeypatch.setenv("AYA_LAB_ENGINE", "dask")
    with pytest.raises(SettingsError, match="AYA_LAB_ENGINE='dask' is not one of local, ray"):
        executor_from_env()
    assert isinstance(current_executor(), LocalExecutor)  # the environment never switches it by itself


def test_eval_run_translation_on_ray_gives_the_local_scores(ray_executor, tmp_path, capsys):
    import pandas as pd

    from aya_lab.cli import main

    common = ["eval", "run", "translation", "--systems", "fake:echo", "--dataset", "workplace", "--pairs", "eng-fra"]
    common += ["--n", "6", "--n-bootstrap", "20", "--n-ar", "20", "--no-progress", "--no-faithfulness"]
    assert main([*common, "--out", str(tmp_path / "local.csv"), "--engine", "local"]) == 0
    assert main([*common, "--out", str(tmp_path / "ray.csv"), "--engine", "ray"]) == 0
    local, remote = pd.read_csv(tmp_path / "local.csv"), pd.read_csv(tmp_path / "ray.csv")
    assert list(remote["score"]) == list(local["score"]) and len(local) > 0
    assert main([*common, "--engine", "spark"]) == 2
    assert "invalid choice: 'spark'" in capsys.readouterr().err


# -- the driver killed: the rerun resumes from the driver's cache ---------------------------------------
_DRIVER = '''
import os, signal, sys, json
from aya_lab.eval.translation.evaluate import evaluate_translation
from aya_lab.models.fake import FakeEchoChatModel
from tests.fakes import ChatModelTranslator

COUNT, KILL_AFTER, OUT = sys.argv[1], int(sys.argv[2]), sys.argv[3]


class CountingEcho(FakeEchoChatModel):
    """Appends each generated prompt to COUNT; SIGKILLs its own process once KILL_AFTER are generated."""

    def _generate_uncached(self, prompts, repeat=0):
        done = open(COUNT).read().count("\\n") if os.path.exists(COUNT) else 0
        if KILL_AFTER and done >= KILL_AFTER:
            os.kill(os.getpid(), signal.SIGKILL)  # the driver dies mid-sweep, as under kill -9
        out = super()._generate_uncached(prompts, repeat)
        with open(COUNT, "a", encoding="utf-8") as fh:
            fh.writelines(p.replace("\\n", " ") + "\\n" for p in prompts)
        return out


system = ChatModelTranslator(CountingEcho(spec="fake:echo", batch_size=2), name="echo")
res = evaluate_translation(
    [system], "ntrex128", ["eng-fra", "swh-fra"], chunk_size=4, n_bootstrap=20, n_ar=20, langid=False, progress=False
)
json.dump({"generations": res.meta["generations"], "outputs": list(res.items["hypothesis"])}, open(OUT, "w"))
'''


def test_a_killed_driver_resumes_from_its_cache_generating_only_what_is_missing(tmp_path):
    import json
    import os
    import signal
    import subprocess
    import sys
    from pathlib import Path

    from aya_lab.models import GenerationCache
    from tests.eval.conftest import ENG, SWA, build_mini_data

    root = Path(__file__).resolve().parents[2]
    script, count, out = tmp_path / "driver.py", tmp_path / "generated.txt", tmp_path / "out.json"
    script.write_text(_DRIVER, encoding="utf-8")
    env = {
        **os.environ,
        "PYTHONPATH": str(root),
        "AYA_LAB_DATA_DIR": str(build_mini_data(tmp_path / "data")),
        "AYA_LAB_GENERATION_CACHE": str(tmp_path / "driver-cache.sqlite"),
        "AYA_LAB_CACHE_MODE": "readwrite",
        "AYA_LAB_ENGINE": "local",
        "TQDM_DISABLE": "1",
    }

    def drive(kill_after: int) -> subprocess.CompletedProcess:
        cmd = [sys.executable, str(script), str(count), str(kill_after), str(out)]
        return subprocess.run(cmd, cwd=root, env=env, capture_output=True, text=True, timeout=300)

    killed = drive(kill_after=10)  # 2 pairs x 12 segments = 24 prompts; killed before the 6th batch of 2
    assert killed.returncode == -signal.SIGKILL, killed.stderr[-2000:]
    assert not out.exists()
    assert len(GenerationCache(tmp_path / "driver-cache.sqlite")) == 10  # every finished batch was kept
    rerun = drive(kill_after=0)
    assert rerun.returncode == 0, rerun.stderr[-2000:]
    generated = count.read_text(encoding="utf-8").splitlines()
    assert len(generated) == 24 and len(set(generated)) == 24  # the rerun made only the 14 missing ones
    result = json.loads(out.read_text(encoding="utf-8"))
    assert result["generations"] == {"segments": 24, "cache_hits": 10, "generated": 14, "resumed": 0}
    assert result["outputs"] == ENG + SWA  # echo: the sources, in order, as an uninterrupted run gives
