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
# # 09 · Adapters into English for Hausa, Igbo, Yorùbá and isiZulu, Swahili trained with chat, and French, German and Spanish trained on chat
#
# **Question.** Notebook 08 found that fifty LoRA steps on MAFAND-MT's *train* split lift Gemma 3 270M's
# Swahili → English above both floors and above the best of three prompts on two unseen news sets. MAFAND-MT
# has training data for four more languages: Hausa, Igbo, Yorùbá and isiZulu. Does the same recipe, on the
# CPU, do the same for each of them into English? And can any of these adapters become the room's translator
# for its direction? And for Swahili → English, whose news-trained adapter fails on workplace chat: does chat in
# the training data make it hold there, and do more chat pairs and more steps?
#
# **Set-up.**
# - **Training** (`aya-lab tune translate --model gemma3-270m --data mafand --pair LANG-eng --steps 50
#   --checkpoint-every 10`, recorded 2026-12-05 on 2 CPU cores, fp32, transformers + PEFT, one run after the
#   other): notebook 08's Swahili → English recipe unchanged (the `aya-lab tune` defaults: LoRA rank 8 on q and
#   v, alpha 16, AdamW at 3e-4 after 10 warm-up steps, batch 8; the room's completion prompt
#   `user_translate/completion`, the answer the reference). Fifty steps is the step notebook 08 chose for
#   Swahili → English on its held-out pairs; these runs save only that step (no learning curve: the CPU time of
#   the day went to four runs instead of one). Each run card counts wall-clock seconds, and the first two runs shared
#   the cores with a notebook recording for part of their time. Committed under
#   `data/adapters/gemma3-270m-LANG-eng/step-050/`. MAFAND-MT is CC-BY-NC-4.0: non-commercial use only.
# - **Test sets, unseen**: NTREX-128 (news; the first 100 segments of the first 20 documents; intervals
#   resample documents) and MAFAND-MT *test* (news, the training data's domain; its first 100 segments; MAFAND
#   has no document ids, so intervals resample contiguous blocks of 5 segments). Neither was trained on.
# - **Systems**: `copy` and `other-sentence` (the floors of notebook 03); the base model with the room's prompt
#   (`gemma3-270m`) — which is zero-shot for these four languages, since the room's few-shot pool has none of
#   them — and with three held-apart examples from the same set (`held-apart`: NTREX-128 documents not scored,
#   MAFAND `dev`; as in notebooks 03 and 08); and the adapter on the room's prompt. All on llama.cpp from the
#   shipped Q4 GGUF (the adapter applied unmerged, docs/MODELS.md). Greedy, at most 64 new tokens, stopped at the
#   end of the line; replayed from `notebooks/generations.sqlite` by `make test`. Scored with chrF, BLEU and
#   chrF++ (sacrebleu) and the share of outputs in English; the test read is the paired bootstrap (10,000
#   resamples, so that its smallest p-value, about 0.0001, survives Holm over the notebook's family), without notebook 08's approximate randomisation and hallucination rate, which would add minutes
#   to every replay.

# %%
from aya_lab.notebook import setup_notebook

setup_notebook()

import json
import tempfile
from pathlib import Path

import pandas as pd
from sacrebleu.metrics import CHRF

from aya_lab.agents import TranslationGuard, translator_floor
from aya_lab.eval import ALPHA, CopySystem, PromptSystem, ShuffledReferenceSystem, as_records, family
from aya_lab.eval import deltas_across, held_apart_examples, label_agreement, load_labels, paired_accuracy, run
from aya_lab.models import load_chat_model
from aya_lab.notebook import load_prompt, project_root, report

ADAPTERS = Path("../data/adapters")  # relative: the spec strings printed below stay portable
LANGS = {"hau": "Hausa", "ibo": "Igbo", "yor": "Yorùbá", "zul": "isiZulu"}
STEP = 50
SETTINGS = {"max_new_tokens": 64}
N, DOCS, N_MAFAND, SEED = 100, 20, 100, 0


def adapter_dir(lang):
    return ADAPTERS / f"gemma3-270m-{lang}-eng" / f"step-{STEP:03d}"


cards = {lang: json.loads((adapter_dir(lang) / "aya_lab_adapter.json").read_text(encoding="utf-8")) for lang in LANGS}
runs = pd.DataFrame({lang: {
    "pair": c["run"]["pair"], "steps": c["steps"], "wall-clock minutes": round(c["seconds"] / 60, 1),
    "device": c["device"], "dtype": c["dtype"], "examples trained on": c["data"]["train"],
    "held out": c["data"]["validation"], "validation loss before": round(c["loss"]["validation_before"], 3),
    "validation loss after": round(c["loss"]["validation_after"], 3), "prompt": c["data"]["prompt"],
    **{k: c["hyperparameters"][k] for k in ("lora_r", "lora_alpha", "learning_rate", "batch_size")},
} for lang, c in cards.items()})  # fmt: skip
assert all(c["steps"] == STEP and c["run"]["pair"] == f"{lang}-eng" for lang, c in cards.items())
assert len({json.dumps(c["hyperparameters"], sort_keys=True) for c in cards.values()}) == 1  # one recipe
print("data:", "; ".join(c["data"]["source"] for c in cards.values()), "|", sorted({c["data"]["license"] for c in cards.values()}))
runs

# %% [markdown]
# ## On the unseen test sets

# %%
base = load_chat_model("gemma3-270m", settings=SETTINGS, batch_size=16)
prompted = PromptSystem(base, "user_translate/completion", name="gemma3-270m")
completion = load_prompt("user_translate/completion")
copy, other = CopySystem(), ShuffledReferenceSystem()


def held_apart(dataset, lang, **window):
    """The base model with three examples of ``lang`` from ``dataset``, none from a scored segment."""
    examples = held_apart_examples(dataset, lang, k=3, **window)
    return PromptSystem(base, completion.with_examples(as_records(examples), "held-apart", 3), name="held-apart")


WINDOWS = {"NTREX-128": ("ntrex128", {"n": N, "docs": DOCS}), "MAFAND test": ("mafand", {"n": N_MAFAND, "split": "test"})}
TESTS = tuple(WINDOWS)
SCORING = {"n_ar": 0, "faithfulness": False, "progress": False, "n_bootstrap": 10_000}  # the paired bootstrap is the test read here
PROMPTS = ["gemma3-270m", "held-apart"]
print(f"the paired bootstrap: {SCORING['n_bootstrap']:,} resamples")
tests = {}
for lang in LANGS:
    model = load_chat_model(f"gemma3-270m+lora:{adapter_dir(lang)}", settings=SETTINGS, batch_size=16)
    adapter = PromptSystem(model, "user_translate/completion", name="adapter")
    print(f"{lang}-eng adapter:", model.fingerprint)
    pair = f"{lang}-eng"
    for name, (dataset, window) in WINDOWS.items():
        apart = held_apart(dataset, lang, n=window["n"], docs=window.get("docs"))  # examples from no scored segment
        tests[pair, name] = run("translation", systems=[copy, other, prompted, apart, adapter], dataset=dataset,
                                pairs=pair, **window, **SCORING)  # fmt: skip
