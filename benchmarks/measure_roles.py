"""Measure each role's candidate models (model x prompt format) on the project's own sets; print a table.

Roles (``aya_lab.models.loader.ROLES``): ``translator`` runs user translation, Aya's translation to
English and reply delivery; ``aya`` runs routing and the summarizer. Candidates are ``SPEC@FORMAT``:
``chat`` uses each task's baseline prompt, ``completion`` its few-shot completion variant (the only one
a base model such as ``gemma3-270m`` takes). The first candidate is the baseline of the paired tests.

- translator: chrF (sacrebleu, percentile bootstrap 95% CI; paired bootstrap and approximate
  randomisation against the baseline) on the workplace set and on NTREX-128 high-resource pairs, both
  directions (``eng-fra fra-eng eng-deu deu-eng``; NTREX needs ``AYA_LAB_DATA_DIR``), via
  :func:`aya_lab.eval.evaluate_translation`;
- aya: routing accuracy on ``data/routing`` (English meaning given: ``translate="gold"``, so the aya
  role is measured alone; bootstrap CI, exact McNemar against the baseline), via
  :func:`aya_lab.eval.routing.evaluate_routing`; the two-call summarizer on ``data/transcripts``: count
  exact match (bootstrap CI, McNemar) and action-item micro F1 (bootstrap CI, paired bootstrap of the
  difference), scored with :mod:`aya_lab.eval.summary_scoring`.

Generations go through the generation cache, so an interrupted run resumes. Run it alone (it is a
measurement: other busy processes slow it several times over):

    .venv/bin/python benchmarks/measure_roles.py --n 100 [--candidates smollm2@chat,gemma3-270m@completion]
        [--roles translator,aya] [--ntrex-n 100] [--csv runs/roles.csv]
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from aya_lab.agents.summarizer import TwoCallSummarizer
from aya_lab.agents.translator import AyaTranslator
from aya_lab.datasets.project import load_transcripts
from aya_lab.eval.resampling import bootstrap_indices, mcnemar_exact, percentile_ci
from aya_lab.eval.routing import evaluate_routing
from aya_lab.eval.summarization import transcript_messages
from aya_lab.eval.summary_scoring import count_exact, match_action_items, micro_prf, micro_prf_boot
from aya_lab.eval.translation.evaluate import evaluate_translation
from aya_lab.eval.translation.systems import PromptSystem
from aya_lab.messages import parse_aya_request
from aya_lab.models.loader import ROLES, load_chat_model, parse_spec
from aya_lab.prompts import load_prompt

DEFAULT_CANDIDATES = "smollm2@chat,smollm2@completion,gemma3-270m@completion"
PAIRS = ("eng-fra", "fra-eng", "eng-deu", "deu-eng")
COLUMNS = ["role", "task", "candidate", "metric", "score", "ci_low", "ci_high", "diff", "p_value", "n"]


@dataclass
class Candidate:
    """One model with one prompt format."""

    spec: str
    fmt: str
    model: Any

    @property
    def name(self) -> str:
        return f"{self.spec}@{self.fmt}"

    def prompt(self, task: str) -> str:
        return f"{task}/{'baseline' if self.fmt == 'chat' else 'completion'}"


def parse_candidates(text: str, *, load: Any = None, **model_kwargs: Any) -> list[Candidate]:
    """``"smollm2@chat,gemma3-270m@completion"`` -> loaded candidates (each spec loaded once).

    One-line ``ValueError`` for a missing or unknown format, a bad spec, a repeated candidate, or a chat
    format on a model without a chat template."""
    load = load or load_chat_model
    out, loaded = [], {}
    for item in [x.strip() for x in text.split(",") if x.strip()]:
        spec, sep, fmt = item.rpartition("@")
        if not sep or fmt not in ("chat", "completion"):
            raise ValueError(f"candidate {item!r} must be SPEC@chat or SPEC@completion, e.g. gemma3-270m@completion")
        parse_spec(spec)
        if spec not in loaded:
            loaded[spec] = load(spec, **model_kwargs)
        if fmt == "chat" and not getattr(loaded[spec], "has_chat_template", True):
            raise ValueError(
                f"candidate {item!r}: {spec} is a base model without a chat template; use {spec}@completion"
            )
        out.append(Candidate(spec, fmt, loaded[spec]))
    names = [c.name for c in out]
    if not out or len(set(names)) != len(names):
        raise ValueError(f"candidates must be one or more distinct SPEC@FORMAT items; got {text!r}")
    return out


# -- translator -----------------------------------------------------------------------------------------
def translation_rows(
    cands: list[Candidate], dataset: str, pairs: list[str], n: int | None, n_bootstrap: int, docs: int | None = None
) -> list[dict]:
    """chrF per candidate and pair on ``dataset`` (paired tests against the first candidate)."""
    systems = [PromptSystem(c.model, c.prompt("user_translate"), name=c.name) for c in cands]
    res = evaluate_translation(
        systems, dataset, pairs, n, baseline=cands[0].name, n_bootstrap=n_bootstrap, n_ar=n_bootstrap, progress=False,
        docs=docs,
    )  # fmt: skip
    df = res.df[(res.df["metric"] == "chrF") & (res.df["hop"] == "e2e")]
    base = df[df["system"] == cands[0].name].set_index("pair")["score"]
    rows = []
    for r in df.itertuples(index=False):
        first = r.system == cands[0].name
        rows.append(
            {
                "role": "translator",
                "task": f"{dataset} {r.pair}",
                "candidate": r.system,
                "metric": "chrF",
                "score": r.score,
                "ci_low": r.ci_low,
                "ci_high": r.ci_high,
                "diff": np.nan if first else r.score - base.get(r.pair, np.nan),
                "p_value": np.nan if first else r.p_bootstrap,
                "n": int(r.n),
            }
        )
    return rows


# -- aya: routing -----------------------------------------------------------------------------------------
def routing_rows(cands: list[Candidate], n: int | None, n_bootstrap: int) -> list[dict]:
    """Routing accuracy per candidate on the English meaning of each request; McNemar against the first."""
    results = [
        evaluate_routing(c.model, prompt=c.prompt("supervisor"), n=n, translate="gold", n_bootstrap=n_bootstrap)
        for c in cands
    ]
    base = results[0].items["correct"].to_numpy(dtype=bool)
    rows = []
    for c, r in zip(cands, results, strict=True):
        acc = r.df[(r.df["metric"] == "accuracy") & (r.df["lang"] == "all")].iloc[0]
        correct = r.items["correct"].to_numpy(dtype=bool)
        first = c is cands[0]
        p = np.nan if first else mcnemar_exact(int(np.sum(base & ~correct)), int(np.sum(~base & correct)))
        diff = np.nan if first else float(correct.mean() - base.mean())
        rows.append(
            _row(
                "aya", "routing", c.name, "accuracy", acc["score"], acc["ci_low"], acc["ci_high"], diff, p, len(correct)
            )
        )
    return rows


# -- aya: summarizer --------------------------------------------------------------------------------------
def summarizer_scores(cand: Candidate, transcripts: list[Any]) -> pd.DataFrame:
    """Per transcript: count exact match and action-item counts (tp, predicted, gold) of the two-call
    summarizer with the candidate's prompt format."""
    summarizer = TwoCallSummarizer(cand.model)
    summarizer.count_prompt = load_prompt(cand.prompt("summarizer_count"))
    summarizer.summary_prompt = load_prompt(cand.prompt("summarizer_summary"))
    rows = []
    for t in transcripts:
        res = summarizer.summarize(_request_en(cand, t), transcript_messages(t))
        gold = t.gold_action_items
        rows.append(
            {
                "count_exact": float(count_exact(res.count_requested, t.gold_count)),
                "tp": len(match_action_items(res.action_items, gold)),
                "n_pred": len(res.action_items),
                "n_gold": len(gold),
            }
        )
    return pd.DataFrame(rows)


