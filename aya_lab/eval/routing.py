"""Routing evaluation: does Aya's supervisor pick the right tool for a request?

:func:`evaluate_routing` routes the labelled requests of ``data/routing`` the way the room does: a
request not in English is first brought into English with the ``aya_translate`` prompt of
:class:`~aya_lab.agents.translator.AyaTranslator`, the text to route is chosen by the room's rule
(:func:`~aya_lab.agents.route_input.decide_input`; ``translate``: see
:data:`Translate`), then an
:class:`~aya_lab.agents.routing.LLMRouter` prompt is answered and parsed with
:func:`~aya_lab.agents.routing.parse_tool_choice`, falling back to the router's keyword router when the answer
names no tool. Unlike ``LLMRouter.route`` (one call per request), all translations go to the model as
one ``generate_texts`` batch, and all router prompts as another; the decisions are the same.

Both functions return a ``routing`` :class:`~aya_lab.eval.report.Report` (``run("routing", ...)``,
``aya-lab eval run routing``); :func:`evaluate_routing` is a sweep of one prompt. Its ``df``: per
``system`` (the prompt variant) and ``lang`` (each request language and ``all``), accuracy and the
fallback rate (share of answers that named no tool) with a percentile bootstrap 95% CI, and the cost
(``lang`` = all, translations included): ``llm_calls``, ``prompt_tokens``, ``completion_tokens``,
``latency_s`` (recorded model seconds). ``items``: one row per system and request. ``frames``:
``confusion`` (gold rows x predicted columns, a ``system`` column; :func:`confusion_matrices`) and
``floor``, the majority-class floor's accuracy rows (system ``majority-class``: every request given the
set's most frequent label, :data:`MAJORITY`, :func:`majority_label`: an in-sample floor, so if anything slightly generous), shown in the table after the variants.

:func:`sweep_routing` runs several ``supervisor`` prompt variants on the same (once-translated)
requests and tests each against the first on the same examples (``paired``) with two paired tests: a
paired bootstrap of the accuracy difference (resamples shared by all variants, seeded; ``p``) and
McNemar's exact test (a two-sided binomial test on the discordant pairs, ``b`` = baseline right /
variant wrong and ``c`` = the reverse; ``p_mcnemar``). ``significant`` is the Holm-adjusted bootstrap p
below 0.05, one family per metric (:func:`~aya_lab.eval.resampling.holm_column`).

Which text is routed: :func:`route_requests` (also what :mod:`aya_lab.eval.routing_sequences` routes) brings
every non-English request into English with the ``aya_translate`` prompt in one ``generate_texts`` batch
(when the path translates), then :func:`~aya_lab.agents.route_input.decide_input` — the function the room's
supervisor node calls — chooses the text for each request and says whether the keyword fallback also reads
the original. :func:`decided_by` splits a router's accuracy by who decided: the model (its answer named a
tool) or the keyword fallback (it named none), per group with percentile bootstrap 95% CIs (an empty group
has NaN accuracy, not 0); it works on a ``routing`` or a ``sequences`` report's items.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any, Literal, Protocol, cast

import numpy as np
import pandas as pd

from aya_lab.agents.protocols import TextModel
from aya_lab.agents.route_input import RoutedInput, RouteOn, decide_input
from aya_lab.agents.routing import LLMRouter
from aya_lab.agents.translator import AyaTranslator
from aya_lab.datasets.project import ROUTING_LABELS, load_routing_examples
from aya_lab.errors import InputError
from aya_lab.eval.configs import RoutingConfig
from aya_lab.eval.progress import generation_progress
from aya_lab.eval.report import Report, Task
from aya_lab.eval.resampling import bootstrap_ci, bootstrap_indices, holm_column, mcnemar_exact, mean_ci, paired_binary
from aya_lab.models import load_chat_model
from aya_lab.models.base import record_generations
from aya_lab.models.result import Usage, usage
from aya_lab.prompts import PromptFile, load_prompt

__all__ = [
    "DECIDERS",
    "decided_by",
    "MAJORITY",
    "majority_label",
    "evaluate_routing",
    "sweep_routing",
    "confusion_matrices",
    "routing_table",
    "mcnemar_exact",
    "ROUTING_COLUMNS",
    "ROUTING_PAIRED_COLUMNS",
    "ROUTING_TASK",
    "as_chat_model",
    "load_router_prompt",
    "routing_views",
    "Translate",
    "as_route_on",
    "route_requests",
    "translator_prompt",
]

ROUTING_COLUMNS = "system lang metric score ci_low ci_high n model_fingerprint prompt_hash dataset_id".split()
ROUTING_PAIRED_COLUMNS = (
    "baseline system lang metric score_baseline score_system delta ci_low ci_high p b c p_mcnemar n".split()
)
"""The paired table's columns before :func:`~aya_lab.eval.resampling.holm_column` adds ``p_holm`` and ``significant``."""