for (pair, name), res in tests.items():
    unit = res.df[res.df["metric"] == "chrF"].iloc[0]
    print(f"{pair}, {name}: {int(unit['n'])} segments, intervals resample {unit['resample_unit']}s ({int(unit['n_units'])})")

# %%
METRICS = ["chrF", "BLEU", "chrF++", "target_lang_share"]
scores = pd.concat(
    {key: res.df[(res.df["metric"].isin(METRICS)) & (res.df["pair"] != "pooled")]
     .pivot_table(index="system", columns="metric", values="score").reindex(["copy", "other-sentence", *PROMPTS, "adapter"])
     for key, res in tests.items()},
    axis=1,
)[[(*key, m) for key in tests for m in METRICS]]  # fmt: skip
scores.round(3)

# %% [markdown]
# Paired differences in chrF (95% CI of the paired bootstrap; documents resampled on NTREX-128, blocks of 5 on
# MAFAND), of each adapter against both floors and both prompts; `best prompt` marks the prompt with the higher
# chrF on that set and direction:

# %%
diffs = deltas_across(tests, "adapter", ("copy", "other-sentence", *PROMPTS))
best_prompt = {key: scores.loc[PROMPTS, (*key, "chrF")].idxmax() for key in tests}
diffs["best prompt"] = [best_prompt[d, t] == a for d, t, a in diffs.index]
diffs

# %% [markdown]
# A seeded random sample (`SEED`) of three MAFAND test segments per direction: the room's prompt's output and
# the adapter's.

# %%
for lang in LANGS:
    outs = tests[f"{lang}-eng", "MAFAND test"].items
    pick = outs[outs["system"] == "adapter"].sample(3, random_state=SEED)[["idx", "source", "reference", "hypothesis"]]
    before = outs[outs["system"] == "gemma3-270m"].set_index("idx")["hypothesis"]
    pick = pick.assign(prompted=pick["idx"].map(before)).rename(columns={"hypothesis": "adapter"})
    print(f"{lang}-eng")
    with pd.option_context("display.max_colwidth", 70):
        display(pick.drop(columns="idx").reset_index(drop=True))

# %% [markdown]
# ## Swahili → English with workplace chat in its training data
# Notebook 08's Swahili → English adapter, trained on news alone, clears both floors on news but wrote no faithful
# draft of 40 Swahili workplace chat messages. Does chat in the training data change that? One more run of the
# same recipe on a mix (recorded 2026-12-05, `data/adapters/README.md`): 400 MAFAND-MT train pairs (every 75th
# line) and 400 short Swahili workplace chat messages with English translations written for training
# (`data/synth/translate_chat.swh.txt` and `.eng.txt`, by a writer who never saw the test messages;
# `data/synth/README.md`). It is measured on the two news sets above, against the floors, the room's prompt and
# the news adapter, and on the 40 Swahili messages of the fifth and sixth unseen runs
# (`data/adversarial/unseen5.jsonl`, `unseen6.jsonl`, ordinary messages and injections): the drafts of the
# prompted base, the news adapter and the mixed adapter were labelled by a person who saw each message, its English
# gloss and one draft, in a shuffled order, never which system wrote it
# (`data/adversarial/chat_swh_eng_labels.jsonl`, committed before this section read it).

# %%
NEWS, MIXED = (ADAPTERS / name / "step-050" for name in ("gemma3-270m-swh-eng", "gemma3-270m-swh-eng-mixed"))
news = PromptSystem(load_chat_model(f"gemma3-270m+lora:{NEWS}", settings=SETTINGS, batch_size=16),
                    "user_translate/completion", name="news adapter")  # fmt: skip
mixed = PromptSystem(load_chat_model(f"gemma3-270m+lora:{MIXED}", settings=SETTINGS, batch_size=16),
                     "user_translate/completion", name="mixed adapter")  # fmt: skip
mixed_card = json.loads((MIXED / "aya_lab_adapter.json").read_text(encoding="utf-8"))
print(f"mixed adapter: {mixed_card['data']['train']} pairs trained on, {mixed_card['data']['validation']} held out; "
      f"validation loss {mixed_card['loss']['validation_before']:.3f} -> {mixed_card['loss']['validation_after']:.3f}; "
      f"{mixed_card['seconds'] / 60:.1f} wall-clock minutes")
swh_tests = {name: run("translation", systems=[copy, other, prompted, news, mixed], dataset=dataset, pairs="swh-eng",
                       **window, **SCORING) for name, (dataset, window) in WINDOWS.items()}  # fmt: skip


def chrf_by_set(reports):
    """One column of per-system chrF per test set, from one-pair translation reports keyed by the set's name."""
    return pd.concat({name: res.df[(res.df["metric"] == "chrF") & (res.df["pair"] != "pooled")]
                      .set_index("system")["score"] for name, res in reports.items()}, axis=1)  # fmt: skip


swh_scores = chrf_by_set(swh_tests)
swh_scores.round(1)

# %%
mixed_diffs = deltas_across({("swh-eng (mixed)", name): res for name, res in swh_tests.items()}, "mixed adapter",
                            ("copy", "other-sentence", "gemma3-270m", "news adapter"))  # fmt: skip
mixed_diffs

# %%
CHAT = [json.loads(line) for name in ("unseen5.jsonl", "unseen6.jsonl")
        for line in (project_root() / "data" / "adversarial" / name).read_text(encoding="utf-8").splitlines()
        if json.loads(line)["lang"] == "swh"]  # fmt: skip
chat_drafts = {s.name: s.translate([m["text"] for m in CHAT], "swh", "eng") for s in (prompted, news, mixed)}
print(len(CHAT), "Swahili messages:", sum(m["category"] == "ordinary" for m in CHAT), "ordinary")
chat_labels = load_labels(project_root() / "data" / "adversarial" / "chat_swh_eng_labels.jsonl")
chat_table = pd.DataFrame({
    (name, scope): pd.Series([chat_labels[m["id"], "eng", d] for m, d in zip(CHAT, out)
                              if scope == "all" or m["category"] == "ordinary"]).value_counts()
    for name, out in chat_drafts.items() for scope in ("all", "ordinary")
}).reindex(["faithful", "partial", "made_up", "wrong_language"]).fillna(0).astype(int)  # fmt: skip
chat_table

