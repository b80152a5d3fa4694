"""Tool sequences: does each router pick every tool a request needs, in order — on both paths?

:func:`evaluate_sequences` runs routers (``keyword``: the keyword rules, one tool; ``llm``: the
supervisor prompt on a model, one tool; ``multi``: the :class:`~aya_lab.agents.multi_intent.ReDecidingRouter`
over the LLM router, the room's default) through a :class:`~aya_lab.agents.routing.RoutingChain`
whose tools only echo their name, on two labelled sets — the single-intent requests of
``data/routing/requests.jsonl`` (gold sequence: the one label) and the multi-intent requests of
``data/routing/multi_intent.jsonl`` (gold: the tools in order) — and on paths (:data:`PATHS`, each a
:class:`~aya_lab.agents.route_input.RouteOn`): ``room`` (translate to English with the ``aya_translate``
prompt, then route the translation) and ``original`` (route the untranslated text); ``auto`` translates,
then routes the untranslated text where the translation fails the output-language check (the room's
``route_on: auto``); ``gold`` routes the data set's English. The text each path routes is decided by
:func:`~aya_lab.agents.route_input.decide_input`, as in the room. ``translator`` is the model that
translates (the ``translator`` role; default ``model``).

Metrics per model x router x path x set: ``sequence_accuracy`` (the predicted tool sequence equals the
gold one exactly), ``step_accuracy`` (position-wise matches over the longer of the two sequences) and
``fallback_rate`` (a decision came from the keyword fallback), each with a percentile bootstrap 95% CI.
On the single-intent set, ``sequence_accuracy`` of a one-step router is today's routing accuracy.
Model calls are batched: all translations of a set in one batch, all first router prompts in one.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from aya_lab.agents.multi_intent import ReDecidingRouter, split_intents
from aya_lab.agents.route_input import RouteOn
from aya_lab.agents.routing import (
    KeywordRouter,
    LLMRouter,
    RouterOutput,
    RoutingChain,
    TranscriptRouter,
    as_transcript,
)
from aya_lab.datasets.project import ROUTING_LABELS, load_routing_examples, read_data_text
from aya_lab.errors import InputError
from aya_lab.eval.routing import _chat_model, _load_router_prompt
from aya_lab.eval.routing_input import route_requests
from aya_lab.eval.stats import bootstrap_indices
from aya_lab.eval.stats import percentile_ci as _ci
from aya_lab.paths import project_root

__all__ = [
    "ROUTERS",
    "PATHS",
    "MultiIntentExample",
    "check_sequence_options",
    "SequenceResults",
    "evaluate_sequences",
    "load_multi_intent",
    "step_accuracy",
]

ROUTERS = ("keyword", "llm", "multi")
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


def check_sequence_options(routers: Sequence[str], paths: Sequence[str]) -> None:
    """Refuse an unknown router or path (or none) with a one-line error naming the choices."""
    for name, given, known in (("router", routers, ROUTERS), ("path", paths, PATHS)):
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


def _routers(
    name: str, model: Any, prompt: Any, texts: list[str], originals: list[str | None]
) -> list[TranscriptRouter]:
    """One router ``name`` per text, the model's decisions made in one batch; the LLM router's keyword
    fallback also reads ``originals[i]`` (the request as written, where ``texts[i]`` is its translation),
    as in the room, so two requests translated alike may still be decided apart. ``keyword`` is the
    rules alone on the routed text."""
    if name == "keyword":
        return [KeywordRouter() for _ in texts]
    llm = LLMRouter(model, prompt)
    asked = [i for i, t in enumerate(texts) if name == "llm" or len(split_intents(t)) < 2]
    made = llm.route_many([texts[i] for i in asked], [originals[i] for i in asked]) if asked else []
    decisions = {i: d for i, (d, _) in zip(asked, made, strict=True)}
    routers: list[TranscriptRouter] = []
    for i, t in enumerate(texts):
        decided = _Decided({t: decisions[i]} if i in decisions else {}, llm.tools)
        routers.append(decided if name == "llm" else ReDecidingRouter(decided))
    return routers


def _predict(routers: list[TranscriptRouter], texts: list[str]) -> list[tuple[list[str], bool]]:
    tools = {t: (lambda x, t=t: f"[{t} done]") for t in ROUTING_LABELS}
    results = [RoutingChain(router, tools, max_steps=4).result(t) for router, t in zip(routers, texts, strict=True)]
    return [(r.tools, r.fallback) for r in results]


@dataclass
class SequenceResults:
    """``df`` (model x router x path x set x metric), ``examples`` (one row per request and run)."""

    df: pd.DataFrame
    examples: pd.DataFrame
    meta: dict[str, Any] = field(default_factory=dict)

    def table(self) -> pd.DataFrame:
        """Router x path rows; single-intent accuracy, multi-intent sequence and step accuracy, with CIs."""
        df = self.df.assign(
            cell=[
                f"{m:.3f} [{lo:.3f}, {hi:.3f}]"
                for m, lo, hi in zip(self.df["mean"], self.df["ci_low"], self.df["ci_high"])
            ]
        )
        df = df[df["metric"] != "fallback_rate"].assign(col=lambda d: d["set"] + " " + d["metric"])
        return df.pivot_table(
            index=["model", "router", "path"], columns="col", values="cell", aggfunc="first", sort=False
        )

    def save(self, path: str | Path) -> Path:
        """Write ``path`` (CSV of ``df``) and ``<stem>.examples.csv``."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        self.df.to_csv(path, index=False)
        self.examples.to_csv(path.with_name(path.stem + ".examples.csv"), index=False)
        return path


