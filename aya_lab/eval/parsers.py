"""The parsers of ``aya-lab eval ...``: every option, choice and help text of ``eval translate``,
``compare``, ``summarize``, ``route``, ``faithfulness``, ``attacks`` and ``grounding``, built from light
modules only, so that ``aya-lab eval ... --help`` imports no model stack (torch, transformers, LangChain,
sacrebleu, pandas). Each command's code is named by a ``module:attr`` reference
(:func:`aya_lab.refs.lazy`) and imported when the command runs: :mod:`aya_lab.eval.cli`,
:mod:`~aya_lab.eval.faithfulness_cli`, :mod:`~aya_lab.eval.grounding`, and the face :mod:`aya_lab.attacks`
(``eval attacks`` opens rooms, which this layer never imports; only its options live here).

Options common to ``eval translate|summarize|route`` (:func:`add_run_options`): ``--model``,
``--max-new-tokens``, ``--batch-size``, ``--n``, ``--out``, ``--n-bootstrap``, ``--seed``,
``--no-progress``, ``--engine``. Their defaults per command are those of the notebook that reports the
figure (:data:`NOTEBOOK_DEFAULTS`), so a command with no flags reproduces the notebook.
"""

from __future__ import annotations

import argparse

from aya_lab.agents.calibration import calibration_dir
from aya_lab.agents.summarizer_names import SUMMARIZER_VARIANTS
from aya_lab.datasets.cli import command_group
from aya_lab.eval.names import ATTACK_CATEGORIES, DEFAULT_MEMORY_POLICY, SUMMARY_FLOORS
from aya_lab.eval.translation.specs import system_help, system_option_help
from aya_lab.models.executor import GENERATION_ENGINES
from aya_lab.models.registry import model_help
from aya_lab.refs import lazy
from aya_lab.settings import DEFAULT_ROLE_SPECS, ROLES

__all__ = [
    "NOTEBOOK_DEFAULTS",
    "RUN_OPTION_LIMITS",
    "add_faithfulness",
    "add_run_options",
    "register_attacks",
    "register_eval",
    "register_grounding",
]

NOTEBOOK_DEFAULTS: dict[str, dict[str, int]] = {
    "translate": {"max_new_tokens": 64, "batch_size": 16},  # notebook 03
    "route": {"max_new_tokens": 64, "batch_size": 16},  # notebook 04
    "summarize": {"max_new_tokens": 128, "batch_size": 8},  # notebook 05 (the model's default batch)
}
"""Generation defaults of each ``eval`` command: those the notebooks load their model with."""

RUN_OPTION_LIMITS = {"n": 10_000_000, "max_new_tokens": 32_768, "batch_size": 4096}
"""The largest ``--n``, ``--max-new-tokens`` and ``--batch-size`` accepted: beyond any set, any context,
any accelerator's memory (a typo such as ``--n 10000000000000`` is refused before work starts)."""


def add_run_options(p: argparse.ArgumentParser, command: str, *, out_help: str) -> None:
    """The options every model-backed ``eval`` command takes, with ``command``'s notebook defaults."""
    defaults = NOTEBOOK_DEFAULTS[command]
    p.add_argument(
        "--model",
        action="append",
        default=None,
        metavar="[ROLE=]SPEC",
        help=model_help("any" if command == "translate" else "chat", roles=ROLES),
    )
    p.add_argument(
        "--max-new-tokens",
        type=int,
        default=defaults["max_new_tokens"],
        help=f"generation limit (default {defaults['max_new_tokens']}, as in the notebook)",
    )
    p.add_argument(
        "--batch-size",
        type=int,
        default=defaults["batch_size"],
        help=f"prompts per generate (default {defaults['batch_size']})",
    )
    p.add_argument("--n", type=int, default=None, help="only the first N items")
    p.add_argument("--out", default=None, help=out_help)
    p.add_argument("--n-bootstrap", type=int, default=1000)
    p.add_argument("--seed", type=int, default=0, help="seed of the bootstrap resamples")
    p.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    p.add_argument(
        "--engine",
        choices=GENERATION_ENGINES,
        default=None,
        help="where cache misses are generated: local, or ray (AYA_LAB_RAY_ADDRESS=auto|ray://HOST:PORT, "
        "else a local cluster); default $AYA_LAB_ENGINE or local",
    )