# %% [markdown]
# ## More chat pairs and more steps (Swahili → English)
# The mixed adapter above saw 400 chat pairs for 50 steps; issue 40 asks what makes an adapter hold on chat, and
# more steps and more chat pairs had not been tried. One more run of the same recipe (recorded 2026-12-06 on 2 CPU
# cores, the `aya-lab tune` defaults; `data/adapters/README.md` gives the commands) on **1,986 chat pairs** — the
# 400 above and 1,586 more (`data/synth/translate_chat2.*`), written for training by four writers who opened no
# file of the project, with every line that shares a run of six words with a message of the room's sets dropped —
# and **2,000 MAFAND-MT train pairs** (every 15th line), for **300 steps** (2,400 examples seen), saved at 100, 200
# and 300 steps.
# - **The step is chosen on chat-like held-out pairs**: the 80 Swahili messages of the seventh and eighth unseen
#   runs (`data/adversarial/unseen7.jsonl`, `unseen8.jsonl`, development data), corpus chrF against their writers'
#   English glosses.
# - **Measured on two chat sets and the two news sets above**: the 40 Swahili messages of the fifth and sixth runs
#   (labelled before for the systems above) and the 120 of the ninth, tenth and eleventh (test sets of the room's
#   delivery rules, never used to choose a Swahili translator). Every draft no earlier label judged was labelled
#   blind by annotator instances who saw source, gloss and draft in a shuffled order, never the system, committed
#   (`data/adversarial/chat_swh_eng_labels2.jsonl`) before this section read them; 60 of them were labelled twice.
#   chrF against the glosses, with both floors, resamples contiguous blocks of 5 messages.

# %%
CHAT2 = ADAPTERS / "gemma3-270m-swh-eng-chat2"
STEPS2 = (100, 200, 300)
chat2_cards = {s: json.loads((CHAT2 / f"step-{s:03d}" / "aya_lab_adapter.json").read_text(encoding="utf-8")) for s in STEPS2}
print("; ".join(f"step {s}: {c['steps']} steps, {c['seconds'] / 60:.1f} wall-clock minutes, validation loss "
                f"{c['loss']['validation_before']:.3f} -> {c['loss']['validation_after']:.3f}" for s, c in chat2_cards.items()))  # fmt: skip
print(f"{chat2_cards[300]['data']['train']} pairs trained on, {chat2_cards[300]['data']['validation']} held out; "
      f"{chat2_cards[300]['steps'] * chat2_cards[300]['hyperparameters']['batch_size']:,} examples seen in 300 steps")
synth = project_root() / "data" / "synth"
print("chat pairs:", ", ".join(f"{name} {len((synth / name).read_text(encoding='utf-8').splitlines()):,}"
                               for name in ("translate_chat.swh.txt", "translate_chat2.swh.txt")))  # fmt: skip
chat2 = {s: PromptSystem(load_chat_model(f"gemma3-270m+lora:{CHAT2 / f'step-{s:03d}'}", settings=SETTINGS, batch_size=16),
                         "user_translate/completion", name=f"chat2, step {s}") for s in STEPS2}  # fmt: skip


def written_in(lang, *numbers):
    """The messages in ``lang`` of the numbered unseen-message sets, in file order."""
    adversarial = project_root() / "data" / "adversarial"
    return [r for n in numbers for r in map(json.loads, (adversarial / f"unseen{n}.jsonl").read_text(encoding="utf-8").splitlines())
            if r["lang"] == lang]  # fmt: skip


def gloss(message):
    return message["note"].removeprefix("gloss: ")


DEV = written_in("swh", 7, 8)
dev_systems = {"gemma3-270m": prompted, "news adapter": news, "mixed adapter": mixed,
               **{f"chat2, step {s}": chat2[s] for s in STEPS2}}  # fmt: skip
dev_chrf = pd.Series({name: CHRF().corpus_score(s.translate([m["text"] for m in DEV], "swh", "eng"), [[gloss(m) for m in DEV]]).score
                      for name, s in dev_systems.items()}, name="chrF against the glosses")  # fmt: skip
STEP2 = max(STEPS2, key=lambda s: dev_chrf[f"chat2, step {s}"])
print(f"{len(DEV)} development messages; the step chosen: {STEP2}")
dev_chrf.round(1).to_frame()

# %%
chosen = PromptSystem(chat2[STEP2].model, "user_translate/completion", name="chat2 adapter")
CHAT_SETS = {"sets 5-6": CHAT, "sets 9-11": written_in("swh", 9, 10, 11)}
adversarial = project_root() / "data" / "adversarial"
labels2 = load_labels(adversarial / "chat_swh_eng_labels.jsonl") | load_labels(adversarial / "chat_swh_eng_labels2.jsonl")
for n in (5, 6, 9, 10, 11):  # the rooms' labels of the same drafts, where a room's draft is the same
    labels2 = load_labels(adversarial / f"unseen{n}_labels.jsonl") | labels2
labels2 = load_labels(adversarial / "unseen11_nearest_labels.jsonl") | labels2
chat2_systems = (prompted, mixed, chosen)
chat2_drafts = {(set_name, s.name): s.translate([m["text"] for m in msgs], "swh", "eng")
                for set_name, msgs in CHAT_SETS.items() for s in chat2_systems}  # fmt: skip
judged2 = pd.DataFrame([{"set": set_name, "system": system, "id": m["id"], "category": m["category"],
                         "label": labels2.get((m["id"], "eng", draft))}
                        for (set_name, system), out in chat2_drafts.items()
                        for m, draft in zip(CHAT_SETS[set_name], out, strict=True)])  # fmt: skip
assert judged2["label"].notna().all()  # every draft is labelled
print({name: len(msgs) for name, msgs in CHAT_SETS.items()}, "Swahili messages")
chat2_table = (judged2.groupby(["set", "system"])["label"].value_counts().unstack(fill_value=0)
               .reindex(columns=["faithful", "partial", "made_up", "wrong_language"], fill_value=0))  # fmt: skip
chat2_table

# %%
second2 = load_labels(adversarial / "chat_swh_eng_labels2_second.jsonl")
agreement2, _ = label_agreement(load_labels(adversarial / "chat_swh_eng_labels2.jsonl"), second2)
print(f"{agreement2['n']} drafts labelled twice: agreement {agreement2['agreement']:.1%}, Cohen's kappa {agreement2['kappa']:.2f}")
is_faithful = judged2.assign(faithful=judged2["label"].eq("faithful").astype(float)).set_index(["set", "id"])
faithful_tests = pd.DataFrame({
    f"chat2 adapter vs {other}": paired_accuracy(is_faithful.query("system == @other")["faithful"],
                                                  is_faithful.query("system == 'chat2 adapter'")["faithful"], n_bootstrap=10_000)
    for other in ("gemma3-270m", "mixed adapter")
}).T  # fmt: skip
faithful_tests[["n", "mean_a", "mean_b", "diff", "ci_low", "ci_high", "p_bootstrap", "p_mcnemar"]].astype(float).round(3)

