"""Aya's answers, measured: are they grounded, and do they hold the fact asked for?

**The ``grounding`` task** (``aya-lab eval run grounding``): how well the answer and summary checks tell made-up
text from honest text. No model runs; every figure comes from the checks alone, on data in the repository:

- **Fabricated drafts** (``data/adversarial/drafts.jsonl``, written by hand: wrong numbers, wrong dates,
  invented names, true and false facts mixed, notes that contradict the handbook, fabrications with no
  checkable fact, and honest controls). Each draft is checked against its passages, the handbook
  paragraphs that contain its ``quote`` (plus its notes), as :func:`~aya_lab.agents.grounding.ground`
  checks the model's draft in the room. Reported: the share of fabricated drafts that would be
  **delivered**, and of honest drafts that would be **withheld**, each with a bootstrap 95% CI, per kind.
- **Honest proxies on notebook 06's questions** (``data/rag/questions.jsonl``, in scope): the passages
  are the gold documents' paragraphs holding an answer keyword; *extractive* answers are the lines of
  those paragraphs that hold a keyword (faithful and wordy), *restated* answers are the question followed
  by its keywords (terse, and they repeat the asker's figures). Reported: the share withheld.
- **Summaries** (``data/transcripts/transcripts.jsonl``): the copy measure of
  :mod:`aya_lab.agents.summary_checks` on the reference summaries (must pass), the whole transcript and
  half-transcript excerpts as rendered for the model, and every run of 1-3 consecutive messages joined
  without sender names (must be withheld).

:func:`evaluate_grounding` returns all three as a ``grounding`` :class:`~aya_lab.eval.report.Report`
(``run("grounding")``): ``df`` has one row per measure, its units ``set`` (``drafts``, ``rag proxies``,
``summaries``), ``label`` (``fabricated``/``honest`` drafts; ``honest`` proxies and reference summaries,
``copy`` for the copies) and ``kind`` (a draft kind or ``all``, a proxy answer, a copied text); ``items``
each draft's outcome. :func:`grounding_table` (the task's table) gives the three tables, and
:func:`grounding_views` (what the command prints) those and the drafts the checks got wrong.

**The ``answers`` task** (``aya-lab eval run answers``; a model runs): Aya's answers to policy questions in any
language — the gold fact in the reply, invented facts, "I don't know". It asks the query agent (:class:`~aya_lab.agents.query.AyaQuery`) every question of a set of
:class:`~aya_lab.datasets.project.PolicyQuestion` s (default: the 75 unseen questions in five languages) the
way the room does: the request as written, and its English (the room's request translator, for the ``draft``
system only: a quote searches what was written). Systems are the agent's answer modes: ``quote`` (the
handbook's sentences), ``glossary`` (quoting, the question read with the English terms the glossary gives it),
``neighbours`` (quoting, in scope when the labelled questions most like it are: the development sets without the
set being scored, so no question is judged by its own label) and ``draft`` (the model's checked answer). Per
question:

* ``fact`` (in scope): the gold fact (an English string the handbook states) is in the reply, case and spaces
  ignored;
* ``right_section`` (in scope, quotes): the quoted section is one of the gold sections;
* ``ranked_first`` (in scope, quoting systems): the section the index ranks first is a gold section, whether or not
  the scope rule answers from it (the items also keep each question's scope ``margin``, ``nan`` for ``draft``);
* ``idk``: the reply is "I don't know" (right out of scope, a miss in scope);
* ``invented``: the reply states a number, date, time or name (:func:`~aya_lab.agents.fact_check.extract_claims`)
  that no handbook section states.

The report's units are ``lang`` (each language and ``all``) and ``scope`` (``in-scope``, ``out-of-scope``);
each score is a mean over questions with a percentile bootstrap 95% CI (seeded). ``paired`` holds each
later system minus the first per metric and language when two or more ran (paired bootstrap on the same resamples; Holm per metric).
"""

from __future__ import annotations

