"""Routing evaluation: does Aya's supervisor pick the right tool for a request?

:func:`evaluate_routing` routes the labelled requests of ``data/routing`` the way the room does: a
request not in English is first brought into English with the ``aya_translate`` prompt of
:class:`~aya_lab.agents.translator.AyaTranslator`, the text to route is chosen by the room's rule
(:func:`~aya_lab.agents.route_input.decide_input`; ``translate``: see
:data:`~aya_lab.eval.routing_input.Translate`), then an
:class:`~aya_lab.agents.routing.LLMRouter` prompt is answered and parsed with
:func:`~aya_lab.agents.routing.parse_tool_choice`, falling back to the router's keyword router when the answer
names no tool. Unlike ``LLMRouter.route`` (one call per request), all translations go to the model as
one ``generate_texts`` batch, and all router prompts as another; the decisions are the same.

Reported (:class:`RoutingResults`): accuracy with a percentile bootstrap 95% CI, overall and per
request language, beside the majority-class floor's (``floor``, shown in ``table()`` as prompt
``majority-class``: every request given the set's most frequent label, :mod:`aya_lab.eval.floors`); the fallback rate (share of answers that named no tool); LLM calls and tokens; a
confusion matrix (gold rows x predicted columns); one row per example. Cost (``lang`` = all, translations
included): ``llm_calls``, ``prompt_tokens``, ``completion_tokens``, ``latency_s`` (recorded model seconds).

:func:`sweep_routing` runs several ``supervisor`` prompt variants on the same (once-translated)
requests and tests each against the first on the same examples with two paired tests: a paired
bootstrap of the accuracy difference (resamples shared by all variants, seeded) and McNemar's exact
test (a two-sided binomial test on the discordant pairs, b = baseline right / variant wrong and
c = the reverse). ``significant`` requires both at p < 0.05, as the translation tables do.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from aya_lab.agents.route_input import RoutedInput
from aya_lab.agents.routing import LLMRouter
from aya_lab.datasets.project import ROUTING_LABELS, load_routing_examples
from aya_lab.errors import InputError
from aya_lab.eval.floors import MAJORITY, majority_label
from aya_lab.eval.routing_input import Translate, route_requests, translator_prompt
from aya_lab.eval.stats import bootstrap_indices, mcnemar_exact, paired_binary
from aya_lab.eval.stats import percentile_ci as _ci
from aya_lab.models import load_chat_model
from aya_lab.prompts import load_prompt

__all__ = [
    "RoutingResults",
    "RoutingSweep",
    "evaluate_routing",
    "sweep_routing",
    "mcnemar_exact",
    "ROUTING_COLUMNS",
    "as_chat_model",
    "load_router_prompt",
]

ROUTING_COLUMNS = "prompt lang metric mean ci_low ci_high n model_fingerprint prompt_hash dataset_id".split()
PAIRED_COLUMNS = "baseline variant lang metric mean_baseline mean_variant diff ci_low ci_high p_bootstrap b c p_mcnemar significant n".split()


@dataclass
class RoutingResults:
    """``df`` (prompt x language x metric), ``examples`` (one row per request), ``confusion``."""

    df: pd.DataFrame
    examples: pd.DataFrame
    confusion: pd.DataFrame
    meta: dict[str, Any] = field(default_factory=dict)
    floor: pd.DataFrame = field(default_factory=pd.DataFrame)  # the majority-class floor's accuracy rows

    @property
    def accuracy(self) -> float:
        row = self.df[(self.df["metric"] == "accuracy") & (self.df["lang"] == "all")]
        return float(row["mean"].iloc[0])

    def __repr__(self) -> str:
        return f"RoutingResults({self.meta.get('prompt')}: accuracy {self.accuracy:.3f} on {len(self.examples)})"

    def table(self) -> pd.DataFrame:
        """Languages as rows; accuracy ``mean [low, high]``, fallback rate and n as columns; then the
        majority-class floor's rows (prompt ``majority-class``)."""
        return _table(pd.concat([self.df, self.floor], ignore_index=True))

    def save(self, path: str | Path) -> Path:
        """Write ``path`` (CSV of ``df``), ``<stem>.examples.csv``, ``<stem>.confusion.csv``,
        ``<stem>.floor.csv`` (the majority-class floor) and ``<stem>.json``."""
        path = _csv_path(path)
        self.df.to_csv(path, index=False)
        self.examples.to_csv(path.with_name(path.stem + ".examples.csv"), index=False)
        self.confusion.to_csv(path.with_name(path.stem + ".confusion.csv"))
        self.floor.to_csv(path.with_name(path.stem + ".floor.csv"), index=False)
        _write_meta(path, self.meta)
        return path


