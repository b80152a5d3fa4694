"""Scoring translation runs: corpus metrics with paired tests, and the checks an output can fail.

:func:`score_rows` turns the finished runs of :mod:`~.evaluate` into rows of :data:`~.results.COLUMNS`:
per dataset pair and hop, every metric of :data:`~aya_lab.eval.metrics.METRICS` with its bootstrap CI
and paired tests against the baseline (:func:`~aya_lab.eval.resampling.analyse_group`: documents as
units where the set has document ids), the target-language share, the echo shares, the hallucination
rate and the cost; then the metrics pooled over pairs when there are several; then Holm across the
pairs (:func:`add_holm`).

The checks:

- **echo** (:func:`echo_flags`): an output echoes its *source* when sacrebleu's sentence chrF against it
  is at least :data:`~aya_lab.langid.ECHO_CHRF` (80; identical text scores 100), and a few-shot
  *example* when it equals (after case, spacing and edge punctuation) or scores chrF >= 80 against either
  side of any record of the completion prompts' pool (:data:`FEWSHOT_POOL`) in the pair's languages. A
  base model sometimes repeats an example instead of translating: fluent target-language text that
  passes the language check and can beat the copy floor. The whole pool is checked, not only the
  examples a prompt showed; a pool record never comes from a test set.
- **hallucination** (:func:`hallucination_flags`): the output's faithfulness score against its source
  (:mod:`aya_lab.agents.faithfulness`, cross-lingual similarity) is below the pair's calibrated
  threshold, or the output is empty: the share of outputs the room's gate would withhold. Its CI
  resamples the same units as the metrics. A copied source scores 1.0 and is no hallucination here (the
  echo shares count it); a wrong number or a dropped clause mostly passes.
- **failure categories** (:func:`failure_category`), for error analysis: the first of
  :data:`FAILURE_CATEGORIES` that applies, checked with the room's translation guard. ``cut off`` means
  none of the others but the whole new-token budget used; ``passes the checks`` is not "correct".
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

import aya_lab.langid as _langid
from aya_lab.agents.faithfulness import faithfulness_scores, threshold_for
from aya_lab.agents.guard import TranslationGuard
from aya_lab.datasets.parallel import ParallelSet
from aya_lab.eval.metrics import METRICS, bleu_reliable, bleu_tokenizer
from aya_lab.eval.report import COST_METRICS
from aya_lab.eval.resampling import (
    ALPHA,
    BLOCK,
    FEW_UNITS,
    Units,
    analyse_group,
    cluster_bootstrap_counts,
    cluster_labels,
    holm_column,
    percentile_ci,
    sacrebleu_seed,
    share_ci,
    units_for,
)
from aya_lab.eval.translation.results import COLUMNS
from aya_lab.eval.translation.specs import TranslationSystem
from aya_lab.eval.translation.systems import NO_SIGNATURE
from aya_lab.languages import UnknownLanguageError, get_language
from aya_lab.prompts import PromptError, load_pool
from aya_lab.sentence_chrf import shared_chrf

__all__ = [
    "FAILURE_CATEGORIES",
    "FEWSHOT_POOL",
    "HALLUCINATION_METRIC",
    "Run",
    "add_holm",
    "echo_flags",
    "echo_shares",
    "failure_category",
    "failure_counts",
    "hallucination_flags",
    "hallucination_rate",
    "loops",
    "pool_sentences",
    "score_rows",
]

FEWSHOT_POOL = "translations"
"""The few-shot pool the completion translation prompts draw their examples from."""
HALLUCINATION_METRIC = "hallucination_rate"
"""The metric name of the rate in the results table."""
FAILURE_CATEGORIES = ["empty", "echo", "answers the message", "wrong language", "loop", "length", "wrong number"]
FAILURE_CATEGORIES += ["unfaithful", "cut off", "passes the checks"]
_GUARD = TranslationGuard()
_EDGE = re.compile(r"^[\W_]+|[\W_]+$")
_COSTS = tuple(COST_METRICS)


@dataclass
class Run:
    """Outputs of one system on one pair and hop, with the inputs, references and cost behind them."""

    system: str
    ds: ParallelSet
    hop: str
    src: str  # languages of this hop
    tgt: str
    inputs: list[str]
    references: list[str]
    outputs: list[str] = field(default_factory=list)
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_s: float = 0.0  # model seconds: the generations' recorded latencies, summed


# --- echo --------------------------------------------------------------------------------------------


def _norm(text: str) -> str:
    return _EDGE.sub("", " ".join(unicodedata.normalize("NFC", text).casefold().split()))


def _code(key: str) -> str | None:
    try:
        return get_language(key).code
    except (UnknownLanguageError, ValueError):
        return None


def pool_sentences(src: str, tgt: str, pool: str = FEWSHOT_POOL) -> list[str]:
    """Sentences of few-shot ``pool`` in the source or target language of the pair (empty when the pool
    lacks both languages, or is missing: then no prompt could have shown an example)."""
    wanted = {get_language(src).code, get_language(tgt).code}
    try:
        records = load_pool(pool)
    except PromptError:
        return []
    return [text for record in records for key, text in record.items() if _code(key) in wanted and text.strip()]


def echo_flags(
    outputs: Sequence[str],
    sources: Sequence[str],
    src: str,
    tgt: str,
    *,
    examples: Sequence[str] | None = None,
    threshold: float = _langid.ECHO_CHRF,
) -> list[tuple[bool, bool]]:
    """Per output, ``(echoes its source, echoes a few-shot example)``; ``examples`` defaults to
    :func:`pool_sentences` of the pair. Empty outputs echo nothing."""
    if len(outputs) != len(sources):
        raise ValueError(f"{len(outputs)} outputs but {len(sources)} sources")
    examples = pool_sentences(src, tgt) if examples is None else list(examples)
    normed, chrf = {_norm(e) for e in examples}, shared_chrf()

    return [
        (
            _langid.echoes(out, source, threshold),
            _norm(text) in normed or any(chrf.reaches(out, e, threshold) for e in examples),
        )
        if (text := out.strip())
        else (False, False)
        for out, source in zip(outputs, sources)
    ]


def echo_shares(
    outputs: Sequence[str], sources: Sequence[str], src: str, tgt: str, *, examples: Sequence[str] | None = None
) -> dict[str, float]:
    """``echo_share`` (either kind), ``echo_source_share`` and ``echo_example_share`` of ``outputs``, 0..1
    (NaN for no outputs)."""
    flags = echo_flags(outputs, sources, src, tgt, examples=examples)
    n = len(flags) or float("nan")  # no outputs: every share NaN
    return {
        "echo_share": sum(a or b for a, b in flags) / n,
        "echo_source_share": sum(a for a, _ in flags) / n,
        "echo_example_share": sum(b for _, b in flags) / n,
    }


# --- hallucination and failure categories ------------------------------------------------------------


def hallucination_flags(sources: Sequence[str], outputs: Sequence[str], src: str, tgt: str) -> np.ndarray:
    """Per output, whether the faithfulness gate would withhold it (empty outputs: ``True``)."""
    if len(sources) != len(outputs):
        raise ValueError(f"{len(outputs)} outputs but {len(sources)} sources")
    flags = np.array([not o.strip() for o in outputs], dtype=bool)
    todo = [i for i, o in enumerate(outputs) if o.strip()]
    if todo:
        scores = faithfulness_scores([sources[i] for i in todo], [outputs[i] for i in todo])
        flags[todo] = scores < threshold_for(src, tgt)
    return flags


def hallucination_rate(
    sources: Sequence[str], outputs: Sequence[str], src: str, tgt: str, units: Units, n_bootstrap: int = 1000
) -> tuple[float, float, float]:
    """``(rate, ci_low, ci_high)`` of :func:`hallucination_flags` (0..1; NaN for no outputs; CI NaN
    without bootstrap), resampling ``units`` with sacrebleu's seed."""
    flags = hallucination_flags(sources, outputs, src, tgt).astype(float)
    nan = float("nan")
    if not flags.size:
        return nan, nan, nan
    if n_bootstrap <= 1 or units.n_units == 0:
        return float(flags.mean()), nan, nan
    hits, sizes = np.zeros(units.n_units), np.zeros(units.n_units)
    np.add.at(hits, units.index, flags)
    np.add.at(sizes, units.index, 1.0)
    counts = cluster_bootstrap_counts(units.n_units, n_bootstrap, sacrebleu_seed()).astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        boot = (counts @ hits) / (counts @ sizes)
    return (float(flags.mean()), *share_ci(*percentile_ci(boot), hits, sizes))