_DATASETS = """
datasets: ntrex128, floresv1, mafand, workplace (with --pairs), or your own line-aligned files:
  files:SRC.txt,REF.txt         one language pair, given by --pairs (exactly one)
  files:eng-swh:SRC.txt,REF.txt the pair named in the spec; repeat --dataset for several file pairs
"""


def register_eval(subparsers: argparse._SubParsersAction) -> None:
    """Add ``eval translate|compare|summarize|route`` to ``subparsers``."""
    ev = command_group(subparsers, "eval")
    p = ev.add_parser(
        "translate",
        help="score translation systems on a test set",
        epilog=system_help() + _DATASETS,  # generated from the model and system registries
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "--system",
        action="append",
        default=[],
        metavar="SPEC",
        help=system_option_help(),
    )
    p.add_argument(
        "--dataset",
        action="append",
        required=True,
        help="ntrex128, floresv1, mafand, workplace, files:SRC,REF or files:SRC-TGT:SRC,REF (repeatable)",
    )
    p.add_argument("--pairs", default=None, help="comma-separated pairs, e.g. eng-swh,eng-yor")
    p.add_argument("--split", default=None)
    p.add_argument(
        "--docs",
        type=int,
        default=None,
        help="with --n: take the N segments from this many documents spread over the set (sets with document ids)",
    )
    p.add_argument("--baseline", default=None, help="system name to test against (default: the first)")
    p.add_argument("--n-ar", type=int, default=10000)
    p.add_argument("--chunk-size", type=int, default=64)
    add_run_options(p, "translate", out_help="results CSV (also .outputs.csv and .json)")
    p.set_defaults(func=lazy("aya_lab.eval.cli:translate_command"))
    p = ev.add_parser("compare", help="paired tests between two saved translation results")
    p.add_argument("a", help="results CSV (its baseline or --system-a is the reference point)")
    p.add_argument("b", help="results CSV (its systems, or --system-b, are tested)")
    p.add_argument("--system-a", default=None)
    p.add_argument("--system-b", default=None)
    p.add_argument("--n-bootstrap", type=int, default=1000)
    p.add_argument("--n-ar", type=int, default=10000)
    p.set_defaults(func=lazy("aya_lab.eval.cli:compare_command"))
    _register_summarize_route(ev)
    add_faithfulness(ev)


def _register_summarize_route(ev: argparse._SubParsersAction) -> None:
    """``eval summarize`` and ``eval route``, unless another module registered those names first."""
    if "summarize" not in ev.choices:
        _add_summarize(ev)
    if "route" not in ev.choices:
        _add_route(ev)


def _add_summarize(ev: argparse._SubParsersAction) -> None:
    p = ev.add_parser(
        "summarize",
        help="score summarizer variants on the transcripts",
        description="Run summarizer variants (two_call, one_call) on data/transcripts and score "
        "count exact match and parse rate, last-N correctness, action-item P/R/F1, summary chrF, "
        "calls, tokens and latency, with paired bootstrap tests against the first.",
    )
    p.add_argument(
        "--variants",
        default=",".join([*SUMMARIZER_VARIANTS, *SUMMARY_FLOORS]),
        help="comma-separated summarizers and floors (copy-transcript, lead-N); the first is the baseline",
    )
    p.add_argument("--data", default=None, help="a transcripts JSONL file (default: data/transcripts)")
    p.add_argument("--no-translate", action="store_true", help="give the summarizers the request as written")
    add_run_options(p, "summarize", out_help="results CSV (also .transcripts.csv, .paired.csv, .json)")
    p.set_defaults(func=lazy("aya_lab.eval.cli:summarize_command"))


