"""Summarizer evaluation: one-call vs two-call (or any variants) on the project's transcripts.

For every transcript (``data/transcripts``) the messages become ``ChatMessage``s (``content`` = what
was written, ``translations={"eng": text_en}`` when the record has a gloss, ids ``<transcript>-m00``, ...), the request is brought
into English with :class:`~aya_lab.agents.translator.AyaTranslator` when ``request_lang != "eng"``
(as the room does; once per transcript, shared by all variants, and not counted in their cost;
``translate_requests=False`` passes the request as written), and each summarizer variant runs on it.

Scores per transcript and variant:

- ``count_exact`` — the parsed count equals ``gold_count``; an unparseable count (``None``) is wrong,
  although the summarizers then fall back to all messages; ``count_parsed`` — a count was read at all;
- ``last_n_correct`` — the summarized message ids are exactly the last ``gold_count`` messages (all
  when 0), in order;
- ``action_precision`` / ``action_recall`` / ``action_f1`` — :func:`match_action_items` with the rule of
  ``data/transcripts/README.md``; no gold and no predictions is P = R = F1 = 1; otherwise an undefined
  ratio (no predictions, or no gold) is 0. Micro-averaged ``*_micro`` versions pool the matches;
- ``summary_chrF`` — sacrebleu sentence chrF of the summary against the reference summary (and
  ``summary_chrF_corpus``, sacrebleu's corpus chrF with its percentile bootstrap CI and signature);
  n/a (NaN, left out of means and tests) for a transcript without a reference summary;
- ``llm_calls``, ``prompt_tokens``, ``completion_tokens``, ``latency_s`` — from the generation
  recorder (a cache hit reports the latency recorded when it was generated, so replays reproduce it).

:func:`evaluate_summarizers` returns the ``summaries`` task's :class:`~aya_lab.eval.report.Report`:
``df`` (tidy: system x metric with the mean as ``score``, percentile bootstrap 95% CI over transcripts
and n), ``items`` (one row per transcript x system) and ``paired`` (each system against the first: mean
difference ``delta``, its 95% CI, a two-sided p-value ``p`` from a paired bootstrap over transcripts,
Holm over the systems per metric). Resamples are drawn once (numpy, seeded) and shared by all systems
and metrics. A system is a summarizer variant.

Runs on different models (a fine-tuned model is another model, and may read the request as written):
:func:`combine_summarizer_runs` joins chosen systems of several runs into one report under new labels — the
same transcripts, one set of resamples, paired tests of each label against the first; rows are relabelled,
not re-scored.

Floors: the variants ``copy-transcript`` and ``lead-N`` (:class:`~aya_lab.eval.summary_scoring.SummaryFloor`) write a
summary without a model and are scored by the same code; ``aya-lab eval run summaries`` runs them by default.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Mapping, Sequence
from typing import Any, cast

import numpy as np
import pandas as pd
import sacrebleu
from sacrebleu.metrics import CHRF

from aya_lab.agents.protocols import TextModel
from aya_lab.agents.summarizer import SUMMARIZER_VARIANTS, make_summarizer
from aya_lab.agents.translator import AyaTranslator
from aya_lab.datasets.project import TRANSCRIPT_SETS, Transcript, load_transcripts
from aya_lab.errors import InputError
from aya_lab.eval.configs import SummariesConfig
from aya_lab.eval.metrics import bootstrap_corpus_score  # re-exported
from aya_lab.eval.progress import progress_bar
from aya_lab.eval.report import Report, Task
from aya_lab.eval.resampling import bootstrap_indices, mean_ci, paired_bootstrap  # re-exported
from aya_lab.eval.resampling import percentile_ci as _ci
from aya_lab.eval.summary_scoring import (  # re-exported
    SummaryFloor,
    count_exact,
    count_parsed,
    is_summary_floor,
    last_n_correct,
    match_action_items,
    micro_prf,
    micro_prf_boot,
    prf,
    summary_paired_table,
    task_similarity,
    task_words,
)
from aya_lab.messages import ChatMessage
from aya_lab.models import default_model_spec, load_chat_model
from aya_lab.models.base import record_generations

__all__ = [
    "combine_summarizer_runs",
    "SUMMARIES_TASK",
    "SummariesConfig",
    "transcript_messages",
    "evaluate_summarizers",
    "match_action_items",
    "prf",
    "task_similarity",
    "task_words",
    "count_exact",
    "count_parsed",
    "last_n_correct",
    "paired_bootstrap",
    "bootstrap_indices",
    "SUMMARY_METRICS",
]

SUMMARY_METRICS = (
    "count_exact",
    "count_parsed",
    "last_n_correct",
    "action_precision",
    "action_recall",
    "action_f1",
    "summary_chrF",
    "llm_calls",
    "prompt_tokens",
    "completion_tokens",
    "latency_s",
)
MICRO_METRICS = ("action_precision_micro", "action_recall_micro", "action_f1_micro")
DF_COLUMNS = [
    "system",
    "metric",
    "score",
    "ci_low",
    "ci_high",
    "n",
    "note",
    "model_fingerprint",
    "prompt_hash",
    "dataset_id",
]

# -- the evaluation --------------------------------------------------------------------------------


def transcript_messages(transcript: Transcript) -> list[ChatMessage]:
    """A transcript's messages as room ``ChatMessage``s (ids ``<transcript id>-mNN``, English text attached)."""
    return [
        ChatMessage(
            id=f"{transcript.id}-m{i:02d}",
            sender=m.sender,
            content=m.text,
            lang=m.lang,
            translations={"eng": m.text_en} if m.text_en else {},
            created_at="-",
        )
        for i, m in enumerate(transcript.messages)
    ]


