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
# # 06 · Aya's knowledge base: retrieval quality and answers with sources
#
# **Questions.** Does retrieval find the right handbook document for a policy question? Does Aya's
# query agent answer with its sources — and say "I don't know" when the question is outside the
# handbook?
#
# **Set-up.** `data/kb/`: six policy documents of the fictional company (travel, leave, expenses, IT,
# security, remote work), split by Markdown headers then into ~400-character chunks, embedded with the
# packaged all-MiniLM-L6-v2 (English), searched exactly (FAISS inner product on normalised vectors).
# `data/rag/questions.jsonl`: labelled questions, in scope (with their gold documents and answer
# keywords) or out of scope (counts printed below). Answers: the embedded SmolLM2-135M-Instruct,
# greedy, 64 new tokens, CPU.

# %%
from aya_lab.notebook import runs_dir, setup_notebook

MODEL = setup_notebook()

import itertools

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from aya_lab.agents import IDK, AyaQuery, QueryAnswer
from aya_lab.eval import floors_table, paired_accuracy, retrieval_by_question, run
from aya_lab.models import load_chat_model
from aya_lab.notebook import (
    DEFAULT_CHUNK_SIZE, NEIGHBOURS, VOTE_WEIGHT, VOTERS, KnowledgeBase, ScopePool, SectionIndex, list_kb_documents,
    load_policy_questions, load_rag_questions, project_root, read_gold_sections, read_labelled_questions, report,
)  # fmt: skip

for p in runs_dir().glob("nb06_kb*"):
    p.unlink()
kb = KnowledgeBase.open(runs_dir() / "nb06_kb.sqlite")
questions = load_rag_questions()
by_id = {q.id: q for q in questions}
n_in = sum(q.in_scope for q in questions)
n_out = len(questions) - n_in
print(f"{len(list_kb_documents())} documents, {len(kb)} chunks of up to {DEFAULT_CHUNK_SIZE} characters; {len(questions)} questions "
      f"({n_in} in scope, {n_out} out of scope); relevance threshold {kb.min_score}")

# %% [markdown]
# ## Retrieval quality
# Retrieval is scored on documents, not chunks: the ranked chunks are reduced to their distinct
# sources, best first. For an in-scope question with gold documents $G$ and first $k$ distinct
# sources $T_k$:
#
# - **hit@k** = 1 if at least one gold document is in $T_k$, else 0;
# - **recall@k** = $|G \cap T_k| \,/\, \min(k, |G|)$ — the gold documents found, out of as many as
#   fit in $k$ places (a question with three gold documents reaches 1.0 at $k = 1$ when its first
#   source is gold; at $k = 1$ recall equals hit);
# - **MRR** = mean of 1 / rank of the first gold document (0 when none is retrieved);
# - **answered** = 1 if the best chunk scores at or above the relevance threshold (below it the agent
#   says "I don't know" without calling the model); for out-of-scope questions **idk** = 1 if the best
#   score is below the threshold.
#
# Each is a mean over questions with a bootstrap 95% confidence interval (1000 resamples, seeded).

# %%
retrieval = run("retrieval", kb=kb, questions=questions, ks=[1, 3, 5], n_bootstrap=1000)
summary = retrieval.table()
summary.round(3)

# %% [markdown]
# What those scores mean next to rankers that understand nothing: **BM25** over the same chunks (lexical,
# `rank_bm25` with its defaults) and a **random** order of the documents (scored by exact expectation). Each
# cell is the in-scope score with its 95% CI; the last columns are each floor minus the embedder, paired over
# questions (bootstrap p; `*` where significant after Holm over the floors):

# %%
floors = floors_table(retrieval)
floors

# %%
per_q = retrieval_by_question(retrieval)
per_q["gold"] = [", ".join(by_id[i].gold_docs) for i in per_q.index]
per_q["n gold"] = [len(by_id[i].gold_docs) for i in per_q.index]
in_scope = per_q[per_q["in_scope"].astype(bool)]
out_scope = per_q[~per_q["in_scope"].astype(bool)]
in_scope["n gold"].value_counts().rename_axis("gold documents").rename("questions").to_frame().T

# %% [markdown]
# The best retrieval score per question, in scope vs out of scope, against the threshold — the
# threshold trades answered in-scope questions for refused out-of-scope ones:

# %%
fig, ax = plt.subplots(figsize=(6, 3))
for label, group in (("in scope", in_scope), ("out of scope", out_scope)):
    ax.hist(group["top_score"], bins=16, range=(0, 1), alpha=0.6, label=label)
ax.axvline(kb.min_score, color="k", linestyle="--", label=f"threshold {kb.min_score}")
ax.set_xlabel("best cosine score")
ax.set_ylabel("questions")
ax.legend()
plt.show()

# %% [markdown]
# ### Where retrieval goes wrong
# In-scope questions whose top document is **not** gold (hit@1 = 0), with the first three distinct
# sources:

# %%
def first(retrieved: str, n: int = 3) -> str:
    return ", ".join(retrieved.split(",")[:n])


wrong_top = in_scope[in_scope["hit@1"] == 0].assign(top3=lambda d: d["retrieved"].map(first))
with pd.option_context("display.max_colwidth", 70):
    display(wrong_top[["question", "gold", "top3", "mrr", "top_score"]].round(3))

# %% [markdown]
# In-scope questions the threshold refuses (best score below it: the agent would say "I don't know"):

# %%
refused = in_scope[in_scope["answered"] == 0].assign(top3=lambda d: d["retrieved"].map(first))
with pd.option_context("display.max_colwidth", 70):
    display(refused[["question", "gold", "top3", "top_score"]].round(3))

# %% [markdown]
# Out-of-scope questions that slip past the threshold (best score at or above it: the model is asked):

# %%
slipped = out_scope[out_scope["idk"] == 0].assign(top3=lambda d: d["retrieved"].map(first))
with pd.option_context("display.max_colwidth", 70):
    display(slipped[["question", "top3", "top_score"]].round(3))

# %% [markdown]
# ## Answers with sources, on every question
# The query agent keeps the chunks above the threshold, asks the model to answer from them (the
# passages between `<passages>` tags), and checks the draft before anything is delivered (the agent,
# not the model, writes the sources line; `aya_lab/agents/grounding.py`): prompt tags the draft echoes
# are stripped; every number, date, clock time and multi-word name in it must be stated by a shown
# passage, and only the passages that state them are cited (a draft with no such fact is cited to the
# passages it shares words with); a note that a shown document contradicts is never cited. A draft that
# fails is **withheld**: the reply is a fixed sentence and the draft, with the reason, goes to the run
# report. Each question ends in one of three outcomes: *answered* (the draft is delivered, with
# sources), *withheld*, or *I don't know* (nothing above the threshold, no model call). Per question:
# *echo* marks a draft that contained a prompt tag such as `<passages>`, i.e. copied the prompt's
# passage block back instead of answering; *keywords* counts the question's answer keywords found in
# the draft (case-insensitive; in-scope questions only); *why* is the reason a draft was withheld.

# %%
model = load_chat_model(MODEL, settings={"max_new_tokens": 64})
agent = AyaQuery(model, kb, k=3)


def outcome(a: QueryAnswer) -> str:
    return "withheld" if a.withheld else "I don't know" if a.answer == IDK else "answered"


rows = []
for q in questions:
    a = agent.answer(q.question)
    found = sum(k.lower() in a.answer.lower() for k in q.answer_keywords)
    rows.append({"id": q.id, "scope": "in" if q.in_scope else "out", "outcome": outcome(a),
                 "echo": bool(a.leaked),
                 "sources": ", ".join(a.sources) or "—",
                 "cites gold": bool(set(a.sources) & set(q.gold_docs)) if q.in_scope else None,
                 "keywords": f"{found}/{len(q.answer_keywords)}" if q.in_scope else "",
                 "any keyword": found > 0 if q.in_scope else None,
                 "why": a.reason, "answer": a.answer})
answers = pd.DataFrame(rows).set_index("id")
with pd.option_context("display.max_rows", 100, "display.max_colwidth", 50):
    display(answers.drop(columns=["any keyword", "why"]))

# %% [markdown]
# Outcomes by scope, as counts and as shares of the scope's questions:

# %%
OUTCOMES = ["answered", "withheld", "I don't know"]
counts = pd.crosstab(answers["scope"], answers["outcome"]).reindex(columns=OUTCOMES, fill_value=0)
shares = counts.div(counts.sum(axis=1), axis=0)
pd.concat({"questions": counts, "share": shares.round(3)}, axis=1)

# %% [markdown]
# Why the in-scope drafts were withheld: a fact (number, date, time, name) that no shown passage states,
# a draft with no such fact that shares no words with a passage, or a draft of prompt tags alone:

# %%
withheld_in = answers[(answers["scope"] == "in") & (answers["outcome"] == "withheld")]
why = withheld_in["why"].map(lambda r: "a fact in no passage" if r.startswith("no retrieved passage states")
                             else "only prompt tags" if r.startswith("the draft is only")
                             else "no passage shares its words" if r == "no retrieved passage supports it" else r)
with pd.option_context("display.max_colwidth", 90):
    display(withheld_in.assign(why=withheld_in["why"].str.slice(0, 90))[["why", "keywords", "answer"]])
why.value_counts().rename_axis("reason").rename("withheld").to_frame()

