"""Fan-out cost of one room send vs one single translation, on an embedded model (``--model``).

A room of 7 users in 6 languages (two English speakers). For each of several English messages the
script times, side by side, (1) ``room.send`` (the original translated into the 5 other languages:
one batch, one translation per language, not per user) and (2) a single translation of the same
message into one language (batch of 1). Cache off. It prints each pair, the medians and the ratio of
medians (target <= 2.0; translating user by user, as the original design did, costs about 6x).

**Fixed output length.** Every generation makes exactly ``--new-tokens`` tokens
(``min_new_tokens = max_new_tokens``): a batch runs to its longest row, while a single translation may
stop early, so with free lengths the ratio moved between 2.40 and 2.70 on one machine with the model's
mood. Fixed, it measures compute. ``--free-length`` restores stopping at end-of-text / stop strings.
A base model (``gemma3-270m``) translates with the completion prompt (few-shot, stop at the line). The room
runs ``aya_lab/graphs/aya_one_draft.yaml`` (one draft per language, as when the tables in docs/ROOM.md were
measured); ``--graph aya`` runs the default graph, which writes three drafts per language with a base model.

    .venv/bin/python benchmarks/bench_room.py [--model smollm2|gemma3-270m] [--messages 5] [--new-tokens 48]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from aya_lab.agents import UserAgent
from aya_lab.graph.cli import spec_path
from aya_lab.messages import ChatMessage
from aya_lab.models import GenerationCache, load_chat_model
from aya_lab.room import ChatRoom

USERS = {"kofi": "eng", "grace": "eng", "sophie": "fra", "lena": "deu", "amara": "swh", "carlos": "spa", "mei": "cmn"}
MESSAGES = [
    "The budget meeting has been moved to Friday at ten.",
    "Please send me the revised report before Thursday.",
    "I will book the meeting room and invite finance.",
    "The server will be down for maintenance tonight.",
    "Can everyone review the slides by tomorrow morning?",
    "Our supplier confirmed the delivery for next week.",
    "Thanks for your help with the customer survey.",
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--messages", type=int, default=5)
    parser.add_argument("--new-tokens", type=int, default=48)
    parser.add_argument("--model", default="smollm2", help="model spec (smollm2, gemma3-270m, hf:...)")
    parser.add_argument("--free-length", action="store_true", help="let generations stop early (unstable ratio)")
    parser.add_argument("--graph", default="aya_one_draft", help="packaged graph name or spec file the room runs")
    args = parser.parse_args()
    settings = {"max_new_tokens": args.new_tokens, "min_new_tokens": 0 if args.free_length else args.new_tokens}
    model = load_chat_model(args.model, settings=settings)
    model.cache = GenerationCache("unused", "off")
    agent = UserAgent(model)
    with tempfile.TemporaryDirectory() as tmp:
        room = ChatRoom.open(Path(tmp) / "bench.sqlite", model=model, users=USERS, graph=spec_path(args.graph))
        print(
            f"model {model.spec} on {model.device}; room of {len(USERS)} users in {len(set(USERS.values()))} "
            f"languages; {args.new_tokens} new tokens {'max' if args.free_length else 'each (fixed)'}; "
            f"prompt {agent.prompt.name}; cache off"
        )
        room.send("kofi", "Warm-up message.")
        sends, singles = [], []
        for text in MESSAGES[: args.messages]:
            t0 = time.perf_counter()
            report = room.send("kofi", text)
            sends.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            agent.translate_many(ChatMessage(sender="kofi", content=text, lang="eng"), ["fra"])
            singles.append(time.perf_counter() - t0)
            print(
                f"send {sends[-1]:6.2f} s ({report.model_calls} translations in one batch)   "
                f"single translation {singles[-1]:6.2f} s   ratio {sends[-1] / singles[-1]:.2f}",
                flush=True,
            )
        room.close()
    med_send, med_single = statistics.median(sends), statistics.median(singles)
    print(
        f"median send {med_send:.2f} s, median single translation {med_single:.2f} s, "
        f"ratio {med_send / med_single:.2f} (target <= 2.0)"
    )


if __name__ == "__main__":
    main()
