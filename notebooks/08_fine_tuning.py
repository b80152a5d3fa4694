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
# # 08 · Fine-tuning the translator: a LoRA adapter for English → Swahili, against the prompt and the floors
#
# **Question.** Prompts alone do not make Gemma 3 270M translate out of English: into Swahili it scores
# below copying the source and far below an unrelated Swahili sentence (notebook 03). Gemma 3 270M is a
# base model made to be fine-tuned for one task. Does a small LoRA adapter, trained on the CPU for
# minutes on MAFAND-MT's *train* split, make it translate — above both floors, and above the
# prompted model — on test sets it has never seen? And what does each step of training buy?
#
# **Set-up.**
# - **Training** (`aya-lab tune translate`, recorded 2026-12-02 on 2 CPU cores, fp32, transformers + PEFT):
#   MAFAND-MT `train`, English → Swahili; the prompt is the room's own (the few-shot completion prompt
#   `user_translate/completion` the user agents send Gemma), the answer the reference; LoRA rank 8 on
#   the attention's q and v projections, alpha 16, AdamW at 3e-4 after 10 warm-up steps, batch 8. One
#   run, continued: the adapters after 50 and 100 steps are the same run's states (a finished run
#   continues to more steps, seeded per step), committed under `data/adapters/gemma3-270m-eng-swh/`.
#   The 200-step point the plan asked for was not trained in this recording: on 2 CPU cores shared with
#   other jobs a step took the seconds the run table shows, and 100 more steps did not fit that day.
#   MAFAND-MT is CC-BY-NC-4.0: these adapters are for non-commercial use.
# - **Learning curve**: chrF on the run's own held-out examples (a seeded 10% of MAFAND train, at most
#   64, never trained on; `aya_lab.tune.heldout`) at 0 (the prompted base), 50 and 100 steps. The
#   step that goes to the test sets is chosen here, on the held-out examples, never on a test set.
# - **Test sets, unseen**: NTREX-128 English → Swahili (news; 300 segments from 60 documents, the
#   segments notebook 03 scores; intervals resample documents) and MAFAND-MT *test* English → Swahili
#   (news, the training data's own domain; its first 200 segments; MAFAND has no document ids, so its
#   intervals resample segments).
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

from aya_lab.eval import CopySystem, PromptSystem, evaluate_translation
from aya_lab.eval.translation.systems import ShuffledReferenceSystem
from aya_lab.models import load_chat_model
from aya_lab.notebook_report import report
from aya_lab.tune.heldout import write_held_out

ADAPTERS = Path("../data/adapters/gemma3-270m-eng-swh")  # relative: the spec strings printed below stay portable
STEPS = (50, 100)
SETTINGS = {"max_new_tokens": 64}
N, DOCS, N_MAFAND, SEED = 300, 60, 200, 0
cards = {s: json.loads((ADAPTERS / f"step-{s:03d}" / "aya_lab_adapter.json").read_text(encoding="utf-8")) for s in STEPS}
runs = pd.DataFrame(
    {
        s: {
            "steps": c["steps"], "CPU minutes (cumulative)": round(c["seconds"] / 60, 1), "device": c["device"],
            "dtype": c["dtype"], "examples trained on": c["data"]["train"], "held out": c["data"]["validation"],
            "validation loss before": round(c["loss"]["validation_before"], 3),
            "validation loss after": round(c["loss"]["validation_after"], 3), "prompt": c["data"]["prompt"],
            **{k: c["hyperparameters"][k] for k in ("lora_r", "lora_alpha", "target_modules", "learning_rate",
                                                   "warmup_steps", "batch_size", "max_tokens", "validation", "max_validation")},
        }
        for s, c in cards.items()
    }
)  # fmt: skip
prev = [0, *STEPS[:-1]]
runs.loc["seconds per step (since the previous save)"] = [
    round((cards[s]["seconds"] - (cards[q]["seconds"] if q else 0)) / (s - q), 1) for s, q in zip(STEPS, prev, strict=True)
]
assert all(cards[s]["steps"] == s for s in STEPS)
assert len({json.dumps(c["run"], sort_keys=True) for c in cards.values()}) == 1  # one run, continued
print("data:", cards[STEPS[-1]]["data"]["source"], "|", cards[STEPS[-1]]["data"]["license"])
runs

# %% [markdown]
# The training loss per step of the run (each step one batch of 8 examples; no smoothing):

# %%
last = STEPS[-1]
curve = pd.Series(cards[last]["loss"]["train_curve"], index=range(1, last + 1), name="training loss")
ax = curve.plot(figsize=(7, 3), alpha=0.6)
curve.rolling(20).mean().plot(ax=ax, label="mean of 20 steps")
ax.set_xlabel("step")
ax.legend()
plt.show()
print(f"training loss, mean of steps 1-20: {curve.iloc[:20].mean():.3f}; of steps {last - 19}-{last}: {curve.iloc[-20:].mean():.3f}")

