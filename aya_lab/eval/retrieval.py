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

The result is the ``retrieval`` task's :class:`~aya_lab.eval.report.Report`: ``df`` has a row per system,
scope (the unit: ``in-scope`` or ``out-of-scope``) and metric, the mean over questions with a percentile
bootstrap 95% CI (``n_bootstrap`` resamples of the questions, seeded) and the ranker's ``signature``;
``items`` a row per system and question (``id``, ``question``, ``in_scope``, ``retrieved``: the distinct
sources, best first, and one column per metric, NaN where the metric does not apply). The knowledge
base's ranking is the system ``embedder``, the baseline. With ``floors=True`` the BM25 and random
rankings are systems too (ranking metrics, in-scope questions), and ``paired`` holds each floor minus the
embedder, paired over the in-scope questions (bootstrap CI and p-value ``p`` on the same resamples, Holm
over the floors per metric); :func:`floors_table` shows them side by side. The floors:

- **BM25** (:class:`BM25Ranker`): ``rank_bm25.BM25Okapi`` (k1 = 1.5, b = 0.75, its defaults) over the
  same chunks the embedder searches (:meth:`~aya_lab.rag.knowledge_base.KnowledgeBase.chunks`), tokens
  = lower-cased ``\\w+`` runs; ties keep the chunks' order.
- **Random** (:func:`random_expectation`): the documents in a uniformly random order, scored by
  expectation, exactly: with ``D`` documents, ``g`` of them gold and ``k <= D``,
  hit@k = 1 − C(D−g, k) / C(D, k); recall@k = (k·g/D) / min(k, |G|); MRR = Σ_r (1/r) · C(D−r, g−1) / C(D, g).
  Its CI is the spread of these expectations over the resampled questions.

Only the ranking metrics are compared: ``answered``/``idk`` depend on a cosine threshold that has no
BM25 or random counterpart.

Simplified: the whole ranking is retrieved by default (``depth=len(kb)``), which is exact and cheap for a
handbook; pass ``depth`` for a large store.
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager
from math import comb
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple, Protocol, cast

import pandas as pd
from rank_bm25 import BM25Okapi

from aya_lab.datasets.project import load_rag_questions
from aya_lab.errors import InputError
from aya_lab.eval.configs import EMBEDDERS, RetrievalConfig
from aya_lab.eval.report import Report, Task
from aya_lab.eval.resampling import bootstrap_ci, bootstrap_indices, holm_column, paired_bootstrap
from aya_lab.rag import KnowledgeBase, default_embeddings

if TYPE_CHECKING:
    from langchain_core.embeddings import Embeddings

__all__ = [
    "Ranker",
    "SCOPES",
    "RETRIEVAL_TASK",
    "bootstrap_ci",
    "evaluate_retrieval",
    "retrieval_by_question",
    "retrieval_table",
    "BM25Ranker",
    "Hit",
    "SYSTEMS",
    "floors_table",
    "random_expectation",
    "random_items",
    "bm25_tokens",
]

SYSTEMS = ("embedder", "bm25", "random")
SCOPES = ("in-scope", "out-of-scope")
"""The values of the report's unit column ``scope``."""
BASELINE = SYSTEMS[0]
_COLUMNS = ["system", "scope", "metric", "score", "ci_low", "ci_high", "n", "signature"]
_RANKING = r"(hit|recall)@\d+$|mrr$"


class _Hit(Protocol):
    @property
    def source(self) -> str: ...

    @property
    def score(self) -> float: ...


class Ranker(Protocol):
    """What :func:`evaluate_retrieval` asks of a knowledge base (a ``signature`` attribute is read when
    there is one; the floors read ``chunks()``)."""

    min_score: float

    def __len__(self) -> int: ...

    def retrieve(self, query: str, k: int = ...) -> Sequence[_Hit]: ...


class _Question(NamedTuple):
    id: str
    text: str
    gold: list[str]
    in_scope: bool