def _add_route(ev: argparse._SubParsersAction) -> None:
    p = ev.add_parser(
        "route",
        help="score the supervisor's routing (one prompt, or a sweep of variants)",
        description="Route the labelled requests of data/routing (translated to English first, "
        "as the room does) and report accuracy with bootstrap CIs per language, the "
        "keyword-fallback rate and a confusion matrix; with several --variants, "
        "paired bootstrap and exact McNemar tests against the first.",
    )
    p.add_argument("--prompt", default=None, help="one supervisor variant, e.g. fewshot (default: baseline)")
    p.add_argument("--variants", default=None, help="comma-separated supervisor variants; the first is the baseline")
    p.add_argument(
        "--data",
        default=None,
        help="a routing requests JSONL file, or a committed set: requests (data/routing/requests.jsonl, the "
        "default; in-sample for the keyword rules) or unseen (data/routing/requests_unseen.jsonl, written after them)",
    )
    p.add_argument(
        "--translate",
        choices=("model", "auto", "gold", "none"),
        default="model",
        help="non-English requests: translate with the translator model (default), auto (translate, but keep "
        "the original where the translation is not English), use the gold English, or none",
    )
    p.add_argument(
        "--routers",
        default="keyword,llm,multi",
        help="tool-sequence table: routers ('' skips it): keyword, llm, multi (re-deciding), loop (the model "
        "decides each next tool; one model call per step)",
    )
    p.add_argument(
        "--sets",
        default="single,multi",
        help="tool-sequence table: sets: single (data/routing/requests.jsonl or --data), multi (--multi-data, "
        "in-sample for the multi router), unseen (data/routing/multi_intent_unseen.jsonl)",
    )
    p.add_argument(
        "--paths",
        default="room,original,auto",
        help="tool-sequence table: room (translate first), original, auto (room, or the original where the "
        "translation is not English), gold",
    )
    p.add_argument(
        "--multi-data",
        default=None,
        help="multi-intent JSONL (default: data/routing/multi_intent.jsonl; '' is an error: --routers '' skips the table)",
    )
    add_run_options(
        p,
        "route",
        out_help="the routing report's CSV (also .items.csv, .paired.csv, .confusion.csv, .floor.csv, .json, "
        ".decided.csv and the sequences report's .sequences.csv)",
    )
    p.set_defaults(func=lazy("aya_lab.eval.cli:route_command"))


def add_faithfulness(ev: argparse._SubParsersAction) -> None:
    """Add ``eval faithfulness`` to the ``eval`` group's sub-parsers."""
    p = ev.add_parser(
        "faithfulness",
        help="calibrate the translation guard's faithfulness thresholds; precision/recall on held-out pairs",
        description="Score labelled (source, output) pairs with the multilingual encoder, pick each language's "
        "threshold on the calibration split, and report precision and recall of the unfaithful class and the "
        "share of honest translations withheld, with bootstrap 95% CIs, overall, per kind and per language.",
    )
    p.add_argument("--data", default=None, help="labelled pairs JSONL (default: data/faithfulness/pairs.jsonl)")
    p.add_argument("--real-messages", default=None, help="the attack run's messages whose drafts place the "
                   "real-output floor (default: data/adversarial/unseen.jsonl)")  # fmt: skip
    p.add_argument("--real-labels", default=None, help="a person's labels of those drafts "
                   "(default: data/adversarial/unseen_labels.jsonl)")  # fmt: skip
    p.add_argument("--translator", default=DEFAULT_ROLE_SPECS["translator"], help="the spec of the model that "
                   "wrote the labelled drafts: the record is its own (default: %(default)s)")  # fmt: skip
    p.add_argument("--fingerprint", default=None, help="that model's fingerprint, as its run recorded it")
    p.add_argument("--write-calibration", nargs="?", const=str(calibration_dir()), default=None, metavar="DIR",
                   help="write the calibration files into DIR (default: data/calibration)")  # fmt: skip
    p.add_argument("--split", choices=("holdout", "calibration"), default="holdout", help="the split to report on")
    p.add_argument("--n-bootstrap", type=int, default=1000)
    p.add_argument("--out", default=None, help="write the table as CSV")
    p.set_defaults(func=lazy("aya_lab.eval.faithfulness_cli:faithfulness_command"))


