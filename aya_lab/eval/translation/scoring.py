"""Scoring of translation runs: sacrebleu metrics, output-language checks and paired tests as tidy rows.

:func:`score_rows` turns the finished runs of :mod:`~.evaluate` into rows of
:data:`~.results.COLUMNS`: per dataset pair and hop, every metric of :data:`~aya_lab.eval.metrics.METRICS`
with its percentile bootstrap CI and paired tests against the baseline, the target-language and echo
shares, and the cost; then the same metrics pooled over pairs when there are several.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import aya_lab.eval.langid as _langid
from aya_lab.datasets.parallel import ParallelSet
from aya_lab.eval.metrics import METRICS, bleu_reliable, bleu_tokenizer, paired_tests, score_corpus
from aya_lab.eval.stats import ALPHA
from aya_lab.eval.translation.systems import TranslationSystem

__all__ = ["Run", "score_rows"]


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


def _base_row(
    system: TranslationSystem, ds: ParallelSet, pair: str, hop: str, metric: str, n: int, baseline: str
) -> dict:
    sig = system.signature()
    return {
        "system": system.name,
        "dataset": ds.name,
        "split": ds.split,
        "src": ds.src if pair != "pooled" else "*",
        "tgt": ds.tgt if pair != "pooled" else "*",
        "pair": pair,
        "hop": hop,
        "metric": metric,
        "score": float("nan"),
        "ci_low": float("nan"),
        "ci_high": float("nan"),
        "p_bootstrap": float("nan"),
        "p_ar": float("nan"),
        "significant": False,
        "n": n,
        "sacrebleu_signature": "",
        "reliable": True,
        "note": "",
        "model_fingerprint": sig.get("model_fingerprint", "-"),
        "prompt_hash": sig.get("prompt_hash", "-"),
        "graph_spec_hash": sig.get("graph_spec_hash", "-"),
        "dataset_id": ds.dataset_id if pair != "pooled" else "+".join(sorted({ds.name})),
        "baseline": baseline,
    }


def _metric_rows(
    system,
    ds,
    pair,
    hop,
    hyps,
    refs,
    tgt,
    baseline,
    n_bootstrap,
    tests,
    *,
    tokenize=None,
    reliable=None,
    dataset_id=None,
) -> list[dict]:
    rows = []
    scores = score_corpus(hyps, refs, tgt, n_bootstrap=n_bootstrap, tokenize=tokenize)
    for metric in METRICS:
        s = scores[metric]
        row = _base_row(system, ds, pair, hop, metric, len(hyps), baseline)
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
            row.update(
                p_bootstrap=p["p_bootstrap"],
                p_ar=p["p_ar"],
                significant=bool(p["p_bootstrap"] < ALPHA and p["p_ar"] < ALPHA),
            )
        rows.append(row)
    return rows


def score_rows(runs: list[Run], systems: dict, baseline: str, n_bootstrap: int, n_ar: int, langid: bool) -> list[dict]:
    """Rows of :data:`~.results.COLUMNS` for ``runs`` (per dataset pair and hop, then pooled)."""
    rows: list[dict] = []
    groups: dict[tuple[str, str], list[Run]] = {}
    for run in runs:
        groups.setdefault((run.ds.dataset_id, run.hop), []).append(run)
    for (_, hop), group in groups.items():
        ds = group[0].ds
        tgt = group[0].tgt
        base = next((r for r in group if r.system == baseline), None)
        tests = {}
        if base is not None:
            others = {r.system: r.outputs for r in group if r.system != baseline}
            if others:
                tests = paired_tests(base.outputs, others, base.references, tgt, n_bootstrap=n_bootstrap, n_ar=n_ar)
        for run in group:
            system = systems[run.system]
            rows += _metric_rows(
                system, ds, ds.pair, hop, run.outputs, run.references, tgt, baseline, n_bootstrap, tests
            )
            if langid:
                share = _langid.target_share(run.outputs, run.tgt, src=run.src)
                row = _base_row(system, ds, ds.pair, hop, "target_lang_share", len(run.outputs), baseline)
                if share is None:
                    row["note"] = f"n/a: the language identifier does not cover {run.tgt}"
                else:
                    row["score"] = share
                rows.append(row)
                row = _base_row(system, ds, ds.pair, hop, "echo_share", len(run.outputs), baseline)
                row["score"] = _langid.echo_share(run.outputs, run.inputs)
                rows.append(row)
            for metric in ("llm_calls", "prompt_tokens", "completion_tokens"):
                row = _base_row(system, ds, ds.pair, hop, metric, len(run.outputs), baseline)
                row["score"] = float(getattr(run, "calls" if metric == "llm_calls" else metric))
                rows.append(row)
    rows += _pooled_rows(runs, systems, baseline, n_bootstrap, n_ar)
    return rows


def _pooled_rows(runs, systems, baseline, n_bootstrap, n_ar) -> list[dict]:
    """Scores and paired tests over the concatenation of all pairs (per hop), when there are several."""
    rows: list[dict] = []
    hops = list(dict.fromkeys(r.hop for r in runs))
    for hop in hops:
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
        tests = {}
        if baseline in hyps and len(hyps) > 1:
            others = {s: h for s, h in hyps.items() if s != baseline}
            tests = paired_tests(
                hyps[baseline], others, refs, None, n_bootstrap=n_bootstrap, n_ar=n_ar, tokenize=tokenize
            )
        ds = first[0].ds
        dataset_id = "+".join(order)
        for s, h in hyps.items():
            rows += _metric_rows(
                systems[s],
                ds,
                "pooled",
                hop,
                h,
                refs,
                None,
                baseline,
                n_bootstrap,
                tests,
                tokenize=tokenize,
                reliable=reliable,
                dataset_id=dataset_id,
            )
    return rows
