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
# # 01 · A multilingual chat room with Aya
#
# **Question.** Does the room do what it promises — every colleague reads every message in their own
# language, Aya answers exactly once when addressed, and the room survives a kernel restart — and what
# does the embedded default model make of the translations?
#
# **Set-up.** Four colleagues in four languages, one of them low-resource (Swahili). Models: each role's
# embedded default — the `translator` role (user agents, Aya's translator, reply delivery) on Gemma 3
# 270M base with few-shot completion prompts, the `aya` role (supervisor, knowledge-base answers,
# summarizer) on SmolLM2-135M-Instruct — greedy, at most 64 new tokens, on the device printed below. Outputs
# recorded on 2026-12-01 with llama.cpp running the shipped GGUF files (the engine is in each model's fingerprint below); under `make test` every generation is replayed from
# `notebooks/generations.sqlite`. Set `AYA_LAB_MODEL=hf:...` (or `AYA_LAB_MODEL_TRANSLATOR`,
# `AYA_LAB_MODEL_AYA`) to run the same notebook on other models.

# %%
from aya_lab.notebook import notebook_models, runs_dir, setup_notebook

setup_notebook()

import re

import pandas as pd

from aya_lab.agents import MARKER, ORIGINAL, SUMMARY_WITHHELD, UNVERIFIED, WITHHELD_ANSWER
from aya_lab.eval import draft_of_withheld
from aya_lab.models import load_chat_model
from aya_lab.notebook import ECHO_CHRF, load_pool, report
from aya_lab.room import ChatRoom

models = {role: load_chat_model(spec, settings={"max_new_tokens": 64}) for role, spec in notebook_models(directions=True).items()}
for role, m in models.items():
    print(f"{role}: {m.spec} ({m.fingerprint}) on {m.device}")

# %% [markdown]
# ## Open a room and add the colleagues
# The room lives in one SQLite file (LangGraph's SQLite checkpointer plus the room's tables); the
# knowledge base Aya answers from sits beside it. Languages may be given as codes or names.

# %%
path = runs_dir() / "nb01_room.sqlite"
for p in runs_dir().glob("nb01_room*"):
    p.unlink()
room = ChatRoom.open(path, models=models, users={"amara": "Swahili", "lena": "de", "kofi": "eng", "sophie": "French"})
room.users

# %% [markdown]
# ## Messages
# Each send is one run of the room graph. The report says who received what, which nodes ran, and how
# many model calls and tokens it took (one translation per language, sent as one batch). Every
# translation passes the translation guard before it reaches a feed; one that fails it (wrong language,
# an echo, a copied few-shot example, assistant-speak, a language the translator does not translate) is
# delivered as the original marked `[not translated]`; one the guard doubts (its similarity to the source
# under the translator's real-output floor) arrives marked `[unverified]` with the original after it. The
# run report's guard notes say why. Each message comes with its author's English gloss (data, for the
# reader; the room never sees it).

# %%
conversation = [
    ("amara", "Habari timu, mkutano wa bajeti umehamishwa hadi Ijumaa.", "Hi team, the budget meeting has been moved to Friday."),
    ("lena", "Danke, Amara. Ich schicke den überarbeiteten Bericht bis Donnerstag.", "Thanks, Amara. I'll send the revised report by Thursday."),
    ("kofi", "Great, I will book the meeting room and invite finance.", "Great, I will book the meeting room and invite finance."),
    ("sophie", "Parfait. Je prépare les chiffres du trimestre pour vendredi.", "Perfect. I'm preparing the quarter's figures for Friday."),
]
reports = [room.send(user, text) for user, text, _ in conversation]
pd.DataFrame([{"sender": r.sender, "gloss": gloss, "nodes": " → ".join(r.nodes), "model calls": r.model_calls,
               "prompt tokens": r.prompt_tokens, "generated tokens": r.completion_tokens,
               "withheld by the guard": sum(" withheld (" in n for n in r.guard_notes),
               "flagged": sum(" unverified (" in n for n in r.guard_notes)} for r, (_, _, gloss) in zip(reports, conversation)])