def _field(q: object, name: str, i: int, default: object = ...) -> object:
    value = q.get(name, default) if isinstance(q, Mapping) else getattr(q, name, default)
    if value is ...:
        raise InputError(f"question {i} has no {name!r}: each question needs question, gold_docs, in_scope")
    return value


def _questions(questions: Iterable[object]) -> list[_Question]:
    out = []
    for i, q in enumerate(questions):
        text = str(_field(q, "question", i))
        gold = [str(g) for g in cast(Iterable[object], _field(q, "gold_docs", i, []) or [])]
        in_scope = bool(_field(q, "in_scope", i, bool(gold)))
        if in_scope and not gold:
            raise InputError(f"question {i} ({text!r}) is in scope but names no gold_docs")
        out.append(_Question(str(_field(q, "id", i, None) or f"q{i:03d}"), text, gold, in_scope))
    if not out:
        raise InputError("no questions to evaluate")
    return out


def evaluate_retrieval(
    kb: Ranker,
    questions: Iterable[object],
    ks: Sequence[int] = (1, 3, 5),
    *,
    min_score: float | None = None,
    depth: int | None = None,
    floors: bool = False,
    chunks: Sequence[tuple[str, str]] | None = None,
    n_bootstrap: int = 1000,
    seed: int = 0,
) -> Report:
    """Score ``kb.retrieve`` on ``questions`` (dicts or objects with ``question``, ``gold_docs``,
    ``in_scope`` and optionally ``id``); see the module docstring for the report.

    ``min_score`` defaults to ``kb.min_score`` (the threshold ``KnowledgeBase.relevant`` uses).
    ``floors``: BM25 and a random order beside the embedder, over ``chunks`` (``(source, text)`` pairs,
    default ``kb.chunks()``: what the embedder searches); BM25 ranks to the same ``depth``.
    """
    ks = tuple(int(k) for k in ks)
    if not ks or min(ks) < 1:
        raise InputError(f"ks must be positive ranks such as (1, 3, 5); got {ks}")
    records = _questions(questions)
    threshold = float(kb.min_score if min_score is None else min_score)
    depth = int(depth if depth is not None else max(len(kb), 1))
    items = [_ranked_items(kb, records, ks, depth, threshold).assign(system=BASELINE)]
    signatures = {BASELINE: str(getattr(kb, "signature", ""))}
    if floors:
        floor_items, floor_sigs = _floors(records, _chunks(kb, chunks), ks, depth)
        items += floor_items
        signatures |= floor_sigs
    per = pd.concat(items, ignore_index=True)
    per = per[["system", *(c for c in per.columns if c != "system")]]
    df = _aggregates(per, signatures, n_bootstrap, seed)
    paired = _paired(per, [r.id for r in records if r.in_scope], n_bootstrap, seed) if floors else pd.DataFrame()
    meta = {
        "baseline": BASELINE, "units": ["scope"], "ks": list(ks), "depth": depth, "min_score": threshold,
        "kb_signature": signatures[BASELINE], "signatures": signatures, "n_questions": len(records),
        "n_in_scope": sum(r.in_scope for r in records), "floors": floors, "n_bootstrap": n_bootstrap, "seed": seed,
    }  # fmt: skip
    return Report("retrieval", df, per, paired, meta)


def _ranked_sources(hits: Iterable[_Hit]) -> list[str]:
    seen: list[str] = []
    for hit in hits:
        if hit.source not in seen:
            seen.append(hit.source)
    return seen


def _ranked_items(
    kb: Ranker, records: list[_Question], ks: tuple[int, ...], depth: int, threshold: float | None
) -> pd.DataFrame:
    """One row per question: its ranking and metrics (``threshold`` None: the ranking metrics only)."""
    rows = []
    for q in records:
        hits = kb.retrieve(q.text, k=depth)
        ranked = _ranked_sources(hits)
        top = float(hits[0].score) if hits else float("-inf")
        metrics: dict[str, float] = {} if threshold is None else {"top_score": top}
        if q.in_scope:
            gold = set(q.gold)
            for k in ks:
                found = len(gold & set(ranked[:k]))
                metrics[f"hit@{k}"] = float(found > 0)
                metrics[f"recall@{k}"] = found / min(k, len(gold))
            first = next((r for r, s in enumerate(ranked, start=1) if s in gold), None)
            metrics["mrr"] = 1.0 / first if first else 0.0
            if threshold is not None:
                metrics["answered"] = float(top >= threshold)
        elif threshold is not None:
            metrics["idk"] = float(top < threshold)
        rows.append({"id": q.id, "question": q.text, "in_scope": q.in_scope, "retrieved": ",".join(ranked), **metrics})
    return pd.DataFrame(rows)