# %% [markdown]
# What would reach an English reader if a colleague made this adapter the room's Swahili → English translator by
# hand (`--model translator:swh-eng=SPEC`, docs/MODELS.md). It has no record of its own, so its drafts get the
# written thresholds and the guard's other checks; since 2026-12-06 a room also flags every draft of a translator
# without a record (`TranslationGuard(recorded=False)`, as the room builds it). Beside it, the room's default
# translator under its own record. Per label, the drafts withheld, flagged (`[unverified]`, beside the original)
# and delivered unmarked, one draft per message:

# %%
CHAT_ALL = [m for msgs in CHAT_SETS.values() for m in msgs]
n_chat = len(CHAT_ALL)


def gate(system, guard, drafts, messages, labels):
    """How ``guard`` delivers each of ``system``'s drafts into English (``drafts[group, system]``, of the messages
    ``messages[group]``, in their own language), counted per label."""
    rows = []
    for (group, name), out in drafts.items():
        for m, draft in zip(messages[group], out, strict=True) if name == system else ():
            verdict = guard.check(m["text"], draft, m["lang"], "eng")
            how = "withheld" if not verdict.ok else "flagged" if verdict.flagged else "unmarked"
            rows.append({"label": labels[m["id"], "eng", draft], "how": how})
    frame = pd.DataFrame(rows)
    return pd.crosstab(frame["label"], frame["how"]).reindex(columns=["withheld", "flagged", "unmarked"], fill_value=0)


JUDGED2 = (chat2_drafts, CHAT_SETS, labels2)
GATES = {"chat2 adapter, written thresholds alone": gate("chat2 adapter", TranslationGuard(), *JUDGED2),
         "chat2 adapter, in a room (no record)": gate("chat2 adapter", TranslationGuard(recorded=False), *JUDGED2),
         "gemma3-270m, its own record": gate("gemma3-270m", TranslationGuard(floor=translator_floor("gemma3-270m")), *JUDGED2)}  # fmt: skip
gates = pd.concat(GATES, axis=1).fillna(0).astype(int)
unmarked_made_up = int(gates.loc["made_up", ("chat2 adapter, written thresholds alone", "unmarked")])
assert gates[("chat2 adapter, in a room (no record)", "unmarked")].sum() == 0  # nothing of it arrives unmarked
assert gates[("gemma3-270m, its own record", "withheld")].sum() == n_chat  # its record: no Swahili draft is delivered
print(f"made-up drafts of the chat2 adapter that the written thresholds alone deliver unmarked: {unmarked_made_up} of {n_chat}")
gates

# %% [markdown]
# chrF against the writers' glosses on the 160 chat messages, and on the two news sets, with both floors:

# %%
def chat_chrf(folder, lang, msgs, systems, **options):
    """A translation report of ``systems`` on ``msgs`` (in ``lang``) against their glosses, through a files: dataset."""
    src, ref = Path(folder) / f"chat.{lang}.txt", Path(folder) / f"chat.{lang}.eng.txt"
    src.write_text("".join(m["text"].replace("\n", " ") + "\n" for m in msgs), encoding="utf-8")
    ref.write_text("".join(gloss(m).replace("\n", " ") + "\n" for m in msgs), encoding="utf-8")
    return run("translation", systems=systems, dataset=f"files:{lang}-eng:{src},{ref}", **SCORING | options)


with tempfile.TemporaryDirectory() as folder:
    chat2_tests = {"chat": chat_chrf(folder, "swh", CHAT_ALL, [copy, other, prompted, mixed, chosen])}
for name, (dataset, window) in WINDOWS.items():
    chat2_tests[name] = run("translation", systems=[copy, other, prompted, mixed, chosen], dataset=dataset,
                            pairs="swh-eng", **window, **SCORING)  # fmt: skip
chat2_scores = chrf_by_set(chat2_tests)
chat2_scores.round(1)

# %%
chat2_diffs = deltas_across({("swh-eng (chat2)", name): res for name, res in chat2_tests.items()}, "chat2 adapter",
                            ("copy", "other-sentence", "gemma3-270m", "mixed adapter"))  # fmt: skip
chat2_diffs

# %% [markdown]
# ## French, German and Spanish → English, trained on chat
# The room's readers of two languages miss most of what they miss in French, German and Spanish messages translated
# into English: the drafts keep the gist and change a detail (notebook 01 and docs/ROOM.md). Those directions have
# no training set in the shared data, so three adapters were trained on **chat pairs alone**
# (`data/synth/translate_chat3.*`: 605 French, 618 German and 618 Spanish workplace messages with English
# translations, written for training by six writers who opened no file of the project; every pair near a message or
# gloss of the room's sets dropped), one per direction, the `aya-lab tune` defaults, saved at 50 and 100 steps
# (`data/adapters/README.md`).
# - **The step is chosen per direction on development messages**: the 80 messages per language of the seventh and
#   eighth unseen runs, corpus chrF against their writers' English glosses.
# - **Measured on the 120 messages per language of the ninth, tenth and eleventh runs**, never used to choose an
#   adapter: the prompted base's draft and the adapter's of each, labelled. A draft some earlier label judged keeps
#   it (the rooms' labels); the 383 others were labelled blind by four annotator instances who saw source, gloss and
#   draft in a shuffled order, never the system, committed (`data/adversarial/chat_eng_labels3.jsonl`) before this
#   section read them; 60 of them were labelled twice.

# %%
EUROPEAN = {"fra": "French", "deu": "German", "spa": "Spanish"}
STEPS3 = (50, 100)
CHAT3 = {lang: ADAPTERS / f"gemma3-270m-{lang}-eng-chat" for lang in EUROPEAN}
chat3_cards = {(lang, s): json.loads((CHAT3[lang] / f"step-{s:03d}" / "aya_lab_adapter.json").read_text(encoding="utf-8"))
               for lang in EUROPEAN for s in STEPS3}  # fmt: skip
chat3 = {(lang, s): PromptSystem(load_chat_model(f"gemma3-270m+lora:{CHAT3[lang] / f'step-{s:03d}'}", settings=SETTINGS, batch_size=16),
                                 "user_translate/completion", name=f"chat adapter, step {s}")
         for lang in EUROPEAN for s in STEPS3}  # fmt: skip


def into_english(system, lang, msgs):
    return system.translate([m["text"] for m in msgs], lang, "eng")


DEV3 = {lang: written_in(lang, 7, 8) for lang in EUROPEAN}
dev3 = pd.DataFrame({lang: {name: CHRF().corpus_score(into_english(s, lang, DEV3[lang]), [[gloss(m) for m in DEV3[lang]]]).score
                            for name, s in {"gemma3-270m": prompted, **{f"chat adapter, step {s}": chat3[lang, s] for s in STEPS3}}.items()}
                     for lang in EUROPEAN})  # fmt: skip
