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
# # 05 · Aya's summarizer: one call or two?
#
# **Question.** Aya summarizes the **last** N messages of a room. The two-call summarizer first asks
# the model how many messages the request means (a number; 0 = all), then summarizes exactly that
# window and lists its action items. The one-call summarizer sends the recent history and the request
# in one prompt and parses `COUNT:`, `SUMMARY:` and `ACTIONS:` from the answer. Which one gets the
# window right, finds the action items, writes the better summary — and what does each cost?
#
# **Set-up.** `data/transcripts/transcripts.jsonl`: 47 multilingual workplace transcripts (6–16
# messages each, 443 in all) with a summarize request (38 English, 9 in German, Spanish, French or
# Chinese, brought into English first by Aya's translator prompt on the same model — SmolLM2 here, the
# aya role's model; the room's default translator is Gemma 3 270M), the gold count, the gold
# action items inside the window (104) and a reference summary. Both variants see each message's
# English text. Model: the embedded SmolLM2-135M-Instruct, greedy, at most 128 new tokens (the
# library's default, so the one-call answer has room for its three fields), one call at a time as in
# the room, on the CPU (2 cores); outputs recorded 2026-11-30 and replayed from
# `notebooks/generations.sqlite` under `make test`. Latency is the model time recorded when each
# generation was made, so it replays exactly.

# %%
from aya_lab.notebook import runs_dir, setup_notebook

MODEL = setup_notebook()

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from aya_lab.eval import evaluate_summarizers
from aya_lab.datasets.project import load_transcripts
from aya_lab.models import load_chat_model
from aya_lab.prompts import load_prompt

model = load_chat_model(MODEL, settings={"max_new_tokens": 128})
print(model.spec, model.fingerprint)
transcripts = load_transcripts()
pd.Series({
    "transcripts": len(transcripts),
    "messages": sum(len(t.messages) for t in transcripts),
    "gold action items": sum(len(t.gold_action_items) for t in transcripts),
    "requests not in English": sum(t.request_lang != "eng" for t in transcripts),
    "ask for everything (gold_count 0)": sum(t.gold_count == 0 for t in transcripts),
    "no action item in the window": sum(not t.gold_action_items for t in transcripts),
}).to_frame("count")

# %% [markdown]
# ## The prompts
# Two-call: `summarizer_count` then `summarizer_summary`; one-call: `summarizer_onecall`.

# %%
for ref in ("summarizer_count/baseline", "summarizer_summary/baseline", "summarizer_onecall/baseline"):
    p = load_prompt(ref)
    print(f"--- {ref} ({p.content_hash})\nsystem: {p.system}\nuser:   {p.user!r}\n")

# %% [markdown]
# ## Run both variants on the 47 transcripts
# 9 request translations and 3 × 47 summarizer calls, one at a time: about 14 minutes cold on 2 CPU
# cores, a fraction of a second when replayed from the generation cache. The wall-clock time printed
# below is of the last execution and varies; the latencies in the results are the recorded model times
# and do not.

# %%
# NBVAL_IGNORE_OUTPUT
# %time summ = evaluate_summarizers(("two_call", "one_call"), model=model)

# %%
summ.save(runs_dir() / "nb05_summarizers.csv")
summ

# %% [markdown]
# ## Scores
# Means over transcripts with percentile-bootstrap 95% CIs (`mean [low, high]`; 1000 resamples of the
# 47 transcripts, seeded), and in the last column the paired difference `one_call - two_call` with its
# two-sided paired-bootstrap p-value (`*` = p < 0.05). `*_micro` pools action-item matches over all
# transcripts; `summary_chrF_corpus` is sacrebleu's corpus chrF with its own bootstrap CI.

# %%
with pd.option_context("display.max_colwidth", 60):
    display(summ.table())

# %% [markdown]
# The paired differences with their 95% CIs (same resamples for every metric):

# %%
summ.paired.round(3)

# %%
quality = ["count_exact", "last_n_correct", "action_precision", "action_recall", "action_f1"]
p = summ.paired.set_index("metric")
fig, axes = plt.subplots(1, 2, figsize=(11, 3.6), gridspec_kw={"width_ratios": [3, 2]})
ax = axes[0]
y = np.arange(len(quality))
ax.errorbar(p.loc[quality, "diff"], y, xerr=[p.loc[quality, "diff"] - p.loc[quality, "ci_low"],
                                             p.loc[quality, "ci_high"] - p.loc[quality, "diff"]],
            fmt="o", capsize=3)
ax.axvline(0, color="grey", linestyle=":")
ax.set_yticks(y, quality)
ax.set_xlabel("one_call − two_call (mean over 47 transcripts, 95% CI)")
ax = axes[1]
df = summ.df.set_index(["variant", "metric"])
costs = ["llm_calls", "completion_tokens", "latency_s"]
x = np.arange(len(costs))
base = np.array([df.loc[("two_call", m), "mean"] for m in costs])
for i, v in enumerate(summ.variants):
    means = np.array([df.loc[(v, m), "mean"] for m in costs])
    ax.bar(x + (i - 0.5) * 0.4, np.divide(means, base, out=np.full(len(costs), np.nan), where=base > 0), 0.4, label=v)