def loops(text: str) -> bool:
    """Whether one three-word sequence occurs three times or more in ``text`` (case-insensitive)."""
    words = text.lower().split()
    return max(Counter(zip(words, words[1:], words[2:], strict=False)).values(), default=0) >= 3


def failure_category(src: str, tgt: str, source: str, output: str, generated: int = 0, limit: int | None = None) -> str:
    """The first of :data:`FAILURE_CATEGORIES` that ``output`` (a ``src``→``tgt`` translation of
    ``source``, ``generated`` new tokens of at most ``limit``) falls in; ``cut off`` needs ``limit``."""
    failed = {reason.split(":")[0] for reason in _GUARD.check(source, output, src, tgt).reasons}
    hits = ["empty" in failed, "echo" in failed, "assistant" in failed, "language" in failed, loops(output)]
    hits += [bool(failed & {"length", "example"}), "numbers" in failed, "faithful" in failed]
    hits += [limit is not None and generated >= limit, True]
    return FAILURE_CATEGORIES[hits.index(True)]


def failure_counts(outputs: pd.DataFrame, systems: Sequence[str] | None = None) -> pd.DataFrame:
    """Per system (rows, in ``systems`` order), how many of ``outputs`` fall in each category.

    ``outputs`` has the columns of a translation report's ``items`` plus a ``category`` column (from
    :func:`failure_category`); every category is a column, zero where none fell in it.
    """
    if "category" not in outputs.columns:
        raise ValueError("failure_counts: outputs has no 'category' column; add it with failure_category()")
    table = pd.crosstab(outputs["system"], pd.Categorical(outputs["category"], FAILURE_CATEGORIES), dropna=False)
    table.columns.name = None
    return table.reindex(list(systems)) if systems is not None else table