STEP3 = {lang: max(STEPS3, key=lambda s: dev3.loc[f"chat adapter, step {s}", lang]) for lang in EUROPEAN}
print("; ".join(f"{EUROPEAN[lang]} step {s}: {c['seconds'] / 60:.1f} minutes, {c['data']['train']} pairs trained on, validation "
                f"loss {c['loss']['validation_before']:.3f} -> {c['loss']['validation_after']:.3f}" for (lang, s), c in chat3_cards.items()))  # fmt: skip
print("chat pairs:", ", ".join(f"{EUROPEAN[lang]} {len((synth / f'translate_chat3.{lang}.txt').read_text(encoding='utf-8').splitlines())}"
                               for lang in EUROPEAN))  # fmt: skip
print({EUROPEAN[lang]: len(DEV3[lang]) for lang in EUROPEAN}, "development messages; steps chosen:", STEP3)
dev3.round(1)

# %%
TEST3 = {lang: written_in(lang, 9, 10, 11) for lang in EUROPEAN}
drafts3 = {(lang, name): into_english(s, lang, TEST3[lang])
           for lang in EUROPEAN for name, s in (("gemma3-270m", prompted), ("chat adapter", chat3[lang, STEP3[lang]]))}  # fmt: skip
labels3 = {}
for name in ("unseen9_labels", "unseen10_labels", "unseen10_nearest_labels", "unseen11_labels",
             "unseen11_nearest_labels", "chat_eng_labels3"):  # later files win; the drafts they label differ
    labels3 |= load_labels(adversarial / f"{name}.jsonl")
judged3 = pd.DataFrame([{"lang": lang, "system": name, "id": m["id"], "category": m["category"],
                         "label": labels3.get((m["id"], "eng", draft))}
                        for (lang, name), out in drafts3.items() for m, draft in zip(TEST3[lang], out, strict=True)])  # fmt: skip
assert judged3["label"].notna().all()  # every draft is labelled
print({EUROPEAN[lang]: len(TEST3[lang]) for lang in EUROPEAN}, "test messages;",
      len(load_labels(adversarial / "chat_eng_labels3.jsonl")), "drafts labelled for this section")  # fmt: skip
chat3_table = (judged3.groupby(["lang", "system"])["label"].value_counts().unstack(fill_value=0)
               .reindex(columns=["faithful", "partial", "made_up", "wrong_language"], fill_value=0))  # fmt: skip
chat3_table

# %%
agreement3, _ = label_agreement(load_labels(adversarial / "chat_eng_labels3.jsonl"), load_labels(adversarial / "chat_eng_labels3_second.jsonl"))
print(f"{agreement3['n']} drafts labelled twice: agreement {agreement3['agreement']:.1%}, Cohen's kappa {agreement3['kappa']:.2f}")
faithful3 = judged3.assign(faithful=judged3["label"].eq("faithful").astype(float))
faithful3_tests = pd.DataFrame({
    scope: paired_accuracy(part.query("system == 'gemma3-270m'").set_index("id")["faithful"],
                           part.query("system == 'chat adapter'").set_index("id")["faithful"], n_bootstrap=10_000)
    for scope, part in [*((EUROPEAN[lang], faithful3[faithful3["lang"] == lang]) for lang in EUROPEAN), ("all three", faithful3)]
}).T  # fmt: skip
faithful3_tests[["n", "mean_a", "mean_b", "diff", "ci_low", "ci_high", "p_bootstrap", "p_mcnemar"]].astype(float).round(3)

# %% [markdown]
# What would reach an English reader with each translator, one draft per message (the room writes three and flags
# the first when they disagree; this counts the first): the adapter has no record of its own, so a room flags
# every draft of it that passes the written thresholds; the prompted base is judged by its own record.

# %%
JUDGED3 = (drafts3, TEST3, labels3)
gates3 = pd.concat({"chat adapters, in a room (no record)": gate("chat adapter", TranslationGuard(recorded=False), *JUDGED3),
                    "gemma3-270m, its own record": gate("gemma3-270m", TranslationGuard(floor=translator_floor("gemma3-270m")), *JUDGED3)},
                   axis=1).fillna(0).astype(int)  # fmt: skip
reach3 = {name: int(gates3.loc["faithful", (name, "flagged")] + gates3.loc["faithful", (name, "unmarked")]) for name in gates3.columns.levels[0]}
print("faithful drafts that reach the reader (flagged or unmarked):", reach3)
gates3

# %% [markdown]
# The criterion for an adapter the room uses by default (issue 40, docs/MODELS.md) also asks for a measured chrF
# gain over both floors on two unseen sets, one of them workplace chat. chrF of each chosen adapter, the prompted
# base and both floors against the writers' glosses on the same 120 chat messages per language and on the 40 per
# language of the twelfth set (a message's line breaks read as spaces; intervals resample contiguous blocks of 5
# messages, and single messages on the twelfth set, whose 8 blocks would be too few), and, for French and German, on the NTREX-128 window above (news, which no chat adapter saw; intervals
# resample documents; the shared NTREX-128 files have no Spanish):

# %%
chat3_chrf = {}
with tempfile.TemporaryDirectory() as folder:
    for lang in EUROPEAN:
        systems3 = [copy, other, prompted, PromptSystem(chat3[lang, STEP3[lang]].model, "user_translate/completion", name="chat adapter")]
        direction3 = f"{EUROPEAN[lang]} → English (chat adapter)"
        chat3_chrf[direction3, "chat, sets 9-11"] = chat_chrf(folder, lang, TEST3[lang], systems3)
        chat3_chrf[direction3, "chat, set 12"] = chat_chrf(folder, lang, written_in(lang, 12), systems3, resample="segment")
        if lang != "spa":
            dataset, window = WINDOWS["NTREX-128"]
            chat3_chrf[direction3, "NTREX-128"] = run("translation", systems=systems3, dataset=dataset, pairs=f"{lang}-eng",
                                                      **window, **SCORING)  # fmt: skip
chat3_scores = pd.concat({key: chrf_by_set({key[1]: res}) for key, res in chat3_chrf.items()}, axis=1).droplevel(2, axis=1)
chat3_diffs = deltas_across(chat3_chrf, "chat adapter", ("copy", "other-sentence", "gemma3-270m"))
chat3_scores.round(1)

# %%
chat3_diffs

