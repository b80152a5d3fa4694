"""Translation evaluation: systems x language pairs -> a tidy :class:`~aya_lab.eval.translation.results.Results`.

:func:`evaluate_translation` loads each pair of a dataset, runs every system over it in chunks
(``chunk_size`` segments per ``translate`` call, with each segment's document context), then scores
with sacrebleu (:mod:`aya_lab.eval.metrics`), checks the output language (:mod:`aya_lab.eval.langid`),
and runs paired tests of every system against the baseline, per pair and pooled over pairs.

A :class:`~aya_lab.eval.translation.systems.PivotSystem` is scored per hop: ``src-pivot`` (xx -> en, against the
dataset's English side), ``pivot-tgt`` (en -> yy from the gold English) and ``e2e``.

Resuming: model-backed systems go through the generation cache, so a killed run re-generates only
what is missing. With ``checkpoint=PATH`` the evaluator also keeps every finished chunk's outputs in a
JSONL file keyed by system signature, hop and the chunk's exact inputs, which makes resumption work
for any system, cached or not.
"""

from __future__ import annotations

import hashlib
import json
import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

import aya_lab
import aya_lab.eval.langid as _langid
from aya_lab.datasets.parallel import MAX_CONTEXT_WINDOW, ParallelSet, document_contexts, load_parallel, parse_pair
from aya_lab.eval.metrics import METRICS, bleu_reliable, bleu_tokenizer, paired_tests, score_corpus
from aya_lab.eval.stats import ALPHA
from aya_lab.eval.translation.results import COLUMNS, OUTPUT_COLUMNS, Results
from aya_lab.eval.translation.specs import resolve_system
from aya_lab.eval.translation.systems import PivotSystem, TranslationSystem, signature_hash
from aya_lab.models.base import record_generations

__all__ = ["evaluate_translation"]


@dataclass
class _Run:
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


class _Checkpoint:
    """Finished chunks in a JSONL file (a truncated last line from a killed run is ignored)."""

    def __init__(self, path: str | Path | None) -> None:
        self.path = Path(path) if path else None
        self.done: dict[str, dict] = {}
        if self.path and self.path.exists():
            for line in self.path.read_text(encoding="utf-8").splitlines():
                try:
                    item = json.loads(line)
                except json.JSONDecodeError:
                    continue
                self.done[item["key"]] = item

    def get(self, key: str) -> dict | None:
        return self.done.get(key)

    def put(self, key: str, item: dict) -> None:
        item = {"key": key, **item}
        self.done[key] = item
        if self.path:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a", encoding="utf-8") as fh:
                fh.write(json.dumps(item, ensure_ascii=False) + "\n")


def _chunk_key(sig: str, hop: str, src: str, tgt: str, texts: list[str], context: list[list[str]]) -> str:
    payload = json.dumps([sig, hop, src, tgt, texts, context], ensure_ascii=False)
    return hashlib.sha256(payload.encode()).hexdigest()


def _progress_bar(total: int, progress: bool | None):
    if progress is None:
        progress = bool(getattr(sys.stderr, "isatty", lambda: False)())
    if not progress:
        return None
    from tqdm.auto import tqdm

    return tqdm(total=total, desc="translating", unit="chunk")


def _run_chunks(
    run: _Run, call, context: list[list[str]], sig: str, chunk_size: int, checkpoint: _Checkpoint, bar
) -> None:
    outputs: list[str] = []
    for start in range(0, len(run.inputs), chunk_size):
        texts = run.inputs[start : start + chunk_size]
        ctx = context[start : start + chunk_size]
        key = _chunk_key(sig, run.hop, run.src, run.tgt, texts, ctx)
        item = checkpoint.get(key)
        if item is None:
            with record_generations() as records:
                got = list(call(texts, ctx))
            if len(got) != len(texts):
                raise ValueError(
                    f"system {run.system!r} returned {len(got)} outputs for {len(texts)} inputs "
                    f"({run.src}->{run.tgt}); translate() must return one output per input"
                )
            item = {
                "outputs": [str(x) for x in got],
                "calls": len(records),
                "prompt_tokens": sum(r.result.prompt_tokens for r in records),
                "completion_tokens": sum(r.result.completion_tokens for r in records),
            }
            checkpoint.put(key, item)
        outputs += item["outputs"]
        run.calls += item["calls"]
        run.prompt_tokens += item["prompt_tokens"]
        run.completion_tokens += item["completion_tokens"]
        if bar is not None:
            bar.update(1)
    run.outputs = outputs