# --- rows --------------------------------------------------------------------------------------------

_DEFAULTS: dict[str, object] = {**dict.fromkeys(COLUMNS, float("nan")), "significant": False}
_DEFAULTS.update(significant_holm=False, sacrebleu_signature="", reliable=True, note="")


def _row(
    system: TranslationSystem, ds: ParallelSet, pair: str, hop: str, metric: str, n: int, baseline: str, units: Units
) -> dict:
    sig, pooled = system.signature(), pair == "pooled"
    return {
        **_DEFAULTS, "system": system.name, "dataset": ds.name, "split": ds.split,
        "src": "*" if pooled else ds.src, "tgt": "*" if pooled else ds.tgt, "pair": pair, "hop": hop,
        "metric": metric, "n": n, "resample_unit": units.kind, "n_units": units.n_units,
        "few_units": units.n_units < FEW_UNITS,
        **{k: sig.get(k, "-") for k in NO_SIGNATURE}, "dataset_id": ds.name if pooled else ds.dataset_id,
        "baseline": baseline,
    }  # fmt: skip


def _metric_rows(system, ds, pair, hop, scores, tests, baseline, units, *, reliable=None, dataset_id=None) -> list:
    rows = []
    for metric in METRICS:
        s = scores[metric]
        row = _row(system, ds, pair, hop, metric, len(units.index), baseline, units)
        row.update(score=s.score, ci_low=s.ci_low, ci_high=s.ci_high, sacrebleu_signature=s.signature)
        row["reliable"] = s.reliable if reliable is None or metric != "BLEU" else reliable
        if metric == "BLEU" and not row["reliable"]:
            row["note"] = "BLEU unreliable for a script without spaces; read chrF"
        if dataset_id:
            row["dataset_id"] = dataset_id
        p = tests.get((system.name, metric))
        if p is not None:
            row.update({k: p[k] for k in ("p_bootstrap", "p_ar", "delta", "delta_low", "delta_high")})
            row["significant"] = bool(p["p_bootstrap"] < ALPHA and p["p_ar"] < ALPHA)
        rows.append(row)
    return rows