def _prompt_hash(summarizer: Any) -> str:
    prompts = [v for v in vars(summarizer).values() if hasattr(v, "content_hash")]
    return "+".join(p.content_hash for p in prompts) or "-"


def _summarizers(variants: list[str], model: Any) -> dict[str, Any]:
    """Each variant's summarizer; floors (``copy-transcript``, ``lead-N``) are scored like the summarizers;
    an unknown variant is a ``ValueError``."""
    return {v: SummaryFloor(v) if is_summary_floor(v) else make_summarizer(v, model) for v in variants}


def _signature(summarizer: Any, model: Any) -> dict[str, str]:
    """A floor's own fingerprint (``floor:lead-3``), else the model's; the prompt hash."""
    return {
        "model_fingerprint": getattr(summarizer, "fingerprint", model.fingerprint),
        "prompt_hash": _prompt_hash(summarizer),
    }


def _check_variants(variants: Sequence[str], n: int | None) -> list[str]:
    variants = [v.strip() for v in variants if v and v.strip()]
    if not variants:
        raise InputError("no summarizer variants given; use e.g. two_call,one_call")
    dupes = sorted({v for v in variants if variants.count(v) > 1})
    if dupes:
        raise InputError(f"summarizer variants must be unique; repeated: {', '.join(dupes)}")
    if n is not None and n <= 0:
        raise InputError(f"n must be positive; got {n}")
    return variants