ax.set_xticks(x, ["calls", "generated tokens", "latency"])
ax.set_ylabel("per transcript, relative to two_call")
ax.legend(fontsize="small")
plt.tight_layout()
plt.show()

# %% [markdown]
# Cost per transcript in absolute terms (means over the 47 transcripts; latency is the recorded model
# time on 2 CPU cores):

# %%
summ.df[summ.df["metric"].isin(["llm_calls", "prompt_tokens", "completion_tokens", "latency_s"])].pivot_table(
    index="metric", columns="variant", values="mean", sort=False)[summ.variants].round(2)

# %% [markdown]
# ## Where the counts go wrong
# The parsed count against the gold count, for transcripts where a variant got it wrong (`<NA>` = no
# number found: scored as wrong, though the room then summarizes every message):

# %%
per = summ.per_transcript
first_rows = per[per["variant"] == summ.baseline].set_index("transcript_id")
counts = first_rows[["request", "request_en", "gold_count"]].copy()
for v in summ.variants:
    counts[v] = per[per["variant"] == v].set_index("transcript_id")["count_requested"].astype("Int64")
exact = per.pivot(index="transcript_id", columns="variant", values="count_exact").reindex(counts.index)
wrong = counts[(exact[summ.variants] < 1).any(axis=1)]
print(f"{len(wrong)} of {len(counts)} transcripts have a wrong count in at least one variant; the first 12:")
with pd.option_context("display.max_colwidth", 50):
    display(wrong.head(12))

# %%
per.groupby("variant", sort=False).agg(
    count_exact=("count_exact", "mean"), count_missing=("count_requested", lambda s: s.isna().mean()),
    action_items_predicted=("action_n_pred", "sum"), action_items_matched=("action_tp", "sum"),
    gold_action_items=("action_n_gold", "sum")).round(3)

# %% [markdown]
# ## Two summaries side by side
# A transcript in English with action items (t001), and one whose request is not in English:

# %%
def side_by_side(tid):
    rows = per[per["transcript_id"] == tid].set_index("variant")
    first = rows.iloc[0]
    count = lambda c: "None (all)" if pd.isna(c) else str(int(c))
    out = pd.DataFrame({v: {"count (gold %d)" % first["gold_count"]: count(rows.loc[v, "count_requested"]),
                            "summary": rows.loc[v, "summary"], "action items": rows.loc[v, "action_items"],
                            "calls": int(rows.loc[v, "llm_calls"]), "notes": rows.loc[v, "notes"]}
                        for v in summ.variants})
    out["reference"] = {"count (gold %d)" % first["gold_count"]: str(first["gold_count"]),
                        "summary": first["reference_summary"], "action items": first["gold_action_items"],
                        "calls": "", "notes": ""}
    print(f"{tid}: request {first['request']!r} ({first['request_lang']}) -> {first['request_en']!r}; "
          f"{first['n_messages']} messages")
    with pd.option_context("display.max_colwidth", 400):
        display(out)


side_by_side("t001")

# %%
side_by_side(per[per["request_lang"] != "eng"]["transcript_id"].iloc[0])

# %% [markdown]
# ## What this shows
# (Recorded 2026-11-30 with the spotlighted prompts shown above; the figures are the tables' above.)
# - **Two calls keep the "last N" contract; one call does not.** The two-call summarizer parses a
#   count in 81% of the requests, the right one in 72% (95% CI 57–83%), and summarizes exactly the last
#   N messages for 87%; the one-call summarizer gets 2% and 30% (paired differences −0.70
#   [−0.83, −0.55] and −0.57 [−0.70, −0.45], p = 0.001). An unparseable count is scored as wrong:
#   SmolLM2-135M writes a parseable `COUNT:` line in 4% of its one-call answers, so that variant
#   almost always falls back to summarizing everything.
# - **Requests not in English fail at the translation.** "résume les 4 derniers messages" came back
#   from SmolLM2's translation as "I'm sorry for your loss, but as a translation AI, …" and the number
#   was gone (t007 above); in the room, the translator role (Gemma 3 270M) makes this translation and
#   the supervisor routes on the original where it is not English (`route_on: auto`).
# - **Neither variant finds action items.** The two-call summarizer proposed 8 items and the one-call
#   summarizer 19; neither matched any of the 104 gold ones. Their macro F1 (0.19 and 0.17, p = 0.61)
#   comes from the transcripts with no action item in the window, where proposing none scores 1;
#   pooled over transcripts (`*_micro`) F1 is 0 for both.
# - **Summary text:** chrF 28.5 (two-call) vs 20.1 (one-call) against the reference summaries, a
#   difference of −8.4 [−13.8, −3.6] (p = 0.002); the one-call answers often apologise instead of
#   summarizing.
# - **Cost:** one call halves the calls, generates a third fewer tokens (102 vs 153 per transcript)
#   and takes 17.0 s instead of 23.8 s of model time (−6.7 s [−9.9, −3.1]), for the same prompt tokens.
# - With this model the two-call design is the one to keep: it costs twice the calls but is the only
#   one that honours the requested window. The one-call format asks more of the model than 135M
#   parameters deliver. Neither variant produces usable action items.
