"""Batched generation on the embedded default model: library overhead and the gain from batching.

The same 32 chat prompts go through
  (a) raw ``model.generate``, batched by hand (left padding, same settings),
  (b) aya_lab batched (``generate_texts`` with batch_size=B, cache off),
  (c) aya_lab one by one (``batch_size=1``, cache off).
Each round runs a, b, c side by side; the script prints tokens/s per round, the medians and the
ratios b/a (target >= 0.95: no measurable overhead) and b/c (target >= 2.5: batching pays).

    .venv/bin/python benchmarks/bench_generate.py [--rounds 3] [--batch-size 8] [--new-tokens 48]
"""

from __future__ import annotations

import argparse
import statistics
import time

import torch
from langchain_core.messages import HumanMessage

from aya_lab.models import GenerationCache, load_model

TOPICS = [
    "the quarterly budget review",
    "moving the team meeting to Friday",
    "a late delivery from a supplier",
    "the new expense policy",
    "onboarding a new colleague",
    "a server outage last night",
    "travel to the Nairobi office",
    "the customer survey results",
]
TASKS = ["Summarize in one sentence:", "Translate into French:", "Write a short reply about", "List two next steps for"]


def prompts() -> list[list[HumanMessage]]:
    """32 distinct prompts (8 topics x 4 tasks) of uneven length: no two share a cache entry."""
    out = []
    for i in range(32):
        topic, task = TOPICS[i % len(TOPICS)], TASKS[i // len(TOPICS)]
        out.append([HumanMessage(f"{task} {topic}." + (" Please keep it brief and polite." if i % 3 == 0 else ""))])
    assert len({m[0].content for m in out}) == len(out)
    return out


def raw_generate(model, conversations, batch_size: int) -> int:
    """Hand-written batched generate: the baseline the library is compared with."""
    tok, hf = model.tokenizer, model.hf_model
    texts = sorted((model.render(c) for c in conversations), key=len)
    stop = {tok.eos_token_id, tok.pad_token_id}
    n_tokens = 0
    for start in range(0, len(texts), batch_size):
        enc = tok(texts[start : start + batch_size], return_tensors="pt", padding=True, add_special_tokens=False)
        with torch.inference_mode():
            out = hf.generate(**enc, **model.generation_kwargs())
        for row in out[:, enc["input_ids"].shape[1] :].tolist():
            n = next((j + 1 for j, t in enumerate(row) if t in stop), len(row))
            n_tokens += n
    return n_tokens


def library_generate(model, conversations, batch_size: int) -> int:
    model.batch_size = batch_size
    return sum(r.completion_tokens for r in model.generate_texts(conversations))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--new-tokens", type=int, default=48)
    args = parser.parse_args()
    model = load_model("smollm2", settings={"max_new_tokens": args.new_tokens})
    model.cache = GenerationCache("unused", "off")
    convs = prompts()
    print(
        f"model {model.spec} ({model.fingerprint}) on {model.device}, {torch.get_num_threads()} threads; "
        f"{len(convs)} prompts, {args.new_tokens} new tokens, batch size {args.batch_size}"
    )
    library_generate(model, convs[:2], 2)  # warm-up
    rates: dict[str, list[float]] = {"a": [], "b": [], "c": []}
    runs = {
        "a": lambda: raw_generate(model, convs, args.batch_size),
        "b": lambda: library_generate(model, convs, args.batch_size),
        "c": lambda: library_generate(model, convs, 1),
    }
    for r in range(args.rounds):
        for name, run in runs.items():
            t0 = time.perf_counter()
            n = run()
            dt = time.perf_counter() - t0
            rates[name].append(n / dt)
            print(f"round {r + 1} ({name}) {n} tokens in {dt:6.1f} s = {n / dt:6.1f} tok/s", flush=True)
    med = {k: statistics.median(v) for k, v in rates.items()}
    print(
        f"median tok/s: (a) raw batched {med['a']:.1f}  (b) aya_lab batched {med['b']:.1f}  "
        f"(c) aya_lab one by one {med['c']:.1f}"
    )
    ratio_ba = [b / a for a, b in zip(rates["a"], rates["b"])]
    ratio_bc = [b / c for b, c in zip(rates["b"], rates["c"])]
    print(
        f"b/a = {statistics.median(ratio_ba):.2f} (per round {', '.join(f'{x:.2f}' for x in ratio_ba)}; target >= 0.95)"
    )
    print(
        f"b/c = {statistics.median(ratio_bc):.2f} (per round {', '.join(f'{x:.2f}' for x in ratio_bc)}; target >= 2.5)"
    )


if __name__ == "__main__":
    main()