def _check_rows(
    run: Run, system, baseline: str, units: Units, n_bootstrap: int, langid: bool, faithfulness: bool
) -> list:
    """Target-language and echo shares (with ``langid``), the hallucination rate with its CI (with
    ``faithfulness``), then the cost."""
    ds, n = run.ds, len(run.outputs)
    rows = []
    if langid:
        share = _langid.target_share(run.outputs, run.tgt, src=run.src)
        row = _row(system, ds, ds.pair, run.hop, "target_lang_share", n, baseline, units)
        if share is None:
            row["note"] = f"n/a: the language identifier does not cover {run.tgt}"
        rows.append(row if share is None else {**row, "score": share})
        for metric, value in echo_shares(run.outputs, run.inputs, run.src, run.tgt).items():
            rows.append({**_row(system, ds, ds.pair, run.hop, metric, n, baseline, units), "score": value})
    if faithfulness:
        score, low, high = hallucination_rate(run.inputs, run.outputs, run.src, run.tgt, units, n_bootstrap)
        row = _row(system, ds, ds.pair, run.hop, HALLUCINATION_METRIC, n, baseline, units)
        rows.append({**row, "score": score, "ci_low": low, "ci_high": high})
    for metric in _COSTS:
        value = float(getattr(run, "calls" if metric == "llm_calls" else metric))
        rows.append({**_row(system, ds, ds.pair, run.hop, metric, n, baseline, units), "score": value})
    return rows


def score_rows(
    runs: list[Run],
    systems: dict,
    baseline: str,
    n_bootstrap: int,
    n_ar: int,
    langid: bool,
    *,
    by_document=True,
    faithfulness: bool = True,
) -> list[dict]:
    """Rows of :data:`~.results.COLUMNS` for ``runs`` (per dataset pair and hop, then pooled), Holm-adjusted.

    ``by_document``: resample documents where a set has document ids, else blocks of :data:`BLOCK` segments
    (``False``: always segments); ``langid``:
    add the language and echo rows; ``faithfulness``: add each run's ``hallucination_rate`` row (the
    multilingual encoder scores every output)."""
    rows: list[dict] = []
    groups: dict[tuple[str, str], list[Run]] = {}
    for run in runs:
        groups.setdefault((run.ds.dataset_id, run.hop), []).append(run)
    for (_, hop), group in groups.items():
        ds, tgt = group[0].ds, group[0].tgt
        units = units_for(ds.doc_ids if by_document else None, len(group[0].references), BLOCK if by_document else 1)
        hyps = {r.system: r.outputs for r in group}
        scores, tests = analyse_group(
            hyps, group[0].references, tgt, units, baseline=baseline, n_bootstrap=n_bootstrap, n_ar=n_ar
        )
        for run in group:
            system = systems[run.system]
            rows += _metric_rows(system, ds, ds.pair, hop, scores[run.system], tests, baseline, units)
            rows += _check_rows(run, system, baseline, units, n_bootstrap, langid, faithfulness)
    rows += _pooled_rows(runs, systems, baseline, n_bootstrap, n_ar, by_document)
    return add_holm(rows)


