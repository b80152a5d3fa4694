"""Continuous batching, measured: the same translations decoded in fixed groups (every sequence of a group
waits for the group's longest) against one call in which a finished sequence's stream goes to the next
waiting prompt (``LlamaEngine.generate(parallel=…)``, what the room and the evaluators now do).

Workload: notebook 03's set-up, ``--n`` French→English segments of NTREX-128 (from ``AYA_LAB_DATA_DIR``)
in Gemma 3 270M's 3-shot completion prompt, greedy, at most 64 new tokens, stopped at the newline, on
llama.cpp with ``--parallel`` streams. Each repeat starts from empty KV streams; the table gives the
median wall time of each way over ``--repeats`` alternating repeats, the ratio, the tokens generated and
how many outputs are identical between the two ways (decoding rows together changes the last bits of
the logits; see ``LlamaEngine.forget``). Run it alone.

    .venv/bin/python benchmarks/bench_refill.py [--n 64] [--parallel 16] [--repeats 3]
"""

from __future__ import annotations

import argparse
import statistics
import time

from aya_lab.datasets.parallel import load_parallel
from aya_lab.eval import PromptSystem
from aya_lab.models import load_chat_model
from aya_lab.models.llama_engine import Sampling


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=64)
    parser.add_argument("--parallel", type=int, default=16)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    model = load_chat_model("gemma3-270m", settings={"max_new_tokens": 64}, batch_size=args.parallel)
    system = PromptSystem(model, "user_translate/completion", name="gemma3-270m")
    data = load_parallel("ntrex128", "fra", "eng", n=args.n, docs=max(1, args.n // 5))
    prompts = [model.render(system.agent.conversation(text, "fra", "eng", [])) for text in data.sources]
    engine, sampling, width = model._engine, Sampling(64), args.parallel
    times: dict[str, list[float]] = {"groups": [], "refill": []}
    outputs: dict[str, list] = {}
    for _ in range(args.repeats):
        for way in ("groups", "refill"):
            engine.forget()
            started = time.perf_counter()
            if way == "groups":
                out = []
                for k in range(0, len(prompts), width):
                    out += engine.generate(prompts[k : k + width], sampling, stop=["\n"], parallel=width)
            else:
                out = engine.generate(prompts, sampling, stop=["\n"], parallel=width)
            times[way].append(time.perf_counter() - started)
            outputs[way] = out
    groups, refill = statistics.median(times["groups"]), statistics.median(times["refill"])
    same = sum(a.text == b.text for a, b in zip(outputs["groups"], outputs["refill"], strict=True))
    print(f"gemma3-270m on llama.cpp, {len(prompts)} fra→eng segments, {width} streams, {engine.threads} threads")
    print("| way | median s | generated tokens | tok/s |")
    print("|---|---|---|---|")
    for way, label, median in (("groups", f"groups of {width}", groups), ("refill", "refill", refill)):
        tokens = sum(o.completion_tokens for o in outputs[way])
        print(f"| {label} | {median:.1f} | {tokens} | {tokens / median:.1f} |")
    print(f"refill / groups speed-up: {groups / refill:.2f}x; identical outputs: {same} of {len(prompts)}")


if __name__ == "__main__":
    main()