# %% [markdown]
# ## Every user's feed, side by side
# Rows are messages, columns are readers: each column is what that colleague actually reads.

# %%
def feeds_table(room):
    feeds = room.feeds()
    n = max(len(f) for f in feeds.values())
    rows = []
    for i in range(n):
        row = {"from": feeds["kofi"][i].sender}
        for user, feed in feeds.items():
            row[f"{user} ({room.users[user]})"] = feed[i].text
        rows.append(row)
    return pd.DataFrame(rows)


with pd.option_context("display.max_colwidth", 90):
    display(feeds_table(room))

# %% [markdown]
# The guard's reasons, per message and reader:

# %%
for r in reports:
    for note in r.guard_notes:
        print(f"{r.sender}: {note}")

# %% [markdown]
# ## Asking Aya
# `@aya` (any case, in any language) reaches Aya. Her request is brought into English (the room routes
# the original instead when that translation is not English), the supervisor routes it — to two tools
# when it asks for two — and her one reply is translated for everyone, with its sources line appended
# by code and delivered verbatim. Code also checks what she is about to say: prompt tags a draft echoes
# are stripped; a knowledge-base answer with a number, date, time or name that no retrieved passage
# states, or that shares no words with one, is withheld; a summary that copies the messages or the
# prompt's own instructions, or leaks a prompt tag, is withheld (fixed replies below; the model's draft
# goes to the run report's notes); a small-talk reply that introduces itself under another name is
# replaced by a fixed introduction. First a request that needs two tools (a summary, then a policy question), then
# two policy questions — one in German, one in English.

# %%
asks = [
    ("kofi", "@aya summarize the last 4 messages, then tell me what our travel policy says about flights"),
    ("lena", "@aya Wie lautet unsere Reiserichtlinie für Flüge?"),
    ("kofi", "@aya how many days do I have to submit expense receipts?"),
]
summary, policy, receipts = aya_runs = [room.send(user, text) for user, text in asks]
for (user, text), r in zip(asks, aya_runs):
    print(f"{user}: {text}\ntools: {' → '.join(r.aya_tools)} | router fallback: {r.aya_fallback}")
    for note in r.notes:
        print(f"note: {note}")
    print(f"Aya's reply (English):\n{r.aya_reply['kofi']}\n")

# %% [markdown]
# Aya's replies as every colleague reads them, in full:

# %%
for r in aya_runs:
    print(f"== reply to {r.sender}'s request")
    for user, text in r.aya_reply.items():
        print(f"  {user} ({room.users[user]}): {text}")
    print()

# %% [markdown]
# The fixed parts of each reply — the sources line and the withheld-answer sentence, both written by
# code — checked in every feed: `verbatim` means the feed holds the English text exactly, `[not
# translated]` that the guard withheld the whole translation (so the English original, fixed parts
# included, was delivered), `[unverified]` that the guard delivered the translation flagged, beside the
# original (the check looks at the translation, not at the original after it).

# %%
SOURCES = re.compile(r"\((?:sources: [^()\n]*|no source supports this answer)\)")


def draft_part(text):
    """A flagged delivery's translation, without the original the guard puts after it."""
    return text.split(f" {ORIGINAL} ", 1)[0] if text.startswith(UNVERIFIED) else text


def mark(text):
    return next((f" ({m})" for m in (MARKER, UNVERIFIED) if text.startswith(m)), "")


def fixed_parts(text):
    return SOURCES.findall(text) + ([WITHHELD_ANSWER] if WITHHELD_ANSWER in text else [])


fixed_rows = []
for r in aya_runs:
    english = r.aya_reply["kofi"]
    for part in fixed_parts(english):
        row = {"reply to": r.sender, "fixed part": part}
        for user, text in r.aya_reply.items():
            row[user] = ("verbatim" if part in draft_part(text) else "missing") + mark(text)
        fixed_rows.append(row)
fixed = pd.DataFrame(fixed_rows)
with pd.option_context("display.max_colwidth", 60):
    display(fixed)