@dataclass
class RoutingSweep:
    """Several prompt variants on the same requests: ``df``, ``examples``, ``paired``, ``confusion``."""

    df: pd.DataFrame
    examples: pd.DataFrame
    paired: pd.DataFrame
    confusion: dict[str, pd.DataFrame]
    meta: dict[str, Any] = field(default_factory=dict)
    floor: pd.DataFrame = field(default_factory=pd.DataFrame)  # the majority-class floor's accuracy rows

    @property
    def variants(self) -> list[str]:
        return list(self.confusion)

    def __repr__(self) -> str:
        return f"RoutingSweep(variants: {', '.join(self.variants)}; {self.meta.get('n')} requests)"

    def table(self) -> pd.DataFrame:
        """Prompt x language rows with accuracy and fallback rate, then the majority-class floor's rows."""
        return _table(pd.concat([self.df, self.floor], ignore_index=True))

    def save(self, path: str | Path) -> Path:
        """Write ``path`` (CSV of ``df``), ``<stem>.examples.csv``, ``<stem>.paired.csv``,
        ``<stem>.confusion.csv`` (all variants, a ``prompt`` column), ``<stem>.floor.csv`` and ``<stem>.json``."""
        path = _csv_path(path)
        self.df.to_csv(path, index=False)
        self.examples.to_csv(path.with_name(path.stem + ".examples.csv"), index=False)
        self.paired.to_csv(path.with_name(path.stem + ".paired.csv"), index=False)
        conf = pd.concat([c.reset_index().assign(prompt=v) for v, c in self.confusion.items()], ignore_index=True)
        conf.to_csv(path.with_name(path.stem + ".confusion.csv"), index=False)
        self.floor.to_csv(path.with_name(path.stem + ".floor.csv"), index=False)
        _write_meta(path, self.meta)
        return path


def _csv_path(path: str | Path) -> Path:
    path = Path(path)
    if path.suffix.lower() != ".csv":
        raise InputError(f"results path must name a .csv file, not {path.name}")
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def _write_meta(path: Path, meta: dict) -> None:
    path.with_suffix(".json").write_text(
        json.dumps(meta, indent=2, sort_keys=True, default=str) + "\n", encoding="utf-8"
    )


def _table(df: pd.DataFrame) -> pd.DataFrame:
    acc = df[df["metric"] == "accuracy"]
    fb = df[df["metric"] == "fallback_rate"].set_index(["prompt", "lang"])["mean"]
    rows = []
    for r in acc.itertuples(index=False):
        rows.append(
            {
                "prompt": r.prompt,
                "lang": r.lang,
                "accuracy": f"{r.mean:.3f} [{r.ci_low:.3f}, {r.ci_high:.3f}]",
                "fallback_rate": f"{fb.get((r.prompt, r.lang), float('nan')):.3f}",
                "n": int(r.n),
            }
        )
    return pd.DataFrame(rows).set_index(["prompt", "lang"]) if rows else pd.DataFrame()


# -- running -----------------------------------------------------------------------------------------


def as_chat_model(model: Any) -> Any:
    """``model`` itself, or the chat model a spec string (``None``: the default) names."""
    if model is None or isinstance(model, str):
        return load_chat_model(model)
    return model


def _examples(examples: Sequence[Any] | None, n: int | None) -> list[Any]:
    if n is not None and n <= 0:
        raise InputError(f"n must be positive; got {n}")
    items = list(examples) if examples is not None else load_routing_examples()
    items = items[:n] if n is not None else items
    if not items:
        raise InputError("no routing examples to evaluate")
    return items


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


def load_router_prompt(prompt: Any) -> Any:
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
                low, high = _ci(values[idx].mean(axis=1))
            else:  # resample within the language (its own seeded draws)
                low, high = _ci(values[bootstrap_indices(len(values), idx.shape[0], seed=0)].mean(axis=1))
            row = {"prompt": name, "lang": lang, "metric": metric, "mean": float(values.mean())}
            rows.append({**row, "ci_low": low, "ci_high": high, "n": int(mask.sum()), **sig})
    return rows


def _majority_rows(items: list[Any], idx: np.ndarray, dataset_id: str) -> pd.DataFrame:
    """The majority-class floor's accuracy rows (prompt ``majority-class``; :mod:`aya_lab.eval.floors`)."""
    label = majority_label([ex.label for ex in items])
    ex = pd.DataFrame({"lang": [e.lang for e in items], "correct": [float(e.label == label) for e in items]})
    sig = {"model_fingerprint": f"floor:{MAJORITY}({label})", "prompt_hash": "-", "dataset_id": dataset_id}
    rows = _metric_rows(ex.assign(fallback=float("nan")), MAJORITY, sig, idx)
    return pd.DataFrame([r for r in rows if r["metric"] == "accuracy"], columns=ROUTING_COLUMNS)