DECIDERS = ("model", "keyword fallback")
"""The values of :func:`decided_by`'s ``decided_by`` column (beside ``all``)."""


def decided_by(
    examples: pd.DataFrame,
    keys: Sequence[str],
    *,
    correct: str = "correct",
    fallback: str = "fallback",
    n_bootstrap: int = 1000,
    seed: int = 0,
) -> pd.DataFrame:
    """Per group of ``keys``: rows ``all``, ``model`` and ``keyword fallback`` with ``n``, ``share`` (of the
    group's requests) and ``accuracy`` with ``ci_low``/``ci_high``. ``correct`` and ``fallback`` name 0/1
    columns (a ``routing`` report's items have ``correct``/``fallback``; a ``sequences`` report's
    ``sequence_accuracy``/``fallback_rate``)."""
    missing = [c for c in (*keys, correct, fallback) if c not in examples.columns]
    if missing:
        raise InputError(f"decided_by: no column {missing[0]!r}; the examples have {', '.join(examples.columns)}")
    rows = []
    for group, frame in examples.groupby(list(keys), sort=False):
        values = frame[correct].to_numpy(dtype=float)
        by_fallback = frame[fallback].to_numpy(dtype=float) > 0
        for name, mask in (("all", np.ones(len(frame), bool)), (DECIDERS[0], ~by_fallback), (DECIDERS[1], by_fallback)):
            chosen = values[mask]
            low, high = bootstrap_ci(chosen, n_bootstrap, seed)
            mean = float(chosen.mean()) if chosen.size else float("nan")
            key = dict(zip(keys, group if isinstance(group, tuple) else (group,), strict=True))
            rows.append({**key, "decided_by": name, "n": int(mask.sum()), "share": float(mask.mean()),
                         "accuracy": mean, "ci_low": low, "ci_high": high})  # fmt: skip
    return pd.DataFrame(rows, columns=[*keys, "decided_by", "n", "share", "accuracy", "ci_low", "ci_high"])


def routing_table(report: Report) -> pd.DataFrame:
    """System x language rows: accuracy ``score [low, high]``, fallback rate and n; then the
    majority-class floor's rows (system ``majority-class``)."""
    parts = [f for f in (report.df, report.frames.get("floor")) if f is not None and len(f)]
    df = pd.concat(parts, ignore_index=True) if parts else report.df
    acc = df[df["metric"] == "accuracy"]
    fb = df[df["metric"] == "fallback_rate"].set_index(["system", "lang"])["score"]
    rows = []
    for r in acc.itertuples(index=False):
        rows.append(
            {
                "system": r.system,
                "lang": r.lang,
                "accuracy": f"{r.score:.3f} [{r.ci_low:.3f}, {r.ci_high:.3f}]",
                "fallback_rate": f"{fb.get((r.system, r.lang), float('nan')):.3f}",
                "n": int(r.n),
            }
        )
    return pd.DataFrame(rows).set_index(["system", "lang"]) if rows else pd.DataFrame()