def evaluate_summarizers(
    variants: Sequence[str] = SUMMARIZER_VARIANTS,
    model: TextModel | str | None = None,
    transcripts: Sequence[Transcript] | None = None,
    n: int | None = None,
    *,
    translate_requests: bool = True,
    translator: TextModel | str | None = None,
    dataset_id: str | None = None,
    n_bootstrap: int = 1000,
    seed: int = 0,
    progress: bool | None = None,
) -> Report:
    """Run each summarizer ``variant`` on ``transcripts`` (default: the project's 47) and score them.

    ``model``: a chat model or spec (default ``AYA_LAB_MODEL`` or ``smollm2``). ``n``: the first ``n``
    transcripts. The first variant is the baseline of the paired tests. ``translator``: the model that brings
    a request into English (a model or spec), so every variant reads the same request text; unset, ``model``
    when one is given, else the translator role's default, as the room and ``aya-lab eval run`` load them. ``dataset_id`` names the set in the report (default
    ``transcripts``, or ``transcripts:custom`` for given ``transcripts``). ``progress``: a tqdm bar over transcripts on stderr
    (``None``: only when stderr is a terminal). See the module docstring.
    """
    variants = _check_variants(variants, n)
    if translate_requests and translator is None and model is None:  # as the room: the translator role's model
        translator = default_model_spec("translator")
    model = cast(TextModel, _chat_model(model))
    summarizers = _summarizers(variants, model)
    items = list(transcripts) if transcripts is not None else load_transcripts()
    items = items[:n] if n is not None else items
    if not items:
        raise InputError("no transcripts to evaluate")
    # a translator model is loaded only when requests are translated
    to_english = AyaTranslator(
        cast(TextModel, _chat_model(translator)) if translate_requests and translator is not None else model
    )
    rows: list[dict[str, Any]] = []
    with progress_bar(len(items), "summarizing", unit="chat", enabled=progress) as bar:
        for t in items:
            request_en, tr_calls = t.request, 0
            if translate_requests and t.request_lang != "eng":
                with record_generations() as records:
                    request_en = to_english.to_english(t.request, t.request_lang)
                tr_calls = len(records)
            history = transcript_messages(t)
            for variant, summarizer in summarizers.items():
                res = summarizer.summarize(request_en, history)
                rows.append({"system": variant, **_score(t, history, res, request_en, tr_calls)})
            if bar is not None:
                bar.update(1)
    per = pd.DataFrame(rows)
    sigs = {v: _signature(s, model) for v, s in summarizers.items()}
    dataset_id = dataset_id or ("transcripts" if transcripts is None else "transcripts:custom")
    return scored_results(
        per, variants, [t.id for t in items], sigs, dataset_id, n_bootstrap=n_bootstrap, seed=seed,
        translate_requests=translate_requests, model=getattr(model, "spec", "?"),
        translator_prompt=to_english.prompt_choice.as_meta() if translate_requests else {},
        translator=getattr(to_english.model, "spec", "?") if translate_requests else None,
    )  # fmt: skip


def scored_results(
    per: pd.DataFrame, variants: list[str], ids: Sequence[str | None], sigs: dict, dataset_id: str, *, n_bootstrap: int,
    seed: int, **meta: object,
) -> Report:  # fmt: skip
    """The ``summaries`` report from scored rows ``per`` (transcript x system) of transcripts ``ids``:
    aggregates and paired tests of every variant against ``variants[0]`` over one set of seeded
    resamples; ``meta`` adds to the results' metadata."""
    idx = bootstrap_indices(len(ids), n_bootstrap, seed)
    df = aggregate_variants(per, variants, idx, sigs, dataset_id, n_bootstrap)
    meta = {
        "variants": variants, "baseline": variants[0], "n": len(ids), "transcript_ids": ids,
        "dataset_id": dataset_id, "n_bootstrap": n_bootstrap, "seed": seed, "signatures": sigs,
        "sacrebleu_version": sacrebleu.__version__, **meta,
    }  # fmt: skip
    return Report("summaries", df, per, summary_paired_table(per, variants, idx, SUMMARY_METRICS), meta)


def _score(t: Any, history: list[Any], res: Any, request_en: str, tr_calls: int) -> dict[str, Any]:
    """One transcript x variant row: the scores of the module docstring and what they were made from."""
    ids = [m.id for m in history]
    matches = match_action_items(res.action_items, t.gold_action_items)
    p, r, f = prf(len(matches), len(res.action_items), len(t.gold_action_items))
    return {
        "transcript_id": t.id,
        "request": t.request,
        "request_lang": t.request_lang,
        "request_en": request_en,
        "request_translation_calls": tr_calls,
        "n_messages": len(history),
        "gold_count": t.gold_count,
        "count_requested": res.count_requested,
        "count_exact": float(count_exact(res.count_requested, t.gold_count)),
        "count_parsed": float(count_parsed(res.count_requested)),
        "n_summarized": len(res.message_ids),
        "last_n_correct": float(last_n_correct(res.message_ids, ids, t.gold_count)),
        "action_tp": len(matches),
        "action_n_pred": len(res.action_items),
        "action_n_gold": len(t.gold_action_items),
        "action_precision": p,
        "action_recall": r,
        "action_f1": f,
        "summary_chrF": _sentence_chrf(res.summary, t.reference_summary),
        "llm_calls": float(res.calls),
        "prompt_tokens": float(res.prompt_tokens),
        "completion_tokens": float(res.completion_tokens),
        "latency_s": float(res.latency_s),
        "summary": res.summary,
        "reference_summary": t.reference_summary,
        "action_items": json.dumps(res.action_items, ensure_ascii=False),
        "gold_action_items": json.dumps([[g.owner, g.task] for g in t.gold_action_items], ensure_ascii=False),
        "notes": "; ".join(res.notes),
    }


