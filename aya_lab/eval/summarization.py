"""Summarizer evaluation: one-call vs two-call (or any variants) on the project's transcripts.

For every transcript (``data/transcripts``) the messages become ``ChatMessage``s (``content`` = what
was written, ``translations={"eng": text_en}``, ids ``<transcript>-m00``, ...), the request is brought
into English with :class:`~aya_lab.agents.translator.AyaTranslator` when ``request_lang != "eng"``
(as the room does; once per transcript, shared by all variants, and not counted in their cost;
``translate_requests=False`` passes the request as written), and each summarizer variant runs on it.

Scores per transcript and variant:

- ``count_exact`` — the parsed count equals ``gold_count`` (an unparseable count, ``None``, counts as
  0 = all, which is what the summarizers then do);
- ``last_n_correct`` — the summarized message ids are exactly the last ``gold_count`` messages (all
  when 0), in order;
- ``action_precision`` / ``action_recall`` / ``action_f1`` — :func:`match_action_items` with the rule of
  ``data/transcripts/README.md``; no gold and no predictions is P = R = F1 = 1; otherwise an undefined
  ratio (no predictions, or no gold) is 0. Micro-averaged ``*_micro`` versions pool the matches;
- ``summary_chrF`` — sacrebleu sentence chrF of the summary against the reference summary (and
  ``summary_chrF_corpus``, sacrebleu's corpus chrF with its own bootstrap CI and signature);
- ``llm_calls``, ``prompt_tokens``, ``completion_tokens``, ``latency_s`` — from the generation
  recorder (a cache hit reports the latency recorded when it was generated, so replays reproduce it).

:class:`SummarizerResults` holds ``df`` (tidy: variant x metric with mean, percentile bootstrap 95% CI
over transcripts and n), ``per_transcript`` (one row per transcript x variant) and ``paired`` (each
variant against the first: mean difference, its 95% CI and a two-sided p-value from a paired bootstrap
over transcripts). Resamples are drawn once (numpy, seeded) and shared by all variants and metrics.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from aya_lab.agents.summarizer import SUMMARIZER_VARIANTS, make_summarizer
from aya_lab.agents.translator import AyaTranslator
from aya_lab.datasets.project import load_transcripts
from aya_lab.eval.metrics import _corpus_score
from aya_lab.eval.stats import ALPHA, bootstrap_indices, paired_bootstrap  # re-exported
from aya_lab.eval.stats import percentile_ci as _ci
from aya_lab.messages import ChatMessage
from aya_lab.models import load_chat_model
from aya_lab.models.base import record_generations

__all__ = [
    "SummarizerResults",
    "evaluate_summarizers",
    "match_action_items",
    "prf",
    "task_similarity",
    "content_words",
    "count_exact",
    "last_n_correct",
    "paired_bootstrap",
    "bootstrap_indices",
    "SUMMARY_METRICS",
]

TASK_CHRF = 50.0
TASK_JACCARD = 0.5
SUMMARY_METRICS = (
    "count_exact",
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
    "variant",
    "metric",
    "mean",
    "ci_low",
    "ci_high",
    "n",
    "note",
    "model_fingerprint",
    "prompt_hash",
    "dataset_id",
]
PAIRED_COLUMNS = [
    "baseline",
    "variant",
    "metric",
    "mean_baseline",
    "mean_variant",
    "diff",
    "ci_low",
    "ci_high",
    "p_value",
    "significant",
    "n",
]

# English stop words (a compact list; content words are what is left of the alphanumeric tokens).
_STOP = frozenset(
    """