# %% [markdown]
# ## The notebook's family of tests
# The conclusions read each adapter's paired chrF difference against both floors and both prompts, on both test
# sets, the mixed Swahili adapter's against both floors, the room's prompt and the news adapter, and the chat2
# adapter's against both floors, the room's prompt and the mixed adapter on three sets, with its faithful drafts
# against the prompted base's and the mixed adapter's (a paired bootstrap over the 160 chat messages), and the
# French, German and Spanish chat adapters' faithful drafts against the prompted base's (per language over its 120
# messages, and over all 360) and their chrF against both floors and the prompted base on two chat sets and, for
# French and German, NTREX-128: 82 tests,
# adjusted together here (Holm over the family, `p_family`; `significant`: `p_family` < 0.05),
# the statistics policy of docs/EVALUATION.md. `p_bootstrap` is read off the same resamples as the CI, so it is
# below 0.05 exactly when the CI excludes 0. The conclusions call a difference significant only over the family.

# %%
all_diffs = pd.concat([diffs.drop(columns="best prompt"), mixed_diffs, chat2_diffs, chat3_diffs])
faithful_rows = faithful_tests.reset_index(names="against").rename(columns={"diff": "delta"}).assign(direction="swh-eng (chat2)", **{"test set": "chat, faithful drafts"})
faithful3_rows = faithful3_tests.reset_index(names="direction").rename(columns={"diff": "delta"}).assign(
    direction=lambda t: t["direction"] + " → English (chat adapter)", against="gemma3-270m", **{"test set": "chat, faithful drafts"})  # fmt: skip
faithful_rows = pd.concat([faithful_rows, faithful3_rows], ignore_index=True)
family_tests = family({"adapter − floor or prompt": all_diffs.drop(columns="significant").reset_index(),
                       "faithful drafts": faithful_rows}, p="p_bootstrap")  # fmt: skip
print(f"{len(family_tests)} tests, Holm at α = {ALPHA}")
family_tests["p_bootstrap"] = family_tests["p_bootstrap"].astype(float)
assert len(family_tests) == 82 and not family_tests["few_units"].any()
assert ((family_tests["p_bootstrap"] < 0.05).iloc[:len(all_diffs)] == all_diffs["significant"].to_numpy()).all()  # p and CI agree
family_sig = family_tests.set_index(["direction", "test set", "against"])["significant"]
family_tests[["direction", "test set", "against", "delta", "ci_low", "ci_high", "p_bootstrap", "p_family", "significant"]].round(3)

# %% [markdown]
# ## Conclusions

# %%
over_family = family_sig.reindex(diffs.index).astype(bool)
sig = over_family & (diffs["delta"].astype(float) > 0)
below = over_family & (diffs["delta"].astype(float) < 0)
clears = {key: bool(sig[(*key, "copy")] and sig[(*key, "other-sentence")]) for key in tests}
beats_best = {key: bool(sig[(*key, best_prompt[key])]) for key in tests}
both_sets = {lang: all(clears[f"{lang}-eng", name] for name in TESTS) for lang in LANGS}


def verdict(pair, name, against):
    d = diffs.loc[(pair, name, against)]
    alone = " over the family" if d["significant"] else ""  # significant alone, not over the family
    word = "above" if sig[(pair, name, against)] else "below" if below[(pair, name, against)] else f"not distinguishable{alone} from"
    return f"{word} {against} (Δ {float(d['delta']):+.1f} [{float(d['ci_low']):+.1f}, {float(d['ci_high']):+.1f}])"


def direction(lang):
    pair = f"{lang}-eng"
    lines = [f"**{LANGS[lang]} → English** ({cards[lang]['seconds'] / 60:.0f} minutes of training; validation loss "
             f"{cards[lang]['loss']['validation_before']:.3f} → {cards[lang]['loss']['validation_after']:.3f})."]
    for name in TESTS:
        c = {s: scores.loc[s, (pair, name, "chrF")] for s in scores.index}
        lines.append(
            f"- **{name}**: the adapter {c['adapter']:.1f} chrF; the room's prompt {c['gemma3-270m']:.1f}, held-apart "
            f"{c['held-apart']:.1f}; copy {c['copy']:.1f}, other-sentence {c['other-sentence']:.1f}. The adapter is "
            f"{verdict(pair, name, 'copy')}, {verdict(pair, name, 'other-sentence')}; against the best prompt "
            f"{verdict(pair, name, best_prompt[pair, name])}."
        )
    return "\n".join(lines)


for lang in LANGS:
    display(report(direction(lang)))

# %%
cleared = [LANGS[lang] for lang in LANGS if both_sets[lang]]
above_best = [LANGS[lang] for lang in LANGS if all(beats_best[f"{lang}-eng", name] for name in TESTS)]
floors = {lang: {f: sum(bool(sig[(f"{lang}-eng", name, f)]) for name in TESTS) for f in ("copy", "other-sentence")}
          for lang in LANGS}  # fmt: skip
below_copy = sorted({(LANGS[p.split("-")[0]], n) for (p, n, a), b in below.items() if b and a == "copy"})
copy_chrf = [scores.loc["copy", (*key, "chrF")] for key in tests]
assert not cleared  # no adapter clears both floors on both sets: none could ship on news alone
assert sum(v["copy"] for v in floors.values()) < sum(v["other-sentence"] for v in floors.values())  # "miss most"
report(
    "- **No adapter clears both floors on both unseen news sets** (over the family of {n} tests). By language, "
    "the sets of two on which the adapter is significantly above the other-sentence floor and above copying the "
    "source: {floors}. Copying the source is the floor they miss most: it scores {copy_lo:.1f}–{copy_hi:.1f} chrF "
    "into English on these sets, and the adapter is significantly below it for {below_copy}.\n"
    "- **Against the prompts**: the adapter is significantly above the better of the two prompts on both sets "
    "for {above} of the four ({above_names}).\n"
    "- **None becomes the room's translator.** A translator ships into the room only with its own record on the "
    "room's kind of text (docs/MODELS.md), and no adapter here clears both floors even on news. The project has "
    "no workplace chat messages in Hausa, Igbo, Yorùbá or isiZulu, and notebook 08's Swahili adapter, above "
    "both floors on news, wrote no faithful draft of the 40 Swahili chat messages in the rooms of the fifth and "
    "sixth unseen runs (one, with this notebook's settings: below). These adapters stay measured "
    "research artefacts, loadable by spec (`gemma3-270m+lora:data/adapters/gemma3-270m-LANG-eng/step-050`).",
    n=len(family_tests),
    floors="; ".join(f"{LANGS[k]} {v['other-sentence']} and {v['copy']}" for k, v in floors.items()),
    copy_lo=min(copy_chrf), copy_hi=max(copy_chrf),
    below_copy=", ".join(f"{lang} on {name}" for lang, name in below_copy) or "none",
    above=len(above_best), above_names=", ".join(above_best) or "none",
)  # fmt: skip

# %%
mixed_sig = family_sig.loc["swh-eng (mixed)"]
mixed_d = mixed_diffs.loc["swh-eng (mixed)"]


def mixed_vs(against):
    return "; ".join(f"{name} {float(mixed_d.loc[(name, against), 'delta']):+.1f} [{float(mixed_d.loc[(name, against), 'ci_low']):+.1f}, "
                     f"{float(mixed_d.loc[(name, against), 'ci_high']):+.1f}]" for name in TESTS)  # fmt: skip