def _chat_model(model: Any) -> Any:
    if model is None or isinstance(model, str):
        return load_chat_model(model)
    return model


def _sentence_chrf(hyp: str, ref: str | None) -> float:
    """Sentence chrF of ``hyp``; NaN (n/a) when the transcript has no reference summary."""
    if not ref:
        return float("nan")
    return float(CHRF().sentence_score(hyp or "", [ref]).score)


def _mean_ci(values: np.ndarray, idx: np.ndarray) -> tuple[float, float, float, int]:
    """Mean, percentile bootstrap CI and n of ``values``, NaNs (n/a) left out of all four."""
    known = ~np.isnan(values)
    if not known.any():
        return float("nan"), float("nan"), float("nan"), 0
    with np.errstate(invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a resample may hold only n/a items
        boot = np.nanmean(values[idx], axis=1) if idx.shape[1] else np.array([])
    low, high = mean_ci(values, boot)
    return float(values[known].mean()), low, high, int(known.sum())


def _corpus_chrf_row(sub: pd.DataFrame, base: dict, n_bootstrap: int) -> dict:
    has_ref = sub["reference_summary"].notna() & (sub["reference_summary"].astype(str) != "")
    metric = CHRF()
    row = {**base, "metric": "summary_chrF_corpus", "n": int(has_ref.sum())}
    if not has_ref.any():
        return {**row, "score": float("nan"), "ci_low": float("nan"), "ci_high": float("nan"), "note": _NA_REF}
    refs = sub.loc[has_ref, "reference_summary"].astype(str)
    score = bootstrap_corpus_score(metric, list(sub.loc[has_ref, "summary"].fillna("")), list(refs), n_bootstrap)
    low, high = score.ci_bounds
    return {**row, "score": float(score.score), "ci_low": low, "ci_high": high, "note": str(metric.get_signature())}


_NA_REF = "n/a: no reference summaries"


def aggregate_variants(
    per: pd.DataFrame, variants: list[str], idx: np.ndarray, sigs: dict, dataset_id: str, n_bootstrap: int
) -> pd.DataFrame:
    """The report's ``df``: per system and metric the mean and its CI over resamples ``idx``."""
    out = []
    for v in variants:
        sub = per[per["system"] == v].reset_index(drop=True)
        base = {"system": v, "n": len(sub), "note": "", **sigs[v], "dataset_id": dataset_id}
        for metric in SUMMARY_METRICS:
            mean, low, high, n = _mean_ci(sub[metric].to_numpy(dtype=float), idx)
            note = _NA_REF if n == 0 else ("" if n == len(sub) else f"over the {n} transcripts with a reference")
            out.append({**base, "metric": metric, "score": mean, "ci_low": low, "ci_high": high, "n": n, "note": note})
        tp, npred, ngold = (sub[c].to_numpy(dtype=int) for c in ("action_tp", "action_n_pred", "action_n_gold"))
        point = micro_prf(tp, npred, ngold)
        boot = micro_prf_boot(tp, npred, ngold, idx)
        for k, metric in enumerate(MICRO_METRICS):
            low, high = _ci(boot[:, k])
            out.append(
                {**base, "metric": metric, "score": point[k], "ci_low": low, "ci_high": high}
                | {"note": "pooled matches over transcripts"}
            )
        out.append(_corpus_chrf_row(sub, base, n_bootstrap))
    return pd.DataFrame(out, columns=DF_COLUMNS)


# -- runs on different models, joined ----------------------------------------------------------------------
def _checked(runs: Mapping[str, tuple[Report, str]]) -> list[str]:
    """The transcript ids every run scored (in order); one-line errors for runs that do not fit together."""
    if len(runs) < 2:
        raise InputError(f"combine_summarizer_runs needs at least two labelled runs, got {len(runs)}")
    ids: list[str] | None = None
    for label, (res, variant) in runs.items():
        if variant not in res.systems:
            raise InputError(f"run for {label!r} has no variant {variant!r}; it has {', '.join(res.systems)}")
        these = list(cast(list[str], res.meta.get("transcript_ids", [])))
        if ids is not None and these != ids:
            raise InputError(
                f"run for {label!r} scored other transcripts than the first run; evaluate every run on the same "
                "transcripts (same n and order)"
            )
        ids = these
    return ids or []


def combine_summarizer_runs(
    runs: Mapping[str, tuple[Report, str]], *, n_bootstrap: int = 1000, seed: int = 0
) -> Report:
    """``runs``: label -> (results, the variant of those results to take). The first label is the baseline.

    All runs must have scored the same transcripts in the same order (``meta["transcript_ids"]``). The
    result's ``meta`` keeps each label's source: model spec, variant, whether requests were translated.
    """
    ids = _checked(runs)
    labels = list(runs)
    per = []
    sigs, sources = {}, {}
    for label, (res, variant) in runs.items():
        rows = res.items[res.items["system"] == variant].copy()
        per.append(rows.assign(system=label))
        sigs[label] = cast(dict[str, dict[str, str]], res.meta.get("signatures", {})).get(
            variant, {"model_fingerprint": "?", "prompt_hash": "?"}
        )
        sources[label] = {
            "model": res.meta.get("model", "?"),
            "variant": variant,
            "translate_requests": res.meta.get("translate_requests"),
        }
    table = pd.concat(per, ignore_index=True)
    dataset_ids = {res.meta.get("dataset_id", "?") for res, _ in runs.values()}
    dataset_id = str(dataset_ids.pop()) if len(dataset_ids) == 1 else "mixed"
    return scored_results(table, labels, ids, sigs, dataset_id, n_bootstrap=n_bootstrap, seed=seed, sources=sources)


def _fmt(mean: float, low: float, high: float) -> str:
    if np.isnan(low):
        return f"{mean:.3g}"
    return f"{mean:.3g} [{low:.3g}, {high:.3g}]"


def summaries_table(report: Report, metrics: Sequence[str] | None = None) -> pd.DataFrame:
    """Metrics as rows, systems as columns, cells ``score [low, high]``; then each system's paired
    difference from the baseline, ``*`` where significant after Holm (``p`` is the bootstrap p-value)."""
    metrics = list(metrics or [*SUMMARY_METRICS, *MICRO_METRICS, "summary_chrF_corpus"])
    cells: dict[str, dict[str, str]] = {}
    for row in report.df.itertuples(index=False):
        if row.metric in metrics:
            cells.setdefault(row.metric, {})[row.system] = _fmt(row.score, row.ci_low, row.ci_high)
    for row in report.paired.itertuples(index=False):
        if row.metric in metrics:
            mark = "*" if row.significant else ""
            cells.setdefault(row.metric, {})[f"{row.system} - {row.baseline}"] = (
                f"{row.delta:+.3g}{mark} (p={row.p:.3f})"
            )
    systems = report.systems
    cols = systems + [f"{v} - {report.baseline}" for v in systems if v != report.baseline]
    return pd.DataFrame(
        [[cells.get(m, {}).get(c, "") for c in cols] for m in metrics if m in cells],
        index=pd.Index([m for m in metrics if m in cells], name="metric"),
        columns=cols,
    )


def _run(config: SummariesConfig) -> Report:
    transcripts = load_transcripts(config.data) if config.data is not None else None
    return evaluate_summarizers(
        config.variants, model=cast(TextModel | str | None, config.model), transcripts=transcripts, n=config.n,
        translate_requests=config.translate_requests,
        translator=cast(TextModel | str | None, config.translator),
        dataset_id=f"transcripts:{config.data}" if config.data in TRANSCRIPT_SETS else None,
        n_bootstrap=config.n_bootstrap, seed=config.seed, progress=config.progress,
    )  # fmt: skip


SUMMARIES_TASK = Task(
    "summaries", "summarizer variants and floors on the transcripts", SummariesConfig, _run, summaries_table
)