def confusion_matrices(report: Report) -> dict[str, pd.DataFrame]:
    """Each system's confusion matrix (gold rows x predicted columns) from the report's ``confusion`` frame."""
    frame = report.frames.get("confusion", pd.DataFrame(columns=["system", "gold"]))
    out = {}
    for system, rows in frame.groupby("system", sort=False):
        matrix = rows.drop(columns="system").set_index("gold").astype(int)
        matrix.columns.name = "predicted"
        out[str(system)] = matrix
    return out


# -- running -----------------------------------------------------------------------------------------


def routing_views(report: Report) -> list[tuple[str, pd.DataFrame]]:
    """What ``aya-lab eval run routing`` prints: the table, each system's confusion matrix, the paired
    tests against the baseline, and who decided (the model or the keyword fallback) with each one's accuracy."""
    views: list[tuple[str, pd.DataFrame]] = [("", routing_table(report))]
    views += [
        (f"confusion ({name}; rows gold, columns predicted):", m) for name, m in confusion_matrices(report).items()
    ]
    if len(report.paired):
        views.append((f"paired against {report.baseline}:", report.paired))
    n_bootstrap, seed = (int(str(report.meta.get(k, d))) for k, d in (("n_bootstrap", 1000), ("seed", 0)))
    decided = decided_by(report.items, ["system"], n_bootstrap=n_bootstrap, seed=seed)
    title = "who decided (model: its answer named a tool; keyword fallback: it named none), accuracy of each:"
    return [*views, (title, decided)]


def as_chat_model(model: TextModel | str | None) -> TextModel:
    """``model`` itself, or the chat model a spec string (``None``: the default) names."""
    if model is None or isinstance(model, str):
        return cast(TextModel, load_chat_model(model))
    return model


def _examples(examples: Sequence[Any] | None, n: int | None) -> list[Any]:
    if n is not None and n <= 0:
        raise InputError(f"n must be positive; got {n}")
    items = list(examples) if examples is not None else load_routing_examples()
    items = items[:n] if n is not None else items
    if not items:
        raise InputError("no routing examples to evaluate")
    return items


def _check_gold(items: list[Any], translate: Translate) -> None:
    """``translate="gold"`` routes the set's English gloss: refused, in one line, when a request lacks one."""
    missing = [ex.id for ex in items if translate == "gold" and ex.lang != "eng" and not ex.text_en]
    if missing:
        raise InputError(
            f"translate gold needs an English gloss (text_en) on every non-English request; {len(missing)} lack "
            f"one (first: {missing[0]}); use --translate true"
        )


def _route_all(model: Any, prompt: Any, routed: list[RoutedInput]) -> list[dict[str, Any]]:
    """Route every text with one batch of router prompts (the LLMRouter's parse and fallback, which also
    reads the request as written where the routed text is its translation)."""
    texts, originals = [r.text for r in routed], [r.original for r in routed]
    return [
        {
            "answer": r.text,
            "predicted": d.tool,
            "fallback": float(d.fallback),
            "log": d.log,
            "prompt_tokens": r.prompt_tokens,
            "completion_tokens": r.completion_tokens,
            "latency_s": r.latency_s,
        }
        for d, r in LLMRouter(model, prompt).route_many(texts, originals)
    ]


def load_router_prompt(prompt: PromptFile | str) -> PromptFile:
    """``prompt`` itself, or the prompt file a variant name (``supervisor/<name>``) or a path names."""
    if not isinstance(prompt, str):
        return prompt
    ref = prompt if ("/" in prompt or prompt.endswith((".yaml", ".yml"))) else f"supervisor/{prompt}"
    return load_prompt(ref)