def _chunks(kb: Ranker, chunks: Sequence[tuple[str, str]] | None) -> list[tuple[str, str]]:
    """``chunks``, else what ``kb.chunks()`` lists: the units the floors rank."""
    if chunks is not None:
        return list(chunks)
    listed = getattr(kb, "chunks", None)
    if not callable(listed):
        raise InputError("the retrieval floors rank the kb's chunks: pass chunks=[(source, text), ...]")
    return list(listed())


def _floors(
    records: list[_Question], chunks: list[tuple[str, str]], ks: tuple[int, ...], depth: int
) -> tuple[list[pd.DataFrame], dict[str, str]]:
    """The BM25 and random rankings' items (in-scope questions) and signatures."""
    in_scope = [r for r in records if r.in_scope]
    if not in_scope:
        raise InputError("no in-scope questions: the retrieval floors compare rankings of gold documents")
    bm25 = BM25Ranker(chunks)
    lexical = _ranked_items(bm25, in_scope, ks, min(depth, len(bm25)), None).assign(system=SYSTEMS[1])
    rand = random_items({r.id: r.gold for r in in_scope}, [s for s, _ in chunks], ks)
    text = {r.id: r.text for r in in_scope}
    rand.insert(1, "question", rand["id"].map(text))
    rand.insert(2, "in_scope", True)
    rand.insert(3, "retrieved", "")
    n_docs = len({s for s, _ in chunks})
    signatures = {SYSTEMS[1]: bm25.signature, SYSTEMS[2]: f"random order of {n_docs} documents (exact expectation)"}
    return [lexical, rand.assign(system=SYSTEMS[2])], signatures


def _metrics(per: pd.DataFrame) -> list[str]:
    return [c for c in per.columns if c not in ("system", "id", "question", "in_scope", "retrieved")]


def _aggregates(per: pd.DataFrame, signatures: Mapping[str, str], n_bootstrap: int, seed: int) -> pd.DataFrame:
    """One row per system, scope and metric: the mean over questions with its percentile bootstrap 95% CI."""
    out = []
    for system, rows in per.groupby("system", sort=False):
        for scope, flag in zip(SCOPES, (True, False), strict=True):
            for metric in _metrics(per):
                values = rows.loc[rows["in_scope"].astype(bool) == flag, metric].dropna().to_numpy(dtype=float)
                if not values.size:
                    continue
                low, high = bootstrap_ci(values, n_bootstrap=n_bootstrap, seed=seed)
                row = {"system": system, "scope": scope, "metric": metric, "score": float(values.mean())}
                out.append(
                    row | {"ci_low": low, "ci_high": high, "n": int(values.size), "signature": signatures[system]}
                )
    return pd.DataFrame(out, columns=_COLUMNS)


def _paired(per: pd.DataFrame, ids: list[str], n_bootstrap: int, seed: int) -> pd.DataFrame:
    """Each floor minus the embedder on the ranking metrics, paired over the in-scope questions ``ids``."""
    idx = bootstrap_indices(len(ids), n_bootstrap, seed)
    base = per[per["system"] == BASELINE].set_index("id").loc[ids]
    rows = []
    for system in SYSTEMS[1:]:
        other = per[per["system"] == system].set_index("id").loc[ids]
        for metric in (m for m in _metrics(per) if re.match(_RANKING, m)):
            x, y = base[metric].to_numpy(dtype=float), other[metric].to_numpy(dtype=float)
            test = paired_bootstrap(x, y, idx)
            rows.append(
                {"baseline": BASELINE, "system": system, "scope": SCOPES[0], "metric": metric,
                 "score_baseline": float(x.mean()), "score_system": float(y.mean()), "delta": test["diff"],
                 "ci_low": test["ci_low"], "ci_high": test["ci_high"], "p": test["p_value"], "n": len(ids)}
            )  # fmt: skip
    return holm_column(pd.DataFrame(rows))