import json
import re
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from aya_lab.agents.citations import note_label
from aya_lab.agents.fact_check import Claim, extract_claims, supported
from aya_lab.agents.grounding import Passage, ground
from aya_lab.agents.protocols import TextModel
from aya_lab.agents.query import IDK, AyaQuery, QueryAnswer
from aya_lab.agents.summarizer import SUMMARIZER_PROMPTS, prompt_text, render_transcript
from aya_lab.agents.summary_checks import COPY_THRESHOLD, copy_coverage
from aya_lab.agents.translator import AyaTranslator
from aya_lab.datasets.project import (
    PolicyQuestion,
    load_policy_questions,
    load_rag_questions,
    load_transcripts,
    policy_questions_path,
)
from aya_lab.errors import InputError
from aya_lab.eval.configs import AnswersConfig, GroundingConfig
from aya_lab.eval.report import Report, Task
from aya_lab.eval.resampling import bootstrap_ci, bootstrap_indices, holm_column, paired_bootstrap
from aya_lab.messages import ChatMessage
from aya_lab.models.loader import default_model_spec, load_chat_model
from aya_lab.paths import kb_dir, project_root
from aya_lab.prompts import load_prompt
from aya_lab.rag import KnowledgeBase, default_embeddings
from aya_lab.rag.scope import NEIGHBOURS, ScopePool, default_pool_paths

__all__ = [
    "GROUNDING_TABLES",
    "GROUNDING_TASK",
    "Draft",
    "default_drafts_path",
    "evaluate_grounding",
    "grounding_table",
    "grounding_views",
    "load_drafts",
    "ANSWERS_TASK",
    "ANSWER_METRICS",
    "answer_items",
    "evaluate_answers",
]

GROUNDING_TABLES = ("drafts", "rag proxies", "summaries")
"""The sets a grounding report measures, each one of :func:`grounding_table`'s tables."""
SYSTEM = "checks"
_COLUMNS = ["system", "set", "label", "kind", "metric", "score", "ci_low", "ci_high", "n"]
_COPY_METRICS = {"copy_min": "min", "copy_mean": "mean", "copy_max": "max", "withheld": "withheld"}


@dataclass(frozen=True)
class Draft:
    """One draft answer: ``label`` ``fabricated`` or ``honest``, its ``kind``, and the passages it is checked on."""

    id: str
    kind: str
    label: str
    question: str
    draft: str
    passages: tuple[Passage, ...]


def default_drafts_path() -> Path:
    """``data/adversarial/drafts.jsonl``."""
    return project_root() / "data" / "adversarial" / "drafts.jsonl"


def _paragraphs(source: str, docs: Path) -> list[str]:
    path = docs / source
    if not path.is_file():
        raise InputError(f"no handbook document {source!r} in {docs}; name a file of data/kb")
    return [p.strip() for p in re.split(r"\n\s*\n", path.read_text(encoding="utf-8")) if p.strip()]


def _passage(where: str, item: dict[str, str], docs: Path) -> Passage:
    if "note" in item:
        return Passage(note_label(item["note"], "2026-12-02"), item["text"], True)
    found = [p for p in _paragraphs(item["source"], docs) if item["quote"] in p]
    if not found:
        raise InputError(f"{where}: quote {item['quote']!r} is in no paragraph of {item['source']}; quote the handbook")
    return Passage(item["source"], found[0])


def load_drafts(path: str | Path | None = None, docs: str | Path | None = None) -> list[Draft]:
    """The drafts of ``path`` (default :func:`default_drafts_path`), their quotes expanded to handbook paragraphs."""
    path, docs = Path(path or default_drafts_path()), Path(docs or kb_dir())
    drafts = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        where = f"{path}:{n}"
        try:
            row = json.loads(line)
            passages = tuple(_passage(where, item, docs) for item in row["passages"])
            drafts.append(Draft(row["id"], row["kind"], row["label"], row["question"], row["draft"], passages))
        except (ValueError, KeyError, TypeError) as exc:
            raise InputError(f"{where}: {exc}; see data/adversarial/README.md for the record format") from None
    return drafts