def _metric_rows(examples: pd.DataFrame, name: str, sig: dict, idx: np.ndarray) -> list[dict[str, Any]]:
    """Accuracy and fallback rate, overall and per language, with percentile bootstrap CIs."""
    rows = []
    langs = ["all", *sorted(examples["lang"].unique())]
    for lang in langs:
        mask = np.ones(len(examples), bool) if lang == "all" else (examples["lang"] == lang).to_numpy()
        for metric, col in (("accuracy", "correct"), ("fallback_rate", "fallback")):
            values = examples.loc[mask, col].to_numpy(dtype=float)
            if lang == "all":
                low, high = mean_ci(values, values[idx].mean(axis=1))
            else:  # resample within the language (its own seeded draws)
                low, high = mean_ci(values, values[bootstrap_indices(len(values), idx.shape[0], seed=0)].mean(axis=1))
            row = {"system": name, "lang": lang, "metric": metric, "score": float(values.mean())}
            rows.append({**row, "ci_low": low, "ci_high": high, "n": int(mask.sum()), **sig})
    return rows


def _majority_rows(items: list[Any], idx: np.ndarray, dataset_id: str) -> pd.DataFrame:
    """The majority-class floor's accuracy rows (system ``majority-class``; :mod:`aya_lab.eval.summary_scoring`)."""
    label = majority_label([ex.label for ex in items])
    ex = pd.DataFrame({"lang": [e.lang for e in items], "correct": [float(e.label == label) for e in items]})
    sig = {"model_fingerprint": f"floor:{MAJORITY}({label})", "prompt_hash": "-", "dataset_id": dataset_id}
    rows = _metric_rows(ex.assign(fallback=float("nan")), MAJORITY, sig, idx)
    return pd.DataFrame([r for r in rows if r["metric"] == "accuracy"], columns=ROUTING_COLUMNS)


def _confusion(name: str, examples: pd.DataFrame) -> pd.DataFrame:
    """Gold x predicted counts over the routing labels, as rows of the ``confusion`` frame."""
    labels = list(ROUTING_LABELS)
    matrix = pd.crosstab(examples["label"], examples["predicted"]).reindex(index=labels, columns=labels, fill_value=0)
    matrix = matrix.fillna(0).astype(int)
    matrix.index.name, matrix.columns.name = "gold", None
    return matrix.reset_index().assign(system=name)[["system", "gold", *labels]]


def _run(model, prompt_file, items, routed, tr_cost, idx, dataset_id) -> tuple[pd.DataFrame, ...]:
    name = prompt_file.variant or prompt_file.name
    decisions = _route_all(model, prompt_file, routed)
    examples = pd.DataFrame(
        [
            {
                "system": name,
                "id": ex.id,
                "lang": ex.lang,
                "label": ex.label,
                "text": ex.text,
                "routed_text": r.text,
                **d,
                "correct": float(d["predicted"] == ex.label),
            }
            for ex, r, d in zip(items, routed, decisions, strict=True)
        ]
    )
    sig = {"model_fingerprint": model.fingerprint, "prompt_hash": prompt_file.content_hash, "dataset_id": dataset_id}
    rows = _metric_rows(examples, name, sig, idx)
    total = {
        "llm_calls": len(items) + tr_cost["calls"],
        "prompt_tokens": float(examples["prompt_tokens"].sum()) + tr_cost["prompt_tokens"],
        "completion_tokens": float(examples["completion_tokens"].sum()) + tr_cost["completion_tokens"],
        "latency_s": float(examples["latency_s"].sum()) + tr_cost.get("latency_s", 0.0),
    }
    nan = float("nan")
    for metric, value in total.items():
        row = {"system": name, "lang": "all", "metric": metric, "score": float(value), "ci_low": nan, "ci_high": nan}
        rows.append({**row, "n": len(items), **sig})
    return pd.DataFrame(rows, columns=ROUTING_COLUMNS), examples, _confusion(name, examples)