def _run(model, prompt_file, items, routed, tr_cost, idx, dataset_id) -> tuple[pd.DataFrame, ...]:
    name = prompt_file.variant or prompt_file.name
    decisions = _route_all(model, prompt_file, routed)
    examples = pd.DataFrame(
        [
            {
                "prompt": name,
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
        row = {"prompt": name, "lang": "all", "metric": metric, "mean": float(value), "ci_low": nan, "ci_high": nan}
        rows.append({**row, "n": len(items), **sig})
    confusion = (
        pd.crosstab(examples["label"], examples["predicted"])
        .reindex(index=list(ROUTING_LABELS), columns=list(ROUTING_LABELS), fill_value=0)
        .fillna(0)
        .astype(int)
    )
    confusion.index.name, confusion.columns.name = "gold", "predicted"
    return pd.DataFrame(rows, columns=ROUTING_COLUMNS), examples, confusion


def evaluate_routing(
    model: Any = None,
    examples: Sequence[Any] | None = None,
    prompt: Any = "supervisor/baseline",
    n: int | None = None,
    translate: Translate = True,
    *,
    n_bootstrap: int = 1000,
    seed: int = 0,
    translator: Any = None,
) -> RoutingResults:
    """Route ``examples`` (default: ``data/routing``, first ``n``) with a ``supervisor`` prompt; score them.

    ``model``: a chat model or spec (default ``AYA_LAB_MODEL`` or ``smollm2``); ``prompt``:
    ``"supervisor/fewshot"``, ``"fewshot"`` or a PromptFile. The LLM-call count includes the request
    translations (one per non-English request, sent as one batch), made by ``translator`` (a chat model
    or spec; default ``model``), as the room's ``translator`` role does.
    """
    model = as_chat_model(model)
    prompt_file = load_router_prompt(prompt)
    items = _examples(examples, n)
    translator = as_chat_model(translator) if translator else None
    routed, cost = route_requests(model, items, translate, translator)
    idx = bootstrap_indices(len(items), n_bootstrap, seed)
    dataset_id = "routing" if examples is None else "routing:custom"
    df, ex, conf = _run(model, prompt_file, items, routed, cost, idx, dataset_id)
    meta = {
        "kind": "routing",
        "prompt": prompt_file.name,
        "n": len(items),
        "translate": translate,
        "n_bootstrap": n_bootstrap,
        "seed": seed,
        "model": getattr(model, "spec", "?"),
        "dataset_id": dataset_id,
        "translator_prompt": translator_prompt(model, translate, translator),
    }
    return RoutingResults(df, ex, conf, meta, floor=_majority_rows(items, idx, dataset_id))


def sweep_routing(
    variants: Sequence[str] = ("baseline", "fewshot"),
    model: Any = None,
    examples: Sequence[Any] | None = None,
    n: int | None = None,
    translate: Translate = True,
    *,
    n_bootstrap: int = 1000,
    seed: int = 0,
    translator: Any = None,
) -> RoutingSweep:
    """Each ``supervisor`` prompt variant on the same requests; paired tests of each against the first."""
    names = [v.strip() for v in variants if v and v.strip()]
    if not names:
        raise InputError("no prompt variants given; use e.g. baseline,fewshot")
    prompts = [load_router_prompt(v) for v in names]  # unknown variant -> PromptError (one line)
    labels = [p.variant or p.name for p in prompts]
    dupes = sorted({x for x in labels if labels.count(x) > 1})
    if dupes:
        raise InputError(f"prompt variants must be unique; repeated: {', '.join(dupes)}")
    model = as_chat_model(model)
    items = _examples(examples, n)
    translator = as_chat_model(translator) if translator else None
    routed, cost = route_requests(model, items, translate, translator)
    idx = bootstrap_indices(len(items), n_bootstrap, seed)
    dataset_id = "routing" if examples is None else "routing:custom"
    dfs, exs, confusion = [], [], {}
    for label, p in zip(labels, prompts, strict=True):
        df, ex, conf = _run(model, p, items, routed, cost, idx, dataset_id)
        dfs.append(df)
        exs.append(ex)
        confusion[label] = conf
    paired = _paired(exs, labels, idx)
    meta = {
        "kind": "routing-sweep",
        "variants": labels,
        "baseline": labels[0],
        "translation_cost": cost,
        "n": len(items),
        "translate": translate,
        "n_bootstrap": n_bootstrap,
        "seed": seed,
        "model": getattr(model, "spec", "?"),
        "dataset_id": dataset_id,
        "translator_prompt": translator_prompt(model, translate, translator),
    }
    floor = _majority_rows(items, idx, dataset_id)
    return RoutingSweep(
        pd.concat(dfs, ignore_index=True), pd.concat(exs, ignore_index=True), paired, confusion, meta, floor
    )


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
                    "variant": label,
                    "lang": "all",
                    "metric": metric,
                    "mean_baseline": float(a.mean()),
                    "mean_variant": float(b.mean()),
                    "diff": test["diff"],
                    "ci_low": test["ci_low"],
                    "ci_high": test["ci_high"],
                    "p_bootstrap": test["p_value"],
                    "b": test["only_a"],
                    "c": test["only_b"],
                    "p_mcnemar": test["p_mcnemar"],
                    "significant": test["significant"],
                    "n": len(a),
                }
            )
    return pd.DataFrame(rows, columns=PAIRED_COLUMNS)