# %% [markdown]
# The guard's example check compares each translation with every sentence of the few-shot pool
# (`data/fewshot/translations.yaml`) and withholds it at sentence chrF ≥ `ECHO_CHRF`. For every
# translation delivered so far to a non-English feed (sources line cut off, as the guard sees it), the
# closest pool sentence in the reader's language (the six closest shown):

# %%
from sacrebleu.metrics import CHRF

pool = load_pool("translations")


def closest_example(text, lang):
    scores = [(CHRF().sentence_score(text, [r[lang]]).score, r[lang]) for r in pool if r.get(lang)]
    return max(scores)


def example_table(room):
    rows = []
    for user, feed in room.feeds().items():
        lang = room.users[user]
        for d in feed:
            if d.translated and lang != "eng" and not d.text.startswith(MARKER):
                chrf, sentence = closest_example(SOURCES.sub("", draft_part(d.text)).strip(), lang)
                rows.append({"reader": user, "from": d.sender, "delivered": d.text[:70], "closest example": sentence,
                             "chrF": round(chrf, 1)})
    return pd.DataFrame(rows).sort_values("chrF", ascending=False)


print("ECHO_CHRF =", ECHO_CHRF)
with pd.option_context("display.max_colwidth", 70):
    examples = example_table(room)
    display(examples.head(6))

# %% [markdown]
# ## The graph
# The room graph is data (`aya_lab/graphs/aya.yaml`): `deliver` translates for every user; when Aya is
# addressed, `aya_translate` first brings the request into English (once: English readers get that
# English, and the supervisor routes it), then `deliver → supervisor → deliver_reply`.

# %%
print(room.draw("ascii"))

# %% [markdown]
# ## The trace of one run
# Every node visit of the summary run, with each model call's prompt size, output size and the model
# time recorded when the generation was made (a replay reads it back from the cache, so it is the
# recorded time, not the replay's).

# %%
trace = room.trace(summary.run_id)
pd.DataFrame([{"node": v.node, "model calls": len(v.generations),
               "prompt tokens": sum(g["prompt_tokens"] for g in v.generations),
               "generated tokens": sum(g["completion_tokens"] for g in v.generations),
               "recorded model seconds": round(sum(g["latency_s"] for g in v.generations), 2),
               "note": v.note[:80]}
              for v in trace])

# %% [markdown]
# Where the tokens go in that run — prompt vs generated tokens per node:

# %%
import matplotlib.pyplot as plt

nodes = [v.node for v in trace]
prompt_toks = [sum(g["prompt_tokens"] for g in v.generations) for v in trace]
gen_toks = [sum(g["completion_tokens"] for g in v.generations) for v in trace]
fig, ax = plt.subplots(figsize=(6, 2.6))
ax.barh(nodes, prompt_toks, label="prompt tokens")
ax.barh(nodes, gen_toks, left=prompt_toks, label="generated tokens")
ax.invert_yaxis()
ax.set_xlabel("tokens")
ax.legend(fontsize="small")
plt.show()

# %% [markdown]
# The supervisor's prompts (their last 220 characters) and outputs, exactly as the model saw and wrote
# them:

# %%
supervisor_calls = next(v for v in trace if v.node == "supervisor").generations
for g in supervisor_calls:
    print("PROMPT:", g["prompt"][-220:].replace("\n", " ⏎ "))
    print("OUTPUT:", g["output"][:200].replace("\n", " ⏎ "), "\n")

# %% [markdown]
# ## Close the kernel, reopen the file
# Reopening the SQLite file gives back the same users, history and feeds.

# %%
before = {u: [repr(d) for d in f] for u, f in room.feeds().items()}
room.close()
reopened = ChatRoom.open(path, models=models)
after = {u: [repr(d) for d in f] for u, f in reopened.feeds().items()}
print("users:", reopened.users)
print("messages:", len(reopened.history()), "| feeds identical after reopening:", before == after)

# %% [markdown]
# ## The interactive panel
# `room.panel()` shows every feed side by side with a speaker selector and an input box; sending runs
# the graph and refreshes all feeds (Aya's replies are marked). In JupyterLab it is live; here we drive
# its send handler once.

# %%
panel = reopened.panel()
panel.send("Asante! Tutaonana Ijumaa.", speaker="amara")
panel

