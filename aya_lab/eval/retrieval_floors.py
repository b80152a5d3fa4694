"""Floors for the retrieval metrics: a random ranking and BM25 over the knowledge base's own chunks.

:func:`compare_retrieval` reports, side by side, the embedder (``kb.retrieve``), BM25 and a random
ranking on the same questions, each metric (``hit@k``, ``recall@k``, ``mrr``; in-scope questions, defined
as in :mod:`aya_lab.eval.retrieval`) as a mean with a percentile bootstrap 95% CI over questions (the
same seeded resamples for all three).

- **BM25** (:class:`BM25Ranker`): ``rank_bm25.BM25Okapi`` (k1 = 1.5, b = 0.75, its defaults) over the
  same chunks the embedder searches (:meth:`~aya_lab.rag.knowledge_base.KnowledgeBase.chunks`), tokens
  = lower-cased ``\\w+`` runs; ties keep the chunks' order. Its ranking goes through
  :func:`~aya_lab.eval.retrieval.evaluate_retrieval` like the embedder's, so both are scored by one code.
- **Random** (:func:`random_expectation`): the documents in a uniformly random order, scored by
  expectation, exactly (no sampling): with ``D`` documents, ``g`` of them gold and ``k <= D``,
  hit@k = 1 − C(D−g, k) / C(D, k); recall@k = (k·g/D) / min(k, |G|); MRR = Σ_r (1/r) · C(D−r, g−1) / C(D, g)
  (the first gold document at rank r). With 6 documents and one gold, hit@1 = 1/6 and MRR = H₆/6 ≈ 0.408.
  Its CI is the spread of these expectations over the resampled questions (the questions' sampling, as
  for the other two; a random ranker's own luck is averaged out).

Only the ranking metrics are compared: ``answered``/``idk`` depend on a cosine threshold that has no
BM25 or random counterpart.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from math import comb
from typing import Any, NamedTuple

import pandas as pd
from rank_bm25 import BM25Okapi

from aya_lab.errors import InputError
from aya_lab.eval.retrieval import evaluate_retrieval
from aya_lab.eval.stats import bootstrap_indices, paired_bootstrap, percentile_ci

__all__ = ["BM25Ranker", "Hit", "SYSTEMS", "compare_retrieval", "floors_table", "random_expectation", "tokenize"]

SYSTEMS = ("embedder", "bm25", "random")
_TOKEN = re.compile(r"\w+")


class Hit(NamedTuple):
    """One ranked chunk: what :func:`~aya_lab.eval.retrieval.evaluate_retrieval` reads of a hit."""

    source: str
    score: float
    text: str


def tokenize(text: str) -> list[str]:
    """Lower-cased ``\\w+`` runs (BM25's tokens)."""
    return _TOKEN.findall(text.lower())


class BM25Ranker:
    """BM25 over ``chunks`` (``(source, text)`` pairs), with the ``retrieve``/``len``/``min_score``/
    ``signature`` that :func:`~aya_lab.eval.retrieval.evaluate_retrieval` needs."""

    min_score = 0.0

    def __init__(self, chunks: Sequence[tuple[str, str]]) -> None:
        self.chunks = [(str(source), str(text)) for source, text in chunks]
        if not self.chunks:
            raise InputError("BM25 needs at least one chunk; the knowledge base is empty")
        corpus = [tokenize(text) for _, text in self.chunks]
        if not any(corpus):
            raise InputError("BM25 needs chunks with words; every chunk is empty")
        self.index = BM25Okapi(corpus)
        self.signature = f"bm25okapi(k1={self.index.k1},b={self.index.b};{len(self.chunks)} chunks)"

    def __len__(self) -> int:
        return len(self.chunks)

    def retrieve(self, query: str, k: int = 4) -> list[Hit]:
        """The ``k`` best chunks for ``query``, best first (ties in the chunks' order)."""
        scores = self.index.get_scores(tokenize(query))
        order = sorted(range(len(self.chunks)), key=lambda i: (-scores[i], i))[:k]
        return [Hit(self.chunks[i][0], float(scores[i]), self.chunks[i][1]) for i in order]


def random_expectation(n_docs: int, n_gold_found: int, n_gold: int, ks: Sequence[int]) -> dict[str, float]:
    """Expected ``hit@k``, ``recall@k`` and ``mrr`` of a uniformly random ranking of ``n_docs`` documents,
    ``n_gold_found`` of which are gold (``n_gold``: the question's gold documents, the recall denominator's
    |G|, which may name documents the knowledge base lacks). See the module docstring for the formulas."""
    d, g = int(n_docs), int(n_gold_found)
    if d < 1 or not 0 <= g <= d or n_gold < max(g, 1):
        raise InputError(f"random_expectation needs 0 <= gold found <= documents, got {g} of {d} (|G| = {n_gold})")
    out: dict[str, float] = {}
    for k in ks:
        top = min(int(k), d)
        out[f"hit@{k}"] = 1.0 - comb(d - g, top) / comb(d, top)
        out[f"recall@{k}"] = (top * g / d) / min(int(k), n_gold)
    out["mrr"] = sum(comb(d - r, g - 1) / comb(d, g) / r for r in range(1, d - g + 2)) if g else 0.0
    return out


def _field(q: Any, name: str, default: Any = None) -> Any:
    return q.get(name, default) if isinstance(q, Mapping) else getattr(q, name, default)


def _random_rows(questions: list[Any], sources: list[str], ks: Sequence[int]) -> pd.DataFrame:
    """Per in-scope question, the random ranking's expected metrics (a ``per-question`` frame, wide)."""
    universe = set(sources)
    rows = []
    for i, q in enumerate(questions):
        gold = list(_field(q, "gold_docs", []) or [])
        if not bool(_field(q, "in_scope", bool(gold))):
            continue
        qid = _field(q, "id") or f"q{i:03d}"
        rows.append({"id": qid, **random_expectation(len(universe), len(universe & set(gold)), len(set(gold)), ks)})
    return pd.DataFrame(rows).set_index("id")


def _wide(df: pd.DataFrame, metrics: list[str]) -> pd.DataFrame:
    rows = df[(df["level"] == "question") & df["in_scope"].astype(bool) & df["metric"].isin(metrics)]
    return rows.pivot(index="id", columns="metric", values="value")


def compare_retrieval(
    kb: Any,
    questions: Iterable[Any],
    ks: Sequence[int] = (1, 3, 5),
    *,
    chunks: Sequence[tuple[str, str]] | None = None,
    n_bootstrap: int = 1000,
    seed: int = 0,
) -> pd.DataFrame:
    """The embedder, BM25 and a random ranking side by side on ``questions`` (see the module docstring).

    ``chunks``: ``(source, text)`` pairs for BM25 and the random ranking's documents (default
    ``kb.chunks()``: what the embedder searches). Returns one row per (metric, system) with ``value``,
    ``ci_low``, ``ci_high``, ``n`` (in-scope questions) and ``signature``, in-scope questions only; then per
    metric the rows ``embedder - bm25`` and ``embedder - random``: the paired mean difference over
    questions, its 95% CI and a two-sided paired bootstrap ``p_value``
    (:func:`~aya_lab.eval.stats.paired_bootstrap`).
    """
    questions = list(questions)
    chunks = list(chunks if chunks is not None else kb.chunks())
    metrics = [m for k in ks for m in (f"hit@{k}", f"recall@{k}")] + ["mrr"]
    bm25 = BM25Ranker(chunks)
    embedder = evaluate_retrieval(kb, questions, ks, n_bootstrap=0, seed=seed)
    lexical = evaluate_retrieval(bm25, questions, ks, n_bootstrap=0, seed=seed)
    wide = {"embedder": _wide(embedder, metrics), "bm25": _wide(lexical, metrics)}
    order = list(wide["embedder"].index)
    if not order:
        raise InputError("no in-scope questions: the retrieval floors compare rankings of gold documents")
    wide["random"] = _random_rows(questions, [s for s, _ in chunks], ks)
    idx = bootstrap_indices(len(order), n_bootstrap, seed)
    signatures = {"embedder": str(getattr(kb, "signature", "")), "bm25": bm25.signature}
    signatures["random"] = f"random order of {len({s for s, _ in chunks})} documents (exact expectation)"
    rows = []
    for metric in metrics:
        values = {system: wide[system].loc[order, metric].to_numpy(dtype=float) for system in SYSTEMS}
        for system in SYSTEMS:
            low, high = percentile_ci(values[system][idx].mean(axis=1))
            row = {"metric": metric, "system": system, "value": float(values[system].mean()), "ci_low": low}
            rows.append({**row, "ci_high": high, "p_value": float("nan"), "n": len(order), **_sig(signatures[system])})
        for floor in SYSTEMS[1:]:  # the embedder minus each floor, paired over questions
            test = paired_bootstrap(values[floor], values["embedder"], idx)
            row = {"metric": metric, "system": f"embedder - {floor}", "value": test["diff"], "ci_low": test["ci_low"]}
            rows.append({**row, "ci_high": test["ci_high"], "p_value": test["p_value"], "n": len(order), **_sig("")})
    return pd.DataFrame(rows)


def _sig(signature: str) -> dict[str, str]:
    return {"signature": signature}


def floors_table(df: pd.DataFrame) -> pd.DataFrame:
    """:func:`compare_retrieval`'s rows as metric x system cells reading ``value [low, high]`` (differences:
    ``+diff [low, high] p=...``)."""
    cells = df.assign(cell=[f"{v:.3f} [{lo:.3f}, {hi:.3f}]" for v, lo, hi in zip(df.value, df.ci_low, df.ci_high)])
    diffs = df["system"].str.contains(" - ")
    cells.loc[diffs, "cell"] = [
        f"{v:+.3f} [{lo:+.3f}, {hi:+.3f}] p={p:.3f}"
        for v, lo, hi, p in zip(df.value[diffs], df.ci_low[diffs], df.ci_high[diffs], df.p_value[diffs])
    ]
    table = cells.pivot(index="metric", columns="system", values="cell")
    return table.reindex(index=list(dict.fromkeys(df["metric"])), columns=list(dict.fromkeys(df["system"])))
