"""Command-line commands for data and evaluation, registered into ``aya-lab``.

``register(subparsers)`` adds ``data list|fetch|languages`` and ``eval translate|compare|summarize|route``
to the top-level parser's subparsers. Each command sets ``func(args) -> int`` (exit status) as its
default; bad input prints one ``error: ...`` line on stderr and returns 2. The ``data`` and ``eval``
groups are shared: :func:`command_group` returns a group's subparsers (creating it once), so other
modules can add commands next to these.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

from aya_lab.agents.summarizer import SUMMARIZER_VARIANTS
from aya_lab.datasets.fetch import fetch_dataset
from aya_lab.datasets.parallel import list_datasets
from aya_lab.datasets.project import load_routing_examples, load_transcripts
from aya_lab.eval.routing import evaluate_routing, sweep_routing
from aya_lab.eval.summarization import evaluate_summarizers
from aya_lab.eval.translation.evaluate import evaluate_translation
from aya_lab.eval.translation.results import Results, compare
from aya_lab.languages import LANGUAGES
from aya_lab.models import load_chat_model
from aya_lab.prompts import load_prompt

__all__ = ["register", "command_group", "main"]

_EXPECTED_ERRORS: tuple[type[BaseException], ...] = (ValueError, FileNotFoundError, RuntimeError, KeyError)


def command_group(subparsers: argparse._SubParsersAction, name: str, help: str) -> argparse._SubParsersAction:
    """The subparsers of top-level group ``name`` (``data``, ``eval``), created on first use."""
    parser = subparsers.choices.get(name)
    if parser is None:
        parser = subparsers.add_parser(name, help=help, description=help)
    group = getattr(parser, "_aya_group", None)
    if group is None:
        group = parser.add_subparsers(dest=f"{name}_command", metavar="COMMAND")
        group.required = True
        parser._aya_group = group
    return group


def _guard(fn: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    def run(args: argparse.Namespace) -> int:
        try:
            return fn(args)
        except _EXPECTED_ERRORS as exc:
            message = exc.args[0] if isinstance(exc, KeyError) and exc.args else str(exc)
            print(f"error: {message}", file=sys.stderr)
            return 2

    run.__name__ = fn.__name__
    return run


# -- data ------------------------------------------------------------------------------------------


def _data_list(args: argparse.Namespace) -> int:
    for info in list_datasets():
        state = "present" if info.present else "absent "
        langs = (
            " ".join(info.languages)
            if info.present
            else (f"run `aya-lab data fetch {info.name}`" if info.fetchable else "ships with the repository")
        )
        print(f"{info.name:<10} {state} {info.location}")
        print(f"{'':<10} splits: {', '.join(info.splits)}; license: {info.license}; languages: {langs}")
    return 0


def _data_fetch(args: argparse.Namespace) -> int:
    langs = [x for x in args.languages.split(",") if x.strip()] if args.languages else None
    path = fetch_dataset(args.name, args.dest, base_url=args.base_url, languages=langs, verify=not args.no_verify)
    print(f"fetched {args.name} into {path}")
    return 0


def _data_languages(args: argparse.Namespace) -> int:
    print(f"{'code':<5} {'name':<12} {'iso1':<5} {'nllb':<9} {'langid':<7} {'bleu tok':<8} aliases")
    for lang in LANGUAGES:
        print(
            f"{lang.code:<5} {lang.name:<12} {lang.iso1 or '-':<5} {lang.nllb:<9} "
            f"{'yes' if lang.lingua else 'n/a':<7} {lang.sacrebleu_tokenizer:<8} {', '.join(lang.aliases)}"
        )
    return 0


# -- eval ------------------------------------------------------------------------------------------


def _eval_translate(args: argparse.Namespace) -> int:
    from pathlib import Path

    if not args.system:
        raise ValueError("no systems given; pass --system SPEC at least once")
    checkpoint = None
    if args.out:
        out = Path(args.out)
        if out.suffix.lower() != ".csv":
            raise ValueError(f"--out must name a .csv file, not {out.name}")
        checkpoint = out.with_name(out.stem + ".partial.jsonl")
    results: Results = evaluate_translation(
        args.system,
        args.dataset,
        args.pairs,
        n=args.n,
        split=args.split,
        baseline=args.baseline,
        n_bootstrap=args.n_bootstrap,
        n_ar=args.n_ar,
        chunk_size=args.chunk_size,
        progress=not args.no_progress,
        checkpoint=checkpoint,
    )
    with _pandas_display():
        print(results.table().data.to_string())
    if args.out:
        results.save(args.out)
        if checkpoint is not None and checkpoint.exists():
            checkpoint.unlink()
        print(f"wrote {args.out}")
    return 0


def _eval_compare(args: argparse.Namespace) -> int:
    a, b = Results.load(args.a), Results.load(args.b)
    table = compare(a, b, system_a=args.system_a, system_b=args.system_b, n_bootstrap=args.n_bootstrap, n_ar=args.n_ar)
    with _pandas_display():
        print(table.to_string(index=False, float_format=lambda x: f"{x:.4g}"))
    return 0


def _split_list(value: str | None) -> list[str]:
    return [x.strip() for x in (value or "").split(",") if x.strip()]


def _check_out(out: str | None) -> None:
    if out and not out.lower().endswith(".csv"):
        raise ValueError(f"--out must name a .csv file, not {out}")


def _cli_model(args: argparse.Namespace):
    settings = {"max_new_tokens": args.max_new_tokens} if args.max_new_tokens else None
    return load_chat_model(args.model, settings=settings)


def _eval_summarize(args: argparse.Namespace) -> int:
    variants = _split_list(args.variants)
    if not variants:
        raise ValueError(f"--variants is empty; use e.g. {','.join(SUMMARIZER_VARIANTS)}")
    unknown = [v for v in variants if v not in SUMMARIZER_VARIANTS]
    if unknown:
        raise ValueError(f"unknown summarizer variant {unknown[0]!r}; use one of {', '.join(SUMMARIZER_VARIANTS)}")
    if args.n is not None and args.n <= 0:
        raise ValueError(f"--n must be positive; got {args.n}")
    _check_out(args.out)
    transcripts = None
    if args.data:
        transcripts = load_transcripts(args.data)
    results = evaluate_summarizers(
        variants,
        model=_cli_model(args),
        transcripts=transcripts,
        n=args.n,
        translate_requests=not args.no_translate,
        n_bootstrap=args.n_bootstrap,
        seed=args.seed,
    )
    with _pandas_display():
        print(results.table().to_string())
    if args.out:
        results.save(args.out)
        print(f"wrote {args.out}")
    return 0


def _eval_route(args: argparse.Namespace) -> int:
    if args.variants is not None and args.prompt is not None:
        raise ValueError("pass --prompt or --variants, not both")
    variants = _split_list(args.variants) if args.variants is not None else None
    if variants is not None and not variants:
        raise ValueError("--variants is empty; use e.g. baseline,fewshot")
    if args.n is not None and args.n <= 0:
        raise ValueError(f"--n must be positive; got {args.n}")
    _check_out(args.out)

    refs = variants or [args.prompt or "baseline"]
    for ref in refs:  # unknown variants fail before the model loads
        load_prompt(ref if "/" in ref or ref.endswith((".yaml", ".yml")) else f"supervisor/{ref}")
    examples = None
    if args.data:
        examples = load_routing_examples(args.data)
    translate = {"model": True, "gold": "gold", "none": False}[args.translate]
    model = _cli_model(args)
    if variants is not None and len(variants) > 1:
        result = sweep_routing(
            variants,
            model=model,
            examples=examples,
            n=args.n,
            translate=translate,
            n_bootstrap=args.n_bootstrap,
            seed=args.seed,
        )
        confusions = result.confusion
    else:
        result = evaluate_routing(
            model, examples, prompt=refs[0], n=args.n, translate=translate, n_bootstrap=args.n_bootstrap, seed=args.seed
        )
        confusions = {result.meta["prompt"]: result.confusion}
    with _pandas_display():
        print(result.table().to_string())
        for name, conf in confusions.items():
            print(f"\nconfusion ({name}; rows gold, columns predicted):")
            print(conf.to_string())
        paired = getattr(result, "paired", None)
        if paired is not None and len(paired):
            print()
            print(paired.to_string(index=False, float_format=lambda x: f"{x:.4g}"))
    if args.out:
        result.save(args.out)
        print(f"wrote {args.out}")
    return 0


class _pandas_display:
    def __enter__(self):
        import pandas as pd

        self._ctx = pd.option_context("display.width", 200, "display.max_columns", 50, "display.max_rows", 500)
        self._ctx.__enter__()

    def __exit__(self, *exc):
        return self._ctx.__exit__(*exc)


_SYSTEM_SPECS = """system specs:
  copy                          the source unchanged (the echo floor)
  MODEL[@VARIANT][+ctxK]        a user_translate prompt variant on a chat model, with the last K
                                (0..10) preceding segments of the document as context;
                                MODEL = smollm2 | hf:PATH-OR-HUB-ID | fake:SCRIPT;
                                VARIANT = a file under prompts/user_translate/ (default baseline)
  seq2seq:PATH-OR-HUB-ID        an NMT model (NLLB, M2M100, Marian); no context
  pivot:SPEC                    through English with SPEC on both hops
  NAME=SPEC                     any of the above, named NAME in the results