class _Rates:
    """Shares with a seeded bootstrap 95% CI, as tidy score rows."""

    def __init__(self, n_bootstrap: int, seed: int) -> None:
        self.n_bootstrap, self.seed = n_bootstrap, seed

    def row(self, where: tuple[str, str, str], metric: str, values: list[float]) -> dict[str, object]:
        low, high = bootstrap_ci(values, self.n_bootstrap, self.seed)
        score = sum(values) / len(values) if values else float("nan")
        return {"system": SYSTEM, **dict(zip(("set", "label", "kind"), where)), "metric": metric, "score": score,
                "ci_low": low, "ci_high": high, "n": len(values)}  # fmt: skip


def _drafts(drafts: list[Draft], rates: _Rates) -> tuple[pd.DataFrame, list[dict[str, object]]]:
    """Each draft's outcome (``delivered``, the reason, the cited sources), and per label and kind the
    delivered share of fabricated drafts / the withheld share of honest ones."""
    rows = []
    for d in drafts:
        g = ground(d.draft, d.question, d.passages)
        rows.append({"system": SYSTEM, "id": d.id, "kind": d.kind, "label": d.label, "delivered": not g.reason,
                     "cited": ", ".join(g.documents + g.notes), "reason": g.reason, "draft": d.draft})  # fmt: skip
    per = pd.DataFrame(rows, columns=["system", "id", "kind", "label", "delivered", "cited", "reason", "draft"])
    groups = [
        *per.groupby(["label", "kind"]),
        *(((lab, "all"), per[per["label"] == lab]) for lab in ("fabricated", "honest")),
    ]
    out = []
    for (label, kind), part in groups:
        bad = part["delivered"] if label == "fabricated" else ~part["delivered"]
        measure = "delivered" if label == "fabricated" else "withheld"
        out.append(rates.row(("drafts", str(label), str(kind)), measure, [float(b) for b in bad]))
    return per, out


def _rag_proxies(docs: Path, rates: _Rates) -> list[dict[str, object]]:
    """Withheld share of the extractive and restated proxy answers on the in-scope RAG questions."""
    outcomes: dict[str, list[float]] = {"extractive": [], "restated": []}
    for q in (q for q in load_rag_questions() if q.in_scope):
        paragraphs = [
            Passage(doc, p)
            for doc in q.gold_docs
            for p in _paragraphs(doc, docs)
            if any(k.lower() in " ".join(p.split()).lower() for k in q.answer_keywords)
        ]
        lines = [ln.strip(" -") for p in paragraphs for ln in p.text.splitlines()]
        extractive = " ".join(ln for ln in lines if any(k.lower() in ln.lower() for k in q.answer_keywords))
        restated = f"{q.question} {', '.join(q.answer_keywords)}."
        for name, answer in (("extractive", extractive or restated), ("restated", restated)):
            outcomes[name].append(float(bool(ground(answer, q.question, paragraphs).reason)))
    return [rates.row(("rag proxies", "honest", name), "withheld", v) for name, v in outcomes.items()]