def _parse_pairs(pairs) -> list[tuple[str, str]]:
    if isinstance(pairs, str):
        pairs = [p for p in pairs.split(",") if p.strip()]
    out = [parse_pair(p) for p in pairs]
    if not out:
        raise ValueError("no language pairs given; pass e.g. pairs=['eng-swh']")
    return list(dict.fromkeys(out))


def evaluate_translation(
    systems: Sequence[TranslationSystem | str],
    dataset: str,
    pairs: Sequence[str | tuple[str, str]] | str,
    n: int | None = None,
    *,
    split: str | None = None,
    baseline: str | None = None,
    n_bootstrap: int = 1000,
    n_ar: int = 10000,
    chunk_size: int = 64,
    context_window: int = MAX_CONTEXT_WINDOW,
    langid: bool = True,
    progress: bool | None = None,
    checkpoint: str | Path | None = None,
    verify: bool = False,
) -> Results:
    """Evaluate ``systems`` on ``dataset`` for each of ``pairs``; return :class:`Results`.

    ``systems``: :class:`TranslationSystem` objects or spec strings (see
    :func:`~aya_lab.eval.translation.specs.resolve_system`); names must be unique. ``pairs``: ``"eng-swh"``,
    ``("eng", "Swahili")``, or a comma-separated string. ``n``: first ``n`` segments of each pair.
    ``baseline``: the system the others are tested against (default: the first). ``progress``: a
    tqdm bar (``None``: only when stderr is a terminal, so notebooks stay clean). ``checkpoint``: a
    JSONL file of finished chunks that lets a killed run resume (see the module docstring).
    """
    resolved = [resolve_system(s) for s in systems]
    if not resolved:
        raise ValueError("evaluate_translation needs at least one system; got an empty list")
    names = [s.name for s in resolved]
    dupes = sorted({x for x in names if names.count(x) > 1})
    if dupes:
        raise ValueError(f"system names must be unique; repeated: {', '.join(dupes)} (name them NAME=SPEC)")
    baseline = baseline or names[0]
    if baseline not in names:
        raise ValueError(f"baseline {baseline!r} is not one of the systems: {', '.join(names)}")
    if chunk_size <= 0:
        raise ValueError("chunk_size must be positive")
    pair_list = _parse_pairs(pairs)
    sets = [load_parallel(dataset, s, t, split=split, n=n, verify=verify) for s, t in pair_list]
    for system in resolved:
        if isinstance(system, PivotSystem):
            for ds in sets:
                if system.hops(ds.src, ds.tgt) and ds.english is None:
                    raise ValueError(f"{ds.dataset_id} has no English side, which pivot system {system.name!r} needs")

    ckpt = _Checkpoint(checkpoint)
    n_chunks = sum(math.ceil(len(ds) / chunk_size) for ds in sets)
    total = sum(n_chunks * (3 if isinstance(s, PivotSystem) else 1) for s in resolved)
    bar = _progress_bar(total, progress)
    runs: list[_Run] = []
    try:
        for system in resolved:
            sig = signature_hash(system)
            for ds in sets:
                contexts = document_contexts(ds.sources, ds.doc_ids, min(context_window, MAX_CONTEXT_WINDOW))
                if isinstance(system, PivotSystem) and system.hops(ds.src, ds.tgt):
                    piv = system.pivot
                    hop1 = _Run(system.name, ds, "src-pivot", ds.src, piv, ds.sources, ds.english)
                    _run_chunks(
                        hop1,
                        lambda t, c, s=system, d=ds: s.hop1(t, d.src, context=c),
                        contexts,
                        sig,
                        chunk_size,
                        ckpt,
                        bar,
                    )
                    mid_ctx = document_contexts(hop1.outputs, ds.doc_ids, min(context_window, MAX_CONTEXT_WINDOW))
                    e2e = _Run(system.name, ds, "e2e", ds.src, ds.tgt, hop1.outputs, ds.references)
                    _run_chunks(
                        e2e,
                        lambda t, c, s=system, d=ds: s.hop2(t, d.tgt, context=c),
                        mid_ctx,
                        sig,
                        chunk_size,
                        ckpt,
                        bar,
                    )
                    e2e.inputs = ds.sources  # echo is judged against the original source
                    e2e.calls += hop1.calls
                    e2e.prompt_tokens += hop1.prompt_tokens
                    e2e.completion_tokens += hop1.completion_tokens
                    eng_ctx = document_contexts(ds.english, ds.doc_ids, min(context_window, MAX_CONTEXT_WINDOW))
                    hop2 = _Run(system.name, ds, "pivot-tgt", piv, ds.tgt, ds.english, ds.references)
                    _run_chunks(
                        hop2,
                        lambda t, c, s=system, d=ds: s.hop2(t, d.tgt, context=c),
                        eng_ctx,
                        sig,
                        chunk_size,
                        ckpt,
                        bar,
                    )
                    runs += [e2e, hop1, hop2]
                else:
                    run = _Run(system.name, ds, "e2e", ds.src, ds.tgt, ds.sources, ds.references)
                    _run_chunks(
                        run,
                        lambda t, c, s=system, d=ds: s.translate(t, d.src, d.tgt, context=c),
                        contexts,
                        sig,
                        chunk_size,
                        ckpt,
                        bar,
                    )
                    runs.append(run)
    finally:
        if bar is not None:
            bar.close()

    by_name = {s.name: s for s in resolved}
    rows = _score_rows(runs, by_name, baseline, dataset, n_bootstrap, n_ar, langid)
    df = pd.DataFrame(rows, columns=COLUMNS)
    outputs = pd.DataFrame(
        [
            {
                "system": r.system,
                "dataset_id": r.ds.dataset_id,
                "pair": r.ds.pair,
                "src": r.ds.src,
                "tgt": r.ds.tgt,
                "hop": r.hop,
                "idx": i,
                "source": inp,
                "reference": ref,
                "hypothesis": hyp,
            }
            for r in runs
            for i, (inp, ref, hyp) in enumerate(zip(r.inputs, r.references, r.outputs))
        ],
        columns=OUTPUT_COLUMNS,
    )
    import sacrebleu

    meta = {
        "kind": "translation",
        "dataset": dataset,
        "split": sets[0].split,
        "n": n,
        "pairs": [ds.pair for ds in sets],
        "dataset_ids": [ds.dataset_id for ds in sets],
        "licenses": {ds.dataset_id: ds.license for ds in sets},
        "baseline": baseline,
        "systems": {s.name: s.signature() for s in resolved},
        "n_bootstrap": n_bootstrap,
        "n_ar": n_ar,
        "chunk_size": chunk_size,
        "context_window": context_window,
        "aya_lab_version": aya_lab.__version__,
        "sacrebleu_version": sacrebleu.__version__,
    }
    return Results(df, outputs, meta)


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


def _score_rows(
    runs: list[_Run], systems: dict, baseline: str, dataset: str, n_bootstrap: int, n_ar: int, langid: bool
) -> list[dict]:
    rows: list[dict] = []
    groups: dict[tuple[str, str], list[_Run]] = {}
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
        per_system: dict[str, list[_Run]] = {}
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