a about above after again against all am an and any are as at be because been before being below
between both but by can could did do does doing down during each few for from further had has have
having he her here hers herself him himself his how i if in into is it its itself just let me more most
my myself no nor not now of off on once only or other our ours ourselves out over own please same she
should so some such than that the their theirs them themselves then there these they this those through
to too under until up very was we were what when where which while who whom why will with would you
your yours yourself yourselves ll s t d m re ve
""".split()
)


# -- scoring rules ---------------------------------------------------------------------------------


def content_words(text: str) -> set[str]:
    """Lowercased alphanumeric tokens minus English stop words."""
    return {w for w in re.findall(r"[^\W_]+", text.lower()) if w not in _STOP}


def task_similarity(predicted: str, gold: str) -> tuple[float, float]:
    """``(chrF, jaccard)``: sacrebleu sentence chrF (prediction as hypothesis) and content-word Jaccard."""
    from sacrebleu.metrics import CHRF

    chrf = float(CHRF().sentence_score(predicted, [gold]).score)
    a, b = content_words(predicted), content_words(gold)
    jaccard = len(a & b) / len(a | b) if (a | b) else 0.0
    return chrf, jaccard


def _owner(x: str) -> str:
    return x.strip().lower()


def _pair(item: Any) -> tuple[str, str]:
    if isinstance(item, tuple | list):
        return str(item[0]), str(item[1])
    return str(item.owner), str(item.task)


def match_action_items(predicted: Sequence[Any], gold: Sequence[Any]) -> list[tuple[int, int, float]]:
    """One-to-one matches ``(pred_index, gold_index, score)``, greedily by best score.

    A pair is a candidate when the owners are equal (case-insensitive, trimmed) and the tasks match:
    chrF >= 50 or content-word Jaccard >= 0.5. The score ranking candidates is ``max(chrF/100, jaccard)``.
    Items are ``(owner, task)`` tuples or objects with ``owner`` and ``task``.
    """
    preds, golds = [_pair(p) for p in predicted], [_pair(g) for g in gold]
    candidates = []
    for i, (po, pt) in enumerate(preds):
        for j, (go, gt) in enumerate(golds):
            if _owner(po) != _owner(go):
                continue
            chrf, jac = task_similarity(pt, gt)
            if chrf >= TASK_CHRF or jac >= TASK_JACCARD:
                candidates.append((max(chrf / 100.0, jac), i, j))
    candidates.sort(key=lambda c: (-c[0], c[1], c[2]))
    used_p, used_g, out = set(), set(), []
    for score, i, j in candidates:
        if i not in used_p and j not in used_g:
            used_p.add(i)
            used_g.add(j)
            out.append((i, j, score))
    return out


def prf(tp: int, n_pred: int, n_gold: int) -> tuple[float, float, float]:
    """Precision, recall, F1; both lists empty is (1, 1, 1), any other undefined ratio is 0."""
    if n_pred == 0 and n_gold == 0:
        return 1.0, 1.0, 1.0
    p = tp / n_pred if n_pred else 0.0
    r = tp / n_gold if n_gold else 0.0
    f = 2 * p * r / (p + r) if p + r else 0.0
    return p, r, f


def count_exact(count_requested: int | None, gold_count: int) -> bool:
    """The parsed count equals the gold one (``None``, unparseable, counts as 0 = all)."""
    return (count_requested or 0) == gold_count


def last_n_correct(message_ids: Sequence[str], all_ids: Sequence[str], gold_count: int) -> bool:
    """The summarized ids are exactly the last ``gold_count`` of ``all_ids`` (all of them when 0)."""
    expected = list(all_ids) if gold_count == 0 else list(all_ids)[-gold_count:]
    return list(message_ids) == expected


def _micro(tp: np.ndarray, n_pred: np.ndarray, n_gold: np.ndarray) -> tuple[float, float, float]:
    return prf(int(tp.sum()), int(n_pred.sum()), int(n_gold.sum()))


def _micro_boot(tp, n_pred, n_gold, idx) -> np.ndarray:
    tps, ps, gs = tp[idx].sum(axis=1), n_pred[idx].sum(axis=1), n_gold[idx].sum(axis=1)
    return np.array([_micro(np.array([t]), np.array([p]), np.array([g])) for t, p, g in zip(tps, ps, gs)])


# -- results ---------------------------------------------------------------------------------------


@dataclass
class SummarizerResults:
    """``df`` (variant x metric), ``per_transcript`` (transcript x variant), ``paired`` (vs baseline)."""

    df: pd.DataFrame
    per_transcript: pd.DataFrame
    paired: pd.DataFrame
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def variants(self) -> list[str]:
        return list(dict.fromkeys(self.df["variant"]))

    @property
    def baseline(self) -> str | None:
        return self.meta.get("baseline")

    def __repr__(self) -> str:
        return (
            f"SummarizerResults({len(self.per_transcript['transcript_id'].unique())} transcripts; "
            f"variants: {', '.join(self.variants)})"
        )

    def table(self, metrics: Sequence[str] | None = None) -> pd.DataFrame:
        """Metrics as rows, variants as columns; cells read ``mean [low, high]``; then the paired diffs."""
        metrics = list(metrics or [*SUMMARY_METRICS, *MICRO_METRICS, "summary_chrF_corpus"])
        cells: dict[str, dict[str, str]] = {}
        for row in self.df.itertuples(index=False):
            if row.metric in metrics:
                cells.setdefault(row.metric, {})[row.variant] = _fmt(row.mean, row.ci_low, row.ci_high)
        for row in self.paired.itertuples(index=False):
            if row.metric in metrics:
                mark = "*" if row.significant else ""
                cells.setdefault(row.metric, {})[f"{row.variant} - {row.baseline}"] = (
                    f"{row.diff:+.3g}{mark} (p={row.p_value:.3f})"
                )
        cols = self.variants + [f"{v} - {self.baseline}" for v in self.variants if v != self.baseline]
        frame = pd.DataFrame(
            [[cells.get(m, {}).get(c, "") for c in cols] for m in metrics if m in cells],
            index=pd.Index([m for m in metrics if m in cells], name="metric"),
            columns=cols,
        )
        return frame

    def save(self, path: str | Path) -> Path:
        """Write ``path`` (CSV of ``df``), ``<stem>.transcripts.csv``, ``<stem>.paired.csv``, ``<stem>.json``."""
        path = Path(path)
        if path.suffix.lower() != ".csv":
            raise ValueError(f"results path must name a .csv file, not {path.name}")
        path.parent.mkdir(parents=True, exist_ok=True)
        self.df.to_csv(path, index=False)
        self.per_transcript.to_csv(path.with_name(path.stem + ".transcripts.csv"), index=False)
        self.paired.to_csv(path.with_name(path.stem + ".paired.csv"), index=False)
        path.with_suffix(".json").write_text(
            json.dumps(self.meta, indent=2, sort_keys=True, default=str) + "\n", encoding="utf-8"
        )
        return path


def _fmt(mean: float, low: float, high: float) -> str:
    if np.isnan(low):
        return f"{mean:.3g}"
    return f"{mean:.3g} [{low:.3g}, {high:.3g}]"


# -- the evaluation --------------------------------------------------------------------------------


def _messages(transcript: Any) -> list[Any]:
    return [
        ChatMessage(
            id=f"{transcript.id}-m{i:02d}",
            sender=m.sender,
            content=m.text,
            lang=m.lang,
            translations={"eng": m.text_en},
            created_at="-",
        )
        for i, m in enumerate(transcript.messages)
    ]


def _prompt_hash(summarizer: Any) -> str:
    prompts = [v for v in vars(summarizer).values() if hasattr(v, "content_hash")]
    return "+".join(p.content_hash for p in prompts) or "-"


def evaluate_summarizers(
    variants: Sequence[str] = SUMMARIZER_VARIANTS,
    model: Any = None,
    transcripts: Sequence[Any] | None = None,
    n: int | None = None,
    *,
    translate_requests: bool = True,
    n_bootstrap: int = 1000,
    seed: int = 0,
) -> SummarizerResults:
    """Run each summarizer ``variant`` on ``transcripts`` (default: the project's 47) and score them.

    ``model``: a chat model or spec (default ``AYA_LAB_MODEL`` or ``smollm2``). ``n``: the first ``n``
    transcripts. The first variant is the baseline of the paired tests. See the module docstring.
    """
    variants = [v.strip() for v in variants if v and v.strip()]
    if not variants:
        raise ValueError("no summarizer variants given; use e.g. two_call,one_call")
    dupes = sorted({v for v in variants if variants.count(v) > 1})
    if dupes:
        raise ValueError(f"summarizer variants must be unique; repeated: {', '.join(dupes)}")
    if n is not None and n <= 0:
        raise ValueError(f"n must be positive; got {n}")
    model = _chat_model(model)
    summarizers = {v: make_summarizer(v, model) for v in variants}  # unknown variant -> ValueError
    items = list(transcripts) if transcripts is not None else load_transcripts()
    items = items[:n] if n is not None else items
    if not items:
        raise ValueError("no transcripts to evaluate")

    translator = AyaTranslator(model)
    rows: list[dict[str, Any]] = []
    for t in items:
        history = _messages(t)
        ids = [m.id for m in history]
        request_en, tr_calls = t.request, 0
        if translate_requests and t.request_lang != "eng":
            with record_generations() as records:
                request_en = translator.to_english(t.request, t.request_lang)
            tr_calls = len(records)
        for variant, summarizer in summarizers.items():
            res = summarizer.summarize(request_en, history)
            matches = match_action_items(res.action_items, t.gold_action_items)
            p, r, f = prf(len(matches), len(res.action_items), len(t.gold_action_items))
            rows.append(
                {
                    "variant": variant,
                    "transcript_id": t.id,
                    "request": t.request,
                    "request_lang": t.request_lang,
                    "request_en": request_en,
                    "request_translation_calls": tr_calls,
                    "n_messages": len(history),
                    "gold_count": t.gold_count,
                    "count_requested": res.count_requested,
                    "count_exact": float(count_exact(res.count_requested, t.gold_count)),
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
                    "gold_action_items": json.dumps(
                        [[g.owner, g.task] for g in t.gold_action_items], ensure_ascii=False
                    ),
                    "notes": "; ".join(res.notes),
                }
            )
    per = pd.DataFrame(rows)
    sigs = {v: {"model_fingerprint": model.fingerprint, "prompt_hash": _prompt_hash(s)} for v, s in summarizers.items()}
    dataset_id = "transcripts" if transcripts is None else "transcripts:custom"
    idx = bootstrap_indices(len(items), n_bootstrap, seed)
    df = _aggregate(per, variants, idx, sigs, dataset_id, n_bootstrap)
    paired = _paired(per, variants, idx)
    import sacrebleu

    meta = {
        "kind": "summarization",
        "variants": variants,
        "baseline": variants[0],
        "n": len(items),
        "transcript_ids": [t.id for t in items],
        "dataset_id": dataset_id,
        "translate_requests": translate_requests,
        "n_bootstrap": n_bootstrap,
        "seed": seed,
        "model": getattr(model, "spec", "?"),
        "signatures": sigs,
        "sacrebleu_version": sacrebleu.__version__,
    }
    return SummarizerResults(df, per, paired, meta)


def _chat_model(model: Any) -> Any:
    if model is None or isinstance(model, str):
        return load_chat_model(model)
    return model


def _sentence_chrf(hyp: str, ref: str) -> float:
    from sacrebleu.metrics import CHRF

    return float(CHRF().sentence_score(hyp or "", [ref]).score)


def _aggregate(
    per: pd.DataFrame, variants: list[str], idx: np.ndarray, sigs: dict, dataset_id: str, n_bootstrap: int
) -> pd.DataFrame:
    from sacrebleu.metrics import CHRF

    out = []
    for v in variants:
        sub = per[per["variant"] == v].reset_index(drop=True)
        base = {"variant": v, "n": len(sub), "note": "", **sigs[v], "dataset_id": dataset_id}
        for metric in SUMMARY_METRICS:
            values = sub[metric].to_numpy(dtype=float)
            low, high = _ci(values[idx].mean(axis=1))
            out.append({**base, "metric": metric, "mean": float(values.mean()), "ci_low": low, "ci_high": high})
        tp, npred, ngold = (sub[c].to_numpy(dtype=int) for c in ("action_tp", "action_n_pred", "action_n_gold"))
        point = _micro(tp, npred, ngold)
        boot = _micro_boot(tp, npred, ngold, idx)
        for k, metric in enumerate(MICRO_METRICS):
            low, high = _ci(boot[:, k])
            out.append(
                {
                    **base,
                    "metric": metric,
                    "mean": point[k],
                    "ci_low": low,
                    "ci_high": high,
                    "note": "pooled matches over transcripts",
                }
            )
        metric = CHRF()
        score = _corpus_score(metric, list(sub["summary"].fillna("")), list(sub["reference_summary"]), n_bootstrap)
        low, high = (
            (float(score._mean - score._ci), float(score._mean + score._ci))
            if n_bootstrap > 1
            else (float("nan"), float("nan"))
        )
        out.append(
            {
                **base,
                "metric": "summary_chrF_corpus",
                "mean": float(score.score),
                "ci_low": low,
                "ci_high": high,
                "note": str(metric.get_signature()),
            }
        )
    return pd.DataFrame(out, columns=DF_COLUMNS)


def _paired(per: pd.DataFrame, variants: list[str], idx: np.ndarray) -> pd.DataFrame:
    rows = []
    base = variants[0]
    a = per[per["variant"] == base].set_index("transcript_id")
    for v in variants[1:]:
        b = per[per["variant"] == v].set_index("transcript_id").loc[a.index]
        for metric in SUMMARY_METRICS:
            x, y = a[metric].to_numpy(dtype=float), b[metric].to_numpy(dtype=float)
            test = paired_bootstrap(x, y, idx)
            rows.append(
                {
                    "baseline": base,
                    "variant": v,
                    "metric": metric,
                    "mean_baseline": float(x.mean()),
                    "mean_variant": float(y.mean()),
                    **test,
                    "significant": bool(test["p_value"] < ALPHA),
                    "n": len(x),
                }
            )
    return pd.DataFrame(rows, columns=PAIRED_COLUMNS)
