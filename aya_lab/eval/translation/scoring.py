"""Scoring of translation runs: sacrebleu metrics, output-language checks and paired tests as tidy rows.

:func:`score_rows` turns the finished runs of :mod:`~.evaluate` into rows of
:data:`~.results.COLUMNS`: per dataset pair and hop, every metric of :data:`~aya_lab.eval.metrics.METRICS`
with its percentile bootstrap CI and paired tests against the baseline (documents resampled where the
set has document ids: :mod:`~.resampling`), the target-language and echo shares (:mod:`~.echo`), the
hallucination rate with its CI (:mod:`~.hallucination`), and the cost; then the same metrics pooled over pairs when there are several; finally Holm's correction
of each system-vs-baseline comparison across the pairs (:func:`add_holm`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

import aya_lab.eval.langid as _langid
from aya_lab.datasets.parallel import ParallelSet
from aya_lab.eval.metrics import METRICS, bleu_reliable, bleu_tokenizer
from aya_lab.eval.resampling import ALPHA, Units, analyse_group, cluster_labels, holm, units_for
from aya_lab.eval.translation.echo import echo_shares
from aya_lab.eval.translation.hallucination import HALLUCINATION_METRIC, hallucination_rate
from aya_lab.eval.translation.systems import TranslationSystem

__all__ = ["Run", "score_rows", "add_holm"]


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


def _base_row(
    system: TranslationSystem, ds: ParallelSet, pair: str, hop: str, metric: str, n: int, baseline: str, units: Units
) -> dict:
    sig = system.signature()
    nan = float("nan")
    return {
        "system": system.name,
        "dataset": ds.name,
        "split": ds.split,
        "src": ds.src if pair != "pooled" else "*",
        "tgt": ds.tgt if pair != "pooled" else "*",
        "pair": pair,
        "hop": hop,
        "metric": metric,
        "score": nan,
        "ci_low": nan,
        "ci_high": nan,
        "p_bootstrap": nan,
        "p_ar": nan,
        "significant": False,
        "p_holm": nan,
        "significant_holm": False,
        "delta": nan,
        "delta_low": nan,
        "delta_high": nan,
        "n": n,
        "resample_unit": units.kind,
        "n_units": units.n_units,
        "sacrebleu_signature": "",
        "reliable": True,
        "note": "",
        "model_fingerprint": sig.get("model_fingerprint", "-"),
        "prompt_hash": sig.get("prompt_hash", "-"),
        "graph_spec_hash": sig.get("graph_spec_hash", "-"),
        "dataset_id": ds.dataset_id if pair != "pooled" else "+".join(sorted({ds.name})),
        "baseline": baseline,
    }


def _metric_rows(system, ds, pair, hop, scores, tests, baseline, units, *, reliable=None, dataset_id=None) -> list:
    rows = []
    for metric in METRICS:
        s = scores[metric]
        row = _base_row(system, ds, pair, hop, metric, len(units.index), baseline, units)
        row.update(
            score=s.score,
            ci_low=s.ci_low,
            ci_high=s.ci_high,
            sacrebleu_signature=s.signature,
            reliable=s.reliable if reliable is None or metric != "BLEU" else reliable,
        )
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


def _check_rows(run: Run, system, baseline: str, units: Units) -> list[dict]:
    """Target-language share and echo shares (of the source, of the few-shot examples, either)."""
    ds, n = run.ds, len(run.outputs)
    rows = []
    share = _langid.target_share(run.outputs, run.tgt, src=run.src)
    row = _base_row(system, ds, ds.pair, run.hop, "target_lang_share", n, baseline, units)
    if share is None:
        row["note"] = f"n/a: the language identifier does not cover {run.tgt}"
    else:
        row["score"] = share
    rows.append(row)
    for metric, value in echo_shares(run.outputs, run.inputs, run.src, run.tgt).items():
        row = _base_row(system, ds, ds.pair, run.hop, metric, n, baseline, units)
        row["score"] = value
        rows.append(row)
    return rows


def _hallucination_row(run: Run, system, baseline: str, units: Units, n_bootstrap: int) -> dict:
    """The share of ``run``'s outputs the faithfulness gate would withhold, with its bootstrap CI."""
    row = _base_row(system, run.ds, run.ds.pair, run.hop, HALLUCINATION_METRIC, len(run.outputs), baseline, units)
    score, low, high = hallucination_rate(run.inputs, run.outputs, run.src, run.tgt, units, n_bootstrap)
    row.update(score=score, ci_low=low, ci_high=high)
    return row


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

    ``by_document``: resample documents where a set has document ids (else always segments);
    ``faithfulness``: add each run's ``hallucination_rate`` row (the multilingual encoder scores every output)."""
    rows: list[dict] = []
    groups: dict[tuple[str, str], list[Run]] = {}
    for run in runs:
        groups.setdefault((run.ds.dataset_id, run.hop), []).append(run)
    for (_, hop), group in groups.items():
        ds, tgt = group[0].ds, group[0].tgt
        units = units_for(ds.doc_ids if by_document else None, len(group[0].references))
        hyps = {r.system: r.outputs for r in group}
        scores, tests = analyse_group(
            hyps, group[0].references, tgt, units, baseline=baseline, n_bootstrap=n_bootstrap, n_ar=n_ar
        )
        for run in group:
            system = systems[run.system]
            rows += _metric_rows(system, ds, ds.pair, hop, scores[run.system], tests, baseline, units)
            if langid:
                rows += _check_rows(run, system, baseline, units)
            if faithfulness:
                rows.append(_hallucination_row(run, system, baseline, units, n_bootstrap))
            for metric in ("llm_calls", "prompt_tokens", "completion_tokens", "latency_s"):
                row = _base_row(system, ds, ds.pair, hop, metric, len(run.outputs), baseline, units)
                row["score"] = float(getattr(run, "calls" if metric == "llm_calls" else metric))
                rows.append(row)
    rows += _pooled_rows(runs, systems, baseline, n_bootstrap, n_ar, by_document)
    return add_holm(rows)