# %% [markdown]
# The delivered in-scope answers: how many echo the passages, cite a gold document, and contain an
# answer keyword (*keyword hit rate*: the share with at least one of the question's keywords):

# %%
delivered = answers[(answers["scope"] == "in") & (answers["outcome"] == "answered")]
delivered_table = delivered.groupby("echo").agg(
    answers=("outcome", "size"), cite_gold=("cites gold", "sum"), any_keyword=("any keyword", "sum"))
delivered_table.loc["all"] = delivered_table.sum()
delivered_table["keyword hit rate"] = (delivered_table["any_keyword"] / delivered_table["answers"]).round(3)
delivered_table

# %% [markdown]
# A seeded random sample of the answers — up to three per kind (delivered echo, delivered in the
# model's own words, withheld, "I don't know"), so failures are shown beside successes. The full draft
# is shown; for *withheld* rows it is what the room did not deliver:

# %%
rng = np.random.default_rng(0)
kind = answers["outcome"].where(answers["outcome"] != "answered",
                                answers["echo"].map({True: "answered (echo)", False: "answered (own words)"}))
picked = [i for _, group in answers.groupby(kind, sort=True) for i in rng.permutation(group.index)[:3]]
sample = answers.loc[picked, ["scope", "outcome", "echo", "sources", "keywords", "answer"]]
sample.insert(0, "question", [by_id[i].question for i in sample.index])
with pd.option_context("display.max_colwidth", None):
    display(sample)

# %% [markdown]
# ## What this shows
# Every number below is rendered from the tables above, and the facts the sentences rest on are
# asserted, so a re-record that changes them fails here instead of leaving stale prose.

# %%
agg = summary["score"]
h1, h3, r3, mrr = (agg[("in-scope", m)] for m in ("hit@1", "hit@3", "recall@3", "mrr"))
vs = retrieval.paired.set_index(["system", "metric"])
assert vs.loc[("random", "hit@1"), "significant"] and vs.loc[("random", "hit@1"), "delta"] < 0  # beats chance
bm25_h1 = vs.loc[("bm25", "hit@1")]
multi = in_scope[in_scope["n gold"] > 1]
assert (in_scope["recall@1"] == in_scope["hit@1"]).all()  # the definition at k = 1
assert (wrong_top["hit@3"] == 1).all() and (wrong_top["mrr"] < 1).all()  # the gold document is 2nd or 3rd
assert (refused["hit@1"] == 1).all()  # refused by the threshold, not by the ranking
short = in_scope[in_scope["recall@3"] < 1]
assert set(short.index) <= set(multi.index)  # only a multi-gold question can miss recall@3 when hit@3 = 1
short_list = "; ".join(f"{i} ({r.question!r}; gold {r.gold}) has {r.top3} in its top three"
                       for i, r in short.assign(top3=short["retrieved"].map(first)).iterrows())
misses = "; ".join(f"{i} ({r.question!r}) ranks {r.top3.split(', ')[0]} first, gold {r.gold} at rank "
                   f"{round(1 / r.mrr)}" for i, r in wrong_top.iterrows())
refused_list = "; ".join(f"{i} ({r.question!r}, best score {r.top_score:.2f})" for i, r in refused.iterrows())
slipped_list = "; ".join(f"{i} ({r.question!r}, {r.top_score:.2f}): {answers.loc[i, 'outcome']}"
                         for i, r in slipped.iterrows())
report(
    "- **Retrieval** ranks a gold document first for {h1:.1%} of the {n_in} in-scope questions (hit@1, "
    "{n_h1} of {n_in}) and within the first three for {h3:.0%} (hit@3); MRR {mrr:.3f}. Normalised "
    "recall@1 equals hit@1 by definition; recall@3 is {r3:.3f}: of the {n_multi} questions with more than "
    "one gold document, only {short_list}. The top document is wrong for {n_wrong} "
    "questions, each with the gold document within the first three: {misses}.\n"
    "- **The threshold** ({thr}) refuses {n_refused} of the {n_in} in-scope questions although the gold "
    "document ranks first for each: {refused_list}. It says \"I don't know\" to {n_idk} of the {n_out} "
    "out-of-scope questions; {n_slipped} slip past it: {slipped_list}. The threshold was chosen on these "
    "same questions (`data/rag/README.md`), so these rates are optimistic.\n"
    "- **Against its floors** (hit@1, paired over the in-scope questions): a random order scores "
    "{rand_d:+.3f} [{rand_lo:+.3f}, {rand_hi:+.3f}] against the embedder (p = {rand_p:.3f}); BM25 over the "
    "same chunks {bm25_d:+.3f} [{bm25_lo:+.3f}, {bm25_hi:+.3f}] (p = {bm25_p:.3f}): the embedder {bm25_word} "
    "(both verdicts hold over the notebook's family of tests, its last section).",
    rand_d=vs.loc[("random", "hit@1"), "delta"], rand_lo=vs.loc[("random", "hit@1"), "ci_low"],
    rand_hi=vs.loc[("random", "hit@1"), "ci_high"], rand_p=vs.loc[("random", "hit@1"), "p"],
    bm25_d=bm25_h1["delta"], bm25_lo=bm25_h1["ci_low"], bm25_hi=bm25_h1["ci_high"], bm25_p=bm25_h1["p"],
    bm25_word=("beats BM25" if bm25_h1["significant"] and bm25_h1["delta"] < 0 else
               "is below BM25" if bm25_h1["significant"] else "is not shown to differ from BM25"),
    h1=h1, n_in=n_in, n_h1=int(in_scope["hit@1"].sum()), h3=h3, mrr=mrr, r3=r3, n_multi=len(multi),
    short_list=short_list,
    n_wrong=len(wrong_top), misses=misses, thr=kb.min_score, n_refused=len(refused), refused_list=refused_list,
    n_idk=int(out_scope["idk"].sum()), n_out=n_out, n_slipped=len(slipped), slipped_list=slipped_list,
)

# %%
c_in = counts.loc["in"]
n_reached = int(c_in["answered"] + c_in["withheld"])  # in-scope questions that reached the model
n_echo = int(delivered["echo"].sum())
own = delivered[~delivered["echo"]]
assert c_in.sum() == n_in and c_in["I don't know"] == len(refused)
assert n_echo > len(delivered) / 2  # most delivered answers copy the passages back
not_gold = delivered[delivered["cites gold"] != True]  # noqa: E712 (a column of booleans)
assert len(not_gold) <= 1 and not_gold["echo"].all()  # "every delivered answer but one cites a gold document"
assert withheld_in["any keyword"].sum() < len(withheld_in) / 2  # "few withheld drafts held an answer" (by keywords)
by_reason = why.value_counts()
assert by_reason.sum() == len(withheld_in) and set(by_reason.index) <= {
    "a fact in no passage", "only prompt tags", "no passage shares its words"}  # no note was retrieved here
facts_missing = ", ".join(f"{i}: {r.split('states ', 1)[1]}" for i, r in withheld_in["why"].items()
                          if r.startswith("no retrieved passage states"))
false_echo = withheld_in[withheld_in["echo"] & (why == "a fact in no passage")]
assert len(false_echo) >= 1  # "some drafts that look like an echoed passage state a figure the handbook does not"
out_delivered = answers[(answers["scope"] == "out") & (answers["outcome"] == "answered")]
assert len(out_delivered) == 0  # no out-of-scope question got an answer
report(
    "- **Answers, all {n_in} in-scope questions:** {ans_n} delivered ({ans:.1%}), {wh_n} withheld "
    "({wh:.1%}), {idk_n} \"I don't know\" ({idk:.1%}). Of the {ans_n} delivered answers, {n_echo} copy "
    "the `<passages>` block back (echo) and {n_own} are in the model's own words; {kw_n} contain an "
    "answer keyword (keyword hit rate {kw:.1%}), {kw_own} of the {n_own} own-words ones. {gold_n} of the "
    "{ans_n} delivered answers cite a gold document{not_gold}, which mostly shows that an echoed passage "
    "shares words with its own source: the echo, not the model, carries the fact.\n"
    "- **Withholding on honest questions:** {wh_n} of the {n_reached} in-scope questions that reached "
    "the model were withheld ({fp:.1%}); these questions are honest, so on them this is an upper bound on the "
    "withholding defence's false positives (one sample of {n_reached} questions, no interval; some withheld "
    "drafts are made up themselves, see below). By answer keywords, few withheld drafts held an answer: {wh_kw} of {wh_n} "
    "(a loose check: a keyword matches any occurrence, even one copied from the question, and misses an "
    "answer in other words, so this does not bound what withholding cost). By reason: {reasons}; the facts in no passage were "
    "{facts_missing}. {n_false_echo} of these ({false_echo}) look like an echoed passage but state a figure "
    "that no passage holds: a copy that is not a copy (the word-overlap rule alone delivered both, citing "
    "their source: this notebook's outputs of 2026-12-01).\n"
    "- **Out of scope ({n_out} questions):** {o_idk} \"I don't know\", {o_wh} withheld, {o_ans} delivered.",
    n_in=n_in, ans_n=int(c_in["answered"]), ans=shares.loc["in", "answered"], wh_n=int(c_in["withheld"]),
    wh=shares.loc["in", "withheld"], idk_n=int(c_in["I don't know"]), idk=shares.loc["in", "I don't know"],
    n_echo=n_echo, n_own=len(own), kw_n=int(delivered["any keyword"].sum()), kw=delivered["any keyword"].mean(),
    kw_own=int(own["any keyword"].sum()), gold_n=int(delivered["cites gold"].sum()), n_reached=n_reached,
    fp=c_in["withheld"] / n_reached, wh_kw=int(withheld_in["any keyword"].sum()), n_out=n_out, o_idk=int(counts.loc["out", "I don't know"]),
    o_wh=int(counts.loc["out", "withheld"]), o_ans=int(counts.loc["out", "answered"]),
    reasons=", ".join(f"{reason} {n}" for reason, n in by_reason.items()), facts_missing=facts_missing or "none",
    n_false_echo=len(false_echo), false_echo=", ".join(false_echo.index),
    not_gold="" if not len(not_gold) else f" (the exception, {not_gold.index[0]}, echoes a passage of "
    f"{not_gold['sources'].iloc[0]}, not of its gold document)",
)

