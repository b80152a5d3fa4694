"""Quality parity of the two engines: do llama.cpp (quantised, as shipped) and transformers (de-quantised
fp32) give the same findings on the same inputs?

1. Translation: Gemma 3 270M with the room's 3-shot completion prompt on notebook 03's four control pairs
   (NTREX-128 fra/deu <-> eng, 100 segments from 20 documents per pair, the selection notebook 03 used
   at ``N = 100``): chrF per engine, the paired difference with its document-level bootstrap 95% CI and
   approximate-randomisation p-value, and the share of segments whose outputs are identical.
2. Routing: Aya's supervisor (SmolLM2, ``supervisor/baseline``; non-English requests first translated by
   Gemma, as in notebook 04) on ``data/routing``: accuracy per engine with bootstrap CIs, McNemar's exact
   test on the requests one engine gets right and the other wrong, identical-decision share.

Generations go through ``--cache`` (default: the notebooks' own ``notebooks/generations.sqlite``, which
holds the fp32 generations recorded before llama.cpp became the default), so the transformers side costs
nothing where it was recorded; what is missing is generated and added. Run alone.

    AYA_LAB_DATA_DIR=../shared/data .venv/bin/python benchmarks/engine_parity.py [--n 100] [--cache PATH]
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pandas as pd

from aya_lab.eval import PromptSystem, evaluate_routing, evaluate_translation
from aya_lab.eval.resampling import mcnemar_exact
from aya_lab.models import load_chat_model
from aya_lab.models.cache import set_default_cache

PAIRS = ["fra-eng", "deu-eng", "eng-fra", "eng-deu"]
ENGINES = {"llama.cpp": "", "transformers": "~transformers"}


def translation_parity(n: int, docs: int) -> pd.DataFrame:
    systems = []
    for engine, suffix in ENGINES.items():
        model = load_chat_model(f"gemma3-270m{suffix}", settings={"max_new_tokens": 64}, batch_size=16)
        systems.append(PromptSystem(model, "user_translate/completion", name=f"gemma3-270m ({engine})"))
    fast, slow = (s.name for s in systems)
    res = evaluate_translation(systems, "ntrex128", PAIRS, n=n, docs=docs, baseline=slow, progress=False)
    scores = res.df[(res.df["metric"] == "chrF") & (res.df["pair"] != "pooled") & (res.df["hop"] == "e2e")]
    table = scores.pivot_table(index="pair", columns="system", values="score")[[fast, slow]]
    tests = res.select(metric="chrF", hop="e2e")[lambda d: d.system != res.baseline].set_index("pair")
    tests = tests[tests["system"] == fast]
    out = res.items[res.items["hop"] == "e2e"]
    out = out.pivot_table(index=["pair", "idx"], columns="system", values="hypothesis", aggfunc="first")
    same = (out[fast] == out[slow]).groupby(level="pair").mean()
    table["Δ chrF [95% CI]"] = [
        f"{tests.loc[p, 'delta']:+.1f} [{tests.loc[p, 'delta_low']:+.1f}, {tests.loc[p, 'delta_high']:+.1f}]"
        for p in table.index
    ]
    table["p (bootstrap)"] = [tests.loc[p, "p_bootstrap"] for p in table.index]
    table["p (AR)"] = [tests.loc[p, "p_ar"] for p in table.index]
    table["p_holm"] = [tests.loc[p, "p_holm"] for p in table.index]
    table["resampled"] = [f"{tests.loc[p, 'n_units']} {tests.loc[p, 'resample_unit']}s" for p in table.index]
    table["identical outputs"] = same.reindex(table.index)
    return table


def routing_parity() -> pd.DataFrame:
    runs = {}
    for engine, suffix in ENGINES.items():
        aya = load_chat_model(f"smollm2{suffix}", settings={"max_new_tokens": 64}, batch_size=16)
        translator = load_chat_model(f"gemma3-270m{suffix}", settings={"max_new_tokens": 64}, batch_size=16)
        runs[engine] = evaluate_routing(aya, prompt="supervisor/baseline", translator=translator)
    fast, slow = (runs[e].items.reset_index(drop=True) for e in ENGINES)
    b = int(((fast["correct"] == 1) & (slow["correct"] == 0)).sum())
    c = int(((fast["correct"] == 0) & (slow["correct"] == 1)).sum())
    rows = {}
    for engine, r in runs.items():
        acc = r.df[(r.df["metric"] == "accuracy") & (r.df["lang"] == "all")].iloc[0]
        rows[engine] = {
            "accuracy": f"{acc['score']:.3f} [{acc['ci_low']:.3f}, {acc['ci_high']:.3f}]",
            "n": len(r.items),
        }
    rows["llama.cpp vs transformers"] = {
        "accuracy": f"right only on llama.cpp {b}, only on transformers {c}, McNemar p = {mcnemar_exact(b, c):.3f}",
        "n": f"identical decisions {float((fast['predicted'] == slow['predicted']).mean()):.3f}",
    }
    return pd.DataFrame(rows).T


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=100)
    parser.add_argument("--docs", type=int, default=20)
    parser.add_argument(
        "--cache", default=str(Path(__file__).resolve().parent.parent / "notebooks" / "generations.sqlite")
    )
    args = parser.parse_args()
    set_default_cache(args.cache, "readwrite")
    pd.set_option("display.width", 200)
    print(
        f"Translation parity: Gemma 3 270M, user_translate/completion, NTREX-128, n={args.n} from {args.docs} documents"
    )
    print(translation_parity(args.n, args.docs).round(3).to_markdown())
    print("\nRouting parity: SmolLM2 supervisor/baseline on data/routing (requests translated by Gemma)")
    print(routing_parity().to_markdown())


if __name__ == "__main__":
    main()
