"""Retrieval evaluation of the knowledge base: hit@k, recall@k, MRR and the "I don't know" rate.

``evaluate_retrieval(kb, questions, ks=(1, 3, 5))`` asks ``kb.retrieve`` every question and scores the
ranking at the level of documents: the retrieved chunks are reduced to their distinct sources, in rank
order (a document's rank is that of its best chunk), because an answer cites documents, not chunks.
With ``G`` the question's gold documents and ``top_k`` the first ``k`` distinct sources:

* in-scope questions (``gold_docs`` non-empty):

  - ``hit@k`` = 1 when at least one gold document is in ``top_k``, else 0;
  - ``recall@k`` = |G ∩ top_k| / min(k, |G|): the gold documents found in ``top_k``, out of as many
    as fit in ``k`` places, so a question with three gold documents scores 1.0 at ``k = 1`` when its
    first source is gold (at ``k = 1`` it equals ``hit@1`` for every question); for ``k >= |G|`` it
    is the plain share |G ∩ top_k| / |G|;
  - ``mrr`` = 1 / rank of the first gold document (0 when none is retrieved);
  - ``answered`` = 1 when the best score reaches the relevance threshold (so the answerer would not
    say "I don't know");

* out-of-scope questions: ``idk`` = 1 when the best score falls under the threshold ("I don't know");
* both: ``top_score``, the cosine score of the best chunk.

The un-normalised share |G ∩ top_k| / |G| (which a three-gold question cannot lift above 1/3 at
``k = 1``) is not reported.

The result is one tidy DataFrame: a row per question and metric (``level="question"``) and a row per
metric and scope (``level="aggregate"``: the mean over questions with a percentile bootstrap 95% CI,
1000 resamples of the questions, seeded). Every row carries the knowledge base's signature.

Simplified: the whole ranking is retrieved by default (``depth=len(kb)``), which is exact and cheap for a
handbook; pass ``depth`` for a large store.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from aya_lab.errors import InputError
from aya_lab.eval.stats import bootstrap_ci

__all__ = ["COLUMNS", "evaluate_retrieval", "bootstrap_ci", "retrieval_by_question", "retrieval_summary"]

COLUMNS = [
    "level",
    "id",
    "question",
    "in_scope",
    "metric",
    "value",
    "ci_low",
    "ci_high",
    "n",
    "retrieved",
    "min_score",
    "kb_signature",
]


def _field(q: Any, name: str, i: int, default: Any = ...) -> Any:
    value = q.get(name, default) if isinstance(q, Mapping) else getattr(q, name, default)
    if value is ...:
        raise InputError(f"question {i} has no {name!r}: each question needs question, gold_docs, in_scope")
    return value


def _ranked_sources(hits: Iterable[Any]) -> list[str]:
    seen: list[str] = []
    for hit in hits:
        if hit.source not in seen:
            seen.append(hit.source)
    return seen


def evaluate_retrieval(
    kb: Any,
    questions: Iterable[Any],
    ks: Sequence[int] = (1, 3, 5),
    *,
    min_score: float | None = None,
    depth: int | None = None,
    n_bootstrap: int = 1000,
    seed: int = 0,
) -> pd.DataFrame:
    """Score ``kb.retrieve`` on ``questions`` (dicts or objects with ``question``, ``gold_docs``,
    ``in_scope`` and optionally ``id``); see the module docstring for the metrics and columns.

    ``min_score`` defaults to ``kb.min_score`` (the threshold ``KnowledgeBase.relevant`` uses).
    """
    ks = tuple(int(k) for k in ks)
    if not ks or min(ks) < 1:
        raise InputError(f"ks must be positive ranks such as (1, 3, 5); got {ks}")
    threshold = float(kb.min_score if min_score is None else min_score)
    depth = int(depth if depth is not None else max(len(kb), 1))
    signature = getattr(kb, "signature", "")
    rows: list[dict[str, Any]] = []
    for i, q in enumerate(questions):
        rows += _question_rows(kb, q, i, ks, depth, threshold)
    if not rows:
        raise InputError("no questions to evaluate")

    per_question = pd.DataFrame(rows)
    aggregates = _aggregates(per_question, n_bootstrap, seed)
    df = pd.concat([per_question, pd.DataFrame(aggregates)], ignore_index=True)
    df["min_score"] = threshold
    df["kb_signature"] = signature
    df.attrs.update(
        {
            "min_score": threshold,
            "kb_signature": signature,
            "ks": ks,
            "depth": depth,
            "n_bootstrap": n_bootstrap,
            "seed": seed,
        }
    )
    return df.reindex(columns=COLUMNS)


def _question_rows(kb: Any, q: Any, i: int, ks: tuple[int, ...], depth: int, threshold: float) -> list[dict[str, Any]]:
    """The per-question rows of question ``q`` (number ``i``): one row per metric."""
    text = _field(q, "question", i)
    gold = list(_field(q, "gold_docs", i, []) or [])
    in_scope = bool(_field(q, "in_scope", i, bool(gold)))
    if in_scope and not gold:
        raise InputError(f"question {i} ({text!r}) is in scope but names no gold_docs")
    qid = _field(q, "id", i, None) or f"q{i:03d}"
    hits = kb.retrieve(text, k=depth)
    ranked = _ranked_sources(hits)
    top = float(hits[0].score) if hits else float("-inf")
    base = {
        "level": "question",
        "id": qid,
        "question": text,
        "in_scope": in_scope,
        "n": 1,
        "retrieved": ",".join(ranked),
    }
    metrics: dict[str, float] = {"top_score": top}
    if in_scope:
        gold_set = set(gold)
        for k in ks:
            found = len(gold_set & set(ranked[:k]))
            metrics[f"hit@{k}"] = float(found > 0)
            metrics[f"recall@{k}"] = found / min(k, len(gold_set))
        first = next((r for r, s in enumerate(ranked, start=1) if s in gold_set), None)
        metrics["mrr"] = 1.0 / first if first else 0.0
        metrics["answered"] = float(top >= threshold)
    else:
        metrics["idk"] = float(top < threshold)
    return [{**base, "metric": m, "value": v} for m, v in metrics.items()]


def _aggregates(per_question: pd.DataFrame, n_bootstrap: int, seed: int) -> list[dict[str, Any]]:
    """One aggregate row per (metric, scope): the mean with its percentile bootstrap 95% CI."""
    out = []
    for (metric, in_scope), group in per_question.groupby(["metric", "in_scope"], sort=False):
        values = group["value"].to_numpy(dtype=float)
        low, high = bootstrap_ci(values, n_bootstrap=n_bootstrap, seed=seed)
        out.append(
            {
                "level": "aggregate",
                "id": None,
                "question": None,
                "in_scope": in_scope,
                "metric": metric,
                "value": float(values.mean()),
                "ci_low": low,
                "ci_high": high,
                "n": int(values.size),
                "retrieved": None,
            }
        )
    return out


def retrieval_summary(df: pd.DataFrame) -> pd.DataFrame:
    """The aggregate rows as a small table: one row per (scope, metric) with value and 95% CI."""
    agg = df[df["level"] == "aggregate"].copy()
    agg["scope"] = np.where(agg["in_scope"].astype(bool), "in-scope", "out-of-scope")
    return agg.set_index(["scope", "metric"])[["value", "ci_low", "ci_high", "n"]].sort_index()


def retrieval_by_question(df: pd.DataFrame) -> pd.DataFrame:
    """The per-question rows as a wide table: one row per question id (in input order) with its
    ``question``, ``in_scope`` and ``retrieved`` (the distinct sources, best first) and one column per
    metric (``hit@k``, ``recall@k``, ``mrr``, ``answered`` are NaN for out-of-scope questions, ``idk``
    for in-scope ones)."""
    rows = df[df["level"] == "question"]
    if rows.empty:
        raise InputError("no per-question rows: pass the DataFrame evaluate_retrieval returned")
    order = list(dict.fromkeys(rows["id"]))
    meta = rows.drop_duplicates("id").set_index("id")[["question", "in_scope", "retrieved"]]
    metrics = list(dict.fromkeys(rows["metric"]))
    wide = rows.pivot(index="id", columns="metric", values="value")[metrics]
    out = meta.join(wide).loc[order]
    out.columns.name = None
    return out