# %% [markdown]
# ## Answers that quote, in five languages
# The room no longer delivers these drafts: it quotes the handbook section a question asks about, found in the
# question's own language with the multilingual encoder (docs/ROOM.md, "Answers that quote the handbook"). The
# `answers` task asks both answer modes the 75 unseen questions of `data/rag/questions_unseen.jsonl` — 12 in
# scope in each of English, French, German, Spanish and Swahili, and 15 out of scope, written and committed
# before any score — the way the room does: the quote searches the question as written; the draft gets its English
# from the room's request translator (Gemma 3 270M) and SmolLM2 answers from the English index's passages. A reply
# counts when it holds the question's gold fact (an English string the gold section states); *invented* counts a
# number, date, time or name the handbook does not state.

# %%
answers_unseen = run("answers", questions="unseen", systems=["quote", "draft"], model=model)
in_scope = answers_unseen.select(scope="in-scope", metric=["fact", "idk", "invented"])
by_language = in_scope.pivot_table(index=["system", "metric"], columns="lang", values="score", sort=False)
display(by_language.round(3))
display(answers_unseen.select(scope="out-of-scope", metric=["idk", "invented"])
        .pivot_table(index=["system", "metric"], columns="lang", values="score", sort=False).round(3))
answers_unseen.paired.query("lang == 'all'")[["baseline", "system", "metric", "delta", "ci_low", "ci_high", "p_holm"]]

# %% [markdown]
# ### What quoting changed

# %%
def score(metric, system="quote", lang="all", scope="in-scope"):
    return answers_unseen.score(metric, system, lang=lang, scope=scope)


def ci(metric, system="quote", scope="in-scope"):
    row = answers_unseen.select(metric=metric, system=system, lang="all", scope=scope).iloc[0]
    return f"{row['score']:.1%} [{row['ci_low']:.1%}, {row['ci_high']:.1%}]"


langs = ["eng", "fra", "deu", "spa", "swh"]
per_lang = {lang: round(12 * score("fact", lang=lang)) for lang in langs}
fact_delta = answers_unseen.paired.query("lang == 'all' and metric == 'fact'").iloc[0]
assert score("fact") > score("fact", "draft") and fact_delta["delta"] < 0 and fact_delta["p_holm"] < 0.05
assert score("invented") == 0 and score("invented", scope="out-of-scope") == 0  # a quote states the handbook's facts
assert score("invented", "draft") > 0.2
assert per_lang["eng"] == 12 and min(per_lang.values()) < 9  # not 70% in every language
oos_idk = round(15 * score("idk", scope="out-of-scope"))
assert 12 <= oos_idk < 15
report(
    "- **Quoting beats SmolLM2's drafts on unseen questions in five languages** (tested pooled over the five; "
    "per language, on 12 questions each, not tested). The reply held the gold fact for "
    "{quote_fact} of the 60 in-scope questions (by language, of 12: {per_lang}); the drafts for {draft_fact} "
    "(quote minus draft: {delta:+.0%} [{d_low:+.0%}, {d_high:+.0%}], p = {p:.3f} Holm-corrected over the answers "
    "run's own tests; over the notebook's family, see its section below).\n"
    "- **A quote invents nothing**: no reply stated a fact the handbook does not; {draft_invented} of the drafts "
    "did. Out of scope, {oos_idk} of 15 quoting replies were \"I don't know\".\n"
    "- **Not yet 70% in every language**: the misses are mostly \"I don't know\" ({quote_idk} of in-scope "
    "questions): the best section did not stand out from the rest by the in-scope margin.",
    quote_fact=ci("fact"), draft_fact=ci("fact", "draft"), per_lang=", ".join(f"{k} {v}" for k, v in per_lang.items()),
    delta=-fact_delta["delta"], d_low=-fact_delta["ci_high"], d_high=-fact_delta["ci_low"], p=fact_delta["p_holm"],
    draft_invented=ci("invented", "draft"), oos_idk=oos_idk, quote_idk=ci("idk"),
)

# %% [markdown]
# ## A second unseen set
# 75 more questions (`data/rag/questions_unseen2.jsonl`: 12 in scope per language, 15 out of scope), written on
# 2026-12-05 by a writer who never read the other question sets, and committed before any score. Nothing in the
# quoting rule changed after the first unseen set was scored, so this replicates that measurement on new
# questions (quotes only: no model is called).

# %%
answers_unseen2 = run("answers", questions="unseen2", systems=["quote"])
second = answers_unseen2.select(metric=["fact", "idk", "invented"]).pivot_table(
    index=["scope", "metric"], columns="lang", values="score", sort=False)
second.round(3)

# %%
def score2(metric, lang="all", scope="in-scope"):
    return answers_unseen2.score(metric, "quote", lang=lang, scope=scope)


per_lang2 = {lang: round(12 * score2("fact", lang=lang)) for lang in langs}
both_sets = {lang: per_lang[lang] + per_lang2[lang] for lang in langs}
row2 = answers_unseen2.select(metric="fact", system="quote", lang="all", scope="in-scope").iloc[0]
oos_idk2 = round(15 * score2("idk", scope="out-of-scope"))
assert score2("invented") == 0 and score2("invented", scope="out-of-scope") == 0  # quotes invent nothing here too
assert min(per_lang2.values()) < 0.7 * 12  # the per-language target is not met on the second set either
report(
    "- **On the second unseen set** the reply held the gold fact for {fact2:.1%} [{lo2:.1%}, {hi2:.1%}] of the 60 "
    "in-scope questions (by language, of 12: {per_lang2}), invented no fact, and said \"I don't know\" to "
    "{oos2} of 15 out of scope. Over both sets, of 24 per language: {both}.",
    fact2=row2["score"], lo2=row2["ci_low"], hi2=row2["ci_high"],
    per_lang2=", ".join(f"{k} {v}" for k, v in per_lang2.items()), oos2=oos_idk2,
    both=", ".join(f"{k} {v}" for k, v in both_sets.items()),
)

# %% [markdown]
# ## A third unseen set, with more Swahili
# 90 questions (`data/rag/questions_unseen3.jsonl`, 2026-12-05): 12 in scope in each of English, French, German
# and Spanish, **24 in Swahili**, and 18 out of scope (6 of them in Swahili), by another writer who read only the
# handbook; committed before any score. The quoting rule is the one measured above, unchanged. The intervals
# resample questions within each language.

# %%
answers_unseen3 = run("answers", questions="unseen3", systems=["quote"])
third = answers_unseen3.select(metric=["fact", "idk", "invented"], lang=[*langs, "all"])
display(third.pivot_table(index=["scope", "metric"], columns="lang", values="score", sort=False).round(3))
third.query("scope == 'in-scope' and metric == 'fact'")[["lang", "score", "ci_low", "ci_high", "n"]].round(3)

# %%
def quote_row(answers, metric, lang="all", scope="in-scope"):
    """The quoting replies' score row for one metric, language and scope of an ``answers`` report."""
    return answers.select(metric=metric, system="quote", lang=lang, scope=scope).iloc[0]


def hits(answers, metric, lang="all", scope="in-scope"):
    """(questions that scored 1, questions) for one metric, language and scope."""
    r = quote_row(answers, metric, lang, scope)
    return round(r["score"] * r["n"]), int(r["n"])


def invents_nothing(answers):
    return all(quote_row(answers, "invented", scope=scope)["score"] == 0 for scope in ("in-scope", "out-of-scope"))


def row3(metric, lang="all", scope="in-scope"):
    return quote_row(answers_unseen3, metric, lang, scope)