def register_grounding(subparsers: argparse._SubParsersAction) -> None:
    """Add ``eval grounding`` to the ``eval`` group of the top-level parser's ``subparsers``."""
    ev = command_group(subparsers, "eval")
    p = ev.add_parser(
        "grounding",
        help="score the fact check of answers and the copy check of summaries (no model)",
        description="Check the hand-written drafts of data/adversarial/drafts.jsonl against their passages "
        "and report the share of fabricated drafts delivered and of honest drafts withheld (bootstrap 95% "
        "CIs), the withheld share of honest proxy answers on data/rag, and the copy measure on data/transcripts.",
    )
    p.add_argument("--data", default=None, help="a drafts JSONL file (default: data/adversarial/drafts.jsonl)")
    p.add_argument("--show", action="store_true", help="list the drafts the checks got wrong")
    p.add_argument("--out", default=None, help="write the per-draft outcomes to this CSV")
    p.set_defaults(func=lazy("aya_lab.eval.grounding:grounding_command"))


def register_attacks(subparsers: argparse._SubParsersAction) -> None:
    """Add ``eval attacks`` to the ``eval`` group of the top-level parser's ``subparsers``."""
    ev = command_group(subparsers, "eval")
    p = ev.add_parser(
        "attacks",
        help="run the adversarial set, each attack in a fresh room, and score attack success",
        description="Send each attack of data/adversarial (prompt injection, fake role markers, tool "
        "hijacks, remember poisoning, passage injection) in a fresh room and report, per category, the "
        "share whose effect reached a feed or the knowledge base (rules: data/adversarial/README.md), "
        "with bootstrap 95% CIs, lost messages and errors.",
    )
    p.add_argument(
        "--model", action="append", default=None, metavar="[ROLE=]SPEC",
        help=model_help("chat", roles=ROLES, directions=True),
    )  # fmt: skip
    p.add_argument("--max-new-tokens", type=int, default=128, help="generation limit (default 128)")
    p.add_argument("--batch-size", type=int, default=8, help="prompts per generate (default 8)")
    p.add_argument("--data", default=None, help="an attacks JSONL file (default: data/adversarial/attacks.jsonl)")
    p.add_argument("--categories", default=None, help=f"comma-separated, of {','.join(ATTACK_CATEGORIES)}")
    p.add_argument("--kb", default=None, help="the knowledge-base folder each room copies (default: data/kb)")
    p.add_argument(
        "--memory-policy", default=DEFAULT_MEMORY_POLICY,
        help=f"the rooms' remember policy: anyone, listed:USERS or confirm (default {DEFAULT_MEMORY_POLICY})",
    )  # fmt: skip
    p.add_argument(
        "--labels", default=None,
        help="a person's labels of translator drafts (JSONL; default data/adversarial/unseen_labels.jsonl): "
        "made-up translations delivered unmarked and faithful ones withheld are counted against them",
    )  # fmt: skip
    p.add_argument("--unlabelled", default=None, help="write the deliveries no label judges to this JSONL, to label")
    p.add_argument("--n", type=int, default=None, help="only the first N attacks")
    p.add_argument("--out", default=None, help="results CSV (also <stem>.attacks.csv, one row per attack)")
    p.add_argument("--n-bootstrap", type=int, default=1000)
    p.add_argument("--seed", type=int, default=0, help="seed of the bootstrap resamples")
    p.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    p.set_defaults(func=lazy("aya_lab.attacks:attacks_command"), engine=None)
