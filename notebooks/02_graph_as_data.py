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
# summary) for a one-call summarizer. Models: each role's embedded default (printed with the run below;
# the supervisor runs on the `aya` role's model), greedy, at most 64 new tokens; outputs recorded 2026-12-01 on llama.cpp (the shipped GGUF files) and replayed from the generation cache under `make test`.

# %%
from aya_lab.notebook import notebook_models, runs_dir, setup_notebook

setup_notebook()

import pandas as pd

from aya_lab.graph import SpecError, draw, load_spec, spec_hash
from aya_lab.models import load_chat_model
from aya_lab.notebook import project_root, report
from aya_lab.room import ChatRoom, aya_registry, default_graph_path

registry = aya_registry()
base_path, variant_path = default_graph_path("aya"), default_graph_path("aya_onecall")

# %% [markdown]
# ## The base spec
# State fields with their reducers, nodes built by registered (versioned) factories with parameters,
# plain edges and one conditional edge in the spec's expression language (nothing is `eval`ed).

# %%
print(base_path.read_text())

# %% [markdown]
# ## The overlay

# %%
overlay_text = variant_path.read_text()
overlay_lines = overlay_text.splitlines()
overlay_comments = sum(line.lstrip().startswith("#") for line in overlay_lines)
print(overlay_text)
print(f"{variant_path.name}: {len(overlay_lines)} lines, {overlay_comments} of them comments")

# %% [markdown]
# Both specs load; their content hashes differ. The supervisor node's parameters side by side, every
# parameter in full, with the ones that differ marked:

# %%
base, variant = load_spec(base_path, registry=registry), load_spec(variant_path, registry=registry)
hashes = {"aya.yaml": spec_hash(base), "aya_onecall.yaml": spec_hash(variant)}
print(f"graph {base.name}: hash {hashes['aya.yaml']} | graph {variant.name}: hash {hashes['aya_onecall.yaml']}")
bp, vp = base.node("supervisor").factory_parameter, variant.node("supervisor").factory_parameter
params = pd.DataFrame({"aya.yaml": {k: bp.get(k, "—") for k in {**bp, **vp}},
                       "aya_onecall.yaml": {k: vp.get(k, "—") for k in {**bp, **vp}}})
params["differs"] = params["aya.yaml"] != params["aya_onecall.yaml"]
differing = list(params.index[params["differs"]])
params

# %% [markdown]
# The diagrams (mermaid text, ready for any mermaid renderer) are compared rather than printed twice:
# the change is inside the supervisor node's parameters, which the content hash captures.

# %%
same_diagram = draw(base, registry) == draw(variant, registry)
print("mermaid diagrams identical:", same_diagram)
print(draw(base, registry))

# %% [markdown]
# ## The same conversation through both graphs
# Each run's totals (every node: the deliveries, Aya's translation, the supervisor and the reply
# delivery):

# %%
models = {role: load_chat_model(spec, settings={"max_new_tokens": 64}) for role, spec in notebook_models(directions=True).items()}
users = {"amara": "swh", "lena": "deu", "kofi": "eng"}
conversation = [
    ("kofi", "I will send the budget to finance on Monday."),
    ("lena", "Ich prüfe die Zahlen bis Mittwoch."),
    ("kofi", "Thanks. The client call moved to Thursday."),
    ("kofi", "@aya summarize the last 3 messages"),
]
for role, m in models.items():
    print(f"{role}: {m.spec} ({m.fingerprint}) on {m.device}")
results, supervisor_calls = {}, {}
for spec_path in (base_path, variant_path):
    room_path = runs_dir() / f"nb02_{spec_path.stem}.sqlite"
    for p in runs_dir().glob(f"nb02_{spec_path.stem}*"):
        p.unlink()
    with ChatRoom.open(room_path, models=models, users=users, graph=spec_path) as room:
        reports = [room.send(u, t) for u, t in conversation]
        results[spec_path.stem] = reports[-1]
        supervisor_calls[spec_path.stem] = next(v for v in room.trace(reports[-1].run_id)
                                                if v.node == "supervisor").generations