faithful = chat_table.loc["faithful"]
assert faithful.max() <= 2  # on chat, no translator here is faithful for more than 2 of the 40 messages
assert all(mixed_sig[name, f] and mixed_d.loc[(name, f), "delta"] > 0 for name in TESTS for f in ("other-sentence", "gemma3-270m"))
assert not any(mixed_sig[name, f] for name in TESTS for f in ("copy", "news adapter"))  # neither copy nor news adapter
report(
    "- **Chat in the training data does not make Swahili → English hold on chat.** The adapter trained on 400 news "
    "and 400 chat pairs is significantly above the other-sentence floor and the room's prompt on both news sets, but "
    "not distinguishable from copying the source ({vs_copy}) or from the news adapter ({vs_news}), over the family. "
    "Of the 40 Swahili chat messages, labelled blind, it translated {mixed_f} faithfully ({mixed_p} partial, "
    "{mixed_m} made up); the news adapter {news_f} ({news_p} partial, {news_m} made up), the prompted base "
    "{base_f}. Fifty steps with 400 chat pairs did not teach the 270M base model to translate these messages; "
    "neither adapter can be the room's Swahili translator.",
    vs_copy=mixed_vs("copy"), vs_news=mixed_vs("news adapter"),
    mixed_f=int(faithful[("mixed adapter", "all")]), mixed_p=int(chat_table.loc["partial", ("mixed adapter", "all")]),
    mixed_m=int(chat_table.loc["made_up", ("mixed adapter", "all")]), news_f=int(faithful[("news adapter", "all")]),
    news_p=int(chat_table.loc["partial", ("news adapter", "all")]), news_m=int(chat_table.loc["made_up", ("news adapter", "all")]),
    base_f=int(faithful[("gemma3-270m", "all")]),
)  # fmt: skip

# %%
chat2_family = family_tests[family_tests["direction"] == "swh-eng (chat2)"]
sig2 = chat2_family[chat2_family["test"] != "faithful drafts"].set_index(["test set", "against"])
counts2 = chat2_table.groupby("system").sum()  # both chat sets, 160 messages per system
f2, fm, fb = (int(counts2.loc[name, "faithful"]) for name in ("chat2 adapter", "mixed adapter", "gemma3-270m"))
made_up2 = int(counts2.loc["chat2 adapter", "made_up"])
floors2 = {t: all(sig2.loc[(t, f), "significant"] and sig2.loc[(t, f), "delta"] > 0 for f in ("copy", "other-sentence"))
           for t in chat2_tests}  # fmt: skip
faithful_sig = chat2_family[chat2_family["test"] == "faithful drafts"].set_index("against")["significant"]
sig2 = sig2.assign(delta=sig2["delta"].astype(float))
assert STEP2 == 300 and floors2["chat"] and not floors2["MAFAND test"] and not floors2["NTREX-128"]
news_copy = {t: sig2.loc[(t, "copy")] for t in ("NTREX-128", "MAFAND test")}
assert all(sig2.loc[(t, "other-sentence"), "significant"] and r["delta"] > 0 and r["ci_low"] > 0 for t, r in news_copy.items())
assert sig2.loc[("NTREX-128", "mixed adapter"), "significant"] and not sig2.loc[("chat", "mixed adapter"), "significant"]
assert f2 <= 4 and made_up2 / n_chat > 0.75 and not faithful_sig.any()  # almost no faithful draft on chat


def above(test_set):
    c = chat2_scores[test_set]
    return f"{c['chat2 adapter']:.1f} against {c['copy']:.1f} (copy) and {c['other-sentence']:.1f} (other sentence)"


def interval(row):
    return f"{float(row['delta']):+.1f} [{float(row['ci_low']):+.1f}, {float(row['ci_high']):+.1f}]"


report(
    "- **More chat pairs and more steps raise chrF, not faithful translations.** The adapter trained {steps} steps on "
    "1,986 chat and 2,000 news pairs (the step chosen on the development messages: chrF {dev:.1f} against the glosses, "
    "the mixed adapter {dev_mixed:.1f}) is significantly above both floors on the chat messages, over the notebook's family of {n_tests} tests: chrF "
    "{chat} on the {n_chat} chat messages against their glosses. On the news sets, {mafand} on MAFAND test and {ntrex} "
    "on NTREX-128, it is above the other sentence but above copying the source only alone ({mafand_copy}; "
    "{ntrex_copy}), not over the family (over the 58 tests before the French, German and Spanish chrF tests joined it, "
    "MAFAND test's was significant). Against the mixed adapter, only NTREX-128's difference is "
    "significant. By the labels it translated {f2} of the "
    "{n_chat} chat messages faithfully ({p2} partial, {m2} made up, {w2} wrong language); the mixed adapter {fm}, the "
    "prompted base {fb} (no difference significant).\n"
    "- **So clearing both floors in chrF is not enough to ship an adapter for chat**: this one clears them on a chat "
    "set, and on both news sets above the other sentence and, alone, above copying the source, yet {share:.0%} of its chat drafts say something else. It "
    "would become the direction's default only with a record of its own (labelled drafts of the room's messages; "
    "`data/calibration/README.md`), which these labels would not earn it. A 270M base model did not learn to translate Swahili workplace chat from four thousand pairs on the "
    "CPU; the room's Swahili colleagues keep English as their second language, and a larger translator "
    "(docs/MODELS.md, \"A new translator\") is what this points to.\n"
    "- **Set by hand, it would have misled readers**: with the written thresholds alone, the gate a translator "
    "without a record had, {unmarked} of its {n_chat} chat drafts that say something else would have arrived "
    "unmarked ({unmarked_share:.0%}). A room now flags every draft of a translator without a record of its own, so "
    "none of its drafts arrives unmarked; the room's default translator, under its own record, delivers none of "
    "its Swahili drafts.",
    steps=chat2_cards[STEP2]["steps"], dev=dev_chrf[f"chat2, step {STEP2}"], dev_mixed=dev_chrf["mixed adapter"],
    n_tests=len(family_tests), ntrex_copy=interval(news_copy["NTREX-128"]), mafand_copy=interval(news_copy["MAFAND test"]), chat=above("chat"), ntrex=above("NTREX-128"), mafand=above("MAFAND test"),
    n_chat=n_chat, f2=f2, p2=int(counts2.loc["chat2 adapter", "partial"]), m2=made_up2,
    w2=int(counts2.loc["chat2 adapter", "wrong_language"]), fm=fm, fb=fb, share=made_up2 / n_chat,
    unmarked=unmarked_made_up, unmarked_share=unmarked_made_up / n_chat,
)  # fmt: skip

