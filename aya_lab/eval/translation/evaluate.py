"""Translation evaluation: systems x language pairs -> the ``translation`` task's :class:`~aya_lab.eval.report.Report`.

:func:`evaluate_translation` loads each pair of a dataset, runs every system over it in chunks
(``chunk_size`` segments per ``translate`` call, with each segment's document context), then scores
with sacrebleu (:mod:`aya_lab.eval.metrics`), checks the output language (:mod:`aya_lab.eval.langid`),
measures the hallucination rate (:mod:`~aya_lab.eval.translation.hallucination`),
and runs paired tests of every system against the baseline, per pair and pooled over pairs. How it
runs (segments, chunking, resampling, progress, checkpoint) is an
:class:`~aya_lab.eval.translation.config.EvalConfig`, or the same options as keywords.

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
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd
import sacrebleu

import aya_lab
from aya_lab.datasets.parallel import MAX_CONTEXT_WINDOW, ParallelSet, document_contexts, load_parallel, plan_datasets
from aya_lab.errors import InputError
from aya_lab.eval.progress import SweepCounter, sweep_progress
from aya_lab.eval.report import Report
from aya_lab.eval.translation.config import RESAMPLE, EvalConfig
from aya_lab.eval.translation.results import COLUMNS, OUTPUT_COLUMNS, translation_report
from aya_lab.eval.translation.scoring import Run, score_rows
from aya_lab.eval.translation.specs import resolve_system
from aya_lab.eval.translation.systems import PivotSystem, TranslationSystem, prompt_notes, signature_hash
from aya_lab.models.base import record_generations
from aya_lab.models.result import usage

__all__ = ["EvalConfig", "evaluate_translation", "RESAMPLE"]


class _Checkpoint:
    """Finished chunks in a JSONL file.

    A run killed mid-write leaves a broken last line; it is dropped from the file on open (so the
    next chunk starts on a clean line) and its chunk is run again; a whole last record missing only its
    newline is kept and its line ended. Broken lines elsewhere are skipped.
    """

    def __init__(self, path: str | Path | None) -> None:
        self.path = Path(path) if path else None
        self.done: dict[str, dict] = {}
        if self.path and self.path.exists():
            self._load(self.path)

    def _load(self, path: Path) -> None:
        raw = path.read_bytes()
        lines = raw.split(b"\n")
        good_end = 0  # byte offset just past the last line that parsed (or the last complete line)
        offset = 0
        for k, line in enumerate(lines):
            end = offset + len(line) + (1 if k < len(lines) - 1 else 0)
            try:
                item = json.loads(line.decode("utf-8")) if line.strip() else None
            except (UnicodeDecodeError, json.JSONDecodeError):
                item = None
                if k < len(lines) - 1:  # a broken line in the middle: skip it, keep what follows
                    good_end = end
            else:
                good_end = end
                if isinstance(item, dict) and "key" in item:
                    self.done[item["key"]] = item
            offset = end
        if good_end < len(raw):
            with path.open("r+b") as fh:
                fh.truncate(good_end)
        elif raw and not raw.endswith(b"\n"):  # killed between a whole record and its newline: end the line
            with path.open("ab") as fh:
                fh.write(b"\n")

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


def _run_chunks(
    run: Run, call, context: list[list[str]], sig: str, chunk_size: int, checkpoint: _Checkpoint, bar: SweepCounter
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
            item = {"outputs": [str(x) for x in got], **usage(records)}
            checkpoint.put(key, item)
            bar.add(len(texts), records)
        else:
            bar.add(len(texts), resumed=True)
        outputs += item["outputs"]
        run.calls += item["calls"]
        run.prompt_tokens += item["prompt_tokens"]
        run.completion_tokens += item["completion_tokens"]
        run.latency_s += item.get("latency_s", 0.0)  # checkpoints written before it was recorded: 0
    run.outputs = outputs


def _check_systems(systems: Sequence[TranslationSystem | str], baseline: str | None) -> tuple[list, str]:
    resolved = [resolve_system(s) for s in systems]
    if not resolved:
        raise InputError("evaluate_translation needs at least one system; got an empty list")
    names = [s.name for s in resolved]
    dupes = sorted({x for x in names if names.count(x) > 1})
    if dupes:
        raise InputError(f"system names must be unique; repeated: {', '.join(dupes)} (name them NAME=SPEC)")
    baseline = baseline or names[0]
    if baseline not in names:
        raise InputError(f"baseline {baseline!r} is not one of the systems: {', '.join(names)}")
    return resolved, baseline


def _check_pivots(resolved: list, sets: list[ParallelSet]) -> None:
    for system in resolved:
        if isinstance(system, PivotSystem):
            for ds in sets:
                if system.hops(ds.src, ds.tgt) and ds.english is None:
                    raise InputError(f"{ds.dataset_id} has no English side, which pivot system {system.name!r} needs")


def evaluate_translation(
    systems: Sequence[TranslationSystem | str],
    dataset: str | Sequence[str],
    pairs: Sequence[str | tuple[str, str]] | str | None = None,
    n: int | None = None,
    *,
    config: EvalConfig | None = None,
    **options: object,
) -> Report:
    """Evaluate ``systems`` on ``dataset`` for each of ``pairs``; return the ``translation`` report.

    ``systems``: :class:`TranslationSystem` objects or spec strings (see
    :func:`~aya_lab.eval.translation.specs.resolve_system`); names must be unique. ``dataset``: a name,
    a ``files:`` spec, or a list of them. ``pairs``: ``"eng-swh"``, ``("eng", "Swahili")``, or a
    comma-separated string; a ``files:`` set takes exactly one pair, its own or the only one given
    (:func:`~aya_lab.datasets.parallel.plan_datasets`; anything else raises).

    How it runs is an :class:`~aya_lab.eval.translation.config.EvalConfig` (``config``, default:
    every option at its default); ``n`` (which may stay the fourth positional argument, as before)
    and keyword ``options`` such as ``docs=3, progress=False`` replace the config's fields; an unknown
    one is a ``TypeError`` naming it. ``meta`` records the options that shape the numbers.
    """
    cfg = _config(config, n, options)
    resolved, baseline = _check_systems(systems, cfg.baseline)
    plan = plan_datasets(dataset, pairs)
    sets = [
        load_parallel(name, s, t, split=cfg.split, n=cfg.n, verify=cfg.verify, docs=cfg.docs) for name, s, t in plan
    ]
    _check_pivots(resolved, sets)
    window = min(cfg.context_window, MAX_CONTEXT_WINDOW)
    ckpt = _Checkpoint(cfg.checkpoint)
    total = sum(
        len(ds) * (3 if isinstance(s, PivotSystem) and s.hops(ds.src, ds.tgt) else 1) for s in resolved for ds in sets
    )
    runs: list[Run] = []
    with sweep_progress(total, "translating", enabled=cfg.progress) as bar:
        for system in resolved:
            sig = signature_hash(system)
            for ds in sets:
                runs += _run_system(system, ds, sig, window, cfg.chunk_size, ckpt, bar)
    by_name = {s.name: s for s in resolved}
    by_document = cfg.resample == "auto"
    rows = score_rows(
        runs, by_name, baseline, cfg.n_bootstrap, cfg.n_ar, cfg.langid, by_document=by_document,
        faithfulness=cfg.faithfulness,
    )  # fmt: skip
    meta = _meta(dataset, sets, cfg, baseline, resolved)
    meta.update(generations=bar.as_dict())
    return translation_report(pd.DataFrame(rows, columns=COLUMNS), _outputs_frame(runs), meta)


def _config(config: EvalConfig | None, n: int | None, options: dict[str, Any]) -> EvalConfig:
    """``config`` (default: all defaults) with ``n`` (when given) and ``options`` replacing its fields."""
    if config is not None and not isinstance(config, EvalConfig):
        raise TypeError(f"config must be an EvalConfig, got {type(config).__name__}; e.g. config=EvalConfig(n=6)")
    return (config or EvalConfig()).with_options(**({"n": n} if n is not None else {}), **options)


def _run_system(system, ds: ParallelSet, sig: str, window: int, chunk_size: int, ckpt, bar) -> list[Run]:
    """The runs of one system on one pair: ``e2e``, plus the two hops of a pivot system."""
    contexts = document_contexts(ds.sources, ds.doc_ids, window)
    if getattr(system, "needs_references", False):  # e.g. the other-sentence floor
        system.use_references(ds.src, ds.tgt, ds.sources, ds.references)
    if not (isinstance(system, PivotSystem) and system.hops(ds.src, ds.tgt)):
        run = Run(system.name, ds, "e2e", ds.src, ds.tgt, ds.sources, ds.references)
        _run_chunks(
            run, lambda t, c: system.translate(t, ds.src, ds.tgt, context=c), contexts, sig, chunk_size, ckpt, bar
        )
        return [run]
    hop2_call = lambda t, c: system.hop2(t, ds.tgt, context=c)  # noqa: E731
    english = ds.english
    assert english is not None, "pivot runs need ds.english (checked by the caller)"
    hop1 = Run(system.name, ds, "src-pivot", ds.src, system.pivot, ds.sources, english)
    _run_chunks(hop1, lambda t, c: system.hop1(t, ds.src, context=c), contexts, sig, chunk_size, ckpt, bar)
    e2e = Run(system.name, ds, "e2e", ds.src, ds.tgt, hop1.outputs, ds.references)
    mid_ctx = document_contexts(hop1.outputs, ds.doc_ids, window)
    _run_chunks(e2e, hop2_call, mid_ctx, sig, chunk_size, ckpt, bar)
    e2e.inputs = ds.sources  # echo is judged against the original source
    e2e.calls += hop1.calls
    e2e.prompt_tokens += hop1.prompt_tokens
    e2e.completion_tokens += hop1.completion_tokens
    e2e.latency_s += hop1.latency_s
    hop2 = Run(system.name, ds, "pivot-tgt", system.pivot, ds.tgt, english, ds.references)
    eng_ctx = document_contexts(english, ds.doc_ids, window)
    _run_chunks(hop2, hop2_call, eng_ctx, sig, chunk_size, ckpt, bar)
    return [e2e, hop1, hop2]


def _outputs_frame(runs: list[Run]) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "system": r.system,
                "dataset_id": r.ds.dataset_id,
                "pair": r.ds.pair,
                "src": r.ds.src,
                "tgt": r.ds.tgt,
                "hop": r.hop,
                "idx": i,
                "doc_id": r.ds.doc_ids[i] if r.ds.doc_ids is not None else "",
                "source": inp,
                "reference": ref,
                "hypothesis": hyp,
            }
            for r in runs
            for i, (inp, ref, hyp) in enumerate(zip(r.inputs, r.references, r.outputs))
        ],
        columns=OUTPUT_COLUMNS,
    )


def _meta(dataset, sets: list[ParallelSet], cfg: EvalConfig, baseline: str, resolved: list) -> dict:
    """The run's record: the config's result-shaping options (the split and baseline as resolved),
    what was evaluated, and the versions that scored it."""
    return {
        **cfg.as_meta(),
        "kind": "translation",
        "dataset": dataset if isinstance(dataset, str) else ";".join(dataset),
        "split": sets[0].split,
        "pairs": [ds.pair for ds in sets],
        "dataset_ids": [ds.dataset_id for ds in sets],
        "licenses": {ds.dataset_id: ds.license for ds in sets},
        "baseline": baseline,
        "systems": {s.name: s.signature() for s in resolved},
        "prompt_notes": prompt_notes(resolved),  # a base model given the completion prompt instead, per system
        "aya_lab_version": aya_lab.__version__,
        "sacrebleu_version": sacrebleu.__version__,
    }