def evaluate_routing(
    model: TextModel | str | None = None,
    examples: Sequence[Request] | None = None,
    prompt: PromptFile | str = "supervisor/baseline",
    n: int | None = None,
    translate: Translate = True,
    *,
    n_bootstrap: int = 1000,
    seed: int = 0,
    translator: TextModel | str | None = None,
) -> Report:
    """Route ``examples`` (default: ``data/routing``, first ``n``) with a ``supervisor`` prompt; score them.

    ``model``: a chat model or spec (default ``AYA_LAB_MODEL`` or ``smollm2``); ``prompt``:
    ``"supervisor/fewshot"``, ``"fewshot"`` or a PromptFile. The LLM-call count includes the request
    translations (one per non-English request, sent as one batch), made by ``translator`` (a chat model
    or spec; default ``model``), as the room's ``translator`` role does. A ``routing`` report of one system.
    """
    prompt_file = load_router_prompt(prompt)
    report = _sweep([prompt_file], model, examples, n, translate, n_bootstrap, seed, translator)
    report.meta["prompt"] = prompt_file.name
    return report


def sweep_routing(
    variants: Sequence[str] = ("baseline", "fewshot"),
    model: TextModel | str | None = None,
    examples: Sequence[Request] | None = None,
    n: int | None = None,
    translate: Translate = True,
    *,
    n_bootstrap: int = 1000,
    seed: int = 0,
    translator: TextModel | str | None = None,
) -> Report:
    """Each ``supervisor`` prompt variant on the same requests; paired tests of each against the first."""
    names = [v.strip() for v in variants if v and v.strip()]
    if not names:
        raise InputError("no prompt variants given; use e.g. baseline,fewshot")
    prompts = [load_router_prompt(v) for v in names]  # unknown variant -> PromptError (one line)
    labels = [p.variant or p.name for p in prompts]
    dupes = sorted({x for x in labels if labels.count(x) > 1})
    if dupes:
        raise InputError(f"prompt variants must be unique; repeated: {', '.join(dupes)}")
    return _sweep(prompts, model, examples, n, translate, n_bootstrap, seed, translator)


def _sweep(prompts, model, examples, n, translate, n_bootstrap, seed, translator) -> Report:
    """The ``routing`` report of ``prompts`` (loaded prompt files) on the same, once-translated requests."""
    labels = [p.variant or p.name for p in prompts]
    model = as_chat_model(model)
    items = _examples(examples, n)
    _check_gold(items, translate)
    translator = as_chat_model(translator) if translator else None
    routed, cost = route_requests(model, items, translate, translator)
    idx = bootstrap_indices(len(items), n_bootstrap, seed)
    dataset_id = "routing" if examples is None else "routing:custom"
    runs = [_run(model, p, items, routed, cost, idx, dataset_id) for p in prompts]
    meta = {
        "variants": labels,
        "baseline": labels[0],
        "units": ["lang"],
        "translation_cost": cost,
        "n": len(items),
        "translate": translate,
        "n_bootstrap": n_bootstrap,
        "seed": seed,
        "model": getattr(model, "spec", "?"),
        "dataset_id": dataset_id,
        "translator_prompt": translator_prompt(model, translate, translator),
    }
    frames = {"confusion": pd.concat([r[2] for r in runs], ignore_index=True)}
    frames["floor"] = _majority_rows(items, idx, dataset_id)
    df, items_df = (pd.concat([r[k] for r in runs], ignore_index=True) for k in (0, 1))
    return Report("routing", df, items_df, _paired([r[1] for r in runs], labels, idx), meta, frames)


def _paired(exs: list[pd.DataFrame], labels: list[str], idx: np.ndarray) -> pd.DataFrame:
    rows = []
    base = exs[0]
    for label, ex in zip(labels[1:], exs[1:]):
        for metric, col in (("accuracy", "correct"), ("fallback_rate", "fallback")):
            a, b = base[col].to_numpy(dtype=float), ex[col].to_numpy(dtype=float)
            test = paired_binary(a, b, idx)
            rows.append(
                {
                    "baseline": labels[0],
                    "system": label,
                    "lang": "all",
                    "metric": metric,
                    "score_baseline": float(a.mean()),
                    "score_system": float(b.mean()),
                    "delta": test["diff"],
                    "ci_low": test["ci_low"],
                    "ci_high": test["ci_high"],
                    "p": test["p_value"],
                    "b": test["only_a"],
                    "c": test["only_b"],
                    "p_mcnemar": test["p_mcnemar"],
                    "n": len(a),
                }
            )
    return holm_column(pd.DataFrame(rows, columns=ROUTING_PAIRED_COLUMNS))