per_lang3 = {lang: hits(answers_unseen3, "fact", lang) for lang in langs}
oos3 = row3("idk", scope="out-of-scope")
oos_idk3 = hits(answers_unseen3, "idk", scope="out-of-scope")[0]
swh3 = row3("fact", "swh")
assert invents_nothing(answers_unseen3)
assert min(a / n for a, n in per_lang3.values()) < 0.7 and swh3["score"] < 0.7  # the target is not met here either
assert row3("fact")["score"] < min(score("fact"), score2("fact"))  # below both earlier sets: said in the prose
all_three = [x for x in langs if min(per_lang[x] / 12, per_lang2[x] / 12, per_lang3[x][0] / per_lang3[x][1]) >= 0.7]
assert all_three == ["eng"]  # "no language but English reaches 70% on all three sets"
report(
    "- **On the third unseen set** the reply held the gold fact for {fact3:.1%} [{lo3:.1%}, {hi3:.1%}] of the "
    "72 in-scope questions (by language: {per_lang3}), invented no fact, and said \"I don't know\" to {oos3} of "
    "{n_oos3} out of scope. Swahili, on 24 questions: {swh:.1%} [{swh_lo:.1%}, {swh_hi:.1%}]. The in-scope rate "
    "is lower than on both earlier sets (the intervals overlap; the difference is not tested), and no language "
    "but English reaches 70% on all three sets.",
    fact3=row3("fact")["score"], lo3=row3("fact")["ci_low"], hi3=row3("fact")["ci_high"],
    per_lang3=", ".join(f"{k} {a} of {n}" for k, (a, n) in per_lang3.items()), oos3=oos_idk3, n_oos3=int(oos3["n"]),
    swh=swh3["score"], swh_lo=swh3["ci_low"], swh_hi=swh3["ci_high"],
)

# %% [markdown]
# ### Where the answers are lost
# The first three unseen sets and the dev questions (`questions_dev.jsonl`) are development data from here on:
# 208 questions in scope, 52 out of scope. Two steps can lose an answer: the index ranks the wrong section first
# (`ranked_first`), or it ranks the right one first but its score does not stand out from the other sections'
# by the in-scope margin, and the reply is "I don't know". The table counts both per language.

# %%
development = {"dev": run("answers", questions="dev", systems=["quote"]), "unseen": answers_unseen,
               "unseen2": answers_unseen2, "unseen3": answers_unseen3}  # fmt: skip
dev_items = pd.concat([r.items[r.items["system"] == "quote"].assign(set=k) for k, r in development.items()], ignore_index=True)
dev_in, dev_out = dev_items[dev_items["scope"] == "in-scope"], dev_items[dev_items["scope"] == "out-of-scope"]
lost = pd.DataFrame({
    "in scope": dev_in.groupby("lang").size(),
    "right section ranked first": dev_in.groupby("lang")["ranked_first"].sum().astype(int),
    "answered from it": dev_in.assign(a=(dev_in["ranked_first"] == 1) & (dev_in["idk"] == 0)).groupby("lang")["a"].sum(),
    "gold fact in the reply": dev_in.groupby("lang")["fact"].sum().astype(int),
    "out of scope": dev_out.groupby("lang").size(),
    "I don't know out of scope": dev_out.groupby("lang")["idk"].sum().astype(int),
}).reindex(langs)  # fmt: skip
print(f"development data: {len(dev_in)} questions in scope, {len(dev_out)} out of scope")
lost

# %% [markdown]
# Is the margin in the wrong place? Every threshold on it from 0.030 to 0.070, on the same questions: in scope,
# the share of questions whose right section is ranked first *and* stands out (an upper bound on the gold-fact
# rate: the quote can still miss the fact), in the worst language; out of scope, the share that would get
# "I don't know".

# %%
def at(threshold):
    answered = (dev_in["ranked_first"] == 1) & (dev_in["margin"] >= threshold)
    by_lang = answered.groupby(dev_in["lang"]).mean()
    return {"threshold": threshold, "worst language, in scope": by_lang.min(), "its language": by_lang.idxmin(),
            "Swahili, in scope": by_lang["swh"], "out of scope, I don't know": (dev_out["margin"] < threshold).mean()}


thresholds = pd.DataFrame([at(t) for t in np.round(np.arange(0.030, 0.0705, 0.001), 3)]).set_index("threshold")
scope = run("scope")  # the quote mode's margins, as measured into data/calibration/scope-margins.json
MIN_MARGIN = scope.meta["min_margin"]
room_rule = thresholds.loc[MIN_MARGIN]
# the table's rule is the room's: at its margin it answers exactly the questions the replies answered, but for
# English ones the English index found no passage for (the room then says "I don't know" too)
not_english = dev_items[dev_items["lang"] != "eng"]
assert ((not_english["margin"] >= MIN_MARGIN) == (not_english["idk"] == 0)).all()
assert ((dev_items["margin"] < MIN_MARGIN) <= (dev_items["idk"] == 1)).all()
both = thresholds[(thresholds["worst language, in scope"] >= 0.7) & (thresholds["out of scope, I don't know"] >= 0.9)]
assert both.empty  # no threshold reaches both targets on the development data
swh_lost = lost.loc["swh"]
assert swh_lost["right section ranked first"] >= 0.75 * swh_lost["in scope"] > swh_lost["answered from it"] + 10
missed = lost["in scope"] - lost["answered from it"]
assert all(missed[k] < missed["swh"] for k in ("fra", "deu", "spa"))  # "lose fewer"
assert all(lost.loc[k, "in scope"] > lost.loc[k, "right section ranked first"] > lost.loc[k, "answered from it"]
           for k in ("fra", "deu", "spa"))  # "at both steps"
report(
    "- **Most Swahili answers are lost at the scope rule, not at retrieval.** On the development questions the "
    "index ranks a right section first for {first} of {n} Swahili questions in scope, but only {answered} of them "
    "stand out by the margin and are answered ({fact} hold the gold fact). French, German and Spanish lose fewer, "
    "at both steps ({others}).\n"
    "- **No threshold on the margin fixes it.** From 0.030 to 0.070, none gives both 70% in scope in the worst "
    "language and 90% \"I don't know\" out of scope: where Swahili reaches {swh_at:.0%} in scope (threshold "
    "{t_swh:.3f}), out of scope falls to {oos_at:.0%}. On Swahili, multilingual-e5-small's margin barely separates "
    "the questions the handbook answers from those it does not; a stronger multilingual encoder or a reranker is "
    "what this points to. The rule stays as it was ({rule:.3f}, measured by `run(\"scope\")`).",
    first=int(swh_lost["right section ranked first"]), n=int(swh_lost["in scope"]),
    answered=int(swh_lost["answered from it"]), fact=int(swh_lost["gold fact in the reply"]),
    others="; ".join(f"{k}: {int(lost.loc[k, 'right section ranked first'])} ranked first, "
                     f"{int(lost.loc[k, 'answered from it'])} answered, of {int(lost.loc[k, 'in scope'])}"
                     for k in ("fra", "deu", "spa")),
    swh_at=thresholds[thresholds["Swahili, in scope"] >= 0.7].iloc[-1]["Swahili, in scope"],
    t_swh=thresholds[thresholds["Swahili, in scope"] >= 0.7].index[-1],
    oos_at=thresholds[thresholds["Swahili, in scope"] >= 0.7].iloc[-1]["out of scope, I don't know"], rule=MIN_MARGIN,
)  # fmt: skip

# %% [markdown]
# ## A fourth unseen set, the test set
# 100 questions (`data/rag/questions_unseen4.jsonl`, 2026-12-05): 16 in scope and 4 out of scope in each of
# English, French, German, Spanish and Swahili, by another writer who read only the handbook; committed before any
# score, after the sets above became development data. The quoting rule is unchanged, so this measures it a
# fourth time with more questions per language. The intervals resample questions within each language.

# %%
answers_unseen4 = run("answers", questions="unseen4", systems=["quote"])
fourth = answers_unseen4.select(metric=["fact", "ranked_first", "idk", "invented"], lang=[*langs, "all"])
display(fourth.pivot_table(index=["scope", "metric"], columns="lang", values="score", sort=False).round(3))
fourth.query("scope == 'in-scope' and metric == 'fact'")[["lang", "score", "ci_low", "ci_high", "n"]].round(3)

# %%
def row4(metric, lang="all", scope="in-scope"):
    return quote_row(answers_unseen4, metric, lang, scope)


per_lang4 = {lang: hits(answers_unseen4, "fact", lang) for lang in langs}
oos_idk4, n_oos4 = hits(answers_unseen4, "idk", scope="out-of-scope")
assert invents_nothing(answers_unseen4) and [n for _, n in per_lang4.values()] == [16] * 5 and n_oos4 == 20
reached = [k for k, (a, n) in per_lang4.items() if a / n >= 0.7]
first4 = {lang: round(16 * row4("ranked_first", lang)["score"]) for lang in langs}
idk4 = row4("idk")["score"]
assert first4["swh"] > per_lang4["swh"][0] + 4 and idk4 > 1 - row4("fact")["score"] - 0.05  # misses: mostly "I don't know"
report(
    "- **On the fourth unseen set (the test set)** the reply held the gold fact for {fact4:.1%} [{lo4:.1%}, "
    "{hi4:.1%}] of the 80 in-scope questions (by language, of 16: {per_lang4}; 70% or more: {reached}), invented "
    "no fact, and said \"I don't know\" to {oos4} of 20 out of scope ({oos_rate:.0%}). As on the development "
    "questions, most misses are at the scope rule: the right section was ranked first for {first_all:.0%} of the "
    "in-scope questions (by language, of 16: {first4}), and {idk4:.0%} of them got \"I don't know\".",
    fact4=row4("fact")["score"], lo4=row4("fact")["ci_low"], hi4=row4("fact")["ci_high"],
    per_lang4=", ".join(f"{k} {a}" for k, (a, n) in per_lang4.items()),
    reached=", ".join(reached) or "none", oos4=oos_idk4, oos_rate=oos_idk4 / 20,
    first_all=row4("ranked_first")["score"], first4=", ".join(f"{k} {v}" for k, v in first4.items()), idk4=idk4,
)  # fmt: skip

