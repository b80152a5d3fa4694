# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.6
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 08 · Fine-tuning the translator: LoRA adapters for English ↔ Swahili, against the prompt and the floors
#
# **Question.** Prompts alone do not make Gemma 3 270M translate Swahili: out of English it scores
# below copying the source and far below an unrelated Swahili sentence, and into English it does not
# clear both floors either (notebook 03). Gemma 3 270M is a base model made to be fine-tuned for one
# task. Does a small LoRA adapter, trained on the CPU for minutes on MAFAND-MT's *train* split, make it
# translate — above both floors, and above the prompted model — on test sets it has never seen? And
# what does each step of training buy?
#
# **Set-up.**
# - **Training** (`aya-lab tune translate`, recorded 2026-12-02 on 2 CPU cores, fp32, transformers + PEFT):
#   MAFAND-MT `train`, one run per direction (English → Swahili, Swahili → English); the prompt is the
#   room's own (the few-shot completion prompt `user_translate/completion` the user agents send Gemma),
#   the answer the reference; LoRA rank 8 on the attention's q and v projections, alpha 16, AdamW at
#   3e-4 after 10 warm-up steps, batch 8. Each run is continued: its saved adapters (after 50, 100 and,
#   for English → Swahili, 200 steps) are the same run's states (a finished run continues to more steps,
#   seeded per step), committed under `data/adapters/gemma3-270m-eng-swh/` and `.../gemma3-270m-swh-eng/`.
#   The Swahili → English run stopped at 100 steps for the CPU time of the day; it was paused (SIGSTOP)
#   for about five minutes during its first 50 steps while notebook 05 recorded alone, and run cards
#   count wall-clock seconds, so the CPU minutes of its first save include that pause. MAFAND-MT is
#   CC-BY-NC-4.0: these adapters are for non-commercial use.
# - **Learning curve**: chrF on each run's own held-out examples (a seeded 10% of MAFAND train, at most
#   64, never trained on; `aya_lab.tune.heldout`) at step 0 (the prompted base) and every saved step.
#   The step that goes to the test sets is chosen here, on the held-out examples, never on a test set.
# - **Test sets, unseen**: NTREX-128 (news; 300 segments from 60 documents, the segments notebook 03
#   scores; intervals resample documents) and MAFAND-MT *test* (news, the training data's own domain;
#   its first 200 segments; MAFAND has no document ids, so its intervals resample segments), in the
#   direction of each adapter.
# - **Systems**: `copy` and `other-sentence` (the floors of notebook 03), `gemma3-270m` (the prompted
#   base, the room's translator today) and the adapter on the same prompt, both on llama.cpp from the
#   shipped Q4 GGUF (the adapter applied unmerged from its LoRA GGUF, docs/MODELS.md). Greedy, at most 64
#   new tokens, stopped at the end of the line; replayed from `notebooks/generations.sqlite` by
#   `make test`.

# %%
from aya_lab.notebook import runs_dir, setup_notebook

setup_notebook()

import json
from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd

from aya_lab.eval import CopySystem, PromptSystem, ShuffledReferenceSystem, deltas, load_labels, run
from aya_lab.models import load_chat_model
from aya_lab.notebook import project_root, report, write_held_out

ADAPTERS = Path("../data/adapters")  # relative: the spec strings printed below stay portable
RUNS = {"eng-swh": (50, 100, 200), "swh-eng": (50, 100)}  # direction -> the saved steps of its one run
SETTINGS = {"max_new_tokens": 64}
N, DOCS, N_MAFAND, SEED = 300, 60, 200, 0


def adapter_dir(pair, step):
    return ADAPTERS / f"gemma3-270m-{pair}" / f"step-{step:03d}"