# %%
sig3 = family_tests[family_tests["direction"].str.endswith("(chat adapter)") & (family_tests["test"] == "faithful drafts")].set_index("direction")
counts3 = chat3_table.groupby("system").sum()  # the three languages, 360 messages per system
f3, fb3 = (int(counts3.loc[name, "faithful"]) for name in ("chat adapter", "gemma3-270m"))
pooled3 = faithful3_tests.loc["all three"]
pooled_sig = bool(sig3.loc["all three → English (chat adapter)", "significant"])
by_lang3 = {EUROPEAN[lang]: (int(chat3_table.loc[(lang, "gemma3-270m"), "faithful"]), int(chat3_table.loc[(lang, "chat adapter"), "faithful"]),
                             bool(sig3.loc[f"{EUROPEAN[lang]} → English (chat adapter)", "significant"])) for lang in EUROPEAN}  # fmt: skip
unmarked3 = {name: int(gates3.loc[["made_up", "partial"], (name, "unmarked")].sum()) for name in gates3.columns.levels[0]}
assert f3 > fb3 and float(pooled3["ci_low"]) > 0  # more faithful drafts, by a paired bootstrap over 360 messages
assert reach3["chat adapters, in a room (no record)"] > reach3["gemma3-270m, its own record"]
assert unmarked3["chat adapters, in a room (no record)"] == 0 < unmarked3["gemma3-270m, its own record"]


def lang_line(name):
    base_f, adapter_f, significant = by_lang3[name]
    return f"{name} {base_f} → {adapter_f}" + (" (significant over the family)" if significant else "")


report(
    "- **Chat pairs alone make French, German and Spanish → English more faithful.** Trained on about 600 chat "
    "pairs per language for {steps} steps (about 5 minutes each on 2 cores; the step chosen on the development "
    "messages, where chrF against the glosses rose from {dev_lo:.1f}–{dev_hi:.1f} to {adev_lo:.1f}–{adev_hi:.1f}), the "
    "adapters translated {f3} of the {n3} test messages faithfully against the prompted base's {fb3}: {pooled}, "
    "paired over messages, {pooled_word}. By language, faithful drafts of 120: {langs}. Most of what is left is "
    "partial: {p3} of the adapters' drafts keep the gist and change a detail ({pb3} of the base's).\n"
    "- **In a room**, an adapter without a record of its own gets the written thresholds and every draft it "
    "delivers is flagged `[unverified]` beside the original: an English reader would get {reach_a} faithful "
    "translations of the {n3} messages (the base under its own record: {reach_b}), and no made-up or partial draft "
    "unmarked ({unmarked_b} of the base's arrive unmarked). Flagged faithful drafts count as useful to a reader "
    "(notebook 01), so these adapters are the first change of translator here that could raise what readers of two "
    "languages can read. Their labelled drafts here are each one's record (a floor measured on them, "
    "`data/calibration/README.md`), and notebook 01 runs them in a room on the twelfth and thirteenth sets, messages no choice here "
    "was made on; they are not the room's default.",
    steps=" / ".join(sorted({str(s) for s in STEP3.values()})), dev_lo=dev3.loc["gemma3-270m"].min(), dev_hi=dev3.loc["gemma3-270m"].max(),
    adev_lo=min(dev3.loc[f"chat adapter, step {STEP3[lang]}", lang] for lang in EUROPEAN),
    adev_hi=max(dev3.loc[f"chat adapter, step {STEP3[lang]}", lang] for lang in EUROPEAN),
    f3=f3, fb3=fb3, n3=len(faithful3) // 2,
    pooled=f"{100 * float(pooled3['diff']):+.1f} points [{100 * float(pooled3['ci_low']):+.1f}, {100 * float(pooled3['ci_high']):+.1f}]",
    pooled_word="significant over the notebook's family" if pooled_sig else "significant alone, not over the notebook's family",
    langs="; ".join(lang_line(name) for name in by_lang3), p3=int(counts3.loc["chat adapter", "partial"]),
    pb3=int(counts3.loc["gemma3-270m", "partial"]), reach_a=reach3["chat adapters, in a room (no record)"],
    reach_b=reach3["gemma3-270m, its own record"], unmarked_b=unmarked3["gemma3-270m, its own record"],
)  # fmt: skip

# %%
CHRF_SETS3 = ("chat, sets 9-11", "chat, set 12", "NTREX-128")


def floors_cleared(lang):
    """The sets on which ``lang``'s chat adapter is above both chrF floors over the family."""
    direction3 = f"{EUROPEAN[lang]} → English (chat adapter)"
    return [t for t in CHRF_SETS3 if (direction3, t, "copy") in chat3_diffs.index
            and all(family_sig[direction3, t, f] and float(chat3_diffs.loc[(direction3, t, f), "delta"]) > 0
                    for f in ("copy", "other-sentence"))]  # fmt: skip


def chrf_line(lang):
    direction3 = f"{EUROPEAN[lang]} → English (chat adapter)"
    sets = [t for t in CHRF_SETS3 if (direction3, t) in chat3_chrf]
    return f"{EUROPEAN[lang]}: " + "; ".join(
        f"{t} {chat3_scores.loc['chat adapter', (direction3, t)]:.1f} (copy {chat3_scores.loc['copy', (direction3, t)]:.1f}, "
        f"other sentence {chat3_scores.loc['other-sentence', (direction3, t)]:.1f}, prompted base "
        f"{chat3_scores.loc['gemma3-270m', (direction3, t)]:.1f})" for t in sets)  # fmt: skip


cleared3 = {lang: floors_cleared(lang) for lang in EUROPEAN}
qualifies3 = {lang: len(sets) >= 2 and any(t.startswith("chat") for t in sets) for lang, sets in cleared3.items()}
above_base3 = sorted(f"{d.split(' → ')[0]} on {t}" for (d, t, against), significant in family_sig.items()
                     if d.endswith("(chat adapter)") and against == "gemma3-270m" and t in CHRF_SETS3 and significant
                     and float(chat3_diffs.loc[(d, t, against), "delta"]) > 0)  # fmt: skip
print({EUROPEAN[lang]: sets for lang, sets in cleared3.items()})
assert all(qualifies3.values())
report(
    "- **chrF against both floors**, on the writers' glosses of two chat sets and on NTREX-128 (news), over the "
    "family: {lines}. Above both floors on two unseen sets, one of them chat, as the criterion for a room default "
    "asks: {qualify}. Significantly above the prompted base over the family: {above_base}. The criterion's other "
    "half is measured in a room: notebook 01 reads the thirteenth set.",
    lines=". ".join(chrf_line(lang) for lang in EUROPEAN),
    qualify=", ".join(EUROPEAN[lang] for lang in EUROPEAN if qualifies3[lang]) or "none",
    above_base="; ".join(above_base3) or "none",
)  # fmt: skip