def _request_en(cand: Candidate, t: Any) -> str:
    """The request in English: as written when English, else translated by the candidate itself."""
    request = parse_aya_request(t.request) or t.request
    if t.request_lang == "eng":
        return request
    return AyaTranslator(cand.model, cand.prompt("aya_translate")).to_english(request, t.request_lang)


def summarizer_rows(cands: list[Candidate], n: int | None, n_bootstrap: int) -> list[dict]:
    """Count exact match (McNemar) and action-item micro F1 (paired bootstrap) against the first candidate."""
    transcripts = load_transcripts()[:n] if n else load_transcripts()
    per = [summarizer_scores(c, transcripts) for c in cands]
    idx = bootstrap_indices(len(transcripts), n_bootstrap, seed=0)
    base_em = per[0]["count_exact"].to_numpy(dtype=bool)
    base_arrays = [per[0][k].to_numpy() for k in ("tp", "n_pred", "n_gold")]
    base_f1, base_f1_observed = micro_prf_boot(*base_arrays, idx)[:, 2], micro_prf(*base_arrays)[2]
    rows = []
    for c, df in zip(cands, per, strict=True):
        first = c is cands[0]
        em = df["count_exact"].to_numpy(dtype=bool)
        low, high = percentile_ci(em.astype(float)[idx].mean(axis=1))
        p = np.nan if first else mcnemar_exact(int(np.sum(base_em & ~em)), int(np.sum(~base_em & em)))
        diff = np.nan if first else float(em.mean() - base_em.mean())
        rows.append(_row("aya", "summarizer count", c.name, "exact match", em.mean(), low, high, diff, p, len(em)))
        arrays = [df[k].to_numpy() for k in ("tp", "n_pred", "n_gold")]
        f1 = micro_prf(*arrays)[2]
        boot = micro_prf_boot(*arrays, idx)[:, 2]
        low, high = percentile_ci(boot)
        diff, p = (np.nan, np.nan) if first else _boot_diff(base_f1, boot, f1 - base_f1_observed)
        rows.append(_row("aya", "summarizer actions", c.name, "action-item F1", f1, low, high, diff, p, len(df)))
    return rows