# %% [markdown]
# ## The learning curve, in chrF, on held-out training pairs
# Step 0 is the prompted base model. Each adapter is a model spec (`gemma3-270m+lora:DIR`) loaded like
# any other.

# %%
base = load_chat_model("gemma3-270m", settings=SETTINGS, batch_size=16)
prompted = PromptSystem(base, "user_translate/completion", name="gemma3-270m")
tuned = {}
for s in STEPS:
    model = load_chat_model(f"gemma3-270m+lora:{ADAPTERS / f'step-{s:03d}'}", settings=SETTINGS, batch_size=16)
    tuned[s] = PromptSystem(model, "user_translate/completion", name=f"lora-{s}")
    print(f"lora-{s}:", model.fingerprint)
held_out = write_held_out(ADAPTERS / f"step-{STEPS[-1]:03d}", runs_dir() / "nb08_heldout")
val = evaluate_translation([prompted, *tuned.values()], held_out, n_bootstrap=1000, progress=False)
vrows = val.df[(val.df["metric"].isin(["chrF", "BLEU", "chrF++"])) & (val.df["pair"] != "pooled")]
lc = vrows.pivot_table(index="system", columns="metric", values="score").reindex(val.systems)
lc_ci = vrows[vrows["metric"] == "chrF"].set_index("system")[["ci_low", "ci_high"]].reindex(val.systems)
lc = lc.join(lc_ci.rename(columns={"ci_low": "chrF low", "ci_high": "chrF high"}))
lc.insert(0, "step", [0, *STEPS])
lc.insert(1, "CPU minutes", [0.0, *(round(cards[s]["seconds"] / 60, 1) for s in STEPS)])
print(f"{int(vrows['n'].iloc[0])} held-out pairs")
lc.round(1)

# %%
best_step = int(lc.loc[[f"lora-{s}" for s in STEPS], "chrF"].idxmax().split("-")[1])
best = tuned[best_step]
print(f"chosen on the held-out pairs: lora-{best_step}")

# %% [markdown]
# ## On the unseen test sets

# %%
copy, other = CopySystem(), ShuffledReferenceSystem()
systems = [copy, other, prompted, best]
ntrex = evaluate_translation(systems, "ntrex128", "eng-swh", n=N, docs=DOCS, progress=False)
mafand = evaluate_translation(systems, "mafand", "eng-swh", n=N_MAFAND, split="test", progress=False)
tests = {"NTREX-128": ntrex, "MAFAND test": mafand}
for name, res in tests.items():
    unit = res.df[res.df["metric"] == "chrF"].iloc[0]
    print(f"{name}: {int(unit['n'])} segments, intervals resample {unit['resample_unit']}s ({int(unit['n_units'])})")

# %%
scores = pd.concat(
    {name: res.df[(res.df["metric"].isin(["chrF", "BLEU", "chrF++", "hallucination_rate"])) & (res.df["pair"] != "pooled")]
     .pivot_table(index="system", columns="metric", values="score").reindex(res.systems) for name, res in tests.items()},
    axis=1,
)  # fmt: skip
scores.round(3)

# %% [markdown]
# Paired differences in chrF (95% CI of the paired bootstrap; documents resampled on NTREX-128), of the
# adapter against each floor and against the prompted model:

# %%
def paired(res, against):
    d = res.deltas("chrF", against=against)
    return d[(d["system"] == best.name) & (d["pair"] != "pooled")].iloc[0]


rows = {(name, against): paired(res, against) for name, res in tests.items() for against in ("copy", "other-sentence", "gemma3-270m")}
diffs = pd.DataFrame(rows).T[["delta", "ci_low", "ci_high", "p_bootstrap", "resample_unit", "n_units"]]
diffs.index.names = ["test set", "against"]
diffs["significant"] = (diffs["ci_low"].astype(float) > 0) | (diffs["ci_high"].astype(float) < 0)
diffs

# %% [markdown]
# A seeded random sample (`SEED`) of four NTREX-128 segments: the prompted model's output and the adapter's.

# %%
outs = ntrex.outputs
pick = outs[outs["system"] == best.name].sample(4, random_state=SEED)[["idx", "source", "reference", "hypothesis"]]
before = outs[outs["system"] == "gemma3-270m"].set_index("idx")["hypothesis"]
pick = pick.assign(prompted=pick["idx"].map(before)).rename(columns={"hypothesis": best.name})
with pd.option_context("display.max_colwidth", 70):
    display(pick.drop(columns="idx").reset_index(drop=True))

# %% [markdown]
# ## Conclusions

