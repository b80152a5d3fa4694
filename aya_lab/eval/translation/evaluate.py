"""Translation evaluation: systems x language pairs -> the ``translation`` task's report.

:func:`evaluate_translation` loads each pair of a dataset, runs every system over it in chunks
(``chunk_size`` segments per ``translate`` call, with each segment's document context), then scores the
outputs (:mod:`~.scoring`). How it runs is an :class:`~aya_lab.eval.configs.EvalConfig`, or the same
options as keywords. :func:`sweep_translation` runs every ``user_translate`` prompt variant on the same
inputs; :data:`TRANSLATION_TASK` is the task ``run("translation", ...)`` runs.

A :class:`~.systems.PivotSystem` is scored per hop: ``src-pivot`` (xx -> en, against the dataset's
English side), ``pivot-tgt`` (en -> yy from the gold English) and ``e2e``.

Resuming: model-backed systems go through the generation cache, so a killed run re-generates only what
is missing. With ``checkpoint=PATH`` the evaluator also keeps every finished chunk's outputs in a JSONL
file keyed by system signature, hop and the chunk's exact inputs, which makes resumption work for any
system, cached or not.

Few-shot examples kept apart (:func:`held_apart_examples`): ``k`` examples for one pair from the set
itself, never from what is scored, so that every language gets as many examples: from the set's ``dev``
split where it has one besides the scored split, else from the documents the scored selection (``n``,
``docs``) does not use; a set with neither is refused. Candidates have ``min_words``..``max_words``
English words; ``k`` are drawn with a seeded generator, each from a different document where there are
documents. They are read at run time from ``AYA_LAB_DATA_DIR`` and never written into the repository.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import pandas as pd
import sacrebleu

import aya_lab
from aya_lab.agents.protocols import TextModel
from aya_lab.datasets import DatasetError, list_datasets
from aya_lab.datasets.parallel import MAX_CONTEXT_WINDOW, ParallelSet, document_contexts, load_parallel, plan_datasets
from aya_lab.datasets.project import WORKPLACE_LANGUAGES
from aya_lab.errors import InputError
from aya_lab.eval.configs import EvalConfig, TaskConfig, TranslationConfig
from aya_lab.eval.progress import SweepCounter, sweep_progress
from aya_lab.eval.report import Report, Task
from aya_lab.eval.translation.results import (
    COLUMNS,
    OUTPUT_COLUMNS,
    compare_translations,
    translation_plot,
    translation_report,
    translation_table,
)
from aya_lab.eval.translation.scoring import Run, score_rows
from aya_lab.eval.translation.specs import TranslationSystem
from aya_lab.eval.translation.systems import (
    TRANSLATE_TASK,
    PivotSystem,
    PromptSystem,
    prompt_notes,
    resolve_system,
    signature_hash,
)
from aya_lab.models import load_chat_model
from aya_lab.models.base import record_generations
from aya_lab.models.result import usage
from aya_lab.prompts import variant_names

__all__ = [
    "TRANSLATION_TASK",
    "HeldApartExample",
    "as_records",
    "evaluate_translation",
    "held_apart_examples",
    "sweep_translation",
]


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

    def put(self, key: str, item: dict) -> None:
        self.done[key] = item = {"key": key, **item}
        if self.path:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a", encoding="utf-8") as fh:
                fh.write(json.dumps(item, ensure_ascii=False) + "\n")


def _run_chunks(
    run: Run, call, context: list[list[str]], sig: str, chunk_size: int, checkpoint: _Checkpoint, bar: SweepCounter
) -> None:
    outputs: list[str] = []
    for start in range(0, len(run.inputs), chunk_size):
        texts = run.inputs[start : start + chunk_size]
        ctx = context[start : start + chunk_size]
        payload = json.dumps([sig, run.hop, run.src, run.tgt, texts, ctx], ensure_ascii=False)
        key = hashlib.sha256(payload.encode()).hexdigest()
        item = checkpoint.done.get(key)
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


def _hops(system: TranslationSystem, ds: ParallelSet) -> int:
    """How many runs ``system`` makes on ``ds``: three for a pivot that takes two hops (each hop and e2e)."""
    if not (isinstance(system, PivotSystem) and system.hops(ds.src, ds.tgt)):
        return 1
    if ds.english is None:
        raise InputError(f"{ds.dataset_id} has no English side, which pivot system {system.name!r} needs")
    return 3


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

    ``systems``: :class:`~.specs.TranslationSystem` objects or spec strings
    (:func:`~.systems.resolve_system`); names must be unique. ``dataset``: a name, a ``files:`` spec, or
    a list of them. ``pairs``: ``"eng-swh"``, ``("eng", "Swahili")``, or a comma-separated string; a
    ``files:`` set takes exactly one pair (:func:`~aya_lab.datasets.parallel.plan_datasets`).

    How it runs is an :class:`~aya_lab.eval.configs.EvalConfig` (``config``, default: every option at
    its default); ``n`` and keyword ``options`` such as ``docs=3, progress=False`` replace its fields; an
    unknown one is a ``TypeError`` naming it. ``meta`` records the options that shape the numbers.
    """
    if config is not None and not isinstance(config, EvalConfig):
        raise TypeError(f"config must be an EvalConfig, got {type(config).__name__}; e.g. config=EvalConfig(n=6)")
    cfg = (config or EvalConfig()).with_options(**({"n": n} if n is not None else {}), **options)
    resolved, baseline = _check_systems(systems, cfg.baseline)
    plan = plan_datasets(dataset, pairs)
    sets = [
        load_parallel(name, s, t, split=cfg.split, n=cfg.n, verify=cfg.verify, docs=cfg.docs) for name, s, t in plan
    ]
    total = sum(len(ds) * _hops(s, ds) for s in resolved for ds in sets)  # and every pivot has its English side
    window = min(cfg.context_window, MAX_CONTEXT_WINDOW)
    ckpt = _Checkpoint(cfg.checkpoint)
    runs: list[Run] = []
    with sweep_progress(total, "translating", enabled=cfg.progress) as bar:
        for system in resolved:
            sig = signature_hash(system)
            for ds in sets:
                runs += _run_system(system, ds, sig, window, cfg.chunk_size, ckpt, bar)
    rows = score_rows(
        runs, {s.name: s for s in resolved}, baseline, cfg.n_bootstrap, cfg.n_ar, cfg.langid,
        by_document=cfg.resample == "auto", faithfulness=cfg.faithfulness,
    )  # fmt: skip
    meta = {
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
        "generations": bar.as_dict(),
    }
    return translation_report(pd.DataFrame(rows, columns=COLUMNS), _outputs_frame(runs), meta)