def run_table(pair):
    """The run cards of one direction's saved steps as a table (one column per step)."""
    steps = RUNS[pair]
    cards = {s: json.loads((adapter_dir(pair, s) / "aya_lab_adapter.json").read_text(encoding="utf-8")) for s in steps}
    table = pd.DataFrame({s: {
        "steps": c["steps"], "CPU minutes (cumulative)": round(c["seconds"] / 60, 1), "device": c["device"],
        "dtype": c["dtype"], "examples trained on": c["data"]["train"], "held out": c["data"]["validation"],
        "validation loss before": round(c["loss"]["validation_before"], 3),
        "validation loss after": round(c["loss"]["validation_after"], 3), "prompt": c["data"]["prompt"],
        **{k: c["hyperparameters"][k] for k in ("lora_r", "lora_alpha", "target_modules", "learning_rate",
                                               "warmup_steps", "batch_size", "max_tokens", "validation", "max_validation")},
    } for s, c in cards.items()})  # fmt: skip
    prev = [0, *steps[:-1]]
    table.loc["seconds per step (since the previous save)"] = [
        round((cards[s]["seconds"] - (cards[q]["seconds"] if q else 0)) / (s - q), 1) for s, q in zip(steps, prev, strict=True)
    ]
    assert all(cards[s]["steps"] == s for s in steps)
    assert len({json.dumps(c["run"], sort_keys=True) for c in cards.values()}) == 1  # one run, continued
    assert all(c["run"]["pair"] == pair for c in cards.values())
    return cards, table


cards = {}
for pair in RUNS:
    cards[pair], table = run_table(pair)
    last = cards[pair][RUNS[pair][-1]]
    print(f"{pair}: data", last["data"]["source"], "|", last["data"]["license"])
    display(table)

# %% [markdown]
# The training loss per step of each run (each step one batch of 8 examples; no smoothing):

# %%
fig, axes = plt.subplots(1, len(RUNS), figsize=(11, 3), sharey=True)
for ax, pair in zip(axes, RUNS):
    last = RUNS[pair][-1]
    curve = pd.Series(cards[pair][last]["loss"]["train_curve"], index=range(1, last + 1), name="training loss")
    curve.plot(ax=ax, alpha=0.6)
    curve.rolling(20).mean().plot(ax=ax, label="mean of 20 steps")
    ax.set_title(pair)
    ax.set_xlabel("step")
    ax.legend()
    print(f"{pair}: training loss, mean of steps 1-20: {curve.iloc[:20].mean():.3f}; "
          f"of steps {last - 19}-{last}: {curve.iloc[-20:].mean():.3f}")
plt.tight_layout()
plt.show()

# %% [markdown]
# ## The learning curve, in chrF, on held-out training pairs
# Step 0 is the prompted base model. Each adapter is a model spec (`gemma3-270m+lora:DIR`) loaded like
# any other. The step that goes to the test sets is the one with the highest held-out chrF.

# %%
base = load_chat_model("gemma3-270m", settings=SETTINGS, batch_size=16)
prompted = PromptSystem(base, "user_translate/completion", name="gemma3-270m")
tuned, curves, best = {}, {}, {}
for pair, steps in RUNS.items():
    for s in steps:
        model = load_chat_model(f"gemma3-270m+lora:{adapter_dir(pair, s)}", settings=SETTINGS, batch_size=16)
        tuned[pair, s] = PromptSystem(model, "user_translate/completion", name=f"lora-{s}")
        print(f"{pair} lora-{s}:", model.fingerprint)
    held_out = write_held_out(adapter_dir(pair, steps[-1]), runs_dir() / f"nb08_heldout_{pair}")
    val = run("translation", systems=[prompted, *(tuned[pair, s] for s in steps)], dataset=held_out, n_bootstrap=1000, progress=False)
    vrows = val.df[(val.df["metric"].isin(["chrF", "BLEU", "chrF++"])) & (val.df["pair"] != "pooled")]
    lc = vrows.pivot_table(index="system", columns="metric", values="score").reindex(val.systems)
    lc_ci = vrows[vrows["metric"] == "chrF"].set_index("system")[["ci_low", "ci_high"]].reindex(val.systems)
    lc = lc.join(lc_ci.rename(columns={"ci_low": "chrF low", "ci_high": "chrF high"}))
    lc.insert(0, "step", [0, *steps])
    lc.insert(1, "CPU minutes", [0.0, *(round(cards[pair][s]["seconds"] / 60, 1) for s in steps)])
    curves[pair] = lc
    best[pair] = int(lc.loc[[f"lora-{s}" for s in steps], "chrF"].idxmax().split("-")[1])
    print(f"{pair}: {int(vrows['n'].iloc[0])} held-out pairs; chosen: lora-{best[pair]}")
pd.concat(curves).round(1)

# %% [markdown]
# ## On the unseen test sets
# Both directions of the same sets: NTREX-128 (the same 300 segments from 60 documents as notebook 03)
# and the first 200 segments of MAFAND-MT *test*.