def _boot_diff(base_boot: np.ndarray, boot: np.ndarray, observed: float) -> tuple[float, float]:
    """Observed difference and its two-sided paired-bootstrap p-value (same resamples for both)."""
    d = boot - base_boot
    extreme = int(np.sum(np.abs(d - observed) >= abs(observed) - 1e-12))
    return observed, (1 + extreme) / (len(d) + 1)


def _row(role, task, cand, metric, score, low, high, diff, p, n) -> dict:
    return dict(
        zip(COLUMNS, [role, task, cand, metric, float(score), float(low), float(high), diff, p, int(n)], strict=True)
    )


# -- the table ----------------------------------------------------------------------------------------------
def measure(
    cands: list[Candidate],
    *,
    roles: tuple[str, ...] = ROLES,
    n: int | None = 100,
    ntrex_n: int | None = 100,
    datasets: tuple[str, ...] = ("workplace", "ntrex128"),
    pairs: tuple[str, ...] = PAIRS,
    n_bootstrap: int = 1000,
    docs: int | None = 20,
) -> pd.DataFrame:
    """Every role's measurements as one tidy frame (:data:`COLUMNS`)."""
    unknown = [r for r in roles if r not in ROLES]
    if unknown:
        raise ValueError(f"unknown role {unknown[0]!r}; roles: {', '.join(ROLES)}")
    rows: list[dict] = []
    if "translator" in roles:
        for dataset in datasets:
            size = ntrex_n if dataset == "ntrex128" else n
            rows += translation_rows(cands, dataset, list(pairs), size, n_bootstrap, docs)
    if "aya" in roles:
        rows += routing_rows(cands, n, n_bootstrap)
        rows += summarizer_rows(cands, n, n_bootstrap)
    return pd.DataFrame(rows, columns=COLUMNS)


def format_table(df: pd.DataFrame) -> str:
    """Rows: role, task, metric; columns: candidates as ``score [low, high]`` (``Δ, p`` beside non-baselines)."""
    cells = df.assign(
        cell=[
            f"{r.score:.3f} [{r.ci_low:.3f}, {r.ci_high:.3f}]"
            + ("" if pd.isna(r.diff) else f" Δ{r.diff:+.3f} p={r.p_value:.3f}")
            for r in df.itertuples(index=False)
        ]
    )
    table = cells.pivot_table(
        index=["role", "task", "metric"], columns="candidate", values="cell", aggfunc="first", sort=False
    )
    return table.to_string()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--candidates", default=DEFAULT_CANDIDATES, help="SPEC@FORMAT,... (first = baseline)")
    parser.add_argument("--roles", default=",".join(ROLES))
    parser.add_argument("--n", type=int, default=100, help="items per set (workplace has 63 per pair)")
    parser.add_argument("--ntrex-n", type=int, default=100)
    parser.add_argument("--datasets", default="workplace,ntrex128")
    parser.add_argument("--n-bootstrap", type=int, default=1000)
    parser.add_argument("--docs", type=int, default=20, help="spread each pair's segments over this many documents")
    parser.add_argument("--max-new-tokens", type=int, default=64)
    parser.add_argument("--csv", default=None, help="also write the tidy frame here")
    args = parser.parse_args(argv)
    try:
        cands = parse_candidates(args.candidates, settings={"max_new_tokens": args.max_new_tokens})
        df = measure(
            cands,
            roles=tuple(r.strip() for r in args.roles.split(",") if r.strip()),
            n=args.n,
            ntrex_n=args.ntrex_n,
            datasets=tuple(d.strip() for d in args.datasets.split(",") if d.strip()),
            n_bootstrap=args.n_bootstrap,
            docs=args.docs,
        )
    except (ValueError, OSError) as exc:
        print(f"error: {str(exc).splitlines()[0]}", file=sys.stderr)
        return 2
    print(format_table(df))
    if args.csv:
        df.to_csv(args.csv, index=False)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