def _summary_copies() -> list[dict[str, object]]:
    """Copy coverage (:func:`~aya_lab.agents.summary_checks.copy_coverage`) of honest summaries and of copies,
    against the transcript and the summarizer prompts' own text as the room checks them, and the share at or
    above :data:`~aya_lab.agents.summary_checks.COPY_THRESHOLD` (withheld)."""
    prompts = [load_prompt(name) for name in SUMMARIZER_PROMPTS]
    instructions = prompt_text(*prompts)
    scores: dict[str, list[float]] = {"reference summaries": [], "whole transcript": [], "half-transcript excerpt": [],
                                      "1-3 messages, no names": [], "a prompt's instructions": []}  # fmt: skip
    for t in load_transcripts():
        msgs = [ChatMessage(sender=m.sender, lang="eng", content=m.text_en or m.text) for m in t.messages]
        shown = render_transcript(msgs) + "\n" + instructions
        scores["reference summaries"].append(copy_coverage(t.reference_summary or "", shown))
        scores["whole transcript"].append(copy_coverage(render_transcript(msgs), shown))
        half = max(1, len(msgs) // 2)
        scores["half-transcript excerpt"].append(copy_coverage(render_transcript(msgs[-half:]), shown))
        for k in (1, 2, 3):
            for i in range(len(msgs) - k + 1):
                joined = " ".join(m.content for m in msgs[i : i + k])
                if len(joined.split()) >= 4:
                    scores["1-3 messages, no names"].append(copy_coverage(joined, shown))
    scores["a prompt's instructions"] = [copy_coverage(p.system or "", instructions) for p in prompts if p.system]
    rows = []
    for name, v in scores.items():
        where = {"system": SYSTEM, "set": "summaries", "label": "honest" if name == "reference summaries" else "copy"}
        figures = (min(v), sum(v) / len(v), max(v), sum(x >= COPY_THRESHOLD for x in v) / len(v))
        rows += [{**where, "kind": name, "metric": metric, "score": float(value), "ci_low": float("nan"),
                  "ci_high": float("nan"), "n": len(v)} for metric, value in zip(_COPY_METRICS, figures)]  # fmt: skip
    return rows


def evaluate_grounding(
    data: str | Path | None = None, docs: str | Path | None = None, *, n_bootstrap: int = 1000, seed: int = 0
) -> Report:
    """The answer and summary checks on the drafts of ``data`` (default :func:`default_drafts_path`, quoting
    the handbook folder ``docs``, default ``data/kb``), the RAG proxies and the transcripts' copies: a
    ``grounding`` report (see the module docstring), CIs from ``n_bootstrap`` resamples seeded ``seed``."""
    folder, rates = Path(docs or kb_dir()), _Rates(n_bootstrap, seed)
    path = Path(data or default_drafts_path())
    items, rows = _drafts(load_drafts(path, folder), rates)
    df = pd.DataFrame([*rows, *_rag_proxies(folder, rates), *_summary_copies()], columns=_COLUMNS)
    meta: dict[str, object] = {"units": ["set", "label", "kind"], "data": str(path), "docs": str(folder),
                               "copy_threshold": COPY_THRESHOLD, "n_bootstrap": n_bootstrap, "seed": seed}  # fmt: skip
    return Report("grounding", df, items, meta=meta)


def grounding_table(result: Report, name: str = "drafts") -> pd.DataFrame:
    """One of the command's tables (:data:`GROUNDING_TABLES`) from ``result``'s ``df``: per label and kind the share
    of drafts delivered or withheld, per proxy answer the share withheld, per copied text its copy
    coverage (min, mean, max) and the share withheld; rates with their CIs."""
    if name not in GROUNDING_TABLES:
        raise InputError(f"a grounding report has the tables {', '.join(GROUNDING_TABLES)}, not {name!r}")
    part = result.df[result.df["set"] == name]
    if name == "drafts":
        wide = part[["label", "kind", "metric", "n", "score", "ci_low", "ci_high"]]
        return wide.rename(columns={"metric": "measure", "score": "rate"}).reset_index(drop=True)
    if name == "rag proxies":
        wide = part[["kind", "metric", "n", "score", "ci_low", "ci_high"]]
        return wide.rename(columns={"kind": "answers", "metric": "measure", "score": "rate"}).reset_index(drop=True)
    rows = []
    for kind, cells in part.groupby("kind", sort=False):
        by = cells.set_index("metric")["score"]
        rows.append({"text": kind, "n": int(cells["n"].iloc[0])} | {c: by[m] for m, c in _COPY_METRICS.items()})
    return pd.DataFrame(rows, columns=["text", "n", *_COPY_METRICS.values()])


def grounding_views(result: Report) -> list[tuple[str, pd.DataFrame]]:
    """The three tables (rates rounded to three decimals), then the drafts the checks got wrong: fabricated
    ones delivered, honest ones withheld."""
    views = [(f"== {name}", grounding_table(result, name).round(3)) for name in GROUNDING_TABLES]
    per = result.items.drop(columns="system")
    wrong = per[per["delivered"] == (per["label"] == "fabricated")].reset_index(drop=True)
    return [*views, ("== drafts the checks got wrong", wrong)]


def _run(config: GroundingConfig) -> Report:
    return evaluate_grounding(config.data, config.docs, n_bootstrap=config.n_bootstrap, seed=config.seed)


GROUNDING_TASK = Task(
    "grounding", "the answer and summary checks on written drafts, RAG proxies and copies", GroundingConfig, _run,
    grounding_table, views=grounding_views,
)  # fmt: skip


ANSWER_METRICS = {"fact": True, "right_section": True, "ranked_first": True, "idk": None, "invented": None}
"""Each metric and the scope it is scored on (``True``: in scope only; ``None``: both scopes)."""
_ANSWER_COLUMNS = ["system", "lang", "scope", "metric", "score", "ci_low", "ci_high", "n"]


def _squash(text: str) -> str:
    return " ".join(text.lower().split())


def _scored(q: PolicyQuestion, answer: QueryAnswer, handbook: str, stated: list[Claim]) -> dict[str, object]:
    """One question's scores; ``stated``: the handbook's claims (``extract_claims(handbook, lenient=True)``)."""
    reply = answer.text
    gold = {(g.doc, g.section) for g in q.gold}
    quoted = (answer.quote.source, answer.quote.heading) if answer.quote else None
    first = tuple(answer.ranked_first) if answer.ranked_first else None
    claims = extract_claims(answer.answer) if answer.answer != IDK else []
    return {
        "id": q.id,
        "lang": q.lang,
        "scope": "in-scope" if q.in_scope else "out-of-scope",
        "question": q.question,
        "reply": reply,
        "fact": float(_squash(q.fact) in _squash(reply)) if q.in_scope else np.nan,
        "right_section": float(quoted in gold) if q.in_scope and quoted else np.nan,
        "ranked_first": float(first in gold) if q.in_scope and first else np.nan,
        "margin": answer.margin if answer.margin is not None else np.nan,
        "idk": float(answer.text == IDK),
        "invented": float(any(not supported(c, handbook, stated) for c in claims)),
        "withheld": answer.withheld,
    }


def answer_items(
    query: AyaQuery, questions: Sequence[PolicyQuestion], english: Sequence[str] | None = None
) -> pd.DataFrame:
    """One scored row per question (see the module docstring); ``english``: each question's English."""
    handbook = "\n".join(s.text for s in query.kb.sections())
    stated = extract_claims(handbook, lenient=True)  # once, not once per claim
    rows = []
    for i, q in enumerate(questions):
        text = english[i] if english is not None else q.question
        answer = query.answer(text, None if q.lang == "eng" else q.question)
        rows.append(_scored(q, answer, handbook, stated))
    return pd.DataFrame(rows)


def _scores(items: pd.DataFrame, n_bootstrap: int, seed: int) -> pd.DataFrame:
    rows = []
    for (system, scope), group in items.groupby(["system", "scope"], sort=False):
        for lang, part in [*group.groupby("lang", sort=False), ("all", group)]:
            for metric in ANSWER_METRICS:
                values = part[metric].dropna().to_numpy(dtype=float)
                low, high = bootstrap_ci(values, n_bootstrap, seed)
                score = float(values.mean()) if values.size else np.nan
                rows.append([system, lang, scope, metric, score, low, high, int(values.size)])
    return pd.DataFrame(rows, columns=_ANSWER_COLUMNS)


def _paired(items: pd.DataFrame, systems: Sequence[str], n_bootstrap: int, seed: int) -> pd.DataFrame:
    if len(systems) < 2:
        return pd.DataFrame()
    base, rows = items[items["system"] == systems[0]].reset_index(drop=True), []
    for system in systems[1:]:
        other = items[items["system"] == system].reset_index(drop=True)
        for lang in [*dict.fromkeys(base["lang"]), "all"]:
            mask = (base["lang"] == lang) if lang != "all" else pd.Series(True, index=base.index)
            for metric in ANSWER_METRICS:
                keep = mask & base[metric].notna() & other[metric].notna()
                a, b = base.loc[keep, metric].to_numpy(float), other.loc[keep, metric].to_numpy(float)
                test = paired_bootstrap(a, b, bootstrap_indices(len(a), n_bootstrap, seed)) if len(a) else None
                if test is not None:
                    rows.append([systems[0], system, lang, metric, test["diff"], test["ci_low"], test["ci_high"],
                                 test["p_value"], len(a)])  # fmt: skip
    cols = ["baseline", "system", "lang", "metric", "delta", "ci_low", "ci_high", "p", "n"]
    return holm_column(pd.DataFrame(rows, columns=cols))


def _model(ref: object, role: str) -> TextModel:
    """A loaded model as it is; a spec string (or None: the role's default) loaded."""
    if ref is None or isinstance(ref, str):
        return load_chat_model(ref or default_model_spec(role))
    if not isinstance(ref, TextModel):
        raise InputError(f"{role}: give a model spec or a loaded chat model, not {type(ref).__name__}")
    return ref


def _scope_pool(questions: str, pool: Sequence[str] | None = None, k: int | None = None) -> ScopePool:
    """The scope pool for scoring ``questions`` (a set name or file): ``pool``'s sets (names or files; default the
    room's, :data:`~aya_lab.rag.scope.POOL_FILES`) without that set itself, so that no question is judged by its
    own label (each development set is left out in turn)."""
    scored = policy_questions_path(questions).resolve()
    paths = [policy_questions_path(name) for name in pool] if pool else default_pool_paths()
    return ScopePool.shared([p for p in paths if p.resolve() != scored], k=k or NEIGHBOURS)


def evaluate_answers(config: AnswersConfig) -> Report:
    """Run the ``answers`` task (see the module docstring)."""
    questions = load_policy_questions(config.questions)
    model = _model(config.model, "aya") if "draft" in config.systems else None
    english: list[str] | None = None
    if "draft" in config.systems:
        translator = AyaTranslator(_model(config.translator, "translator"))
        english = translator.to_english_many([q.question for q in questions], [q.lang for q in questions])
    with tempfile.TemporaryDirectory(prefix="aya_lab_answers_") as folder:
        kb = KnowledgeBase.open(Path(folder) / "kb.sqlite", config.docs or kb_dir(), default_embeddings())
        try:
            pool = (
                _scope_pool(config.questions, config.pool, config.neighbours)
                if {"neighbours", "voted"} & set(config.systems)
                else None
            )
            frames = [
                answer_items(AyaQuery(model, kb, answers=system, scope_pool=pool), questions, english).assign(
                    system=system
                )
                for system in config.systems
            ]
        finally:
            kb.close()
    items = pd.concat(frames, ignore_index=True)
    meta: dict[str, object] = {"units": ["lang", "scope"], "baseline": config.systems[0], "questions": str(config.questions),
            "n_bootstrap": config.n_bootstrap, "seed": config.seed}  # fmt: skip
    return Report(
        "answers",
        _scores(items, config.n_bootstrap, config.seed),
        items,
        _paired(items, config.systems, config.n_bootstrap, config.seed),
        meta,
    )


ANSWERS_TASK: Task[AnswersConfig] = Task(
    "answers",
    "Aya's answers to policy questions in five languages: gold fact, right section, invented facts, I don't know",
    AnswersConfig,
    evaluate_answers,
)