# %%
copy, other = CopySystem(), ShuffledReferenceSystem()
tests = {}
for pair in RUNS:
    systems = [copy, other, prompted, tuned[pair, best[pair]]]
    tests[pair, "NTREX-128"] = run("translation", systems=systems, dataset="ntrex128", pairs=pair, n=N, docs=DOCS, progress=False)
    tests[pair, "MAFAND test"] = run("translation", systems=systems, dataset="mafand", pairs=pair, n=N_MAFAND, split="test", progress=False)
for (pair, name), res in tests.items():
    unit = res.df[res.df["metric"] == "chrF"].iloc[0]
    print(f"{pair}, {name}: {int(unit['n'])} segments, intervals resample {unit['resample_unit']}s ({int(unit['n_units'])})")

# %%
METRICS = ["chrF", "BLEU", "chrF++", "hallucination_rate"]
scores = pd.concat(
    {key: res.df[(res.df["metric"].isin(METRICS)) & (res.df["pair"] != "pooled")]
     .pivot_table(index="system", columns="metric", values="score")
     .rename(index={f"lora-{best[key[0]]}": "adapter"}).reindex(["copy", "other-sentence", "gemma3-270m", "adapter"])
     for key, res in tests.items()},
    axis=1,
)[[(*key, m) for key in tests for m in METRICS]]  # fmt: skip
scores.round(3)

# %% [markdown]
# Paired differences in chrF (95% CI of the paired bootstrap; documents resampled on NTREX-128), of the
# adapter against each floor and against the prompted model:

# %%
def paired(res, name, against):
    d = deltas(res, "chrF", against=against)
    return d[(d["system"] == name) & (d["pair"] != "pooled")].iloc[0]


rows = {(*key, against): paired(res, f"lora-{best[key[0]]}", against) for key, res in tests.items()
        for against in ("copy", "other-sentence", "gemma3-270m")}  # fmt: skip
diffs = pd.DataFrame(rows).T[["delta", "ci_low", "ci_high", "p_bootstrap", "resample_unit", "n_units"]]
diffs.index.names = ["direction", "test set", "against"]
diffs["significant"] = (diffs["ci_low"].astype(float) > 0) | (diffs["ci_high"].astype(float) < 0)
diffs

# %% [markdown]
# A seeded random sample (`SEED`) of four NTREX-128 segments per direction: the prompted model's output
# and the adapter's.

# %%
for pair in RUNS:
    outs, name = tests[pair, "NTREX-128"].items, f"lora-{best[pair]}"
    pick = outs[outs["system"] == name].sample(4, random_state=SEED)[["idx", "source", "reference", "hypothesis"]]
    before = outs[outs["system"] == "gemma3-270m"].set_index("idx")["hypothesis"]
    pick = pick.assign(prompted=pick["idx"].map(before)).rename(columns={"hypothesis": name})
    print(pair)
    with pd.option_context("display.max_colwidth", 70):
        display(pick.drop(columns="idx").reset_index(drop=True))

# %% [markdown]
# ## Conclusions

# %%
sig = diffs["significant"] & (diffs["delta"].astype(float) > 0)
below = diffs["significant"] & (diffs["delta"].astype(float) < 0)
TESTS = ("NTREX-128", "MAFAND test")
clears = {key: bool(sig[(*key, "copy")] and sig[(*key, "other-sentence")]) for key in tests}
beats_prompt = {key: bool(sig[(*key, "gemma3-270m")]) for key in tests}
ship = {pair: all(clears[pair, name] for name in TESTS) for pair in RUNS}


def verdict(pair, name):
    def floor(against):
        d = diffs.loc[(pair, name, against)]
        word = "above" if sig[(pair, name, against)] else "below" if below[(pair, name, against)] else "not distinguishable from"
        return f"{word} {against} (Δ {float(d['delta']):+.1f} [{float(d['ci_low']):+.1f}, {float(d['ci_high']):+.1f}])"

    d = diffs.loc[(pair, name, "gemma3-270m")]
    return (f"{floor('copy')}, {floor('other-sentence')}; against the prompted model Δ {float(d['delta']):+.1f} "
            f"[{float(d['ci_low']):+.1f}, {float(d['ci_high']):+.1f}]")