def _model(ref: object) -> TextModel | str | None:
    """A config's model field (a spec, a loaded model or unset) as the evaluators take it."""
    return cast("TextModel | str | None", ref)


def _task_run(config: RoutingConfig) -> Report:
    examples = load_routing_examples(config.data) if config.data is not None else None
    with generation_progress(None, "routing", enabled=config.progress):
        report = sweep_routing(
            config.variants, _model(config.model), examples, config.n, config.translate,
            n_bootstrap=config.n_bootstrap, seed=config.seed, translator=_model(config.translator),
        )  # fmt: skip
    report.meta["data"] = config.data
    return report


MAJORITY = "majority-class"
"""The routing floor's name in the ``prompt`` column of routing results."""


def majority_label(labels: Sequence[str]) -> str:
    """The most frequent label (ties: the alphabetically first); raises on an empty list."""
    if not labels:
        raise InputError("the majority-class floor needs at least one labelled example")
    counts = Counter(labels)
    return min(counts, key=lambda label: (-counts[label], label))


Translate = bool | Literal["gold", "auto"] | RouteOn
"""The evaluators' spelling of :class:`~aya_lab.agents.route_input.RouteOn` (kept for the notebooks and the
CLI): ``True``: translate first (``english``, the room's path); ``False``: the text as written (``original``);
``"gold"``: the set's English; ``"auto"``: translate, but keep the original where the translation is not
English (the room's ``route_on: auto``); or a ``RouteOn``."""


def as_route_on(translate: Translate) -> RouteOn:
    """The :class:`~aya_lab.agents.route_input.RouteOn` that ``translate`` spells (see :data:`Translate`)."""
    if isinstance(translate, bool):
        return RouteOn.ENGLISH if translate else RouteOn.ORIGINAL
    try:
        return RouteOn(translate)
    except ValueError:
        raise InputError(f"translate must be True, False, 'gold' or 'auto' (or a RouteOn); got {translate!r}") from None


class Request(Protocol):
    """A labelled request as the routing evaluations read it (single- and multi-intent examples alike)."""

    @property
    def text(self) -> str: ...
    @property
    def lang(self) -> str: ...
    @property
    def text_en(self) -> str | None: ...


def route_requests(
    model: TextModel, examples: Sequence[Request], translate: Translate = True, translator: TextModel | None = None
) -> tuple[list[RoutedInput], Usage]:
    """What the router sees for each example (``text``, ``lang``, and ``text_en`` for ``gold``) and the cost
    of the translations (one batch, made by ``translator``, default ``model``, when the path translates)."""
    route_on = as_route_on(translate)
    texts, langs = [ex.text for ex in examples], [ex.lang for ex in examples]
    cost = usage([])
    english: list[str | None] = [None] * len(texts)
    if route_on is RouteOn.GOLD:
        english = [ex.text_en for ex in examples]
    elif route_on.translates:
        with record_generations() as records:
            english = list(AyaTranslator(translator if translator is not None else model).to_english_many(texts, langs))
        cost = usage(records)
    return [decide_input(t, lang, e, route_on) for t, lang, e in zip(texts, langs, english, strict=True)], cost


def translator_prompt(
    model: TextModel, translate: Translate = True, translator: TextModel | None = None
) -> dict[str, str]:
    """The ``aya_translate`` prompt :func:`route_requests` uses on ``translator`` (default ``model``), as
    :meth:`~aya_lab.prompts.PromptChoice.as_meta` records it (with ``prompt_note`` where a base model got the
    completion variant); ``{}`` when the path does not translate."""
    if not as_route_on(translate).translates:
        return {}
    return AyaTranslator(translator if translator is not None else model).prompt_choice.as_meta()


ROUTING_TASK = Task(
    "routing", "supervisor prompt variants routing the labelled requests", RoutingConfig, _task_run, routing_table,
    views=routing_views,
)  # fmt: skip