examples: --system smollm2 --system strict=smollm2@strict --system smollm2@baseline+ctx3
"""


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``data list|fetch|languages`` and ``eval translate|compare|summarize|route`` to ``subparsers``."""
    data = command_group(subparsers, "data", "test sets: list, fetch, language codes")
    p = data.add_parser("list", help="which test sets are present, with their languages")
    p.set_defaults(func=_guard(_data_list))
    p = data.add_parser("fetch", help="download a test set from its public source")
    p.add_argument("name", help="ntrex128, floresv1 or mafand")
    p.add_argument("--dest", default=None, help="target folder (default: $AYA_LAB_DATA_DIR/NAME)")
    p.add_argument("--base-url", default=None, help="mirror of raw.githubusercontent.com")
    p.add_argument("--languages", default=None, help="comma-separated subset, e.g. swh,yor")
    p.add_argument("--no-verify", action="store_true", help="keep files whose checksums differ")
    p.set_defaults(func=_guard(_data_fetch))
    p = data.add_parser("languages", help="the language table (codes, names, coverage)")
    p.set_defaults(func=_guard(_data_languages))

    ev = command_group(subparsers, "eval", "evaluate translation, summaries, routing")
    p = ev.add_parser(
        "translate",
        help="score translation systems on a test set",
        epilog=_SYSTEM_SPECS,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "--system",
        action="append",
        default=[],
        metavar="SPEC",
        help="system spec (repeatable), optionally NAME=SPEC; e.g. copy, smollm2@strict+ctx3, "
        "seq2seq:PATH, pivot:SPEC (grammar below)",
    )
    p.add_argument("--dataset", required=True, help="ntrex128, floresv1, mafand, workplace or files:SRC,REF")
    p.add_argument("--pairs", required=True, help="comma-separated pairs, e.g. eng-swh,eng-yor")
    p.add_argument("--split", default=None)
    p.add_argument("--n", type=int, default=None, help="first N segments of each pair")
    p.add_argument("--baseline", default=None, help="system name to test against (default: the first)")
    p.add_argument("--out", default=None, help="results CSV (also writes .outputs.csv and .json)")
    p.add_argument("--n-bootstrap", type=int, default=1000)
    p.add_argument("--n-ar", type=int, default=10000)
    p.add_argument("--chunk-size", type=int, default=64)
    p.add_argument("--no-progress", action="store_true")
    p.set_defaults(func=_guard(_eval_translate))
    p = ev.add_parser("compare", help="paired tests between two saved translation results")
    p.add_argument("a", help="results CSV (its baseline or --system-a is the reference point)")
    p.add_argument("b", help="results CSV (its systems, or --system-b, are tested)")
    p.add_argument("--system-a", default=None)
    p.add_argument("--system-b", default=None)
    p.add_argument("--n-bootstrap", type=int, default=1000)
    p.add_argument("--n-ar", type=int, default=10000)
    p.set_defaults(func=_guard(_eval_compare))
    _register_summarize_route(ev)


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
        "count exact match, last-N correctness, action-item P/R/F1, summary chrF, "
        "calls, tokens and latency, with paired bootstrap tests against the first.",
    )
    p.add_argument("--model", default=None, help="chat model spec (default: $AYA_LAB_MODEL or smollm2)")
    p.add_argument("--variants", default="two_call,one_call", help="comma-separated; the first is the baseline")
    p.add_argument("--n", type=int, default=None, help="first N transcripts")
    p.add_argument("--data", default=None, help="a transcripts JSONL file (default: data/transcripts)")
    p.add_argument("--out", default=None, help="results CSV (also .transcripts.csv, .paired.csv, .json)")
    p.add_argument("--no-translate", action="store_true", help="give the summarizers the request as written")
    p.add_argument("--max-new-tokens", type=int, default=None)
    p.add_argument("--n-bootstrap", type=int, default=1000)
    p.add_argument("--seed", type=int, default=0)
    p.set_defaults(func=_guard(_eval_summarize))


