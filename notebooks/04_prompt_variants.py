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
# # 04 · Prompt variants: the user agent's translation and the supervisor's routing
#
# **Questions.** Prompts are files (`prompts/<task>/<variant>.yaml`); a sweep runs every variant of a
# task on the same inputs and tests each against the first. Does the `strict` translation prompt beat
# the room's `baseline` prompt on workplace chat? Does a few-shot routing prompt pick Aya's tool more
# often than the one-word baseline prompt — in every request language?
#
# **Set-up.** Translation: the in-repo `workplace` set (63 chat lines in 11 short conversations,
# English with French, German, Spanish and Chinese references, written for this project; informal
# register), English into each of the four, all 63 lines per pair. Routing: `data/routing/requests.jsonl`,
# 104 labelled requests to Aya (26 per tool: `query`, `summarize`, `remember`, `chat`) in six
# languages; non-English requests are first brought into English by Aya's translator, as in the room.
# Model: the embedded SmolLM2-135M-Instruct, greedy, at most 64 new tokens, batches of 16, on the CPU
# (2 cores); outputs recorded 2026-11-30 and replayed from `notebooks/generations.sqlite` under
# `make test`.

# %%
from aya_lab.notebook import runs_dir, setup_notebook

MODEL = setup_notebook()

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from aya_lab.eval import sweep_routing
from aya_lab.eval import sweep_translation
from aya_lab.models import load_chat_model
from aya_lab.prompts import list_variants, load_prompt
from aya_lab.agents.routing import KeywordRouter

model = load_chat_model(MODEL, settings={"max_new_tokens": 64}, batch_size=16)
print(model.spec, model.fingerprint)
print("user_translate variants:", list_variants("user_translate"), "| supervisor variants:", list_variants("supervisor"))

# %% [markdown]
# ## 1. Translation prompts
# The two variants, as their files define them:

# %%
def prompt_frame(task, variants):
    rows = {}
    for v in variants:
        p = load_prompt(f"{task}/{v}")
        rows[v] = {"hash": p.content_hash, "description": p.description, "system": p.system, "user": p.user}
    return pd.DataFrame(rows).T


with pd.option_context("display.max_colwidth", 400):
    display(prompt_frame("user_translate", ["baseline", "strict"]))

# %% [markdown]
# 2 prompts × 4 pairs × 63 lines = 504 generations: about 5 minutes cold on 2 CPU cores, seconds when
# replayed from the generation cache (the time printed below is of the last execution).

# %%
# NBVAL_IGNORE_OUTPUT
# %time tr = sweep_translation(["baseline", "strict"], "workplace", model=model)

# %%
tr.save(runs_dir() / "nb04_translate.csv")
tr.table()

# %%
tr.plot("chrF")
plt.show()

# %% [markdown]
# Paired tests of `strict` against `baseline` (same 63 lines per pair; `pooled` concatenates the four
# pairs): the score difference, the paired-bootstrap and approximate-randomisation p-values, and
# whether both are below 0.05.

# %%
d = tr.df[(tr.df["hop"] == "e2e") & tr.df["metric"].isin(["BLEU", "chrF", "chrF++"])]
scores = d.pivot_table(index=["pair", "metric"], columns="system", values="score", sort=False)
strict_rows = d[d["system"] == "strict"].set_index(["pair", "metric"])
paired_tr = pd.DataFrame({
    "n": strict_rows["n"], "baseline": scores["baseline"], "strict": scores["strict"],
    "diff": scores["strict"] - scores["baseline"], "p_bootstrap": strict_rows["p_bootstrap"],
    "p_ar": strict_rows["p_ar"], "significant": strict_rows["significant"],
})
paired_tr.round(3)

# %% [markdown]
# Each prompt beside its pooled scores and output-language check:

# %%
def pooled(metric):
    return tr.df[(tr.df["pair"] == "pooled") & (tr.df["metric"] == metric)].set_index("system")["score"]


def per_pair_mean(metric):
    return tr.df[(tr.df["pair"] != "pooled") & (tr.df["metric"] == metric)].groupby("system")["score"].mean()


side = prompt_frame("user_translate", ["baseline", "strict"])[["user", "system"]]
side["chrF (pooled)"] = pooled("chrF").round(1)
side["BLEU (pooled)"] = pooled("BLEU").round(1)
side["in target language"] = per_pair_mean("target_lang_share").map("{:.0%}".format)
side["echo"] = per_pair_mean("echo_share").map("{:.0%}".format)
with pd.option_context("display.max_colwidth", 300):
    display(side)

