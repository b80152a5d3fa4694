"""How the nearest-example translation prompt was chosen (docs/ROOM.md, "Examples chosen per message").

Translates the ordinary French, German, Spanish and Swahili messages of the development sets
``data/adversarial/unseen7.jsonl`` and ``unseen8.jsonl`` (224 messages) into English with the room's
default translator, once per prompt, and prints each prompt's chrF against the messages' English glosses
(the writers' ``gloss:`` notes), per source language and overall (corpus chrF; sacrebleu):

- ``completion``: the shipped completion prompt (three fixed examples from ``data/fewshot/translations.yaml``);
- ``nearest-K``: ``user_translate/nearest`` with ``k = K`` examples, the K most alike to the message from
  ``data/fewshot/chat_translations.yaml``;
- ``random-5``: five examples from the same pool drawn at random per message (seeded by its id), to tell
  the choice of examples from their number and pool;
- ``first-5``: the pool's first five, the same for every message.

About 2 minutes per prompt alone on 2 cores (the generation cache makes a rerun instant).

    python benchmarks/fewshot_selection.py [--model gemma3-270m] [--prompts completion nearest-5 ...]
"""

from __future__ import annotations

import argparse
import json
import random

import pandas as pd
from sacrebleu.metrics import CHRF

from aya_lab.agents.protocols import TextModel
from aya_lab.agents.user import UserAgent, clean_translation
from aya_lab.models.loader import load_chat_model
from aya_lab.paths import project_root
from aya_lab.prompts import cut_at_stop, load_prompt
from aya_lab.prompts.fewshot import load_pool

ADVERSARIAL = project_root() / "data" / "adversarial"
SOURCES = ("fra", "deu", "spa", "swh")


def development_messages() -> list[dict]:
    """The ordinary non-English messages of sets 7 and 8, each with its English gloss."""
    records = [json.loads(line) for n in (7, 8) for line in (ADVERSARIAL / f"unseen{n}.jsonl").open(encoding="utf-8")]
    return [
        r | {"gloss": r["note"].removeprefix("gloss: ")}
        for r in records
        if r["category"] == "ordinary" and r["lang"] in SOURCES
    ]


PROMPTS = ("completion", "nearest-3", "nearest-5", "nearest-8", "random-5", "first-5")


def drafts(name: str, messages: list[dict], model: TextModel) -> list[str]:
    """English drafts of ``messages`` by ``model`` under prompt ``name`` (see the module docstring), one batch."""
    nearest = load_prompt("user_translate/nearest")
    spec = nearest.examples
    assert spec is not None
    if name == "completion" or name.startswith("nearest-"):
        k = {"k": int(name[8:])} if name != "completion" else {}
        prompt = (
            nearest.model_copy(update={"examples": spec.model_copy(update=k)}) if k else "user_translate/completion"
        )
        agent = UserAgent(model, prompt=prompt)
        prompts = [agent.prompt] * len(messages)
    else:
        agent = UserAgent(model, prompt=nearest)
        pool = load_pool(spec.pool)
        prompts = []
        for m in messages:
            usable = [r for r in pool if r.get(m["lang"]) and r.get("eng")]
            shown = random.Random(m["id"]).sample(usable, 5) if name == "random-5" else usable[:5]
            prompts.append(nearest.with_examples(shown, name, 5))
    convs = [agent.conversation(m["text"], m["lang"], "eng", (), p) for m, p in zip(messages, prompts, strict=True)]
    stops = agent.prompt.stop_strings
    return [clean_translation(cut_at_stop(r.text, stops), "English") for r in model.generate_texts(convs)]


def table(names: tuple[str, ...] = PROMPTS, model_spec: str = "gemma3-270m") -> pd.DataFrame:
    """Corpus chrF against the glosses, one row per prompt, one column per source language and ``all``."""
    messages = development_messages()
    model = load_chat_model(model_spec)
    chrf = CHRF()
    rows = {}
    for name in names:
        out = drafts(name, messages, model)
        row = {}
        for lang in (*SOURCES, "all"):
            idx = [i for i, m in enumerate(messages) if lang in ("all", m["lang"])]
            row[lang] = chrf.corpus_score([out[i] for i in idx], [[messages[i]["gloss"] for i in idx]]).score
        rows[name] = row
    return pd.DataFrame(rows).T


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="gemma3-270m", help="a base model's spec (completion prompts)")
    parser.add_argument("--prompts", nargs="+", choices=PROMPTS, default=list(PROMPTS))
    args = parser.parse_args()
    print(table(tuple(args.prompts), args.model).round(1).to_string())


if __name__ == "__main__":
    main()