# %% [markdown]
# ## What this shows

# %%
feeds = reopened.feeds()
n_messages = len(reopened.history())
assert all(len(f) == n_messages and len({d.message_id for d in f}) == n_messages for f in feeds.values())
assert all(sum(d.from_aya for d in f) == len(aya_runs) for f in feeds.values())
assert before == after
assert summary.aya_tools == ["summarize", "query"]
assert WITHHELD_ANSWER in summary.aya_reply["kofi"] and any("withheld" in n for n in summary.notes)
draft = next(g["output"] for g in supervisor_calls[::-1]).strip()
assert draft in " ".join(summary.notes)  # the withheld draft is the query call's output
summary_note = next(n for n in summary.notes if n.startswith("summary withheld"))
copied = re.search(r"copies the transcript \((\d+)% of its words", summary_note)
assert SUMMARY_WITHHELD in summary.aya_reply["kofi"] and copied is not None
assert int(copied.group(1)) >= 70  # the withheld "summary" copied the transcript instead of summarizing
flagged = {u: t for u, t in summary.aya_reply.items() if t.startswith(UNVERIFIED)}
assert sorted(flagged) == ["lena", "sophie"] and all(f" {ORIGINAL} {summary.aya_reply['kofi']}" in t for t in flagged.values())
flag_note = next(n for n in summary.guard_notes if "eng->deu unverified" in n)
flag_score = re.search(r"similarity to the source (0\.\d+) < the translator's floor (0\.\d+)", flag_note)
assert flag_score is not None and float(flag_score.group(1)) < float(flag_score.group(2))
assert not summary.aya_fallback and policy.aya_fallback and receipts.aya_fallback
assert policy.aya_tools == ["query"] and any("'richtlinie' in the original request -> query" in n for n in policy.notes)
assert "richtlinie" not in policy.aya_steps[0]["input"].lower()  # the English text the fallback could not use
assert any("keyword 'expense' -> query" in n for n in receipts.notes)
assert receipts.aya_tools == ["query"]
for r in (policy, receipts):  # both drafts began with the prompt's <passages> tag, stripped before delivery
    assert any(n.startswith("query: prompt tags stripped") and "<passages>" in n for n in r.notes)
    assert "<passages>" not in r.aya_reply["kofi"]