# %% [markdown]
# Two lines of one conversation, in every language, for both prompts:

# %%
o = tr.outputs[tr.outputs["idx"].isin([0, 4])]
ex = o.pivot_table(index=["idx", "tgt"], columns="system", values="hypothesis", aggfunc="first", sort=False)
ex.insert(0, "reference", o[o["system"] == "baseline"].set_index(["idx", "tgt"])["reference"])
ex.insert(0, "source", o[o["system"] == "baseline"].set_index(["idx", "tgt"])["source"])
with pd.option_context("display.max_colwidth", 70):
    display(ex)

# %% [markdown]
# ## 2. Routing prompts
# Aya's supervisor asks the model for one word naming a tool; an answer naming no tool falls back to
# multilingual keyword rules (the fallback rate says how often). The two variants:

# %%
with pd.option_context("display.max_colwidth", 600):
    display(prompt_frame("supervisor", ["baseline", "fewshot"]))

# %% [markdown]
# 52 request translations (one batch) and 2 × 104 router prompts: about 3 minutes cold.

# %%
# NBVAL_IGNORE_OUTPUT
# %time rt = sweep_routing(["baseline", "fewshot"], model=model)

# %%
rt.save(runs_dir() / "nb04_routing.csv")
rt

# %% [markdown]
# Accuracy with a bootstrap 95% CI, overall and per request language, and the fallback rate:

# %%
rt.table()

# %%
acc = rt.df[rt.df["metric"] == "accuracy"]
langs = list(dict.fromkeys(acc["lang"]))
fig, ax = plt.subplots(figsize=(8, 3.5))
for i, (prompt, g) in enumerate(acc.groupby("prompt", sort=False)):
    g = g.set_index("lang").reindex(langs)
    x = np.arange(len(langs)) + (i - 0.5) * 0.4
    err = np.vstack([g["mean"] - g["ci_low"], g["ci_high"] - g["mean"]])
    ax.bar(x, g["mean"], 0.4, yerr=err, capsize=2, label=prompt)
ax.set_xticks(range(len(langs)), [f"{l}\n(n={int(n)})" for l, n in zip(langs, acc.groupby("lang", sort=False)["n"].first().reindex(langs))])
ax.axhline(0.25, color="grey", linestyle=":", label="chance (4 tools)")
ax.set_ylabel("routing accuracy")
ax.set_ylim(0, 1)
ax.legend(fontsize="small")
plt.show()

# %% [markdown]
# Paired tests of `fewshot` against `baseline` on the same 104 requests: the accuracy (and fallback
# rate) difference with its paired-bootstrap 95% CI and p-value, and McNemar's exact test on the
# discordant requests (`b`: baseline right, fewshot wrong; `c`: the reverse).

# %%
rt.paired.round(3)

# %% [markdown]
# Confusion matrices (gold tool in rows, routed tool in columns):

# %%
fig, axes = plt.subplots(1, 2, figsize=(10, 4))
for ax, (name, conf) in zip(axes, rt.confusion.items()):
    ax.imshow(conf.to_numpy(), cmap="Blues", vmin=0, vmax=26)
    ax.set_xticks(range(len(conf.columns)), conf.columns, rotation=30)
    ax.set_yticks(range(len(conf.index)), conf.index)
    for (r, c), v in np.ndenumerate(conf.to_numpy()):
        ax.text(c, r, str(v), ha="center", va="center", color="white" if v > 13 else "black")
    ax.set_xlabel("routed to")
    ax.set_ylabel("gold")
    ax.set_title(f"{name}: accuracy {np.trace(conf.to_numpy()) / conf.to_numpy().sum():.2f}")
plt.tight_layout()
plt.show()

# %% [markdown]
# What the model answered, for the first requests of each tool (the router keeps the first tool name
# in the answer; `fallback` = it named none):

# %%
ex = rt.examples.pivot_table(index=["id", "lang", "label"], columns="prompt", values=["answer", "predicted"],
                             aggfunc="first", sort=False)
ex.columns = [f"{b}: {a}" for a, b in ex.columns]
ex = ex[[f"{p}: {c}" for p in rt.variants for c in ("answer", "predicted")]]
first = rt.examples[rt.examples["prompt"] == "baseline"].groupby("label", sort=False).head(2)["id"]
with pd.option_context("display.max_colwidth", 60):
    display(ex.loc[ex.index.get_level_values("id").isin(first)].map(lambda s: s.replace("\n", " ⏎ ")))

# %% [markdown]
# ## 3. Is the model routing at all?
# The fallback rates above say the model rarely names a tool. Accuracy split by who decided — the
# model (its answer named a tool, or a synonym such as "policy" or "note") or the keyword rules:

