"""Loading llama.cpp engines that never decode (a replayed notebook): the context made at load against on first use.

Each way runs in a child process of its own (so its peak memory is its own): it loads ``--adapters`` of the
committed Gemma 3 270M LoRA adapters (``data/adapters/gemma3-270m-*/step-*``, each its own engine, as a
notebook comparing adapters loads them) with the room's batch size (16 KV streams of 2,048 tokens), and reports
the seconds each load took and the process's peak resident memory. ``at load`` makes each engine's context as
soon as it is loaded (what every load did before 2026-12-07); ``on first use`` leaves it to the first decode,
which a replay never reaches. Median of ``--repeats`` runs of each way, alternating.

    .venv/bin/python benchmarks/bench_engine_load.py --adapters 4 --repeats 3
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ADAPTERS = "data/adapters/gemma3-270m-*/step-*"


def _child(adapters: int, at_load: bool) -> None:
    from aya_lab.models import load_chat_model

    seconds = []
    folders = sorted(ROOT.glob(ADAPTERS))[:adapters]
    for folder in folders:
        start = time.perf_counter()
        model = load_chat_model(f"gemma3-270m+lora:{folder}", batch_size=16)
        if at_load:
            engine = model.engine
            with engine._lock:
                engine._open()
        seconds.append(time.perf_counter() - start)
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"seconds": sum(seconds), "per_load": seconds, "peak_mb": peak_mb}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--adapters", type=int, default=4)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--child", choices=["at-load", "on-first-use"], help=argparse.SUPPRESS)
    args = parser.parse_args()
    found = len(list(ROOT.glob(ADAPTERS)))
    if not 1 <= args.adapters <= found:
        parser.error(f"--adapters {args.adapters}: only {found} adapters under data/adapters; give 1 to {found}")
    if args.child:
        _child(args.adapters, args.child == "at-load")
        return
    runs: dict[str, list[dict]] = {"at-load": [], "on-first-use": []}
    for _ in range(args.repeats):
        for way in runs:
            command = [sys.executable, __file__, "--adapters", str(args.adapters), "--child", way]
            out = subprocess.run(command, check=True, capture_output=True, text=True, cwd=ROOT).stdout
            runs[way].append(json.loads(out.strip().splitlines()[-1]))
    print(f"{args.adapters} Gemma 3 270M adapter engines loaded, 16 streams of 2,048 tokens, median of {args.repeats}")
    print(f"{'context made':<14}{'load s':>8}{'peak MB':>9}")
    medians = {way: (statistics.median(r["seconds"] for r in rs), statistics.median(r["peak_mb"] for r in rs))
               for way, rs in runs.items()}  # fmt: skip
    for way, (seconds, peak) in medians.items():
        print(f"{way:<14}{seconds:>8.2f}{peak:>9.0f}")
    (eager_s, eager_mb), (lazy_s, lazy_mb) = medians["at-load"], medians["on-first-use"]
    print(f"ratio         {eager_s / lazy_s:>8.1f}{eager_mb / lazy_mb:>9.1f}")


if __name__ == "__main__":
    main()