# %% [markdown]
# ## Reading the question through a glossary
# Most Swahili misses are at the scope rule: the right section ranks first, but not by the margin an English
# question gets. `answers="glossary"` searches a French, German, Spanish or Swahili question together with the
# English handbook terms its words name (`data/glossary/policy_terms.tsv`, a term list written from the handbook
# alone by a writer who saw no question), in scope at its own margin, measured on the development questions (the
# dev set and unseen sets 1–3) as the lowest that refuses as many of their out-of-scope questions as the written
# search does (`run("scope")`, printed below; it replaced a margin typed into code from an exploratory run that was
# not recorded); English questions are searched as written. It is measured on two sets its margin was not chosen on: the fourth
# (scored once before with the written search) and a fifth, written for it by another writer and committed before
# any score (`data/rag/questions_unseen5.jsonl`). Both modes answer the same questions, paired per question.

# %%
print(f"glossed margin: {scope.meta['glossed_margin']:.3f} (written: {MIN_MARGIN:.3f})")
glossed = {name: run("answers", questions=name, systems=["quote", "glossary"]) for name in ("unseen4", "unseen5")}
per_mode = pd.concat({
    name: r.items.query("scope == 'in-scope'").groupby(["system", "lang"])["fact"].sum().unstack()[langs]
    for name, r in glossed.items()
}, names=["set"]).astype(int)  # fmt: skip
per_mode["out of scope: I don't know"] = [
    int(r.items.query("scope == 'out-of-scope' and system == @system")["idk"].sum())
    for name, r in glossed.items() for system in per_mode.loc[name].index
]  # fmt: skip
display(per_mode)
glossary_gain = pd.concat({name: r.paired.query("lang == 'all' and metric in ['fact', 'idk', 'ranked_first']")
                           for name, r in glossed.items()}, names=["set"]).droplevel(1)  # fmt: skip
glossary_gain[["metric", "delta", "ci_low", "ci_high", "p"]].round(3)

# %%
g4, g5 = (glossed[name].paired.query("lang == 'all' and metric == 'fact'").iloc[0] for name in ("unseen4", "unseen5"))
swh_counts = {name: (per_mode.loc[(name, "quote"), "swh"], per_mode.loc[(name, "glossary"), "swh"]) for name in glossed}
fra5 = (per_mode.loc[("unseen5", "quote"), "fra"], per_mode.loc[("unseen5", "glossary"), "fra"])
oos5 = tuple(per_mode.loc[("unseen5", m), "out of scope: I don't know"] for m in ("quote", "glossary"))
worst5 = per_mode.loc[("unseen5", "glossary"), langs].idxmin()
assert all(g > q for q, g in swh_counts.values())  # Swahili gains on both sets
assert fra5[1] < fra5[0] and oos5[1] < oos5[0]  # French and out-of-scope lose on the fifth
assert per_mode.loc[("unseen5", "glossary"), langs].min() / 16 < 0.7  # the worst language stays under 70%
assert all(glossed[name].items.query("system == 'glossary'")["invented"].sum() == 0 for name in glossed)
report(
    "- **Reading the question through a glossary does not reach the targets either.** Over all in-scope "
    "questions the gold fact changed by {d4:+.1%} [{d4lo:+.1%}, {d4hi:+.1%}] on the fourth set and {d5:+.1%} "
    "[{d5lo:+.1%}, {d5hi:+.1%}] on the fifth (not significant over the notebook's family). Swahili gained on both "
    "(of 16: {s4q} → {s4g} on the fourth, {s5q} → {s5g} on the fifth), but on the fifth French fell from {f5q} to "
    "{f5g} and out of scope \"I don't know\" from {o5q} to {o5g} of 20; its worst language there is {worst5} "
    "({w5} of 16). No fact was invented. It stays an option (`answers=\"glossary\"`), not the room's default: a "
    "term list written from the handbook helps where the encoder is weakest and costs where it was already "
    "right, and two sets of 80 in-scope questions cannot tell the net effect from zero.",
    d4=g4["delta"], d4lo=g4["ci_low"], d4hi=g4["ci_high"], d5=g5["delta"], d5lo=g5["ci_low"], d5hi=g5["ci_high"],
    s4q=swh_counts["unseen4"][0], s4g=swh_counts["unseen4"][1], s5q=swh_counts["unseen5"][0], s5g=swh_counts["unseen5"][1],
    f5q=fra5[0], f5g=fra5[1], o5q=oos5[0], o5g=oos5[1], worst5=worst5, w5=per_mode.loc[("unseen5", "glossary"), worst5],
)  # fmt: skip

# %% [markdown]
# ## The scope read from labelled questions
# Most misses above are "I don't know" to questions whose right section ranks first: the margin that refuses
# out-of-scope questions refuses weak Swahili matches too. `answers="neighbours"` decides scope another way: a
# question is in scope when the five labelled questions most like it are all in scope (multilingual-e5-small
# query vectors; the pool is the development sets — the dev set and the first five unseen sets, 460 questions,
# each labelled in or out of scope by its writer — `aya_lab/rag/scope.py`); the quote is then taken as before.
# The rule was chosen on the development sets, each scored with itself left out of the pool (the task does this),
# so that no question is judged by its own label: of three to nine neighbours, all in scope, five is the most that
# reaches 70% in the worst language and 90% "I don't know" out of scope (the table below, computed here; this
# notebook said until 2026-12-07, from an exploratory run that was not recorded, that five was the only setting to
# reach both: three and four reach both too, with more answers and fewer refusals). It is measured
# once, on a sixth set written by another writer who read only the handbook and committed before the rule
# existed (`data/rag/questions_unseen6.jsonl`, 80 in scope, 16 per language, and 20 out of scope).

# %%
dev_names = ["dev", "unseen", "unseen2", "unseen3", "unseen4", "unseen5"]  # the pool when the rule was chosen
quoted = {**development, "unseen4": answers_unseen4, "unseen5": glossed["unseen5"]}  # their margin replies, above
left_out = pd.concat(
    [quoted[name].items.query("system == 'quote'").assign(set=name) for name in dev_names]
    + [run("answers", questions=name, systems=["neighbours"], pool=dev_names).items.assign(set=name) for name in dev_names],
    ignore_index=True,
)  # fmt: skip


def scope_table(items):
    """Per answer mode: the gold fact per language and over all in-scope questions, and "I don't know" out of scope."""
    inside, outside = items[items["scope"] == "in-scope"], items[items["scope"] == "out-of-scope"]
    table = inside.pivot_table(index="system", columns="lang", values="fact", aggfunc="mean")[langs]
    table["all in scope"] = inside.groupby("system")["fact"].mean()
    table["I don't know out of scope"] = outside.groupby("system")["idk"].mean()
    table["invented"] = items.groupby("system")["invented"].sum()
    return table.reindex(["quote", "neighbours"])


def neighbour_counts(counts=range(3, 10)):
    """For each count of neighbours that must all be in scope: the gold fact per language (worst language too) and
    "I don't know" out of scope, on the development sets, each left out of the pool while it is scored."""
    rows = {}
    for k in counts:
        items = pd.concat([run("answers", questions=name, systems=["neighbours"], pool=dev_names, neighbours=k,
                               n_bootstrap=0).items for name in dev_names], ignore_index=True)  # fmt: skip
        table = scope_table(items).loc["neighbours"]
        rows[k] = {**table[langs], "worst language": table[langs].min(), "I don't know out of scope": table["I don't know out of scope"]}
    return pd.DataFrame.from_dict(rows, orient="index").rename_axis("neighbours")


counts = neighbour_counts()
meeting = counts[(counts["worst language"] >= 0.7) & (counts["I don't know out of scope"] >= 0.9)].index.tolist()
print(f"reaching both targets on the development sets: {meeting}; the most neighbours among them: {max(meeting)} "
      f"(the room's: {NEIGHBOURS})")
assert max(meeting) == NEIGHBOURS and meeting == [3, 4, 5]
display(counts.round(3))
dev_scope = scope_table(left_out)
print(f"development sets (the pool), each left out of it while scored: {len(left_out) // 2} questions, "
      f"{int((left_out['scope'] == 'in-scope').sum() / 2)} in scope, {int((left_out['scope'] == 'out-of-scope').sum() / 2)} out")  # fmt: skip
dev_scope.round(3)

# %%
answers_unseen6 = run("answers", questions="unseen6", systems=["quote", "neighbours"], pool=dev_names)
test_scope = scope_table(answers_unseen6.items)
display(test_scope.round(3))
answers_unseen6.paired.query("metric in ['fact', 'idk']")[["lang", "metric", "delta", "ci_low", "ci_high", "p", "p_holm"]].round(3)

# %%
def count(items, system, lang, metric="fact", scope="in-scope"):
    part = items[(items["system"] == system) & (items["scope"] == scope) & ((items["lang"] == lang) | (lang == "all"))]
    return int(part[metric].sum()), len(part)


