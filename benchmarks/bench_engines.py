"""The embedded models on both engines, side by side in one run: llama.cpp (the shipped GGUF) vs
transformers (de-quantised fp32), and the library's whole stack vs raw llama-cpp-python.

For each embedded model (``smollm2``, ``gemma3-270m``) the script translates the same English messages
with the room's translation prompt (SmolLM2: the chat prompt; Gemma: the 3-shot completion prompt), greedy,
every generation exactly ``--new-tokens`` long (``min_new_tokens = max_new_tokens``), in rounds; each
round runs every configuration once, side by side:

- ``transformers`` batch 1 and fan-out (the room's: one message into ``--fan-out`` languages, one batch);
- ``llama.cpp`` batch 1 and fan-out, through the library (prompt rendering, a fresh generation cache in
  read-write mode, the translation guard on every output);
- ``raw llama.cpp`` batch 1: ``llama_cpp.Llama.generate`` on the same prompt tokens, stopped after the
  same number of tokens (no cache, no guard): the floor the library's overhead is measured against.

It prints a table of medians: tokens/s (all sequences of a step counted), ms per decoding step, the
weights' bytes read per step (the model file's tensors for llama.cpp; parameters x 4 bytes for fp32),
the effective bandwidth those reads need, and that as a fraction of the memory-read bandwidth the script
measures on this machine first (numpy sums over a 1 GiB array on ``--threads`` threads: the roofline).
Then the ratios the issue sets targets for. Run it alone (2 cores: anything beside it distorts it).

    .venv/bin/python benchmarks/bench_engines.py [--rounds 3] [--new-tokens 64] [--fan-out 3] [--models smollm2,gemma3-270m]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from aya_lab.agents import UserAgent
from aya_lab.agents.guard import TranslationGuard
from aya_lab.messages import ChatMessage
from aya_lab.models import GenerationCache, load_chat_model, record_generations
from aya_lab.models.threads import default_threads

MESSAGES = [
    "The budget meeting has been moved to Friday at ten.",
    "Please send me the revised report before Thursday.",
    "The server will be down for maintenance tonight.",
]
TARGETS = ["fra", "deu", "spa", "swh", "por"]


def memory_bandwidth(threads: int, gib: float = 1.0, repeats: int = 5) -> float:
    """Best read bandwidth (bytes/s) of ``threads`` numpy sums over slices of one ``gib`` GiB array."""
    data = np.ones(int(gib * (1 << 30)) // 4, dtype=np.float32)
    parts = np.array_split(data, threads)
    best = 0.0
    with ThreadPoolExecutor(threads) as pool:
        for _ in range(repeats):
            t0 = time.perf_counter()
            list(pool.map(np.sum, parts))
            best = max(best, data.nbytes / (time.perf_counter() - t0))
    return best


class Config:
    """One configuration: a callable that generates, and what one decoding step of it reads."""

    def __init__(self, name: str, engine: str, batch: int, run, weight_bytes: int) -> None:
        self.name, self.engine, self.batch, self.run, self.weight_bytes = name, engine, batch, run, weight_bytes
        self.seconds: list[float] = []


def library_config(model, engine: str, targets: list[str], new_tokens: int, tmp: Path) -> Config:
    agent, guard = UserAgent(model), TranslationGuard()
    counter = iter(range(10**6))

    def run(text: str) -> None:
        model.cache = GenerationCache(tmp / f"{engine}-{next(counter)}.sqlite", "readwrite")  # fresh: all misses
        out = agent.translate_many(ChatMessage(sender="kofi", content=text, lang="eng"), targets)
        for lang, translated in out.items():
            guard.check(text, translated, "eng", lang)

    size = (
        model.engine.size_bytes() if engine == "llama.cpp" else 4 * sum(p.numel() for p in model.hf_model.parameters())
    )
    return Config(f"{engine} x{len(targets)}", engine, len(targets), run, size)


def raw_config(model, new_tokens: int) -> Config:
    from llama_cpp import Llama

    llm = Llama(
        model_path=model.gguf_path, n_ctx=2048, n_threads=model.threads, n_threads_batch=model.threads, verbose=False
    )
    agent = UserAgent(model)

    def run(text: str) -> None:
        conv = agent.conversation(text, "eng", "fra")
        tokens = llm.tokenize(model.render(conv).encode(), add_bos=False, special=True)
        llm.reset()
        for i, _ in enumerate(llm.generate(tokens, top_k=1, temp=0.0, reset=True)):
            if i + 1 == new_tokens:
                break

    return Config("raw llama.cpp x1", "raw", 1, run, model.engine.size_bytes())


def bench_model(spec: str, args: argparse.Namespace, bandwidth: float, tmp: Path) -> list[dict]:
    settings = {"max_new_tokens": args.new_tokens, "min_new_tokens": args.new_tokens}
    t0 = time.perf_counter()
    fast = load_chat_model(spec, settings=settings, threads=args.threads, reuse=False)
    load_fast = time.perf_counter() - t0
    t0 = time.perf_counter()
    slow = load_chat_model(f"{spec}~transformers", settings=settings, reuse=False)
    load_slow = time.perf_counter() - t0
    fan = TARGETS[: args.fan_out]
    configs = [
        library_config(slow, "transformers", fan[:1], args.new_tokens, tmp),
        library_config(slow, "transformers", fan, args.new_tokens, tmp),
        library_config(fast, "llama.cpp", fan[:1], args.new_tokens, tmp),
        library_config(fast, "llama.cpp", fan, args.new_tokens, tmp),
        raw_config(fast, args.new_tokens),
    ]
    print(
        f"\n{spec}: llama.cpp {fast.quantization}, {fast.threads} threads, load {load_fast:.1f} s; "
        f"transformers fp32 load {load_slow:.1f} s (after a one-time conversion)",
        flush=True,
    )
    for config in configs:  # warm-up, untimed
        config.run("Warm-up message.")
    for r in range(args.rounds):
        for text in MESSAGES:
            for config in configs:
                t0 = time.perf_counter()
                config.run(text)
                config.seconds.append(time.perf_counter() - t0)
        print(
            f"  round {r + 1}: " + ", ".join(f"{c.name} {statistics.median(c.seconds):.2f} s" for c in configs),
            flush=True,
        )
    rows = []
    for c in configs:
        med = statistics.median(c.seconds)
        step = med / args.new_tokens
        rows.append(
            {
                "model": spec,
                "config": c.name,
                "engine": c.engine,
                "batch": c.batch,
                "median_s": med,
                "tok_s": c.batch * args.new_tokens / med,
                "ms_step": 1000 * step,
                "weights_gb": c.weight_bytes / 1e9,
                "gb_s": c.weight_bytes / step / 1e9,
                "roofline": c.weight_bytes / step / bandwidth,
            }
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--new-tokens", type=int, default=64)
    parser.add_argument("--fan-out", type=int, default=3, choices=range(2, len(TARGETS) + 1))
    parser.add_argument("--models", default="smollm2,gemma3-270m")
    parser.add_argument("--threads", type=int, default=default_threads())
    args = parser.parse_args()
    bandwidth = memory_bandwidth(args.threads)
    print(
        f"memory read bandwidth ({args.threads} threads, numpy sum over 1 GiB, best of 5): {bandwidth / 1e9:.1f} GB/s"
    )
    print(f"{len(MESSAGES)} messages x {args.rounds} rounds, {args.new_tokens} new tokens each (fixed), greedy")
    rows = []
    with tempfile.TemporaryDirectory() as tmp, record_generations():
        for spec in args.models.split(","):
            rows += bench_model(spec.strip(), args, bandwidth, Path(tmp))
    print("\n| model | configuration | tok/s | ms/step | weights read/step | GB/s | roofline |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['model']} | {r['config']} | {r['tok_s']:.1f} | {r['ms_step']:.1f} | {r['weights_gb']:.3f} GB "
            f"| {r['gb_s']:.1f} | {r['roofline']:.0%} |"
        )
    print()
    for spec in dict.fromkeys(r["model"] for r in rows):
        by = {r["config"]: r for r in rows if r["model"] == spec}
        one, fan = "llama.cpp x1", f"llama.cpp x{args.fan_out}"
        print(
            f"{spec}: llama.cpp / transformers at batch 1 {by[one]['tok_s'] / by['transformers x1']['tok_s']:.2f}x "
            f"(target >= 6 for gemma3-270m); library / raw llama.cpp {by['raw llama.cpp x1']['median_s'] / by[one]['median_s']:.2f} "
            f"(target >= 0.95); fan-out x{args.fan_out} / one translation {by[fan]['median_s'] / by[one]['median_s']:.2f} "
            f"(target <= 1.5); roofline at batch 1 {by[one]['roofline']:.0%} (target >= 60%)"
        )


if __name__ == "__main__":
    main()