def add_holm(rows: list[dict]) -> list[dict]:
    """Fill ``p_holm``/``significant_holm``: Holm's correction across the pairs of one evaluation.

    For each system, hop and metric, the per-pair comparisons against the baseline form one family
    (pooled rows are not in it and keep NaN). A comparison's p-value is ``max(p_bootstrap, p_ar)``:
    ``significant`` asks both tests to reject, which is the same as asking the larger p to, so Holm
    adjusts that one (:func:`~aya_lab.eval.resampling.holm_column`).
    """
    tested = [
        i
        for i, r in enumerate(rows)
        if r["pair"] != "pooled" and r["metric"] in METRICS and r["p_bootstrap"] == r["p_bootstrap"]
    ]
    if not tested:
        return rows
    frame = pd.DataFrame([rows[i] for i in tested], index=tested)
    frame["p"] = np.fmax(frame["p_bootstrap"], frame["p_ar"])
    adjusted = holm_column(frame, by=["system", "hop", "metric"])
    for i, p, significant in zip(tested, adjusted["p_holm"], adjusted["significant"]):
        rows[i].update(p_holm=float(p), significant_holm=bool(significant))
    return rows


def _pooled_units(first: list[Run], by_document: bool) -> Units:
    """Documents as units: one document of a set is one unit across every pair it appears in (``eng-fra``
    and ``eng-deu`` of the same English texts are not independent, nor are ``fra-eng`` and ``swh-eng`` of a
    multi-parallel set with one reference); blocks of :data:`BLOCK` segments, one pair's own, where a pair
    has no documents (segments when not by document)."""
    labels, kinds = [], set()
    for r in first:
        units = units_for(r.ds.doc_ids if by_document else None, len(r.references), BLOCK if by_document else 1)
        kinds.add(units.kind)
        if units.kind == "document":
            labels += [f"{r.ds.name}\x1f{r.ds.split}\x1f{d}" for d in r.ds.doc_ids or []]
        else:
            labels += [f"{r.ds.dataset_id}\x1f{k}" for k in units.index]
    index = cluster_labels(labels, len(labels))
    kind = "+".join(sorted(kinds, key=lambda k: (k != "document", k)))
    return Units(kind, index, int(index.max()) + 1 if labels else 0)


def _pooled_rows(runs, systems, baseline, n_bootstrap, n_ar, by_document) -> list[dict]:
    """Scores and paired tests over the concatenation of all pairs (per hop), when there are several."""
    rows: list[dict] = []
    for hop in dict.fromkeys(r.hop for r in runs):
        hop_runs = [r for r in runs if r.hop == hop]
        pairs = list(dict.fromkeys(r.ds.dataset_id for r in hop_runs))
        per_system: dict[str, list[Run]] = {}
        for r in hop_runs:
            per_system.setdefault(r.system, []).append(r)
        complete = {s: {r.ds.dataset_id: r for r in rs} for s, rs in per_system.items() if len(rs) == len(pairs)}
        if len(pairs) < 2 or not complete:
            continue
        first = list(next(iter(complete.values())).values())
        order, tgts = [r.ds.dataset_id for r in first], [r.tgt for r in first]
        toks = {bleu_tokenizer(t) for t in tgts}
        tokenize = next(iter(toks)) if len(toks) == 1 else "13a"
        reliable = len(toks) == 1 and all(bleu_reliable(t) for t in tgts)
        refs = [x for r in first for x in r.references]
        hyps = {s: [x for did in order for x in by_id[did].outputs] for s, by_id in complete.items()}
        units = _pooled_units(first, by_document)
        scores, tests = analyse_group(
            hyps, refs, None, units, baseline=baseline, n_bootstrap=n_bootstrap, n_ar=n_ar, tokenize=tokenize
        )
        for s in hyps:
            rows += _metric_rows(
                systems[s], first[0].ds, "pooled", hop, scores[s], tests, baseline, units,
                reliable=reliable, dataset_id="+".join(order),
            )  # fmt: skip
    return rows