def add_holm(rows: list[dict]) -> list[dict]:
    """Fill ``p_holm``/``significant_holm``: Holm's correction across the pairs of one evaluation.

    For each system, hop and metric, the per-pair comparisons against the baseline form one family
    (pooled rows are not in it and keep NaN). A comparison's p-value is ``max(p_bootstrap, p_ar)``:
    ``significant`` asks both tests to reject, which is the same as asking the larger p to, so Holm
    adjusts that one. ``significant_holm`` is ``p_holm < ALPHA``.
    """
    families: dict[tuple, list[int]] = {}
    for i, row in enumerate(rows):
        if row["pair"] != "pooled" and row["metric"] in METRICS and row["p_bootstrap"] == row["p_bootstrap"]:
            families.setdefault((row["system"], row["hop"], row["metric"]), []).append(i)
    for members in families.values():
        p = [np.nanmax([rows[i]["p_bootstrap"], rows[i]["p_ar"]]) for i in members]
        for i, adjusted in zip(members, holm(p)):
            rows[i]["p_holm"] = float(adjusted)
            rows[i]["significant_holm"] = bool(adjusted < ALPHA)
    return rows


def _pooled_units(first: list[Run], by_document: bool) -> Units:
    """Documents of every pair as units (ids made unique per pair), segments where a pair has none."""
    labels, kinds = [], set()
    for r in first:
        docs = r.ds.doc_ids if by_document else None
        kinds.add("document" if docs is not None else "segment")
        labels += (
            [f"{r.ds.dataset_id}\x1f{d}" for d in docs]
            if docs is not None
            else [f"{r.ds.dataset_id}\x1f#{i}" for i in range(len(r.references))]
        )
    index = cluster_labels(labels, len(labels))
    kind = kinds.pop() if len(kinds) == 1 else "document+segment"
    return Units(kind, index, int(index.max()) + 1 if len(labels) else 0)


def _pooled_rows(runs, systems, baseline, n_bootstrap, n_ar, by_document) -> list[dict]:
    """Scores and paired tests over the concatenation of all pairs (per hop), when there are several."""
    rows: list[dict] = []
    for hop in dict.fromkeys(r.hop for r in runs):
        hop_runs = [r for r in runs if r.hop == hop]
        pairs = list(dict.fromkeys(r.ds.dataset_id for r in hop_runs))
        if len(pairs) < 2:
            continue
        per_system: dict[str, list[Run]] = {}
        for r in hop_runs:
            per_system.setdefault(r.system, []).append(r)
        complete = {s: rs for s, rs in per_system.items() if len(rs) == len(pairs)}
        if not complete:
            continue
        first = next(iter(complete.values()))
        order = [r.ds.dataset_id for r in first]
        tgts = [r.tgt for r in first]
        toks = {bleu_tokenizer(t) for t in tgts}
        tokenize = toks.pop() if len(toks) == 1 else "13a"
        reliable = len({bleu_tokenizer(t) for t in tgts}) == 1 and all(bleu_reliable(t) for t in tgts)

        def concat(rs, attr, order=order):
            by_id = {r.ds.dataset_id: r for r in rs}
            return [x for did in order for x in getattr(by_id[did], attr)]

        refs = concat(first, "references")
        hyps = {s: concat(rs, "outputs") for s, rs in complete.items()}
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