def retrieval_table(report: Report, system: str | None = None) -> pd.DataFrame:
    """One row per (scope, metric) with ``system``'s ``score``, ``ci_low``, ``ci_high`` and ``n`` (default:
    the embedder); for the embedder, each floor's score beside it (their CIs and paired tests:
    :func:`~aya_lab.eval.retrieval.floors_table`)."""
    system = system or report.baseline or report.systems[0]
    if system not in report.systems:
        raise InputError(f"no system {system!r} in this retrieval report; it has: {', '.join(report.systems)}")
    by_system = {s: rows.set_index(["scope", "metric"]) for s, rows in report.df.groupby("system", sort=False)}
    table = by_system[system][["score", "ci_low", "ci_high", "n"]].sort_index()
    if system == report.baseline:
        for other in (s for s in report.systems if s != system):
            table[other] = by_system[other]["score"].reindex(table.index)
    return table


def retrieval_by_question(report: Report, system: str | None = None) -> pd.DataFrame:
    """``system``'s items (default: the embedder) as one row per question id, in input order, with its
    ``question``, ``in_scope`` and ``retrieved`` (the distinct sources, best first) and one column per
    metric (``hit@k``, ``recall@k``, ``mrr``, ``answered`` are NaN for out-of-scope questions, ``idk``
    for in-scope ones)."""
    system = system or report.baseline or report.systems[0]
    rows = report.items[report.items["system"] == system] if "system" in report.items else report.items
    if rows.empty:
        raise InputError(f"no per-question rows of {system!r}: pass the report evaluate_retrieval returned")
    out = rows.drop(columns="system").set_index("id").dropna(axis=1, how="all")
    out.columns.name = None
    return out


def _embedder(config: RetrievalConfig) -> Embeddings:
    if config.embedder is None or config.embedder == EMBEDDERS[0]:
        return default_embeddings()
    if isinstance(config.embedder, str):
        raise InputError(f"unknown embedder {config.embedder!r}; the embedders by name are: {', '.join(EMBEDDERS)}")
    return cast("Embeddings", config.embedder)


@contextmanager
def _knowledge_base(config: RetrievalConfig) -> Iterator[Ranker]:
    """The config's knowledge base: an open one as given, else a store opened (and built) for the run."""
    if config.kb is not None and not isinstance(config.kb, str | Path):
        fields = RetrievalConfig.model_fields
        building = [
            f for f in ("docs", "embedder", "chunk_size", "chunk_overlap") if getattr(config, f) != fields[f].default
        ]
        if building:
            raise InputError(f"{', '.join(building)}: options of a store the task builds, but an open kb was given")
        yield cast(Ranker, config.kb)
        return
    with ExitStack() as stack:
        if config.kb is not None:
            path = Path(config.kb)
        else:  # a store for this run only
            path = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="aya_lab_kb_"))) / "kb.sqlite"
        size, overlap = config.chunk_size, config.chunk_overlap
        kb = KnowledgeBase.open(path, config.docs, _embedder(config), chunk_size=size, chunk_overlap=overlap)
        yield stack.enter_context(kb)


def _run(config: RetrievalConfig) -> Report:
    given = config.questions
    questions = load_rag_questions(given) if given is None or isinstance(given, str | Path) else given
    with _knowledge_base(config) as kb:
        return evaluate_retrieval(
            kb, cast(Iterable[object], questions), config.ks, min_score=config.min_score, depth=config.depth,
            floors=config.floors, n_bootstrap=config.n_bootstrap, seed=config.seed,
        )  # fmt: skip


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


RETRIEVAL_TASK = Task(
    "retrieval", "knowledge-base retrieval beside BM25 and random floors", RetrievalConfig, _run, retrieval_table
)