def direction(pair):
    steps, lc, b = RUNS[pair], curves[pair], best[pair]
    chrf = {(name, sys): scores.loc[sys, (pair, name, "chrF")] for name in TESTS for sys in scores.index}
    halluc = {name: scores.loc["adapter", (pair, name, "hallucination_rate")] for name in TESTS}
    halluc_p = {name: scores.loc["gemma3-270m", (pair, name, "hallucination_rate")] for name in TESTS}
    return report(
        "**{pair}.**\n"
        "- **Learning curve** (held-out MAFAND train pairs, chrF): {curve}; validation loss {v1:.3f} after "
        "{first} steps, {v2:.3f} after {last}. The adapter after {best} steps is chosen there, before any test "
        "set is scored; training to it took {minutes:.0f} minutes of wall-clock time on 2 cores (see Set-up).\n"
        "- **NTREX-128** (news, unseen): the adapter {nt:.1f} chrF, the prompted model {nt_p:.1f}, copy {nt_c:.1f}, "
        "other-sentence {nt_o:.1f}. The adapter is {nt_verdict}.\n"
        "- **MAFAND test** (the training data's domain): the adapter {mf:.1f}, prompted {mf_p:.1f}, copy {mf_c:.1f}, "
        "other-sentence {mf_o:.1f}. The adapter is {mf_verdict}.\n"
        "- **Faithfulness:** the gate would withhold {h_nt:.0%} of the adapter's NTREX-128 outputs and {h_mf:.0%} "
        "on MAFAND test, against {h_nt_p:.0%} and {h_mf_p:.0%} of the prompted model's.\n"
        "- **Decision:** {decision}",
        pair={"eng-swh": "English → Swahili", "swh-eng": "Swahili → English"}[pair],
        curve=", ".join(f"step {int(r['step'])} {r['chrF']:.1f}" for _, r in lc.iterrows()), first=steps[0],
        last=steps[-1], v1=cards[pair][steps[0]]["loss"]["validation_after"],
        v2=cards[pair][steps[-1]]["loss"]["validation_after"], best=b, minutes=cards[pair][b]["seconds"] / 60,
        nt=chrf[("NTREX-128", "adapter")], nt_p=chrf[("NTREX-128", "gemma3-270m")], nt_c=chrf[("NTREX-128", "copy")],
        nt_o=chrf[("NTREX-128", "other-sentence")], nt_verdict=verdict(pair, "NTREX-128"),
        mf=chrf[("MAFAND test", "adapter")], mf_p=chrf[("MAFAND test", "gemma3-270m")],
        mf_c=chrf[("MAFAND test", "copy")], mf_o=chrf[("MAFAND test", "other-sentence")],
        mf_verdict=verdict(pair, "MAFAND test"), h_nt=halluc["NTREX-128"], h_mf=halluc["MAFAND test"],
        h_nt_p=halluc_p["NTREX-128"], h_mf_p=halluc_p["MAFAND test"],
        decision=("the adapter clears both floors with a significant margin on both unseen news sets, against the "
                  "room's 3-shot prompt only (not the zero-shot or held-apart prompts of notebook 03). That does not "
                  "make it the room's translator: a translator's record belongs to it and to the kind of text it is "
                  f"judged on, and of the {len(chat)} Swahili workplace chat messages of the fifth and sixth unseen "
                  f"runs (labelled blind) it translated {sum(lab == 'faithful' for lab in chat)} faithfully "
                  "(docs/MODELS.md)." if ship[pair] else
                  f"{b} LoRA steps on the CPU do not lift Gemma 3 270M significantly above both floors on both "
                  "unseen sets, so the adapter is not made the room's default for this direction; it stays a "
                  "measured research artefact (docs/MODELS.md)."),
    )  # fmt: skip


# the adapter's drafts of Swahili chat messages into English, as a person labelled them (data/adversarial)
chat = [label for name in ("unseen5_labels.jsonl", "unseen6_labels.jsonl")
        for (msg, lang, _), label in load_labels(project_root() / "data" / "adversarial" / name).items()
        if msg.endswith("-swh") and lang == "eng"]  # fmt: skip

# the facts the sentences rest on (this recording)
assert len(chat) == 40 and "faithful" not in chat
assert best == {"eng-swh": 100, "swh-eng": 50}
assert all(beats_prompt.values())  # every adapter above the room's 3-shot prompt, on both sets
assert not ship["eng-swh"] and all(below[("eng-swh", name, "copy")] for name in TESTS)
assert ship["swh-eng"]  # into English: above both floors, significantly, on both sets
assert all(curves[pair].loc[f"lora-{best[pair]}", "chrF"] > curves[pair].loc["gemma3-270m", "chrF"] for pair in RUNS)
for pair in RUNS:
    display(direction(pair))
