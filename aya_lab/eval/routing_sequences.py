"""Tool sequences: does each router pick every tool a request needs, in order — on both paths?

:func:`evaluate_sequences` runs routers (``keyword``: the keyword rules, one tool; ``llm``: the
supervisor prompt on a model, one tool; ``multi``: the :class:`~aya_lab.agents.multi_intent.ReDecidingRouter`
over the LLM router, the room's default) through a :class:`~aya_lab.agents.routing.RoutingChain`
whose tools only echo their name, and ``loop`` (the :class:`~aya_lab.agents.llm_router.LoopRouter`: the model reads the chained
input and decides each next tool or to finish, one model call per step, the keyword fallback deciding
a step it does not parse) on labelled sets — ``single``, the single-intent requests of
``data/routing/requests.jsonl`` (gold sequence: the one label); ``multi``, the multi-intent requests of
``data/routing/multi_intent.jsonl`` (gold: the tools in order; in-sample for the ``multi`` router, whose
splitter rules were written looking at it); ``unseen``, ``data/routing/multi_intent_unseen.jsonl``
(written before any router was measured on it) — and on paths (:data:`PATHS`, each a
:class:`~aya_lab.agents.route_input.RouteOn`): ``room`` (translate to English with the ``aya_translate``
prompt, then route the translation) and ``original`` (route the untranslated text); ``auto`` translates,
then routes the untranslated text where the translation fails the output-language check (the room's
``route_on: auto``); ``gold`` routes the data set's English. The text each path routes is decided by
:func:`~aya_lab.agents.route_input.decide_input`, as in the room. ``translator`` is the model that
translates (the ``translator`` role; default ``model``).

Metrics per model x router x path x set: ``sequence_accuracy`` (the predicted tool sequence equals the
gold one exactly), ``step_accuracy`` (position-wise matches over the longer of the two sequences) and
``fallback_rate`` (a decision came from the keyword fallback), and per request the router's ``steps``
(tools run), model ``calls``, model ``seconds`` (the generations' recorded latency) and
``parse_failures`` (answers the loop router could not parse), each with a percentile bootstrap 95% CI;
``parse_failure_rate`` is failures per router model call. On the single-intent set,
``sequence_accuracy`` of a one-step router is today's routing accuracy. The tools only echo their name
(``[summarize done]``): the loop router reads that as the observation. Model calls are batched: all
translations of a set in one batch, all first router prompts of ``llm``/``multi`` in one; the loop
router's calls are one per step, request by request.

The result is a ``sequences`` :class:`~aya_lab.eval.report.Report` (``run("sequences", ...)``,
``aya-lab eval run sequences``): ``df`` per ``system`` (the router), ``model``, ``path`` and ``set``;
``items`` one row per request and run; ``paired`` each router against the first on exact sequence
accuracy (Holm over all its rows).
:func:`routers_paired` tests two routers on the same requests (the paired bootstrap of the exact-sequence
accuracy difference, ``delta`` = other − baseline with its 95% CI and ``p``, and McNemar's exact test,
``b``: only the baseline right, ``c``: only the other), :func:`paths_paired` each router on two paths the
same way, and :func:`sequence_costs` gives steps, calls, seconds, fallback and parse-failure rates per
request; :func:`sequence_table` is the task's table and :func:`sequence_views` what the command prints.
Both paired tables end with ``p_holm`` and ``significant`` (Holm over the table's rows of each metric).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import numpy as np
import pandas as pd

from aya_lab.agents.llm_router import LOOP_PROMPT, LoopRouter
from aya_lab.agents.multi_intent import ReDecidingRouter, split_intents
from aya_lab.agents.protocols import TextModel
from aya_lab.agents.route_input import RouteOn
from aya_lab.agents.routing import (
    KeywordRouter,
    LLMRouter,
    RouterOutput,
    RoutingChain,
    TranscriptRouter,
    as_transcript,
)
from aya_lab.datasets.project import ROUTING_LABELS, RoutingExample, load_routing_examples, read_data_text
from aya_lab.errors import InputError
from aya_lab.eval.configs import SEQUENCE_ROUTERS, SEQUENCE_SETS, SequencesConfig
from aya_lab.eval.progress import generation_progress
from aya_lab.eval.report import Report, Task
from aya_lab.eval.resampling import bootstrap_indices, holm_column, mean_ci, paired_accuracy, paired_binary
from aya_lab.eval.resampling import percentile_ci as _ci
from aya_lab.eval.routing import as_chat_model, load_router_prompt, route_requests
from aya_lab.models.result import record_generations
from aya_lab.paths import project_root
from aya_lab.prompts import PromptFile, fit_prompt

__all__ = [
    "SEQUENCE_ROUTERS",
    "PATHS",
    "SETS",
    "MultiIntentExample",
    "SEQUENCES_TASK",
    "evaluate_sequences",
    "load_multi_intent",
    "paths_paired",
    "routers_paired",
    "sequence_costs",
    "sequence_table",
    "step_accuracy",
    "SEQUENCE_PAIRED_COLUMNS",
    "PATHS_PAIRED_COLUMNS",
    "router_rows",
    "sequence_views",
]

SETS = SEQUENCE_SETS
"""The labelled sets by the names the results table shows (its ``set`` column)."""
PATHS: dict[str, RouteOn] = {
    "room": RouteOn.ENGLISH,
    "original": RouteOn.ORIGINAL,
    "auto": RouteOn.AUTO,
    "gold": RouteOn.GOLD,
}
"""The paths by the names the results table shows (its ``path`` column), each the text it routes."""


@dataclass(frozen=True)
class MultiIntentExample:
    """A request to Aya that needs ``tools`` in order (``text_en``: its English meaning)."""

    id: str
    text: str
    lang: str
    tools: tuple[str, ...]
    text_en: str


def load_multi_intent(path: str | Path | None = None) -> list[MultiIntentExample]:
    """Load ``data/routing/multi_intent.jsonl`` (or ``path``); a bad line raises ``<file>:<line>: ...``."""
    path = Path(path) if path is not None else project_root() / "data" / "routing" / "multi_intent.jsonl"
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such multi-intent file; see data/routing/README.md for the format")
    items = []
    for n, line in enumerate(read_data_text(path).splitlines(), 1):  # empty or non-UTF-8: one line naming it
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(
                f"{path}:{n}: not JSON ({exc.msg}, column {exc.colno}); write one JSON object per line"
            ) from None
        tools = tuple(row.get("tools") or ())
        bad = [t for t in tools if t not in ROUTING_LABELS]
        if not tools or bad or not str(row.get("text", "")).strip():
            raise InputError(f"{path}:{n}: needs a text and tools from {', '.join(ROUTING_LABELS)}; got {tools!r}")
        text = row["text"].strip()
        items.append(
            MultiIntentExample(row.get("id") or f"m{n:03d}", text, row["lang"], tools, row.get("text_en") or text)
        )
    return items


def _check_options(routers: Sequence[str], paths: Sequence[str], sets: Sequence[str] = ("single",)) -> None:
    """Refuse an unknown router, path or set (or none) with a one-line error naming the choices."""
    for name, given, known in (("router", routers, SEQUENCE_ROUTERS), ("path", paths, PATHS), ("set", sets, SETS)):
        unknown = [x for x in given if x not in known]
        if unknown or not given:
            raise InputError(f"unknown {name} {unknown or list(given)!r}; use some of {', '.join(known)}")


def step_accuracy(gold: Sequence[str], predicted: Sequence[str]) -> float:
    """Position-wise matches over the longer sequence (1.0 only for an exact match)."""
    longest = max(len(gold), len(predicted))
    return sum(g == p for g, p in zip(gold, predicted)) / longest if longest else 1.0


class _Decided(TranscriptRouter):
    """A router that replays decisions made beforehand (one model batch), then finishes."""

    def __init__(self, decisions: dict[str, RouterOutput], tools: Sequence[str]) -> None:
        self.decisions, self.tools = decisions, tuple(tools)

    def route(self, transcript: str) -> RouterOutput:
        t = as_transcript(transcript, self)
        if t.steps:
            return self.finish(t.observations[-1])
        return self.decisions[t.input]


_TOOLS = {t: (lambda x, t=t: f"[{t} done]") for t in ROUTING_LABELS}
_MAX_STEPS = 4


def _batched(name: str, model: Any, prompt: Any, texts: list[str], originals: list[str | None]) -> list[dict[str, Any]]:
    """``keyword``/``llm``/``multi`` per text, the model's first decisions made in one batch; the LLM
    router's keyword fallback also reads ``originals[i]`` (the request as written, where ``texts[i]`` is
    its translation), as in the room, so two requests translated alike may still be decided apart."""
    llm = LLMRouter(model, prompt)
    asked = [] if name == "keyword" else [i for i, t in enumerate(texts) if name == "llm" or len(split_intents(t)) < 2]
    made = llm.route_many([texts[i] for i in asked], [originals[i] for i in asked]) if asked else []
    decisions = {i: d for i, d in zip(asked, made, strict=True)}
    out = []
    for i, t in enumerate(texts):
        router: TranscriptRouter = KeywordRouter()
        if name != "keyword":
            decided = _Decided({t: decisions[i][0]} if i in decisions else {}, llm.tools)
            router = decided if name == "llm" else ReDecidingRouter(decided)
        r = RoutingChain(router, _TOOLS, max_steps=_MAX_STEPS).result(t)
        gen = decisions[i][1] if i in decisions else None
        cost = {"calls": int(gen is not None), "seconds": gen.latency_s if gen else 0.0, "parse_failures": 0}
        out.append({"tools": r.tools, "fallback": r.fallback, "stopped": r.stopped_by_limit, **cost})
    return out


def _looped(model: Any, prompt: Any, texts: list[str], originals: list[str | None]) -> list[dict[str, Any]]:
    """The loop router on each text, request by request (each step is one model call)."""
    out, prompt = [], fit_prompt(prompt, model)
    for t, o in zip(texts, originals, strict=True):
        router = LoopRouter(model, prompt)
        with record_generations() as records:
            r = RoutingChain(router, _TOOLS, max_steps=_MAX_STEPS).result(t, o)
        seconds = sum(rec.result.latency_s for rec in records)
        cost = {"calls": router.calls, "seconds": seconds, "parse_failures": router.failures}
        out.append({"tools": r.tools, "fallback": r.fallback, "stopped": r.stopped_by_limit, **cost})
    return out


_METRICS = ("sequence_accuracy", "step_accuracy", "fallback_rate", "steps", "calls", "seconds", "parse_failures")


def _rows(examples: pd.DataFrame, keys: dict[str, Any], n_bootstrap: int, seed: int) -> list[dict[str, Any]]:
    idx = bootstrap_indices(len(examples), n_bootstrap, seed)
    rows = []
    for metric in _METRICS:
        values = examples[metric].to_numpy(dtype=float)
        low, high = mean_ci(values, values[idx].mean(axis=1)) if len(values) else (float("nan"), float("nan"))
        mean = float(values.mean()) if len(values) else float("nan")  # an empty set: no score, no warning
        rows.append({**keys, "metric": metric, "score": mean, "ci_low": low, "ci_high": high, "n": len(values)})
    calls, fails = examples["calls"].to_numpy(dtype=float), examples["parse_failures"].to_numpy(dtype=float)
    if calls.sum() > 0:  # failures per model call: a ratio of sums, resampled by request
        sums = calls[idx].sum(axis=1)
        low, high = _ci(fails[idx].sum(axis=1) / np.where(sums > 0, sums, np.nan))
        rate = float(fails.sum() / calls.sum())
        rows.append(
            {**keys, "metric": "parse_failure_rate", "score": rate, "ci_low": low, "ci_high": high, "n": len(calls)}
        )
    return rows


def _frame(
    keys: dict[str, Any], items: Sequence[tuple[Any, tuple[str, ...]]], texts: list[str], runs: list[dict]
) -> pd.DataFrame:
    gold = [g for _, g in items]
    return pd.DataFrame(
        {
            **keys,
            "id": [e.id for e, _ in items],
            "lang": [e.lang for e, _ in items],
            "routed_text": texts,
            "gold": [" > ".join(g) for g in gold],
            "predicted": [" > ".join(r["tools"]) for r in runs],
            "sequence_accuracy": [float(tuple(r["tools"]) == tuple(g)) for r, g in zip(runs, gold)],
            "step_accuracy": [step_accuracy(g, r["tools"]) for r, g in zip(runs, gold)],
            "fallback_rate": [float(r["fallback"]) for r in runs],
            "steps": [len(r["tools"]) for r in runs],
            "stopped_by_limit": [r["stopped"] for r in runs],
            "calls": [r["calls"] for r in runs],
            "seconds": [r["seconds"] for r in runs],
            "parse_failures": [r["parse_failures"] for r in runs],
        }
    )


def _sets(names: Sequence[str], single: Any, multi: Any, unseen: Any, n: int | None) -> dict[str, list[Any]]:
    data = project_root() / "data" / "routing"
    chosen: dict[str, Callable[[], list[Any]]] = {
        "single": lambda: [(ex, (ex.label,)) for ex in (single if single is not None else load_routing_examples())],
        "multi": lambda: [(ex, ex.tools) for ex in (multi if multi is not None else load_multi_intent())],
        "unseen": lambda: [
            (ex, ex.tools)
            for ex in (unseen if unseen is not None else load_multi_intent(data / "multi_intent_unseen.jsonl"))
        ],
    }
    return {name: chosen[name]()[:n] for name in names}


def evaluate_sequences(
    model: TextModel | str | None = None,
    *,
    routers: Sequence[str] = ("keyword", "llm", "multi"),
    paths: Sequence[str] = ("room", "original"),
    sets: Sequence[str] = ("single", "multi"),
    prompt: PromptFile | str = "supervisor/baseline",
    loop_prompt: PromptFile | str = LOOP_PROMPT,
    single: Sequence[RoutingExample] | None = None,
    multi: Sequence[MultiIntentExample] | None = None,
    unseen: Sequence[MultiIntentExample] | None = None,
    n: int | None = None,
    n_bootstrap: int = 1000,
    seed: int = 0,
    translator: TextModel | str | None = None,
) -> Report:
    """Each router on each path, on each set (first ``n`` of each): a ``sequences`` report (see the module)."""
    _check_options(routers, paths, sets)
    model = as_chat_model(model)
    translator = as_chat_model(translator) if translator is not None else None
    prompt_file = load_router_prompt(prompt)
    rows, frames = [], []
    spec = getattr(model, "spec", "?")
    for set_name, items in _sets(sets, single, multi, unseen, n).items():
        for path in paths:
            routed, _ = route_requests(model, [ex for ex, _ in items], PATHS[path], translator)
            texts, originals = [r.text for r in routed], [r.original for r in routed]
            for router_name in routers:
                if router_name == "loop":
                    runs = _looped(model, loop_prompt, texts, originals)
                else:
                    runs = _batched(router_name, model, prompt_file, texts, originals)
                keys = {"system": router_name, "model": spec, "path": path, "set": set_name}
                frames.append(_frame(keys, items, texts, runs))
                rows += _rows(frames[-1], keys, n_bootstrap, seed)
    items_df = pd.concat(frames, ignore_index=True)
    tests = [r for other in routers[1:] for r in router_rows(items_df, routers[0], other, n_bootstrap, seed)]
    meta = {"routers": list(routers), "baseline": routers[0], "units": ["model", "path", "set"], "paths": list(paths),
            "sets": list(sets), "prompt": prompt_file.name, "loop_prompt": str(loop_prompt), "model": spec, "n": n,
            "n_bootstrap": n_bootstrap, "seed": seed}  # fmt: skip
    paired = holm_column(pd.DataFrame(tests, columns=SEQUENCE_PAIRED_COLUMNS))
    return Report("sequences", pd.DataFrame(rows), items_df, paired, meta)


def _task_run(config: SequencesConfig) -> Report:
    single = load_routing_examples(config.data) if config.data is not None else None
    multi = load_multi_intent(config.multi_data) if config.multi_data is not None else None
    with generation_progress(None, "sequences", enabled=config.progress):
        report = evaluate_sequences(
            cast("TextModel | str | None", config.model), routers=config.routers, paths=config.paths, sets=config.sets, prompt=config.prompt,
            loop_prompt=config.loop_prompt or LOOP_PROMPT, single=single, multi=multi, n=config.n,
            n_bootstrap=config.n_bootstrap, seed=config.seed,
            translator=cast("TextModel | str | None", config.translator),
        )  # fmt: skip
    report.meta.update(data=config.data, multi_data=config.multi_data)
    return report


SEQUENCE_PAIRED_COLUMNS = [
    *"baseline system model path set metric score_baseline score_system delta ci_low ci_high p".split(),
    *"b c p_mcnemar n".split(),
]
"""The columns of :func:`routers_paired` (and the report's ``paired``) before ``p_holm`` and ``significant``."""
PATHS_PAIRED_COLUMNS = [
    *"system set baseline other metric score_baseline score_other delta ci_low ci_high p".split(),
    *"b c p_mcnemar n".split(),
]
"""The columns of :func:`paths_paired` before ``p_holm`` and ``significant``."""
_METRIC = "sequence_accuracy"


def sequence_table(report: Report) -> pd.DataFrame:
    """Model x router x path rows; sequence and step accuracy per set, ``score [low, high]``."""
    df = report.df[report.df["metric"].isin(["sequence_accuracy", "step_accuracy"])]
    df = df.assign(
        cell=[f"{m:.3f} [{lo:.3f}, {hi:.3f}]" for m, lo, hi in zip(df["score"], df["ci_low"], df["ci_high"])],
        col=lambda d: d["set"] + " " + d["metric"],
    )
    return df.pivot_table(index=["model", "system", "path"], columns="col", values="cell", aggfunc="first", sort=False)


def router_rows(items: pd.DataFrame, baseline: str, other: str, n_bootstrap: int, seed: int) -> list[dict[str, object]]:
    """The rows of :func:`routers_paired` (before Holm), from a sequences report's ``items``."""
    rows: list[dict[str, object]] = []
    for (model, path, set_name), group in items.groupby(["model", "path", "set"], sort=False):
        a = group[group["system"] == baseline].set_index("id")[_METRIC]
        b = group[group["system"] == other].set_index("id")[_METRIC].reindex(a.index)
        if a.empty or b.isna().any():
            raise InputError(f"paired: routers {baseline!r} and {other!r} were not both run on {set_name}/{path}")
        t = paired_binary(a.to_numpy(), b.to_numpy(), bootstrap_indices(len(a), n_bootstrap, seed))
        rows.append(
            {"baseline": baseline, "system": other, "model": model, "path": path, "set": set_name, "metric": _METRIC,
             "score_baseline": float(a.mean()), "score_system": float(b.mean()), "delta": t["diff"],
             "ci_low": t["ci_low"], "ci_high": t["ci_high"], "p": t["p_value"], "b": t["only_a"], "c": t["only_b"],
             "p_mcnemar": t["p_mcnemar"], "n": len(a)}
        )  # fmt: skip
    return rows


def routers_paired(
    report: Report, baseline: str, other: str, *, n_bootstrap: int = 1000, seed: int = 0
) -> pd.DataFrame:
    """Router ``other`` against ``baseline`` on the same requests, per path and set (see the module)."""
    rows = router_rows(report.items, baseline, other, n_bootstrap, seed)
    return holm_column(pd.DataFrame(rows, columns=SEQUENCE_PAIRED_COLUMNS))


def paths_paired(
    report: Report,
    baseline: str,
    other: str,
    *,
    langs: Sequence[str] | None = None,
    n_bootstrap: int = 1000,
    seed: int = 0,
) -> pd.DataFrame:
    """Each router on path ``other`` against itself on ``baseline``, per set (only requests in ``langs``,
    if given): exact sequence accuracy of each, ``delta`` = other - baseline with its CI and ``p``, ``b``
    (right only on ``baseline``), ``c`` (only on ``other``), ``p_mcnemar``, then Holm (see the module)."""
    items = report.items if langs is None else report.items[report.items["lang"].isin(list(langs))]
    rows = []
    for (set_name, router), group in items.groupby(["set", "system"], sort=False):
        a = group[group["path"] == baseline].set_index("id")[_METRIC]
        b = group[group["path"] == other].set_index("id")[_METRIC]
        if a.empty or b.empty:
            raise InputError(f"paths_paired: paths {baseline!r} and {other!r} were not both run on {set_name}")
        t = paired_accuracy(a, b, n_bootstrap=n_bootstrap, seed=seed)
        rows.append(
            {"system": router, "set": set_name, "baseline": baseline, "other": other, "metric": _METRIC,
             "score_baseline": t["mean_a"], "score_other": t["mean_b"], "delta": t["diff"], "ci_low": t["ci_low"],
             "ci_high": t["ci_high"], "p": t["p_bootstrap"], "b": t["only_a"], "c": t["only_b"],
             "p_mcnemar": t["p_mcnemar"], "n": t["n"]}
        )  # fmt: skip
    return holm_column(pd.DataFrame(rows, columns=PATHS_PAIRED_COLUMNS))


def sequence_costs(report: Report) -> pd.DataFrame:
    """Per router (``system``), path and set: mean steps, model calls and model seconds per request, the
    fallback rate and the parse-failure rate (failures per router model call)."""
    g = report.items.groupby(["system", "path", "set"], sort=False)
    out = g[["steps", "calls", "seconds", "fallback_rate"]].mean()
    out["parse_failure_rate"] = g["parse_failures"].sum() / g["calls"].sum().where(lambda c: c > 0)
    return out.rename(columns={"steps": "steps/request", "calls": "calls/request", "seconds": "model s/request"})


def sequence_views(report: Report) -> list[tuple[str, pd.DataFrame]]:
    """The table, the cost per request, ``loop`` against ``multi`` (when both ran) and each path against the
    room path per router (when the room path ran), as titled tables."""
    routers, paths = list(report.meta.get("routers", [])), list(report.meta.get("paths", []))  # type: ignore[call-overload]
    n_bootstrap, seed = (int(str(report.meta.get(k, d))) for k, d in (("n_bootstrap", 1000), ("seed", 0)))
    views = [
        ("tool sequences (exact sequence and per-step accuracy; path room = translate then route):", sequence_table(report)),
        ("per request (steps = tools run; calls and model s: the router's own model calls):", sequence_costs(report)),
    ]  # fmt: skip
    if {"multi", "loop"} <= set(routers):
        views.append(("loop against multi (paired, exact sequence accuracy):", routers_paired(report, "multi", "loop", n_bootstrap=n_bootstrap, seed=seed)))  # fmt: skip
    for other in (p for p in paths if p != "room" and "room" in paths):
        title = f"{other} path against the room path, per router (paired, exact sequence accuracy):"
        views.append((title, paths_paired(report, "room", other, n_bootstrap=n_bootstrap, seed=seed)))
    return views


SEQUENCES_TASK = Task(
    "sequences", "routers choosing every tool a request needs, per path and set", SequencesConfig, _task_run,
    sequence_table, views=sequence_views,
)  # fmt: skip
