"""Floors for the retrieval metrics: a random ranking and BM25 over the knowledge base's own chunks.

They are systems of the ``retrieval`` report (:func:`~aya_lab.eval.retrieval.evaluate_retrieval` with
``floors=True``, the default of ``run("retrieval")``): beside the embedder (``kb.retrieve``, the baseline),
each ranking metric (``hit@k``, ``recall@k``, ``mrr``; in-scope questions, defined as in
:mod:`aya_lab.eval.retrieval`) as a mean with a percentile bootstrap 95% CI over questions (the same seeded
resamples for all three), and in the report's ``paired`` table each floor minus the embedder, paired over
questions. :func:`floors_table` shows them side by side.

- **BM25** (:class:`BM25Ranker`): ``rank_bm25.BM25Okapi`` (k1 = 1.5, b = 0.75, its defaults) over the
  same chunks the embedder searches (:meth:`~aya_lab.rag.knowledge_base.KnowledgeBase.chunks`), tokens
  = lower-cased ``\\w+`` runs; ties keep the chunks' order. Its ranking is scored by the same code as the
  embedder's.
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
from collections.abc import Mapping, Sequence
from math import comb
from typing import NamedTuple

import pandas as pd
from rank_bm25 import BM25Okapi

from aya_lab.errors import InputError
from aya_lab.eval.report import Report

__all__ = ["BM25Ranker", "Hit", "SYSTEMS", "floors_table", "random_expectation", "random_items", "bm25_tokens"]

SYSTEMS = ("embedder", "bm25", "random")
_TOKEN = re.compile(r"\w+")


class Hit(NamedTuple):
    """One ranked chunk: what :func:`~aya_lab.eval.retrieval.evaluate_retrieval` reads of a hit."""

    source: str
    score: float
    text: str


def bm25_tokens(text: str) -> list[str]:
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
        corpus = [bm25_tokens(text) for _, text in self.chunks]
        if not any(corpus):
            raise InputError("BM25 needs chunks with words; every chunk is empty")
        self.index = BM25Okapi(corpus)
        self.signature = f"bm25okapi(k1={self.index.k1},b={self.index.b};{len(self.chunks)} chunks)"

    def __len__(self) -> int:
        return len(self.chunks)

    def retrieve(self, query: str, k: int = 4) -> list[Hit]:
        """The ``k`` best chunks for ``query``, best first (ties in the chunks' order)."""
        scores = self.index.get_scores(bm25_tokens(query))
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


def random_items(gold: Mapping[str, Sequence[str]], sources: Sequence[str], ks: Sequence[int]) -> pd.DataFrame:
    """The random ranking's expected metrics per question id of ``gold`` (its gold documents; in-scope
    questions), over the distinct documents of ``sources``: one row per question, ``id`` and the metrics."""
    universe = set(sources)
    rows = []
    for qid, docs in gold.items():
        found, n_gold = len(universe & set(docs)), len(set(docs))
        rows.append({"id": qid, **random_expectation(len(universe), found, n_gold, ks)})
    return pd.DataFrame(rows)


def _cell(value: float, low: float, high: float, sign: str = "") -> str:
    return f"{value:{sign}.3f} [{low:{sign}.3f}, {high:{sign}.3f}]"


def floors_table(report: Report) -> pd.DataFrame:
    """The ranking metrics of a ``retrieval`` report as metric x system cells reading ``score [low, high]``
    (in-scope questions), then per floor its paired difference from the embedder, ``+delta [low, high]
    p=...`` (``p`` the bootstrap p-value; ``*`` where significant after Holm over the floors)."""
    rows = report.df[report.df["scope"].eq("in-scope") & report.df["metric"].str.match(r"(hit|recall)@|mrr$")]
    if rows["system"].nunique() < 2:
        raise InputError("this retrieval report has no floors: run it with floors=True")
    cells = {(r.metric, r.system): _cell(r.score, r.ci_low, r.ci_high) for r in rows.itertuples(index=False)}
    diffs = []
    for r in report.paired.itertuples(index=False):
        name = f"{r.system} - {r.baseline}"
        diffs.append(name)
        mark = "*" if r.significant else ""
        cells[(r.metric, name)] = f"{_cell(r.delta, r.ci_low, r.ci_high, '+')} p={r.p:.3f}{mark}"
    metrics = list(dict.fromkeys(rows["metric"]))
    columns = [*dict.fromkeys(rows["system"]), *dict.fromkeys(diffs)]
    table = pd.DataFrame([[cells.get((m, c), "") for c in columns] for m in metrics], index=metrics, columns=columns)
    table.index.name = "metric"
    return table