assert "(sources: expenses_policy.md)" in receipts.aya_reply["kofi"]
assert "(sources: travel_policy.md)" in policy.aya_reply["kofi"]
assert all(t.startswith(MARKER) for u, t in policy.aya_reply.items() if u != "kofi")
assert receipts.aya_reply["amara"].startswith(MARKER) and receipts.aya_reply["sophie"].startswith(MARKER)
assert receipts.aya_reply["lena"].startswith(MARKER)  # the invented German sentence is withheld now
lena_note = next(n for n in receipts.guard_notes if n.startswith("aya's message") and "eng->deu withheld" in n)
lena_draft = draft_of_withheld([lena_note], "eng", "deu")
lena_reason = re.search(r"withheld \((.*?)\); delivered the original", lena_note).group(1)
lena_chrf, lena_example = closest_example(SOURCES.sub("", lena_draft).strip(), "deu")
assert lena_chrf > 50  # the withheld draft is close to a few-shot example sentence, not a translation
assert lena_reason.startswith("faithful: ")  # ... caught by the faithfulness gate (the example check missed it)
assert summary.aya_reply["amara"].startswith(MARKER)
assert not any(summary.aya_reply[u].startswith(MARKER) for u in ("lena", "sophie"))
sources_rows = fixed[fixed["fixed part"].str.startswith("(sources")]
users_cols = [c for c in fixed.columns if c not in ("reply to", "fixed part")]
assert sources_rows[users_cols].map(lambda s: s.startswith("verbatim")).all().all()
withheld_row = fixed[fixed["fixed part"] == WITHHELD_ANSWER].iloc[0]
assert [u for u in users_cols if withheld_row[u].startswith("missing")] == ["lena", "sophie"]
assert all(feeds[u][0].text.startswith(MARKER) for u in ("kofi", "lena", "sophie"))  # Amara's message: no translation
swahili_from = [d.text for d in feeds["amara"] if d.sender != "amara"]
assert all(t.startswith(MARKER) for t in swahili_from)  # the default translator does not translate into Swahili
sw_notes = [n for r in [*reports, *aya_runs] for n in r.guard_notes if "->swh withheld (faithful: gemma3-270m produced no" in n]
report(
    "- **The room works as specified**: each of the {n_messages} messages reached all {n_users} colleagues "
    "exactly once (one feed entry per message), each of Aya's {n_aya} replies reached everyone once, and the "
    "feeds read back from the file were identical.\n"
    "- **One request, two tools, one reply.** Kofi's first request ran `{tools}`, and Aya's single reply holds "
    "both observations — and both were withheld. SmolLM2's \"summary\" copied the transcript ({copied}% of its "
    "words in 4-word runs of it), so the reply says \"{summary_withheld}\"; no retrieved "
    "passage supports the travel draft (\"{draft}\"), so it says \"{withheld}\". Both drafts are in the run "
    "report's notes. Lena and Sophie read that reply `{unverified}`: the translations scored under the "
    "translator's real-output floor ({flag_score} < {flag_floor} for German), so each comes with the English "
    "original after it rather than alone.\n"
    "- **The two policy questions were routed by the keyword fallback** (the router's answers were not a tool "
    "name; the notes above show them). The German one's English translation, \"{policy_en}\", lost the keyword; "
    "the fallback found `richtlinie` in Lena's original and sent it to `query`; the receipts question matched "
    "`expense` and went to `query`. Both times the model copied the retrieved passage back, beginning with "
    "the prompt's `<passages>` tag; the tag was stripped (a note in each run report), every fact of the copy "
    "is in the passage, so it is delivered with its sources line (`{receipts}…`). The checks keep "
    "unsupported facts out; they cannot tell a copied passage from an answer.\n"
    "- **What the other colleagues read.** The travel and receipts answers reached Amara, Lena and Sophie as "
    "`{marker}` and the English original: the guard withheld every translation of them. Lena's German draft "
    "of the receipts answer, \"{lena_draft}\", is a few-shot example sentence (chrF {lena_chrf:.1f} from the "
    "pool's \"{lena_example}\"), not a translation; without the faithfulness gate it was delivered unmarked (under the example "
    "check's threshold) and the faithfulness gate withholds it now (the run report's note: `{lena_reason}`). The two withheld-reply sentences reached Amara as `{marker}` and the English; Lena and Sophie "
    "read model translations of them (\"{sophie}\"), so the fixed sentence is `missing` in the table; the "
    "sources lines reached every feed verbatim.\n"
    "- **Swahili, in and out.** Amara's message (her gloss: \"{gloss}\") reached Kofi, Lena and Sophie as "
    "`{marker}` and her Swahili: the guard withheld every translation of it rather than deliver an invented "
    "one. Into Swahili the guard withheld all {sw_total} translations ({sw_unsupported} of them because the "
    "default translator produced no faithful Swahili in its labelled drafts; the rest failed an earlier check). "
    "On these models the room often has no translation to give, and says so; docs/SECURITY.md measures how "
    "often, and notebook 03 measures translation quality across eight languages.",
    n_messages=n_messages, n_users=len(feeds), n_aya=len(aya_runs), tools=" → ".join(summary.aya_tools),
    copied=copied.group(1), unverified=UNVERIFIED, flag_score=flag_score.group(1), flag_floor=flag_score.group(2),
    draft=draft, withheld=WITHHELD_ANSWER, summary_withheld=SUMMARY_WITHHELD,
    lena_draft=SOURCES.sub("", lena_draft).strip(), lena_chrf=lena_chrf, lena_example=lena_example,
    lena_reason=lena_reason[:160],
    policy_en=policy.aya_steps[0]["input"], receipts=receipts.aya_reply["kofi"][:90], marker=MARKER,
    sophie=summary.aya_reply["sophie"][:90], gloss=conversation[0][2],
    sw_total=len(swahili_from), sw_unsupported=len(sw_notes),
)