six = answers_unseen6.items
gain6 = answers_unseen6.paired.query("lang == 'all' and metric == 'fact'").iloc[0]
swh6 = answers_unseen6.paired.query("lang == 'swh' and metric == 'fact'").iloc[0]
worst_dev = dev_scope.loc["neighbours", langs]
worst6 = test_scope.loc["neighbours", langs]
assert worst_dev.min() >= 0.7 and dev_scope.loc["neighbours", "I don't know out of scope"] >= 0.9  # chosen so
assert dev_scope.loc["quote", langs].min() < 0.5  # the margin's worst language on the same sets
assert gain6["ci_low"] > 0 and gain6["p_holm"] < 0.05 and swh6["ci_low"] > 0  # the test set: a real gain
assert worst6.min() < 0.7 and test_scope.loc["neighbours", "I don't know out of scope"] < 0.9  # targets not met
assert (test_scope["invented"] == 0).all() and (dev_scope["invented"] == 0).all()
others = [k for k in langs if k != "eng"]
assert all((t.loc["neighbours", others] > t.loc["quote", others]).all() for t in (dev_scope, test_scope))
assert dev_scope.loc["neighbours", "eng"] == dev_scope.loc["quote", "eng"] > test_scope.loc["neighbours", "eng"]
report(
    "- **Reading scope from labelled questions answers more questions in French, German, Spanish and Swahili, on "
    "both the development sets and the test set, and as many or fewer in English.** On "
    "the development sets, each left out of the pool while it was scored, the gold fact was in {dev_n:.1%} of "
    "the in-scope replies against {dev_q:.1%} with the margin (worst language {dev_worst} {dev_worst_v:.1%}, "
    "against {dev_q_worst} {dev_q_worst_v:.1%}), and {dev_oos:.1%} of the out-of-scope questions got \"I don't "
    "know\" (margin: {dev_q_oos:.1%}).\n"
    "- **On the sixth set, the test set**, the gold fact rose from {q6} to {n6} of 80 ({d:+.1%} [{lo:+.1%}, "
    "{hi:+.1%}], Holm-adjusted p = {p:.3f}); Swahili from {sq} to {sn} of 16 ({sd:+.1%} [{slo:+.1%}, {shi:+.1%}]); "
    "by language with the new rule, of 16: {per_lang}. Out of scope, {oos_n} of 20 got \"I don't know\" "
    "({oos_q} with the margin), and no reply invented a fact. **Issue 40's targets are still not met on it**: "
    "70% in every language ({below} below) and 90% \"I don't know\" out of scope.",
    dev_n=dev_scope.loc["neighbours", "all in scope"], dev_q=dev_scope.loc["quote", "all in scope"],
    dev_worst=worst_dev.idxmin(), dev_worst_v=worst_dev.min(),
    dev_q_worst=dev_scope.loc["quote", langs].idxmin(), dev_q_worst_v=dev_scope.loc["quote", langs].min(),
    dev_oos=dev_scope.loc["neighbours", "I don't know out of scope"],
    dev_q_oos=dev_scope.loc["quote", "I don't know out of scope"],
    q6=count(six, "quote", "all")[0], n6=count(six, "neighbours", "all")[0], d=gain6["delta"], lo=gain6["ci_low"],
    hi=gain6["ci_high"], p=gain6["p_holm"], sq=count(six, "quote", "swh")[0], sn=count(six, "neighbours", "swh")[0],
    sd=swh6["delta"], slo=swh6["ci_low"], shi=swh6["ci_high"],
    per_lang=", ".join(f"{k} {count(six, 'neighbours', k)[0]}" for k in langs),
    oos_n=count(six, "neighbours", "all", "idk", "out-of-scope")[0], oos_q=count(six, "quote", "all", "idk", "out-of-scope")[0],
    below=", ".join(k for k in langs if worst6[k] < 0.7),
)  # fmt: skip

# %% [markdown]
# ## A seventh set: the rule again, with the sixth set in its pool
# Once measured, the sixth set became development data, and the room's pool holds it too (560 labelled
# questions). The rule is otherwise unchanged. A seventh set by another writer who read only the handbook,
# committed before any score (`data/rag/questions_unseen7.jsonl`, 80 in scope, 16 per language, and 20 out of
# scope), measures it a second time.

# %%
def measure(name, pool, which, sets):
    """Both scope rules on test set ``name`` with the room's pool when it was measured (``sets``: ``pool``
    questions, ``which`` sets): the per-language table and the paired tests, shown; the answers task's report."""
    result = run("answers", questions=name, systems=["quote", "neighbours"], pool=sets)
    print(f"the room's pool: {pool} labelled questions ({which})")
    display(scope_table(result.items).round(3))
    display(result.paired.query("metric in ['fact', 'idk']")[["lang", "metric", "delta", "ci_low", "ci_high", "p", "p_holm"]].round(3))
    return result


answers_unseen7 = measure("unseen7", len(left_out) // 2 + len(answers_unseen6.items) // 2,
                          "the six development sets and the sixth unseen set", [*dev_names, "unseen6"])  # fmt: skip

# %%
def test_set_report(ordinal, result):
    """The report line (Markdown) of a test set's run of both scope rules (``result``: the answers task's report)."""
    items, table = result.items, scope_table(result.items)
    gain, worst = result.paired.query("lang == 'all' and metric == 'fact'").iloc[0], table.loc["neighbours", langs]
    assert (table["invented"] == 0).all()
    return report(
        "- **On the {ordinal} set** the gold fact was in {n} of 80 in-scope replies with the labelled questions and "
        "{q} with the margin ({d:+.1%} [{lo:+.1%}, {hi:+.1%}], Holm-adjusted p = {p:.3f}); by language with the new "
        "rule, of 16: {per_lang} (margin: {per_lang_q}). Out of scope, {oos_n} of 20 got \"I don't know\" ({oos_q} "
        "with the margin), and no reply invented a fact. 70% or more in every language: {every}; 90% \"I don't "
        "know\" out of scope: {oos_ok}.",
        ordinal=ordinal, n=count(items, "neighbours", "all")[0], q=count(items, "quote", "all")[0], d=gain["delta"],
        lo=gain["ci_low"], hi=gain["ci_high"], p=gain["p_holm"],
        per_lang=", ".join(f"{k} {count(items, 'neighbours', k)[0]}" for k in langs),
        per_lang_q=", ".join(f"{k} {count(items, 'quote', k)[0]}" for k in langs),
        oos_n=count(items, "neighbours", "all", "idk", "out-of-scope")[0],
        oos_q=count(items, "quote", "all", "idk", "out-of-scope")[0],
        every="met" if worst.min() >= 0.7 else f"not met ({', '.join(k for k in langs if worst[k] < 0.7)} below)",
        oos_ok="met" if table.loc["neighbours", "I don't know out of scope"] >= 0.9 else "not met",
    )  # fmt: skip


test_set_report("seventh", answers_unseen7)

# %% [markdown]
# ## An eighth set: the room as shipped, with the seventh set in its pool
# The seventh set joined the pool in turn (660 labelled questions, the room's default since). Two other ways to
# rank the right section first in German and Swahili — the search reading the question's English too (the
# translator's), and the labelled neighbours' own gold sections voting for a section — ranked it first less
# often on the development sets in an exploratory run that was not recorded (the vote's grid is recorded below,
# *Labelled neighbours vote for the section*: small weights rank it first more often), so the rule was otherwise
# unchanged. An
# eighth set by another writer who read only the handbook, committed before any score
# (`data/rag/questions_unseen8.jsonl`, 80 in scope, 16 per language, and 20 out of scope), measures it a third
# time.

# %%
answers_unseen8 = measure("unseen8", len(left_out) // 2 + (len(answers_unseen6.items) + len(answers_unseen7.items)) // 2,
                          "the six development sets, the sixth and the seventh unseen sets", [*dev_names, "unseen6", "unseen7"])  # fmt: skip

# %%
def misses(items, system="neighbours"):
    """Per language: the in-scope questions whose reply lacks the gold fact, by cause, and the right section's rank."""
    inside = items[(items["system"] == system) & (items["scope"] == "in-scope")]
    missed = inside[inside["fact"] == 0]
    cause = np.where(missed["idk"] == 1, "I don't know",
                     np.where(missed["ranked_first"] == 1, "right section, fact not quoted", "wrong section first"))  # fmt: skip
    table = pd.crosstab(missed["lang"], cause).reindex(langs, fill_value=0).rename_axis(columns=None)
    table["right section first (of 16)"] = inside.groupby("lang")["ranked_first"].sum().reindex(langs).astype(int)
    return table


misses8 = misses(answers_unseen8.items)
misses8

# %%
display(test_set_report("eighth", answers_unseen8))
eight = answers_unseen8.items
wrong8 = misses8.loc[["deu", "swh"], "wrong section first"]
assert wrong8.sum() > misses8.loc[["deu", "swh"]].drop(columns="right section first (of 16)").sum().sum() / 2
report(
    "- **Most misses in German and Swahili are the wrong section ranked first** ({wd} of {md} and {ws} of {ms}); "
    "the encoder ranks the right section first for {rd} German and {rs} Swahili questions of 16.",
    wd=wrong8["deu"], ws=wrong8["swh"], md=16 - count(eight, "neighbours", "deu")[0],
    ms=16 - count(eight, "neighbours", "swh")[0],
    rd=misses8.loc["deu", "right section first (of 16)"], rs=misses8.loc["swh", "right section first (of 16)"],
)  # fmt: skip

