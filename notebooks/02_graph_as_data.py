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
# # 02 · The room graph as data
#
# **Question.** Can a researcher change the Aya graph by editing a spec file instead of Python — and
# does the changed graph behave differently on the same conversation?
#
# The Aya room graph is `aya_lab/graphs/aya.yaml`. A variant is an *overlay*: a base spec plus a few
# changes. Here the variant swaps the two-call summarizer (call 1: how many messages; call 2: the
# summary) for a one-call summarizer. Model: the embedded SmolLM2-135M-Instruct on the CPU, greedy,
# 64 new tokens; outputs recorded 2026-11-30 and replayed from the generation cache under `make test`.

# %%
from aya_lab.notebook import notebook_models, runs_dir, setup_notebook

setup_notebook()

from pathlib import Path

import pandas as pd

from aya_lab.graph import SpecError, draw, load_spec, spec_hash
from aya_lab.models import load_chat_model
from aya_lab.paths import project_root
from aya_lab.room import ChatRoom, default_graph_path
from aya_lab.room.nodes import aya_registry

registry = aya_registry()
base_path, variant_path = default_graph_path("aya"), default_graph_path("aya_onecall")

# %% [markdown]
# ## The base spec
# State fields with their reducers, nodes built by registered (versioned) factories with parameters,
# plain edges and one conditional edge in the spec's expression language (nothing is `eval`ed).

# %%
print(base_path.read_text())

# %% [markdown]
# ## The overlay: one-call summarizer in four lines

# %%
print(variant_path.read_text())

# %%
base, variant = load_spec(base_path, registry=registry), load_spec(variant_path, registry=registry)
pd.DataFrame([
    {"spec": base_path.name, "graph": base.name, "hash": spec_hash(base),
     "supervisor parameters": base.node("supervisor").factory_parameter},
    {"spec": variant_path.name, "graph": variant.name, "hash": spec_hash(variant),
     "supervisor parameters": variant.node("supervisor").factory_parameter},
])

# %% [markdown]
# The diagrams (mermaid text, ready for any mermaid renderer) are the same shape — the change is inside
# the supervisor node's parameters, which the content hash captures:

# %%
left, right = draw(base, registry).splitlines(), draw(variant, registry).splitlines()
width = max(map(len, left)) + 4
print(f"{'aya.yaml':<{width}}aya_onecall.yaml")
for a, b in zip(left, right):
    print(f"{a:<{width}}{b}")

# %% [markdown]
# ## The same conversation through both graphs

# %%
models = {role: load_chat_model(spec, settings={"max_new_tokens": 64}) for role, spec in notebook_models().items()}
users = {"amara": "swh", "lena": "deu", "kofi": "eng"}
conversation = [
    ("kofi", "I will send the budget to finance on Monday."),
    ("lena", "Ich prüfe die Zahlen bis Mittwoch."),
    ("kofi", "Thanks. The client call moved to Thursday."),
    ("kofi", "@aya summarize the last 3 messages"),
]
results = {}
for spec_path in (base_path, variant_path):
    room_path = runs_dir() / f"nb02_{spec_path.stem}.sqlite"
    for p in runs_dir().glob(f"nb02_{spec_path.stem}*"):
        p.unlink()
    with ChatRoom.open(room_path, models=models, users=users, graph=spec_path) as room:
        reports = [room.send(u, t) for u, t in conversation]
        results[spec_path.stem] = reports[-1]

pd.DataFrame([{"graph": name, "aya tool": r.aya_tool, "model calls": r.model_calls,
               "prompt tokens": r.prompt_tokens, "generated tokens": r.completion_tokens,
               "nodes": " → ".join(r.nodes)} for name, r in results.items()])

# %%
import matplotlib.pyplot as plt

fig, axes = plt.subplots(1, 3, figsize=(9, 2.4))
for ax, (label, attr) in zip(axes, [("model calls", "model_calls"), ("prompt tokens", "prompt_tokens"),
                                    ("generated tokens", "completion_tokens")]):
    ax.bar(list(results), [getattr(r, attr) for r in results.values()], color=["#7a5cff", "#f0a030"])
    ax.set_title(label, fontsize="medium")
fig.suptitle("The @aya summary run, two-call vs one-call graph", fontsize="medium")
fig.tight_layout()
plt.show()

# %%
for name, r in results.items():
    print(f"== {name}: Aya's reply (English)\n{r.aya_reply['kofi']}\n")

# %% [markdown]
# ## A spec error, located
# Validation reports every problem at once with the path of the bad key and the closest registered
# name. Here an overlay misspells a node, and a copy of the base spec has an edge to a
# node that does not exist and an unknown reducer.

# %%
bad_overlay = runs_dir() / "nb02_bad_overlay.yaml"
bad_overlay.write_text(f"base: {base_path}\nchanges:\n  - update_node: supervisr\n"
                       "    factory_parameter: {summarizer: one_call}\n")
try:
    load_spec(bad_overlay, registry=registry)
except SpecError as err:
    print(str(err).replace(str(project_root()), "<repo>"))

# %%
import copy

data = copy.deepcopy(base.to_dict())
data["flows"][-1]["flow_parameter"]["end_key"] = "deliver_replies"
data["flow_parameter"]["state"][1]["reducer"] = "append_lsit.v1"
try:
    load_spec(data, registry=registry)
except SpecError as err:
    print(str(err).replace(str(project_root()), "<repo>"))

# %% [markdown]
# ## What this shows
# - A variant is a six-line file (one of them a comment); its content hash differs from the base, so every result can say
#   which graph produced it.
# - On this conversation the two-call summarizer makes one more model call than the one-call
#   variant (compare the table); both routes end with exactly one reply. Whether either *count* is
#   right, and how good the summaries are, is measured over 47 transcripts in notebook 05.
# - Bad specs fail before anything runs, with located, fix-naming messages.