# %%
rt.examples.assign(decided_by=rt.examples["fallback"].map({0.0: "model", 1.0: "keyword rules"})).groupby(
    ["prompt", "decided_by"], sort=False)["correct"].agg(accuracy="mean", n="size").round(3)

# %% [markdown]
# The same requests routed by the keyword rules alone (no model), and both prompts again with the data
# set's gold English in place of Aya's translation (`translate="gold"`), for all requests and for the
# 52 that are not in English; "as written" routes the untranslated request (keyword rules only):

# %%
gold = sweep_routing(["baseline", "fewshot"], model=model, translate="gold")
keywords = KeywordRouter()
base_ex = rt.examples[rt.examples["prompt"] == "baseline"].reset_index(drop=True)
gold_ex = gold.examples[gold.examples["prompt"] == "baseline"].reset_index(drop=True)


def kw_correct(texts, labels):
    return (texts.map(lambda t: keywords.route(t).tool) == labels).astype(float)


rows = []
for subset, mask in (("all 104", base_ex["lang"].notna()), ("52 not in English", base_ex["lang"] != "eng")):
    for source, res, ex in (("Aya's translation (as in the room)", rt, base_ex), ("gold English", gold, gold_ex)):
        acc = res.examples.groupby("prompt", sort=False)["correct"].apply(lambda c: c.to_numpy()[mask.to_numpy()].mean())
        rows.append({"requests": subset, "text routed": source, **acc.to_dict(),
                     "keyword rules only": kw_correct(ex["routed_text"], ex["label"])[mask].mean()})
    rows.append({"requests": subset, "text routed": "as written (no translation)",
                 "keyword rules only": kw_correct(base_ex["text"], base_ex["label"])[mask].mean()})
pd.DataFrame(rows).set_index(["requests", "text routed"]).round(3)

# %% [markdown]
# ## What this shows
# - **Translation: `strict` beats `baseline` on workplace chat, but neither translates.** Pooled over
#   the four pairs (252 lines) `strict` gains 2.5 chrF (14.2 vs 11.7) and 1.5 BLEU (2.2 vs 0.7),
#   significant by both tests; per pair the chrF gain is significant for German (+2.0) and Chinese
#   (+1.3), not for French (+0.4) or Spanish (+2.1, randomisation p = 0.06). The clearest change is in
#   the output-language check: identified as the target language 87% of the time instead of 26%,
#   echoing 8% of the lines instead of 41%, at the same number of calls and tokens. But BLEU stays
#   below 2.6 on every pair: `strict` writes target-language-shaped text that does not say what the
#   source says ("Je suis le jour de l'année pour la report pour le quartier." for "The deadline for
#   the quarterly report is next Friday."), while `baseline` echoes the English or answers the message
#   as a chatbot.
# - **The prompt effect depends on the language and the genre.** On NTREX news into low-resource
#   languages (notebook 03) the same `strict` prompt *lowered* chrF by 3.3 and was no better on the
#   news controls; here, on short chat lines into high-resource languages, it helps. A prompt has to be
#   swept on the languages it will serve.
# - **Routing: the two prompts are indistinguishable because the model does not route.** Accuracy is
#   0.635 [0.538, 0.721] with `baseline` and 0.625 [0.529, 0.712] with `fewshot`; the paired
#   difference is −0.010 [−0.058, 0.038] (bootstrap p = 0.85; McNemar b = 4, c = 3, p = 1.0). The
#   model names a tool in only 14% of its answers with `baseline` and 1% with `fewshot` — the few-shot
#   prompt makes it answer the first example ("The per-diem for business trips is 2.5% …") for almost
#   every request, a significant rise in the fallback rate (+13.5 points, both tests). The few tool
#   words it does produce come from chatbot replies ("as a chatbot, I don't have the ability to
#   remember …"), right 60% of the time. The accuracy is the keyword rules': routed by the rules alone,
#   the same texts score exactly 0.635. Their errors are mostly the default: 31 of the 78 non-chat
#   requests fall through to `chat` under `baseline`.
# - **Translating the request first hurts routing with this model.** English requests are routed
#   correctly 79–81% of the time, the 52 others 44–48%. With the data set's gold English the non-English
#   requests reach 0.79–0.85, and the multilingual keyword rules on the *untranslated* request reach
#   0.69 (0.75 over all 104) — better than the room's translate-then-route path (0.635). With a 135M
#   model, routing on the original text would be the better design; a model that can follow the
#   one-word instruction is needed before the routing prompt matters.