def _add_route(ev: argparse._SubParsersAction) -> None:
    p = ev.add_parser(
        "route",
        help="score the supervisor's routing (one prompt, or a sweep of variants)",
        description="Route the labelled requests of data/routing (translated to English first, "
        "as the room does) and report accuracy with bootstrap CIs per language, the "
        "keyword-fallback rate and a confusion matrix; with several --variants, "
        "paired bootstrap and exact McNemar tests against the first.",
    )
    p.add_argument("--model", default=None, help="chat model spec (default: $AYA_LAB_MODEL or smollm2)")
    p.add_argument("--prompt", default=None, help="one supervisor variant, e.g. fewshot (default: baseline)")
    p.add_argument("--variants", default=None, help="comma-separated supervisor variants; the first is the baseline")
    p.add_argument("--n", type=int, default=None, help="first N requests")
    p.add_argument("--data", default=None, help="a routing requests JSONL file (default: data/routing)")
    p.add_argument(
        "--translate",
        choices=("model", "gold", "none"),
        default="model",
        help="non-English requests: translate with the model (default), use the gold English, or none",
    )
    p.add_argument("--out", default=None, help="results CSV (also .examples.csv, .confusion.csv, .json)")
    p.add_argument("--max-new-tokens", type=int, default=None)
    p.add_argument("--n-bootstrap", type=int, default=1000)
    p.add_argument("--seed", type=int, default=0)
    p.set_defaults(func=_guard(_eval_route))


def main(argv: list[str] | None = None) -> int:
    """Run these commands without the top-level CLI (``python -m aya_lab.eval.cli data list``)."""
    parser = argparse.ArgumentParser(prog="aya-lab")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    register(sub)
    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