pd.DataFrame([{"graph": name, "aya tool": r.aya_tool, "model calls": r.model_calls,
               "prompt tokens": r.prompt_tokens, "generated tokens": r.completion_tokens,
               "nodes": " → ".join(r.nodes)} for name, r in results.items()])

# %% [markdown]
# ## Cost of the comparison: the supervisor node
# The two graphs differ only in the supervisor's spec, but the supervisor's reply also changes what the room
# does after it (what it delivers, and so the calls that follow), so the whole runs above differ by other
# amounts than the supervisor's own calls below. Model seconds
# are the times recorded when each generation was made (a replay reads them back); a call whose output
# reached the 64-token limit was cut off there.

# %%
max_new = models["aya"].settings.max_new_tokens
cost = pd.DataFrame({name: {
    "calls": len(calls),
    "prompt tokens": sum(g["prompt_tokens"] for g in calls),
    "generated tokens": sum(g["completion_tokens"] for g in calls),
    "model seconds": round(sum(g["latency_s"] for g in calls), 2),
    "generated tokens/s": round(sum(g["completion_tokens"] for g in calls) / max(sum(g["latency_s"] for g in calls), 1e-9), 1),
    f"calls cut at {max_new} tokens": sum(g["completion_tokens"] >= max_new for g in calls),
    "device": str(models["aya"].device),
} for name, calls in supervisor_calls.items()}).T
cost

# %% [markdown]
# Each supervisor call's output, in full (the router's answer first, then the summarizer's calls):

# %%
for name, calls in supervisor_calls.items():
    print(f"== {name}")
    for g in calls:
        print(f"[{g['completion_tokens']} tokens] {g['output'].strip()}\n")

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

# %%
two, one = cost.loc["aya"], cost.loc["aya_onecall"]
assert hashes["aya.yaml"] != hashes["aya_onecall.yaml"] and same_diagram
assert differing == ["summarizer"]
assert results["aya"].aya_tool == results["aya_onecall"].aya_tool == "summarize"
assert all(len(r.aya_reply) == len(users) for r in results.values())
assert two["calls"] == one["calls"] + 1
count_tokens = supervisor_calls["aya"][1]["completion_tokens"]  # the two-call summarizer's count call
report(
    "- **A variant is a {n_lines}-line file** ({n_comments} of them a comment) that changes one parameter of "
    "one node (`{param}`: `{base_value}` → `{variant_value}`); its content hash differs from the base "
    "(`{h_base}` vs `{h_variant}`), so every result can say which graph produced it.\n"
    "- **On this conversation** the two-call supervisor made {two_calls} model calls and the one-call one "
    "{one_calls}; they generated {two_gen} and {one_gen} tokens in {two_sec:.1f} s and {one_sec:.1f} s of "
    "recorded model time. The two-call count call generated {count_tokens} tokens{count_cut}; the one-call summarizer's whole "
    "answer was \"{one_answer}\". Both routes ended with one reply reaching all {n_users} users.\n"
    "- **These are the figures of one request**, made with at most {max_new} new tokens per call; how many "
    "tokens a call generates depends on where its output stops (the outputs above; {two_cut} two-call and "
    "{one_cut} one-call calls were cut at the limit). Notebook 05 measures the two summarizers over all its "
    "transcripts with 128 new tokens per call — counts, summaries and cost — which is where to read the "
    "average difference, not here.\n"
    "- Bad specs fail before anything runs, with located, fix-naming messages (above).",
    count_tokens=count_tokens, count_cut=" (the limit)" if count_tokens >= max_new else "",
    n_lines=len(overlay_lines), n_comments=overlay_comments, param=differing[0],
    base_value=params.loc[differing[0], "aya.yaml"], variant_value=params.loc[differing[0], "aya_onecall.yaml"],
    h_base=hashes["aya.yaml"], h_variant=hashes["aya_onecall.yaml"],
    two_calls=two["calls"], one_calls=one["calls"], two_gen=two["generated tokens"], one_gen=one["generated tokens"],
    one_answer=supervisor_calls["aya_onecall"][-1]["output"].strip(), two_sec=two["model seconds"], one_sec=one["model seconds"], n_users=len(users), max_new=max_new,
    two_cut=two[f"calls cut at {max_new} tokens"], one_cut=one[f"calls cut at {max_new} tokens"],
)
