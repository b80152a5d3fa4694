"""What examples chosen per message cost a room send: the shipped room against ``aya_nearest``, side by side.

Two rooms of the same 7 users in 6 languages (``bench_room.py``'s) on one base model (``--model``, default
``gemma3-270m``): one runs ``aya_lab/graphs/aya.yaml`` (three fixed examples per prompt), the other
``aya_lab/graphs/aya_nearest.yaml`` (five examples chosen per message from a larger pool). Both write three
drafts per language. Each English message is sent to both rooms, one after the other; every generation makes
exactly ``--new-tokens`` tokens and the cache is off, so the difference is the longer prompts and the choice of
examples. Prints each pair, the medians and the ratio of medians.

    .venv/bin/python benchmarks/bench_examples.py [--model gemma3-270m] [--messages 5] [--new-tokens 48]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from bench_room import MESSAGES, USERS

from aya_lab.graph.cli import spec_path
from aya_lab.models import GenerationCache, load_chat_model
from aya_lab.room import ChatRoom

GRAPHS = ("aya", "aya_nearest")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--messages", type=int, default=5)
    parser.add_argument("--new-tokens", type=int, default=48)
    parser.add_argument("--model", default="gemma3-270m", help="a base model's spec (completion prompts)")
    args = parser.parse_args()
    settings = {"max_new_tokens": args.new_tokens, "min_new_tokens": args.new_tokens}
    model = load_chat_model(args.model, settings=settings)
    model.cache = GenerationCache("unused", "off")
    times: dict[str, list[float]] = {g: [] for g in GRAPHS}
    with tempfile.TemporaryDirectory() as tmp:
        rooms = {
            g: ChatRoom.open(Path(tmp) / f"{g}.sqlite", model=model, users=USERS, graph=spec_path(g)) for g in GRAPHS
        }
        print(f"model {model.spec} on {model.device}; {args.new_tokens} new tokens each (fixed); cache off")
        for room in rooms.values():
            room.send("kofi", "Warm-up message.")
        for text in MESSAGES[: args.messages]:
            for g, room in rooms.items():
                t0 = time.perf_counter()
                room.send("kofi", text)
                times[g].append(time.perf_counter() - t0)
            print("   ".join(f"{g} {times[g][-1]:6.2f} s" for g in GRAPHS), flush=True)
        for room in rooms.values():
            room.close()
    medians = {g: statistics.median(t) for g, t in times.items()}
    print(
        f"median send: aya {medians['aya']:.2f} s, aya_nearest {medians['aya_nearest']:.2f} s, "
        f"ratio {medians['aya_nearest'] / medians['aya']:.2f}"
    )


if __name__ == "__main__":
    main()
