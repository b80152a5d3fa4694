"""Aya's answers to policy questions in any language: the gold fact in the reply, invented facts, "I don't know".

The ``answers`` task asks the query agent (:class:`~aya_lab.agents.query.AyaQuery`) every question of a set of
:class:`~aya_lab.datasets.project.PolicyQuestion` s (default: the 75 unseen questions in five languages) the
way the room does: the request as written, and its English (the room's request translator, for the ``draft``
system only: a quote searches what was written). Systems are the agent's answer modes: ``quote`` (the
handbook's sentences) and ``draft`` (the model's checked answer). Per question:

* ``fact`` (in scope): the gold fact (an English string the handbook states) is in the reply, case and spaces
  ignored;
* ``right_section`` (in scope, quotes): the quoted section is one of the gold sections;
* ``idk``: the reply is "I don't know" (right out of scope, a miss in scope);
* ``invented``: the reply states a number, date, time or name (:func:`~aya_lab.agents.fact_check.extract_claims`)
  that no handbook section states.

The report's units are ``lang`` (each language and ``all``) and ``scope`` (``in-scope``, ``out-of-scope``);
each score is a mean over questions with a percentile bootstrap 95% CI (seeded). ``paired`` holds ``draft``
minus ``quote`` per metric and language when both ran (paired bootstrap on the same resamples; Holm per metric).
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from aya_lab.agents.fact_check import extract_claims, supported
from aya_lab.agents.protocols import TextModel
from aya_lab.agents.query import IDK, AyaQuery, QueryAnswer
from aya_lab.agents.translator import AyaTranslator
from aya_lab.datasets.project import PolicyQuestion, load_policy_questions
from aya_lab.errors import InputError
from aya_lab.eval.configs import AnswersConfig
from aya_lab.eval.report import Report, Task
from aya_lab.eval.resampling import bootstrap_ci, bootstrap_indices, holm_column, paired_bootstrap
from aya_lab.models.loader import default_model_spec, load_chat_model
from aya_lab.paths import kb_dir
from aya_lab.rag import KnowledgeBase, default_embeddings

__all__ = ["ANSWERS_TASK", "ANSWER_METRICS", "answer_items", "evaluate_answers"]

ANSWER_METRICS = {"fact": True, "right_section": True, "idk": None, "invented": None}
"""Each metric and the scope it is scored on (``True``: in scope only; ``None``: both scopes)."""
_COLUMNS = ["system", "lang", "scope", "metric", "score", "ci_low", "ci_high", "n"]


def _squash(text: str) -> str:
    return " ".join(text.lower().split())


def _scored(q: PolicyQuestion, answer: QueryAnswer, handbook: str) -> dict[str, object]:
    reply = answer.text
    gold = {(g.doc, g.section) for g in q.gold}
    quoted = (answer.quote.source, answer.quote.heading) if answer.quote else None
    claims = extract_claims(answer.answer) if answer.answer != IDK else []
    return {
        "id": q.id,
        "lang": q.lang,
        "scope": "in-scope" if q.in_scope else "out-of-scope",
        "question": q.question,
        "reply": reply,
        "fact": float(_squash(q.fact) in _squash(reply)) if q.in_scope else np.nan,
        "right_section": float(quoted in gold) if q.in_scope and quoted else np.nan,
        "idk": float(answer.text == IDK),
        "invented": float(any(not supported(c, handbook) for c in claims)),
        "withheld": answer.withheld,
    }


def answer_items(
    query: AyaQuery, questions: Sequence[PolicyQuestion], english: Sequence[str] | None = None
) -> pd.DataFrame:
    """One scored row per question (see the module docstring); ``english``: each question's English."""
    handbook = "\n".join(s.text for s in query.kb.sections())
    rows = []
    for i, q in enumerate(questions):
        text = english[i] if english is not None else q.question
        answer = query.answer(text, None if q.lang == "eng" else q.question)
        rows.append(_scored(q, answer, handbook))
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
    return pd.DataFrame(rows, columns=_COLUMNS)


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
            frames = [
                answer_items(AyaQuery(model, kb, answers=system), questions, english).assign(system=system)
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