def _rows(examples: pd.DataFrame, keys: dict[str, Any], n_bootstrap: int, seed: int) -> list[dict[str, Any]]:
    idx = bootstrap_indices(len(examples), n_bootstrap, seed)
    rows = []
    for metric in ("sequence_accuracy", "step_accuracy", "fallback_rate"):
        values = examples[metric].to_numpy(dtype=float)
        low, high = _ci(values[idx].mean(axis=1)) if len(values) else (float("nan"), float("nan"))
        mean = float(values.mean()) if len(values) else float("nan")  # an empty set: no score, no warning
        rows.append({**keys, "metric": metric, "mean": mean, "ci_low": low, "ci_high": high, "n": len(values)})
    return rows


def evaluate_sequences(
    model: Any = None,
    *,
    routers: Sequence[str] = ROUTERS,
    paths: Sequence[str] = ("room", "original"),
    prompt: Any = "supervisor/baseline",
    single: Sequence[Any] | None = None,
    multi: Sequence[MultiIntentExample] | None = None,
    n: int | None = None,
    n_bootstrap: int = 1000,
    seed: int = 0,
    translator: Any = None,
) -> SequenceResults:
    """Each router on each path, on the single- and multi-intent sets (first ``n`` of each); see the module."""
    check_sequence_options(routers, paths)
    model = _chat_model(model)
    translator = _chat_model(translator) if translator is not None else None
    prompt_file = _load_router_prompt(prompt)
    sets: dict[str, Sequence[tuple[Any, tuple[str, ...]]]] = {
        "single": [(ex, (ex.label,)) for ex in (single if single is not None else load_routing_examples())][:n],
        "multi": [(ex, ex.tools) for ex in (multi if multi is not None else load_multi_intent())][:n],
    }
    rows, frames = [], []
    spec = getattr(model, "spec", "?")
    for set_name, items in sets.items():
        for path in paths:
            routed, _ = route_requests(model, [ex for ex, _ in items], PATHS[path], translator)
            texts, originals = [r.text for r in routed], [r.original for r in routed]
            for router_name in routers:
                predicted = _predict(_routers(router_name, model, prompt_file, texts, originals), texts)
                ex = pd.DataFrame(
                    {
                        "model": spec,
                        "router": router_name,
                        "path": path,
                        "set": set_name,
                        "id": [e.id for e, _ in items],
                        "lang": [e.lang for e, _ in items],
                        "routed_text": texts,
                        "gold": [" > ".join(g) for _, g in items],
                        "predicted": [" > ".join(p) for p, _ in predicted],
                        "sequence_accuracy": [float(tuple(p) == tuple(g)) for (p, _), (_, g) in zip(predicted, items)],
                        "step_accuracy": [step_accuracy(g, p) for (p, _), (_, g) in zip(predicted, items)],
                        "fallback_rate": [float(f) for _, f in predicted],
                    }
                )
                frames.append(ex)
                keys = {"model": spec, "router": router_name, "path": path, "set": set_name}
                rows += _rows(ex, keys, n_bootstrap, seed)
    meta = {"routers": list(routers), "paths": list(paths), "prompt": prompt_file.name, "model": spec, "n": n}
    return SequenceResults(pd.DataFrame(rows), pd.concat(frames, ignore_index=True), meta)
