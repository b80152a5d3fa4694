"""Translation evaluation on the embedded default model, cold vs warm generation cache.

Runs ``evaluate_translation`` with one prompt system (``user_translate/<prompt>`` on ``smollm2``,
``max_new_tokens`` modest) over ``--n`` segments of each of ``--pairs`` (default: 200 x eng-fra,
eng-deu, eng-swh of NTREX-128 from ``AYA_LAB_DATA_DIR``) twice, in one process, with a fresh
generation cache file in a temporary folder:

  cold — every prompt is generated (and written to the cache);
  warm — the same evaluation again: every prompt is a cache hit.

It prints chrF per pair, both wall times (whole evaluation, and the part spent inside ``translate``),
and the ratios cold / warm (target: warm >= 50x faster end to end), and checks that the warm outputs
equal the cold ones. The model is loaded once before either run (loading is not what the cache saves).
A full run takes 10+ minutes of CPU; check the script with a small one first:

    .venv/bin/python benchmarks/bench_eval.py --n 8 --pairs eng-fra --threads 1
    .venv/bin/python benchmarks/bench_eval.py            # 200 x 3 pairs

On a machine whose cores are shared with other busy processes, pass ``--threads 1``: torch's intra-op
threads spin-wait on each other when a core is taken, and generation then runs ~10x slower (measured:
4 prompts x 32 tokens took 3 s on 1 thread and 34 s on 2 threads while another process held a core).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

from aya_lab.eval.translation.evaluate import evaluate_translation
from aya_lab.eval.translation.systems import PromptSystem
from aya_lab.models import load_model
from aya_lab.models.cache import set_default_cache


class TimedSystem:
    """Wraps a system and adds up the wall time spent in ``translate``."""

    def __init__(self, system) -> None:
        self.system, self.name, self.seconds = system, system.name, 0.0

    def translate(self, texts, src, tgt, *, context=None):
        started = time.perf_counter()
        try:
            return self.system.translate(texts, src, tgt, context=context)
        finally:
            self.seconds += time.perf_counter() - started

    def signature(self):
        return self.system.signature()


def run(system, args) -> tuple[float, float, object]:
    timed = TimedSystem(system)
    started = time.perf_counter()
    res = evaluate_translation(
        [timed],
        args.dataset,
        args.pairs,
        n=args.n,
        n_bootstrap=args.n_bootstrap,
        chunk_size=args.chunk_size,
        progress=False,
    )
    return time.perf_counter() - started, timed.seconds, res


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=200, help="segments per pair")
    parser.add_argument("--pairs", default="eng-fra,eng-deu,eng-swh")
    parser.add_argument("--dataset", default="ntrex128")
    parser.add_argument("--prompt", default="baseline", help="user_translate variant")
    parser.add_argument("--ctx", type=int, default=0, help="context window (preceding segments)")
    parser.add_argument("--new-tokens", type=int, default=64)
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--chunk-size", type=int, default=64)
    parser.add_argument("--n-bootstrap", type=int, default=1000)
    parser.add_argument("--threads", type=int, default=0, help="torch threads (0: torch's default)")
    args = parser.parse_args()
    import torch

    if args.threads > 0:
        torch.set_num_threads(args.threads)
    if args.dataset != "workplace" and not os.environ.get("AYA_LAB_DATA_DIR"):
        print("error: set AYA_LAB_DATA_DIR to the folder with ntrex128/ (see `aya-lab data list`)", file=sys.stderr)
        return 2

    with tempfile.TemporaryDirectory(prefix="aya-bench-eval-") as tmp:
        cache_file = Path(tmp) / "generations.sqlite"
        os.environ["AYA_LAB_GENERATION_CACHE"] = str(cache_file)
        set_default_cache(cache_file, "readwrite")
        model = load_model("smollm2", settings={"max_new_tokens": args.new_tokens}, batch_size=args.batch_size)
        system = PromptSystem(model, args.prompt, context_window=args.ctx)
        print(
            f"model {model.spec} ({model.fingerprint}) on {getattr(model, 'device', '?')}, "
            f"{torch.get_num_threads()} threads; system {system.name}; {args.dataset} {args.pairs} x {args.n}; "
            f"max_new_tokens {args.new_tokens}, batch size {args.batch_size}; cache {cache_file}"
        )
        cold_s, cold_gen, cold = run(system, args)
        warm_s, warm_gen, warm = run(system, args)

    same = list(cold.items["hypothesis"]) == list(warm.items["hypothesis"])
    chrf = cold.df[(cold.df["metric"] == "chrF") & (cold.df["hop"] == "e2e")]
    for row in chrf.itertuples(index=False):
        print(f"  {row.pair:<10} chrF {row.score:6.2f} [{row.ci_low:.2f}, {row.ci_high:.2f}]  n={row.n}")
    segments = len(cold.items)
    print(f"segments translated: {segments}")
    print(f"cold: {cold_s:8.2f} s  (translate {cold_gen:8.2f} s, {segments / max(cold_gen, 1e-9):.2f} seg/s)")
    print(f"warm: {warm_s:8.2f} s  (translate {warm_gen:8.2f} s)")
    ratio, gen_ratio = cold_s / max(warm_s, 1e-9), cold_gen / max(warm_gen, 1e-9)
    print(
        f"ratio cold/warm: {ratio:.1f}x end to end (target >= 50x: {'met' if ratio >= 50 else 'NOT met'}); "
        f"{gen_ratio:.1f}x in translate"
    )
    print(f"warm outputs identical to cold: {same}")
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