def _run_system(system, ds: ParallelSet, sig: str, window: int, chunk_size: int, ckpt, bar) -> list[Run]:
    """The runs of one system on one pair: ``e2e``, plus the two hops of a pivot system."""
    contexts = document_contexts(ds.sources, ds.doc_ids, window)
    if getattr(system, "needs_references", False):  # e.g. the other-sentence floor
        system.use_references(ds.src, ds.tgt, ds.sources, ds.references)
    if _hops(system, ds) == 1:
        run = Run(system.name, ds, "e2e", ds.src, ds.tgt, ds.sources, ds.references)
        call = lambda t, c: system.translate(t, ds.src, ds.tgt, context=c)  # noqa: E731
        _run_chunks(run, call, contexts, sig, chunk_size, ckpt, bar)
        return [run]
    hop2_call = lambda t, c: system.hop2(t, ds.tgt, context=c)  # noqa: E731
    english = cast("list[str]", ds.english)  # present: _hops checked it
    hop1 = Run(system.name, ds, "src-pivot", ds.src, system.pivot, ds.sources, english)
    _run_chunks(hop1, lambda t, c: system.hop1(t, ds.src, context=c), contexts, sig, chunk_size, ckpt, bar)
    e2e = Run(system.name, ds, "e2e", ds.src, ds.tgt, hop1.outputs, ds.references)
    _run_chunks(e2e, hop2_call, document_contexts(hop1.outputs, ds.doc_ids, window), sig, chunk_size, ckpt, bar)
    e2e.inputs = ds.sources  # echo is judged against the original source
    e2e.calls += hop1.calls
    e2e.prompt_tokens += hop1.prompt_tokens
    e2e.completion_tokens += hop1.completion_tokens
    e2e.latency_s += hop1.latency_s
    hop2 = Run(system.name, ds, "pivot-tgt", system.pivot, ds.tgt, english, ds.references)
    _run_chunks(hop2, hop2_call, document_contexts(english, ds.doc_ids, window), sig, chunk_size, ckpt, bar)
    return [e2e, hop1, hop2]


def _outputs_frame(runs: list[Run]) -> pd.DataFrame:
    return pd.DataFrame(
        [
            (
                r.system,
                r.ds.dataset_id,
                r.ds.pair,
                r.ds.src,
                r.ds.tgt,
                r.hop,
                i,
                r.ds.doc_ids[i] if r.ds.doc_ids is not None else "",
                inp,
                ref,
                hyp,
            )  # fmt: skip
            for r in runs
            for i, (inp, ref, hyp) in enumerate(zip(r.inputs, r.references, r.outputs))
        ],
        columns=OUTPUT_COLUMNS,
    )


