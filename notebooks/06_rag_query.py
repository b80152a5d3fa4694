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
# `data/rag/questions.jsonl`: 58 labelled questions (48 in scope with their gold documents, 10 out of
# scope). Answers: the embedded SmolLM2-135M-Instruct, greedy, 64 new tokens, CPU; recorded 2026-11-30.

# %%
from aya_lab.notebook import runs_dir, setup_notebook

MODEL = setup_notebook()

import matplotlib.pyplot as plt
import pandas as pd

from aya_lab.agents import AyaQuery
from aya_lab.datasets.project import list_kb_documents, load_rag_questions
from aya_lab.eval.retrieval import evaluate_retrieval, retrieval_summary
from aya_lab.models import load_chat_model
from aya_lab.rag import KnowledgeBase

for p in runs_dir().glob("nb06_kb*"):
    p.unlink()
kb = KnowledgeBase.open(runs_dir() / "nb06_kb.sqlite")
questions = load_rag_questions()
print(f"{len(list_kb_documents())} documents, {len(kb)} chunks; {len(questions)} questions "
      f"({sum(q.in_scope for q in questions)} in scope); relevance threshold {kb.min_score}")

# %% [markdown]
# ## Retrieval quality
# Document-level recall@k (is a gold document among the top k distinct documents?), MRR, and for
# out-of-scope questions the share whose best score falls below the threshold ("I don't know"), each
# with a bootstrap 95% confidence interval over questions.

# %%
retrieval = evaluate_retrieval(kb, questions, ks=(1, 3, 5))
summary = retrieval_summary(retrieval)
summary.round(3)

# %% [markdown]
# The best retrieval score per question, in scope vs out of scope, against the threshold — the
# threshold trades answered in-scope questions for refused out-of-scope ones:

# %%
top = retrieval[(retrieval["level"] == "question") & (retrieval["metric"] == "top_score")]
fig, ax = plt.subplots(figsize=(6, 3))
for scope, group in top.groupby(top["in_scope"].astype(bool)):
    ax.hist(group["value"], bins=16, range=(0, 1), alpha=0.6, label="in scope" if scope else "out of scope")
ax.axvline(kb.min_score, color="k", linestyle="--", label=f"threshold {kb.min_score}")
ax.set_xlabel("best cosine score")
ax.set_ylabel("questions")
ax.legend()
plt.show()

# %% [markdown]
# Questions whose top document is wrong, or out-of-scope questions that slip above the threshold:

# %%
q = retrieval[retrieval["level"] == "question"]
misses = q[((q["metric"] == "recall@1") & (q["value"] < 1)) | ((q["metric"] == "idk") & (q["value"] < 1))]
with pd.option_context("display.max_colwidth", 80):
    display(misses[["id", "question", "metric", "retrieved"]])

# %% [markdown]
# ## Answers with sources
# The query agent keeps the chunks above the threshold, asks the model to answer from them, and
# appends the names of the documents it retrieved (the agent, not the model, writes the sources).

# %%
model = load_chat_model(MODEL, settings={"max_new_tokens": 64})
agent = AyaQuery(model, kb, k=3)
examples = [q for q in questions if q.in_scope][:4] + [q for q in questions if not q.in_scope][:2]
rows = []
for q in examples:
    a = agent.answer(q.question)
    rows.append({"question": q.question, "gold": ", ".join(q.gold_docs) or "(out of scope)",
                 "sources": ", ".join(a.sources) or "—", "answer": a.answer,
                 "keywords found": sum(k.lower() in a.answer.lower() for k in q.answer_keywords)
                 if q.answer_keywords else None})
with pd.option_context("display.max_colwidth", 110):
    display(pd.DataFrame(rows))

# %% [markdown]
# ## What this shows
# - Retrieval is strong on this small handbook: the gold document is first for 92% of the in-scope
#   questions and among the top three for 99%; the misses are near-misses between related policies
#   (IT vs security vs remote work).
# - The threshold refuses 8 of the 10 out-of-scope questions; a question naming the company itself
#   ("stock price of Kivu Logistics") scores high enough to slip through. The "I don't know" rate is
#   optimistic, because the threshold was chosen on these same questions.
# - With the right passages in its prompt (now between `<passages>` tags, the spotlighting of the
#   room's threat model), the 135M model does not answer: on all four in-scope questions it copies the
#   passages block back, tag included (recorded 2026-11-30, the table above). The copied passage holds
#   the right fact, so the keyword counts are not zero, but that is echo, not an answer. Both
#   out-of-scope questions got "I don't know" without a model call. The sources line is added by code
#   from the passages the answer shares words with; the answers are only as good as the model.
