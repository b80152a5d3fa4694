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
    with pytest.raises(EngineError, match="engine 'dask' is not one of local, ray"):
        executor_from_env()
    assert isinstance(current_executor(), LocalExecutor)  # the environment never switches it by itself


def test_eval_translate_on_ray_gives_the_local_scores(ray_executor, tmp_path, capsys):
    import pandas as pd

    from aya_lab.eval.cli import main

    common = [
        "eval",
        "translate",
        "--system",
        "fake:echo",
        "--dataset",
        "workplace",
        "--pairs",
        "eng-fra",
        "--n",
        "6",
        "--n-bootstrap",
        "20",
        "--n-ar",
        "20",
        "--no-progress",
    ]
    assert main([*common, "--out", str(tmp_path / "local.csv"), "--engine", "local"]) == 0
    assert main([*common, "--out", str(tmp_path / "ray.csv"), "--engine", "ray"]) == 0
    local, remote = pd.read_csv(tmp_path / "local.csv"), pd.read_csv(tmp_path / "ray.csv")
    assert list(remote["score"]) == list(local["score"]) and len(local) > 0
    with pytest.raises(SystemExit) as exit_:
        main([*common, "--engine", "spark"])
    assert exit_.value.code == 2 and "invalid choice: 'spark'" in capsys.readouterr().err