def sweep_translation(
    variants: Sequence[str] | str,
    dataset: str = "workplace",
    *,
    model: TextModel | str | None = None,
    pairs: Sequence[str] | str | None = None,
    n: int | None = None,
    context_window: int = 0,
    **kwargs: object,
) -> Report:
    """Each ``user_translate`` variant (file stems such as ``strict``, or ``user_translate/strict``) as a
    :class:`~.systems.PromptSystem` named by the variant on ``dataset`` and ``pairs`` (default for
    ``workplace``: English into each of its other languages); the first variant is the baseline. ``model``
    is a loaded chat model or a spec (default: ``AYA_LAB_MODEL`` or the embedded default). Extra keyword
    arguments go to :func:`evaluate_translation`."""
    names = variant_names(TRANSLATE_TASK, variants)
    if model is None or isinstance(model, str):
        model = load_chat_model(model)
    if pairs is None:
        if dataset != "workplace":
            raise InputError(f"pass pairs for dataset {dataset!r}, e.g. pairs='eng-swh'")
        pairs = [f"eng-{x}" for x in WORKPLACE_LANGUAGES if x != "eng"]
    systems = [PromptSystem(model, f"{TRANSLATE_TASK}/{v}", context_window=context_window, name=v) for v in names]
    return evaluate_translation(systems, dataset, pairs, n=n, baseline=names[0], **cast("dict[str, Any]", kwargs))


@dataclass(frozen=True)
class HeldApartExample:
    """One example pair and where it came from (``doc_id`` empty where the set has no documents)."""

    dataset: str
    split: str
    doc_id: str
    segment: str
    eng: str
    other_code: str
    other: str


def _candidates(dataset: str, other: str, n: int | None, docs: int | None) -> tuple[str, ParallelSet, set[str]]:
    """The split to draw from, its segments (English source) and the documents to avoid."""
    splits = next((d.splits for d in list_datasets() if d.name == dataset), None)
    if splits is None:
        raise DatasetError(f"unknown dataset {dataset!r}; see `aya-lab data list`")
    scored = load_parallel(dataset, "eng", other, n=n, docs=docs)
    if "dev" in splits and scored.split != "dev":
        return "dev", load_parallel(dataset, "eng", other, split="dev"), set()
    if scored.doc_ids is None:
        raise DatasetError(
            f"{dataset} has no dev split and no document ids, so examples cannot be kept apart from the scored "
            "segments; use a set with a dev split or pass examples from elsewhere"
        )
    return scored.split, load_parallel(dataset, "eng", other, split=scored.split), set(scored.doc_ids)


def held_apart_examples(
    dataset: str,
    other: str,
    *,
    k: int = 3,
    n: int | None = None,
    docs: int | None = None,
    seed: int = 0,
    min_words: int = 6,
    max_words: int = 20,
) -> list[HeldApartExample]:
    """``k`` examples of English and ``other`` from ``dataset``, disjoint from the segments an evaluation
    with ``n``/``docs`` scores (see the module docstring); raises :class:`DatasetError` when fewer than
    ``k`` candidates qualify."""
    split, data, avoid = _candidates(dataset, other, n, docs)
    doc_ids = data.doc_ids or [""] * len(data)
    rows = [
        i
        for i, (eng, tgt) in enumerate(zip(data.sources, data.references))
        if min_words <= len(eng.split()) <= max_words and tgt.strip() and doc_ids[i] not in avoid
    ]
    random.Random(f"{dataset}:{data.tgt}:{seed}").shuffle(rows)
    chosen: list[int] = []
    used: set[str] = set()  # documents that gave an example already
    for i in rows:
        if not doc_ids[i] or doc_ids[i] not in used:
            chosen.append(i)
            used.add(doc_ids[i])
        if len(chosen) == k:
            break
    if len(chosen) < k:
        raise DatasetError(
            f"{dataset} {split}: only {len(chosen)} of {k} held-apart examples for eng-{data.tgt} have "
            f"{min_words}-{max_words} English words; lower k or widen the word range"
        )
    return [
        HeldApartExample(dataset, split, doc_ids[i], data.ids[i], data.sources[i], data.tgt, data.references[i])
        for i in chosen
    ]


def as_records(examples: Iterable[HeldApartExample]) -> list[dict[str, str]]:
    """Inline few-shot records (``{"eng": ..., CODE: ...}``) for :meth:`aya_lab.prompts.PromptFile.with_examples`."""
    return [{"eng": e.eng, e.other_code: e.other} for e in examples]


def _run(config: TaskConfig) -> Report:
    options = config.model_dump(exclude={"systems", "dataset", "pairs"})
    what = config.model_dump(include={"systems", "dataset", "pairs"})
    return evaluate_translation(what["systems"], what["dataset"], what["pairs"], **options)


TRANSLATION_TASK = Task(
    "translation",
    "translation systems on a parallel test set (BLEU, chrF, chrF++, language and echo shares, hallucination rate)",
    TranslationConfig,
    _run,
    table=translation_table,
    plot=translation_plot,
    compare=compare_translations,
)
