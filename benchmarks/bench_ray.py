"""The same generation sweep on the local executor and on Ray, side by side in one run.

32 distinct chat prompts (those of ``bench_generate.py``) go through ``generate_texts`` with a fresh
cache each time, on
  (L) the local executor: this process, torch on all ``--threads`` threads;
  (R) the Ray executor: ``--actors`` actors on a local cluster, each loading the model once with
      ``threads / actors`` torch threads.
Output length is fixed (``min_new_tokens = max_new_tokens``) so the ratio measures compute, not
where a batch happened to stop. Each round runs L then R; the script prints seconds per round, the
medians, the ratio L/R time (>= 0.9: Ray's overhead is small on one machine), Ray's overhead per batch,
and the driver's cache write rate (writes/s into one SQLite file: the ceiling ``docs/SCALE.md`` uses).

    .venv/bin/python benchmarks/bench_ray.py [--rounds 3] [--actors 2] [--threads 2] [--batch-size 8]

Run it alone: two processes sharing two cores measure each other, not the engine.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import torch
from bench_generate import prompts

from aya_lab.models import GenerationCache, GenerationResult, load_model
from aya_lab.models.executor import use_executor
from aya_lab.models.ray_executor import RayExecutor


def timed_sweep(model, cache_path: Path, executor=None) -> float:
    model.cache = GenerationCache(cache_path)
    started = time.perf_counter()
    if executor is None:
        model.generate_texts(prompts())
    else:
        with use_executor(executor):
            model.generate_texts(prompts())
    return time.perf_counter() - started


def cache_writes_per_second(n: int = 2000) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        cache = GenerationCache(Path(tmp) / "w.sqlite")
        started = time.perf_counter()
        for i in range(n):
            cache.put("fp", f"prompt {i}", "settings", 0, GenerationResult(f"output {i}", 10, 10))
        return n / (time.perf_counter() - started)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="smollm2")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--actors", type=int, default=2)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--batch-size", type=int, default=8)
    ap.add_argument("--new-tokens", type=int, default=24)
    args = ap.parse_args()
    settings = {"max_new_tokens": args.new_tokens, "min_new_tokens": args.new_tokens}
    torch.set_num_threads(args.threads)
    model = load_model(args.model, settings=settings, batch_size=args.batch_size, reuse=False)
    ray_executor = RayExecutor(
        num_actors=args.actors, cpus_per_actor=max(1, args.threads // args.actors), num_cpus=args.threads
    )
    ray_executor.actors(model)  # start the cluster and load the model on every actor before timing
    with tempfile.TemporaryDirectory() as tmp:
        timed_sweep(model, Path(tmp) / "warm.sqlite", ray_executor)  # warm-up: first batches on each actor
        local, remote = [], []
        for r in range(args.rounds):
            local.append(timed_sweep(model, Path(tmp) / f"l{r}.sqlite"))
            remote.append(timed_sweep(model, Path(tmp) / f"r{r}.sqlite", ray_executor))
            print(f"round {r + 1}: local {local[-1]:.2f} s, ray {remote[-1]:.2f} s")
    ray_executor.shutdown()
    n_batches = -(-len(prompts()) // args.batch_size)
    lm, rm = statistics.median(local), statistics.median(remote)
    print(
        f"model {args.model}, {len(prompts())} prompts x {args.new_tokens} new tokens, batch {args.batch_size}, "
        f"{args.actors} actors x {max(1, args.threads // args.actors)} threads vs local {args.threads} threads"
    )
    print(f"median local {lm:.2f} s, median ray {rm:.2f} s, throughput ratio ray/local {lm / rm:.2f}")
    print(f"ray overhead per batch {(rm - lm) / n_batches * 1000:+.0f} ms ({n_batches} batches)")
    print(f"driver cache writes {cache_writes_per_second():.0f}/s (one SQLite file, one row per commit)")


if __name__ == "__main__":
    main()