# %%
sig = diffs["significant"] & (diffs["delta"].astype(float) > 0)
below = diffs["significant"] & (diffs["delta"].astype(float) < 0)
clears = {name: bool(sig[(name, "copy")] and sig[(name, "other-sentence")]) for name in tests}
beats_prompt = {name: bool(sig[(name, "gemma3-270m")]) for name in tests}
ship = all(clears.values())
chrf = {(name, system): scores.loc[system, (name, "chrF")] for name in tests for system in scores.index}
halluc = {(name, system): scores.loc[system, (name, "hallucination_rate")] for name in tests for system in scores.index}
minutes = cards[best_step]["seconds"] / 60


def verdict(name):
    def floor(against):
        d = diffs.loc[(name, against)]
        word = "above" if sig[(name, against)] else "below" if below[(name, against)] else "not distinguishable from"
        return f"{word} {against} (Δ {float(d['delta']):+.1f} [{float(d['ci_low']):+.1f}, {float(d['ci_high']):+.1f}])"

    d = diffs.loc[(name, "gemma3-270m")]
    return (f"{floor('copy')}, {floor('other-sentence')}; against the prompted model Δ {float(d['delta']):+.1f} "
            f"[{float(d['ci_low']):+.1f}, {float(d['ci_high']):+.1f}]")


# the facts the sentences below rest on (this recording): a large, significant gain over the prompt, yet
# not above the floors, so the adapter is not shipped
assert all(beats_prompt.values()) and not ship
assert all(below[(name, "copy")] for name in tests)
assert lc.loc[f"lora-{best_step}", "chrF"] > lc.loc["gemma3-270m", "chrF"]
report(
    "- **Learning curve** (held-out MAFAND train pairs, chrF): {curve}. Most of the gain came in the first "
    "{first} steps; the validation loss still fell ({v1:.3f} → {v2:.3f}) while chrF moved {dv:+.1f}. The "
    "adapter after {best} steps is chosen there, before any test set is scored; training it cost {minutes:.0f} "
    "CPU minutes on 2 shared cores.\n"
    "- **NTREX-128** (news, unseen): the adapter {nt:.1f} chrF, the prompted model {nt_p:.1f}, copy {nt_c:.1f}, "
    "other-sentence {nt_o:.1f}. The adapter is {nt_verdict}.\n"
    "- **MAFAND test** (the training data's domain): the adapter {mf:.1f}, prompted {mf_p:.1f}, copy {mf_c:.1f}, "
    "other-sentence {mf_o:.1f}. The adapter is {mf_verdict}.\n"
    "- **Is it translating?** The faithfulness gate would withhold {h_nt:.0%} of the adapter's NTREX-128 outputs "
    "and {h_mf:.0%} on MAFAND test, against {h_nt_p:.0%} and {h_mf_p:.0%} of the prompted model's: fewer "
    "invented sentences, still mostly not translations. The seeded sample shows why chrF rose: the "
    "adapter writes Swahili-looking text with the source's names and numbers, and loops.\n"
    "- **Decision:** {decision}",
    curve=", ".join(f"step {int(r['step'])} {r['chrF']:.1f}" for _, r in lc.iterrows()), first=STEPS[0],
    v1=cards[STEPS[0]]["loss"]["validation_after"], v2=cards[STEPS[-1]]["loss"]["validation_after"],
    dv=lc.loc[f"lora-{STEPS[-1]}", "chrF"] - lc.loc[f"lora-{STEPS[0]}", "chrF"], best=best_step, minutes=minutes,
    nt=chrf[("NTREX-128", best.name)], nt_p=chrf[("NTREX-128", "gemma3-270m")], nt_c=chrf[("NTREX-128", "copy")],
    nt_o=chrf[("NTREX-128", "other-sentence")], nt_verdict=verdict("NTREX-128"),
    mf=chrf[("MAFAND test", best.name)], mf_p=chrf[("MAFAND test", "gemma3-270m")], mf_c=chrf[("MAFAND test", "copy")],
    mf_o=chrf[("MAFAND test", "other-sentence")], mf_verdict=verdict("MAFAND test"),
    h_nt=halluc[("NTREX-128", best.name)], h_mf=halluc[("MAFAND test", best.name)],
    h_nt_p=halluc[("NTREX-128", "gemma3-270m")], h_mf_p=halluc[("MAFAND test", "gemma3-270m")],
    decision=("the adapter clears both floors with a significant margin on both unseen sets, so it is shipped "
              "for English → Swahili (docs/MODELS.md)." if ship else
              "a hundred LoRA steps on the CPU make Gemma 3 270M score far above its prompt, but not above "
              "copying the source or an unrelated Swahili sentence on either unseen set, so the adapter is "
              "not made the room's default; it stays a measured research artefact (docs/MODELS.md)."),
)  # fmt: skip