# %% [markdown]
# ## Labelled neighbours vote for the section
# Every labelled question of the pool carries the sections its writer said answer it (`gold`). With
# `answers="voted"` the nearest in-scope ones vote for the section to quote: each section's score gains a weight
# times the summed cosine of the nearest in-scope labelled questions whose gold it is, over their number
# (`ScopePool.rerank`); scope is read as in `neighbours`. This notebook said until 2026-12-07, from an exploratory
# run that was not recorded, that such a vote ranked the right section first less often on the development sets;
# the grid below records such a run: every development set (the dev set and unseen sets 1–8) ranked with itself
# left out of the pool, for 3, 5, 10 and 20 voters, weights 0.02 to 0.2, and voters counted by their cosine or
# as one each. The rule: the highest share of in-scope questions with the right section first in the worst
# language, ties to the higher share over all languages. The grid was first computed in a probe on the same data,
# so the choice is in-sample; a ninth set, written for it, tests it once (below).

# %%
vote_sets = ["dev", "unseen", "unseen2", "unseen3", "unseen4", "unseen5", "unseen6", "unseen7", "unseen8"]
vote_paths = {name: project_root() / "data" / "rag" / f"questions_{name}.jsonl" for name in vote_sets}
section_index = SectionIndex.shared(kb.sections())


def ranked_first_grid(voters=(3, 5, 10, 20), weights=(0.0, 0.02, 0.05, 0.1, 0.2)):
    """Per setting (voters, weight, counted by cosine): the share of in-scope development questions whose right
    section ranks first after the vote, per language, each set left out of the pool while its questions rank."""
    rows = []
    for name in vote_sets:
        others = [vote_paths[n] for n in vote_sets if n != name]
        pool = ScopePool(read_labelled_questions(others), gold=read_gold_sections(others))
        for q in (q for q in load_policy_questions(name) if q.in_scope):
            matches = section_index.search([q.question], k=len(section_index.sections))
            gold = {(g.doc, g.section) for g in q.gold}
            for m, w, cosine in itertools.product(voters, weights, (True, False)):
                votes = pool.votes(q.question, m, cosine) if w else {}
                best = max(matches, key=lambda x: x.score + w * votes.get((x.section.source, x.section.heading), 0.0))
                rows.append({"voters": m, "weight": w, "cosine": cosine, "lang": q.lang,
                             "first": (best.section.source, best.section.heading) in gold})  # fmt: skip
    grid = pd.DataFrame(rows).pivot_table(index=["voters", "weight", "cosine"], columns="lang", values="first")[langs]
    grid["worst language"] = grid.min(axis=1)
    grid["all"] = pd.DataFrame(rows).groupby(["voters", "weight", "cosine"])["first"].mean()
    return grid.sort_values(["worst language", "all"], ascending=False)


grid = ranked_first_grid()
chosen = grid.index[0]
baseline = grid.xs(0.0, level="weight").iloc[0]  # no vote: the index alone (every voter count gives the same)
print(f"the rule's choice: {chosen[0]} voters, weight {chosen[1]}, counted by cosine: {chosen[2]} "
      f"(the room's constants: {VOTERS}, {VOTE_WEIGHT})")
assert chosen == (VOTERS, VOTE_WEIGHT, True)
grid.head(8).round(3)

# %%
assert grid.loc[chosen, ["deu", "swh"]].gt(baseline[["deu", "swh"]]).all()
assert grid.loc[(chosen[0], 0.2, True), "deu"] < baseline["deu"]  # "less often in German" at the largest weight
report(
    "- **On the development data the vote ranks the right section first more often where the index misses most**: "
    "with {m} voters, weight {w} and cosine-weighted votes, German {deu0:.1%} → {deu1:.1%}, Swahili {swh0:.1%} → "
    "{swh1:.1%}, over all languages {all0:.1%} → {all1:.1%} (in-sample: chosen on these questions). Large weights "
    "with few voters rank it first less often in German (weight 0.2, {m} voters: {w02:.1%}), which may be what the "
    "unrecorded run had seen.",
    m=chosen[0], w=chosen[1], deu0=baseline["deu"], deu1=grid.loc[chosen, "deu"], swh0=baseline["swh"],
    swh1=grid.loc[chosen, "swh"], all0=baseline["all"], all1=grid.loc[chosen, "all"],
    w02=grid.loc[(chosen[0], 0.2, True), "deu"],
)  # fmt: skip

# %% [markdown]
# ### The ninth set, the test set
# 100 questions by another writer who read only the handbook (`data/rag/questions_unseen9.jsonl`, 80 in scope, 16
# per language, and 20 out of scope), committed before any score and after the vote's rule and constants were
# committed; the room's pool (the dev set and unseen sets 1–7) decides scope for both modes, so only the section
# quoted can differ. `voted` against `neighbours`, paired per question; run once.

# %%
def per_mode(items, systems=("neighbours", "voted")):
    """Per answer mode: the gold fact per language and over all in-scope questions, the right section ranked
    first, "I don't know" out of scope and invented facts, as counts."""
    return pd.DataFrame({
        system: {**{k: count(items, system, k)[0] for k in langs}, "all in scope (of 80)": count(items, system, "all")[0],
                 "right section first (of 80)": count(items, system, "all", "ranked_first")[0],
                 "I don't know out of scope (of 20)": count(items, system, "all", "idk", "out-of-scope")[0],
                 "invented": int(items[items["system"] == system]["invented"].sum())}
        for system in systems
    }).T  # fmt: skip


ROOM_POOL_THEN = [*dev_names, "unseen6", "unseen7"]  # the room's pool when the ninth and tenth sets were measured
answers_unseen9 = run("answers", questions="unseen9", systems=["neighbours", "voted"], pool=ROOM_POOL_THEN)
nine = answers_unseen9.items
per_mode9 = per_mode(nine)
display(per_mode9)
answers_unseen9.paired.query("metric == 'fact'")[["lang", "delta", "ci_low", "ci_high", "p", "p_holm"]].round(3)

# %%
gain9 = answers_unseen9.paired.query("lang == 'all' and metric == 'fact'").iloc[0]
voted9 = per_mode9.loc["voted"]
assert (voted9[langs] >= 0.7 * 16).all() and voted9["I don't know out of scope (of 20)"] >= 18  # the targets, met
assert (per_mode9["invented"] == 0).all() and (per_mode9.loc["neighbours", langs] < 0.7 * 16).any()
assert gain9["ci_low"] > 0 and voted9["swh"] - per_mode9.loc["neighbours", "swh"] >= 5
report(
    "- **On the ninth set, the test set, the vote met issue 40's targets for Aya's answers**: the gold fact in "
    "{v} of 80 in-scope replies against {n} without it ({d:+.1%} [{lo:+.1%}, {hi:+.1%}] paired, p = {p:.3f}; "
    "Holm over the notebook's family below); by language, of 16: {per_lang} (without the vote: {per_lang_n}), so "
    "70% or more in every language; \"I don't know\" to {oos} of 20 out of scope; no invented fact. Most of the "
    "gain is Swahili's, where the right section was ranked first for {swh_first_v} questions against "
    "{swh_first_n}. One set of 100 questions: the intervals per language are wide, and the target is met on this "
    "set, not shown to hold in general.",
    v=int(voted9["all in scope (of 80)"]), n=int(per_mode9.loc["neighbours", "all in scope (of 80)"]),
    d=gain9["delta"], lo=gain9["ci_low"], hi=gain9["ci_high"], p=gain9["p"],
    per_lang=", ".join(f"{k} {int(voted9[k])}" for k in langs),
    per_lang_n=", ".join(f"{k} {int(per_mode9.loc['neighbours', k])}" for k in langs),
    oos=int(voted9["I don't know out of scope (of 20)"]),
    swh_first_v=count(nine, "voted", "swh", "ranked_first")[0], swh_first_n=count(nine, "neighbours", "swh", "ranked_first")[0],
)  # fmt: skip

# %% [markdown]
# ### A tenth set
# 100 more questions by another writer who read only the handbook (`data/rag/questions_unseen10.jsonl`, 80 in scope,
# 16 per language, and 20 out of scope), committed before any score, after the vote became the room's default:
# the shipped rule measured a second time, beside the scope rule alone, with the room's pool; run once.

# %%
answers_unseen10 = run("answers", questions="unseen10", systems=["neighbours", "voted"], pool=ROOM_POOL_THEN)
ten = answers_unseen10.items
per_mode10 = per_mode(ten)
display(per_mode10)
gain10 = answers_unseen10.paired.query("lang == 'all' and metric == 'fact'").iloc[0]
voted10 = per_mode10.loc["voted"]
assert (voted10[langs] >= 0.7 * 16).all() and voted10["I don't know out of scope (of 20)"] >= 18  # met again
assert (per_mode10["invented"] == 0).all() and (per_mode10.loc["voted", langs] >= per_mode10.loc["neighbours", langs]).all()
assert gain10["ci_low"] < 0 < gain10["delta"]  # a smaller gain, its interval includes 0
report(
    "- **On the tenth set, with the vote as the room's default, the targets held again**: the gold fact in {v} of "
    "80 in-scope replies (by language, of 16: {per_lang}; the lowest {low:.0%}), \"I don't know\" to {oos} of 20 "
    "out of scope, no invented fact. Without the vote: {n} of 80 ({per_lang_n}), which meets them too on this set; "
    "the vote's gain here is {d:+.1%} [{lo:+.1%}, {hi:+.1%}], not significant, and no language answered fewer.",
    v=int(voted10["all in scope (of 80)"]), per_lang=", ".join(f"{k} {int(voted10[k])}" for k in langs),
    low=voted10[langs].min() / 16, oos=int(voted10["I don't know out of scope (of 20)"]),
    n=int(per_mode10.loc["neighbours", "all in scope (of 80)"]),
    per_lang_n=", ".join(f"{k} {int(per_mode10.loc['neighbours', k])}" for k in langs),
    d=gain10["delta"], lo=gain10["ci_low"], hi=gain10["ci_high"],
)  # fmt: skip

