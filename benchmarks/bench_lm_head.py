"""Why a room send costs more than 2x one translation on Gemma 3 270M: its LM head, timed alone.

Loads an embedded model (``--model``) on the transformers engine (de-quantised fp32: the projection is a
torch module there), takes its output projection (``get_output_embeddings()``) and
times one decoding step's projection for a batch of 1 and a batch of ``--batch`` rows (a room send of
7 users in 6 languages translates 5 rows), side by side, ``--rounds`` times; prints the medians and the
ratio. Gemma 3's vocabulary is 262,144 tokens (an LM head of 168M of its 268M parameters), SmolLM2's
49,152: on a CPU, a projection that large stops being memory-bound at a few rows, so the batch costs
nearly its row count and bounds what batching a send can save.

    .venv/bin/python benchmarks/bench_lm_head.py [--model gemma3-270m] [--batch 5] [--rounds 20]
"""

from __future__ import annotations

import argparse
import statistics
import time

import torch

from aya_lab.models import load_chat_model


def _median_ms(head: torch.nn.Module, rows: int, width: int, rounds: int, dtype: torch.dtype) -> float:
    x = torch.randn(rows, width, dtype=dtype)
    head(x)  # warm-up
    times = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        head(x)
        times.append(time.perf_counter() - t0)
    return 1000 * statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", default="gemma3-270m")
    parser.add_argument("--batch", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args()
    spec = args.model if "~" in args.model else f"{args.model}~transformers"
    model = load_chat_model(spec)
    head = model.hf_model.get_output_embeddings()
    vocab, width = head.weight.shape
    dtype = head.weight.dtype
    with torch.inference_mode():
        one = _median_ms(head, 1, width, args.rounds, dtype)
        many = _median_ms(head, args.batch, width, args.rounds, dtype)
    print(
        f"model {model.spec} on {model.device}: LM head {vocab} x {width} ({dtype}); median of {args.rounds}: "
        f"1 row {one:.1f} ms, {args.batch} rows {many:.1f} ms, ratio {many / one:.2f} per decoding step"
    )


if __name__ == "__main__":
    main()
