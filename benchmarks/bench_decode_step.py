"""One llama.cpp decoding step, alone: how close the engine runs to the memory-bandwidth roofline, and what
a step of k parallel sequences costs against a step of one.

``bench_engines.py`` times whole translations (prompt, decoding, cache and guard). This script times the
part the roofline is about: ``llama_decode`` of one new token for each of ``k`` sequences (k = 1, 2, 3,
4, 8, 16) whose prompts (a 3-shot completion prompt) are already in the KV cache, median over
``--steps`` steps, and prompt processing (tokens per second of the first decode). The roofline: the
model's tensor bytes (``llama_model_size``: every weight is read once per step) over the step's time,
against the memory-read bandwidth measured here first (numpy sums over 1 GiB on ``--threads`` threads).
Run it alone.

    .venv/bin/python benchmarks/bench_decode_step.py [--models smollm2,gemma3-270m] [--steps 32]
"""

from __future__ import annotations

import argparse
import statistics
import time

from bench_engines import memory_bandwidth

from aya_lab.models.embedded import embedded_gguf
from aya_lab.models.llama_engine import LlamaEngine
from aya_lab.models.threads import default_threads

PROMPT = (
    "English: The printer on the second floor is out of paper again.\nFrench: L'imprimante du deuxième étage "
    "n'a de nouveau plus de papier.\nEnglish: Could you send me the invoice by Wednesday?\nFrench: Pourriez-vous "
    "m'envoyer la facture d'ici mercredi ?\nEnglish: The budget meeting has been moved to Friday at ten.\nFrench:"
)
WIDTHS = (1, 2, 3, 4, 8, 16)


def time_widths(engine: LlamaEngine, steps: int) -> list[dict]:
    lib, ids = engine._lib, engine.tokenize(engine.bos_text + PROMPT if engine.add_bos else PROMPT)
    engine._open()  # the context is made on the first decode; this benchmark decodes by hand
    rows = []
    for k in WIDTHS:
        engine.forget()
        engine._batch.n_tokens = 0
        for seq in range(k):
            for pos, token in enumerate(ids):
                engine._add(token, pos, seq, pos == len(ids) - 1)
        t0 = time.perf_counter()
        engine._decode()
        prompt_s = time.perf_counter() - t0
        times = []
        for step in range(steps):
            engine._batch.n_tokens = 0
            for seq in range(k):
                engine._add(ids[step % len(ids)], len(ids) + step, seq, True)
            t0 = time.perf_counter()
            engine._decode()
            times.append(time.perf_counter() - t0)
        rows.append({"k": k, "step_ms": 1000 * statistics.median(times), "prompt_tok_s": k * len(ids) / prompt_s})
    lib.llama_memory_clear(engine._memory, True)
    engine.forget()
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--models", default="smollm2,gemma3-270m")
    parser.add_argument("--steps", type=int, default=32)
    parser.add_argument("--threads", type=int, default=default_threads())
    args = parser.parse_args()
    bandwidth = memory_bandwidth(args.threads)
    print(f"memory read bandwidth ({args.threads} threads): {bandwidth / 1e9:.1f} GB/s; {args.steps} steps per width\n")
    print(
        "| model | k sequences | ms per step | step / one-sequence step | tokens/s | roofline (weights/step ÷ bandwidth) | prompt tok/s |"
    )
    print("|---|---|---|---|---|---|---|")
    for spec in args.models.split(","):
        engine = LlamaEngine(embedded_gguf(spec.strip()), threads=args.threads)
        size = engine.size_bytes()
        rows = time_widths(engine, args.steps)
        one = rows[0]["step_ms"]
        for r in rows:
            roof = size / (r["step_ms"] / 1000) / bandwidth
            print(
                f"| {spec} ({engine.file_type()}, {size / 1e9:.3f} GB) | {r['k']} | {r['step_ms']:.1f} | "
                f"{r['step_ms'] / one:.2f} | {1000 * r['k'] / r['step_ms']:.0f} | {roof:.0%} | {r['prompt_tok_s']:.0f} |"
            )
        engine.close()


if __name__ == "__main__":
    main()