# %% [markdown]
# ### An eleventh set
# The eighth, ninth and tenth sets then joined the room's pool (960 labelled questions, `aya_lab.rag.scope.POOL_FILES`),
# as each measured set had. An eleventh set by another writer who read only the handbook
# (`data/rag/questions_unseen11.jsonl`, 80 in scope, 16 per language, and 20 out of scope), committed before any
# score, tests the room as shipped: the vote with the new pool, beside the scope rule alone with the same pool and
# the vote with the pool it had before; run once. Twelve of its questions came out word for word as questions in the
# pool (short questions colleagues ask alike); the figures are also given without them.

# %%
answers_unseen11 = run("answers", questions="unseen11", systems=["neighbours", "voted"])
old_pool11 = run("answers", questions="unseen11", systems=["voted"], pool=ROOM_POOL_THEN)
eleven = pd.concat([answers_unseen11.items, old_pool11.items.assign(system="voted, earlier pool")], ignore_index=True)
per_mode11 = per_mode(eleven, ("neighbours", "voted, earlier pool", "voted"))
room_pool = read_labelled_questions(
    [project_root() / "data" / "rag" / f"questions_{n}.jsonl" for n in [*ROOM_POOL_THEN, "unseen8", "unseen9", "unseen10"]])  # fmt: skip
print(f"the room's pool: {len(room_pool)} labelled questions")
pool_texts = {q.casefold() for q, _ in room_pool}
in_pool = {q.id for q in load_policy_questions("unseen11") if q.question.casefold() in pool_texts}
fresh = eleven[~eleven["id"].isin(in_pool)]
without = per_mode(fresh, ("neighbours", "voted, earlier pool", "voted"))
print(f"questions word for word in the pool: {len(in_pool)} ({sorted(in_pool)})")
display(per_mode11)
display(without.rename(columns={"all in scope (of 80)": "all in scope", "I don't know out of scope (of 20)": "I don't know out of scope"}))
inside11 = eleven[eleven["scope"] == "in-scope"].pivot(index="id", columns="system", values="fact")
pool_gain = paired_accuracy(inside11["voted, earlier pool"], inside11["voted"], n_bootstrap=1000)
vote_gain = paired_accuracy(inside11["neighbours"], inside11["voted"], n_bootstrap=1000)
pd.DataFrame({"the pool's 300 more questions": pool_gain, "the vote": vote_gain}).T[["n", "mean_a", "mean_b", "diff", "ci_low", "ci_high", "p_bootstrap"]].round(3)

# %%
shipped11 = per_mode11.loc["voted"]
assert (shipped11[langs] >= 0.7 * 16).all() and shipped11["I don't know out of scope (of 20)"] >= 18  # a third time
assert (per_mode11["invented"] == 0).all() and len(in_pool) == 12
assert (without.loc["voted", langs] / (16 - pd.Series({k: sum(q.lang == k and q.in_scope and q.id in in_pool
        for q in load_policy_questions("unseen11")) for k in langs})) >= 0.7).all()  # fmt: skip
assert not pool_gain["significant"] and not vote_gain["significant"] and pool_gain["diff"] > 0 and vote_gain["diff"] > 0
assert per_mode11.loc["voted", "eng"] < per_mode11.loc["neighbours", "eng"]  # English lost one: said below
report(
    "- **On the eleventh set the room as shipped met the targets a third time**: the gold fact in {v} of 80 "
    "in-scope replies (by language, of 16: {per_lang}), \"I don't know\" to {oos} of 20 out of scope, no invented "
    "fact; without the {k} questions that are word for word in the pool, 70% or more in every language still. "
    "Beside it, the scope rule alone with the same pool: {n} of 80 (the vote {vg:+.1%} [{vlo:+.1%}, {vhi:+.1%}], "
    "not significant; English lost one answer to it, {en_n} → {en_v}); the vote with the pool it had before: {o} "
    "of 80 (the 300 added questions {pg:+.1%} [{plo:+.1%}, {phi:+.1%}], p = {pp:.2f}: {ob} answers gained, "
    "{oa} lost).",
    v=int(shipped11["all in scope (of 80)"]), per_lang=", ".join(f"{k} {int(shipped11[k])}" for k in langs),
    oos=int(shipped11["I don't know out of scope (of 20)"]), k=len(in_pool),
    n=int(per_mode11.loc["neighbours", "all in scope (of 80)"]), vg=vote_gain["diff"], vlo=vote_gain["ci_low"],
    vhi=vote_gain["ci_high"], en_n=int(per_mode11.loc["neighbours", "eng"]), en_v=int(shipped11["eng"]),
    o=int(per_mode11.loc["voted, earlier pool", "all in scope (of 80)"]), pg=pool_gain["diff"], plo=pool_gain["ci_low"],
    phi=pool_gain["ci_high"], pp=pool_gain["p_bootstrap"], ob=pool_gain["only_b"], oa=pool_gain["only_a"],
)  # fmt: skip

# %% [markdown]
# ## The notebook's family of tests
# Every paired test the conclusions above read — retrieval's two floors against the embedder (hit@1, over the
# in-scope questions), the quoting replies against the drafts (the gold fact, over the unseen questions) and the
# glossary against the written search (the gold fact, on the fourth and fifth sets), and the scope read from
# labelled questions against the margin (the gold fact, on the sixth, seventh and eighth sets), and the vote against
# the scope read from labelled questions alone (the gold fact, on the ninth, tenth and eleventh sets) — adjusted together: Holm over the
# family (`p_family`; `significant`: `p_family` < 0.05), the statistics
# policy of docs/EVALUATION.md.

# %%
from aya_lab.eval import family

tests = family({
    "retrieval floor − embedder": retrieval.paired.query("metric == 'hit@1'").drop(columns="significant"),
    "draft − quote": answers_unseen.paired.query("lang == 'all' and metric == 'fact'").drop(columns="significant"),
    **{f"glossary − quote ({name})": r.paired.query("lang == 'all' and metric == 'fact'").drop(columns="significant")
       for name, r in glossed.items()},
    "neighbours − quote (unseen6)": answers_unseen6.paired.query("lang == 'all' and metric == 'fact'").drop(columns="significant"),
    "neighbours − quote (unseen7)": answers_unseen7.paired.query("lang == 'all' and metric == 'fact'").drop(columns="significant"),
    "neighbours − quote (unseen8)": answers_unseen8.paired.query("lang == 'all' and metric == 'fact'").drop(columns="significant"),
    "voted − neighbours (unseen9)": answers_unseen9.paired.query("lang == 'all' and metric == 'fact'").drop(columns="significant"),
    "voted − neighbours (unseen10)": answers_unseen10.paired.query("lang == 'all' and metric == 'fact'").drop(columns="significant"),
    "voted − neighbours (unseen11)": answers_unseen11.paired.query("lang == 'all' and metric == 'fact'").drop(columns="significant"),
})  # fmt: skip
sig = tests.set_index(["test", "system"])["significant"]
assert sig.loc[("retrieval floor − embedder", "random")] and sig.loc[("draft − quote", "draft")]
assert not sig.loc[("glossary − quote (unseen4)", "glossary")] and not sig.loc[("glossary − quote (unseen5)", "glossary")]
assert not sig.loc[("retrieval floor − embedder", "bm25")]  # the embedder is not shown to beat BM25
assert sig.loc[("neighbours − quote (unseen6)", "neighbours")]  # the sixth set's gain holds over the family
assert sig.loc[("neighbours − quote (unseen7)", "neighbours")]  # and the seventh's
vote_family = tests.set_index(["test", "system"]).loc[("voted − neighbours (unseen9)", "voted")]
assert not vote_family["significant"] and vote_family["p_family"] < 0.1  # said below
assert (per_mode9.loc["voted", langs] >= per_mode9.loc["neighbours", langs]).all()  # no language answered fewer
assert (grid.loc[chosen, langs] >= baseline[langs]).all()  # nor ranked the right section first less often (dev)
tests[["test", "system", "metric", "delta", "ci_low", "ci_high", "p", "p_family", "significant"]].round(3)

# %%
report(
    "- **The vote's gain on the ninth set is not significant over this family** (p = {p:.3f} alone, {pf:.3f} "
    "Holm-adjusted over the {k} tests). It is the room's default since 2026-12-07 all the same: it changes only which "
    "section is quoted, never whether a question is answered (scope is read as before), it met the targets on "
    "the test set where the scope rule alone did not, no language answered fewer questions there, and none had "
    "its right section ranked first less often on the development sets.",
    p=vote_family["p"], pf=vote_family["p_family"], k=len(tests),
)  # fmt: skip
