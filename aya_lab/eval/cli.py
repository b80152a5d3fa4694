"""Command-line commands for data and evaluation, registered into ``aya-lab``.

``register_data_and_eval(subparsers)`` adds ``data list|fetch|languages`` and ``eval translate|compare|summarize|route|faithfulness``
to the top-level parser's subparsers. Each command sets ``func(args) -> int`` (exit status) as its
default; bad input prints one ``error: ...`` line on stderr and returns 2. The ``data`` and ``eval``
groups are shared: :func:`command_group` returns a group's subparsers (creating it once), so other
modules can add commands next to these. ``eval translate|summarize|route`` take the same model,
sampling and progress options (:func:`~aya_lab.eval.cli_support.add_run_options`), with the
notebooks' defaults, and show a tqdm bar on stderr unless ``--no-progress``. ``eval attacks`` opens
rooms, which ``eval`` never imports: its code is the face :mod:`aya_lab.attacks`.

This module is the commands' code (``translate_command``, ...); their parsers are built by the light
:mod:`aya_lab.eval.parsers`, which names these handlers by reference, so ``--help`` imports none of it.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from aya_lab.agents.summarizer import SUMMARIZER_VARIANTS
from aya_lab.datasets.project import load_routing_examples, load_transcripts
from aya_lab.errors import InputError
from aya_lab.eval.cli_support import (
    check_run_options,
    check_translation_inputs,
    command_group,
    guard,
    model_from_args,
    model_settings,
    pandas_display,
    register_data,
    role_spec,
    split_list,
)
from aya_lab.eval.floors import is_summary_floor
from aya_lab.eval.parsers import register_eval
from aya_lab.eval.progress import generation_progress
from aya_lab.eval.report import Report
from aya_lab.eval.routing import confusion_matrices, evaluate_routing, sweep_routing
from aya_lab.eval.routing_input import as_route_on
from aya_lab.eval.routing_sequences import check_sequence_options, evaluate_sequences, load_multi_intent
from aya_lab.eval.sequence_views import decided_by, paths_paired, routers_paired, sequence_costs
from aya_lab.eval.summarization import evaluate_summarizers
from aya_lab.eval.translation.evaluate import evaluate_translation
from aya_lab.eval.translation.results import compare_translations
from aya_lab.eval.translation.specs import parse_system
from aya_lab.eval.translation.systems import model_options, prompt_notes, resolve_system
from aya_lab.prompts import load_prompt

__all__ = [
    "register_data_and_eval",
    "register_eval",
    "command_group",
    "eval_main",
    "translate_command",
    "compare_command",
    "summarize_command",
    "route_command",
]


def _eval_translate(args: argparse.Namespace) -> int:
    if args.system and args.model:
        raise InputError("pass --model (the default system) or --system SPEC, not both; e.g. --system MODEL@strict")
    check_translation_inputs(args)
    specs = args.system or [role_spec(args, "translator")]
    for spec in specs:  # every spec checked before the first model loads
        parse_system(spec)
    checkpoint = Path(args.out).with_name(Path(args.out).stem + ".partial.jsonl") if args.out else None
    with model_options(**model_settings(args)):
        systems = [resolve_system(spec) for spec in specs]
        for note in prompt_notes(systems):  # a base model given the completion prompt: said, and in the results
            print(note, file=sys.stderr)
        results: Report = evaluate_translation(
            systems,
            args.dataset,
            args.pairs,
            n=args.n,
            split=args.split,
            baseline=args.baseline,
            n_bootstrap=args.n_bootstrap,
            n_ar=args.n_ar,
            chunk_size=args.chunk_size,
            docs=args.docs,
            progress=not args.no_progress,
            checkpoint=checkpoint,
        )
    with pandas_display():
        print(results.table().data.to_string())
    if args.out:
        results.save(args.out)
        if checkpoint is not None and checkpoint.exists():
            checkpoint.unlink()
        print(f"wrote {args.out}")
    return 0


def _eval_compare(args: argparse.Namespace) -> int:
    a, b = Report.load(args.a), Report.load(args.b)
    table = compare_translations(
        a, b, system_a=args.system_a, system_b=args.system_b, n_bootstrap=args.n_bootstrap, n_ar=args.n_ar
    )
    with pandas_display():
        print(table.to_string(index=False, float_format=lambda x: f"{x:.4g}"))
    return 0


def _eval_summarize(args: argparse.Namespace) -> int:
    variants = split_list(args.variants)
    if not variants:
        raise InputError(f"--variants is empty; use e.g. {','.join(SUMMARIZER_VARIANTS)}")
    unknown = [v for v in variants if v not in SUMMARIZER_VARIANTS and not is_summary_floor(v)]
    if unknown:
        raise InputError(
            f"unknown summarizer variant {unknown[0]!r}; use {', '.join(SUMMARIZER_VARIANTS)} or a floor "
            "(copy-transcript, lead-N)"
        )
    check_run_options(args)
    transcripts = load_transcripts(args.data) if args.data else None
    results = evaluate_summarizers(
        variants,
        model=model_from_args(args),
        transcripts=transcripts,
        n=args.n,
        translate_requests=not args.no_translate,
        n_bootstrap=args.n_bootstrap,
        seed=args.seed,
        progress=not args.no_progress,
    )
    _print_prompt_note(results.meta)
    with pandas_display():
        print(results.table().to_string())
    if args.out:
        results.save(args.out)
        print(f"wrote {args.out}")
    return 0


def _print_prompt_note(meta: dict) -> None:
    """The line saying a base model translated the requests with the completion prompt (stderr)."""
    note = (meta.get("translator_prompt") or {}).get("prompt_note")
    if note:
        print(f"translator: {note}", file=sys.stderr)


def _eval_route(args: argparse.Namespace) -> int:
    if args.variants is not None and args.prompt is not None:
        raise InputError("pass --prompt or --variants, not both")
    variants = split_list(args.variants) if args.variants is not None else None
    if variants is not None and not variants:
        raise InputError("--variants is empty; use e.g. baseline,fewshot")
    check_run_options(args)
    if args.multi_data is not None and not args.multi_data.strip():  # '' used to run the default set silently
        raise InputError("--multi-data '' names no file; pass a multi-intent JSONL, or --routers '' to skip the table")
    if split_list(args.routers):
        check_sequence_options(split_list(args.routers), split_list(args.paths), split_list(args.sets))

    refs = variants or [args.prompt or "baseline"]
    for ref in refs:  # unknown variants fail before the model loads
        load_prompt(ref if "/" in ref or ref.endswith((".yaml", ".yml")) else f"supervisor/{ref}")
    examples = None
    if args.data:
        examples = load_routing_examples(args.data)
    translate = {"model": True, "auto": "auto", "gold": "gold", "none": False}[args.translate]
    total = _routing_generations(examples, args, translate, len(refs))
    model, translator = model_from_args(args), model_from_args(args, "translator")
    with generation_progress(total, "routing", enabled=not args.no_progress):
        result = _route(args, model, examples, refs, variants, translate, translator)
    _print_prompt_note(result.meta)
    with pandas_display():
        print(result.table().to_string())
        for name, conf in confusion_matrices(result).items():
            print(f"\nconfusion ({result.meta.get('prompt', name)}; rows gold, columns predicted):")
            print(conf.to_string())
        if len(result.paired):
            print()
            print(result.paired.to_string(index=False, float_format=lambda x: f"{x:.4g}"))
        decided = decided_by(result.items, ["system"], n_bootstrap=args.n_bootstrap, seed=args.seed)
        print("\nwho decided (model: its answer named a tool; keyword fallback: it named none), accuracy of each:")
        print(decided.to_string(index=False, float_format=lambda x: f"{x:.3f}"))
    sequences = _route_sequences(args, model, examples, refs[0], translator)
    if args.out:
        result.save(args.out)
        decided.to_csv(Path(args.out).with_suffix(".decided.csv"), index=False)
        if sequences is not None:
            sequences.save(Path(args.out).with_suffix(".sequences.csv"))
        print(f"wrote {args.out}")
    return 0


def _route_sequences(args, model, examples, prompt, translator):
    """Single- and multi-intent tool sequences per router on each path (``--routers ''`` skips)."""
    routers, paths = split_list(args.routers), split_list(args.paths)
    if not routers:
        return None
    multi = load_multi_intent(args.multi_data) if args.multi_data else None
    sets = split_list(args.sets)
    seq = evaluate_sequences(
        model, routers=routers, paths=paths, sets=sets, prompt=prompt, single=examples, multi=multi, n=args.n,
        n_bootstrap=args.n_bootstrap, seed=args.seed, translator=translator,
    )  # fmt: skip
    with pandas_display():
        print("\ntool sequences (exact sequence and per-step accuracy; path room = translate then route):")
        print(seq.table().to_string())
        print("\nper request (steps = tools run; calls and model s: the router's own model calls):")
        print(sequence_costs(seq).to_string(float_format=lambda x: f"{x:.3f}"))
        if {"multi", "loop"} <= set(routers):
            print("\nloop against multi (paired, exact sequence accuracy):")
            loop = routers_paired(seq, "multi", "loop")
            print(loop.to_string(index=False, float_format=lambda x: f"{x:.4g}"))
        for other in (p for p in paths if p != "room" and "room" in paths):
            print(f"\n{other} path against the room path, per router (paired, exact sequence accuracy):")
            tests = paths_paired(seq, "room", other)
            print(tests.to_string(index=False, float_format=lambda x: f"{x:.4g}"))
    return seq


def _route(args, model, examples, refs, variants, translate, translator):
    """``sweep_routing`` for several variants, else ``evaluate_routing`` (routing.py's signatures)."""
    if variants is not None and len(variants) > 1:
        return sweep_routing(
            variants,
            model=model,
            examples=examples,
            n=args.n,
            translate=translate,
            n_bootstrap=args.n_bootstrap,
            seed=args.seed,
            translator=translator,
        )
    return evaluate_routing(
        model, examples, prompt=refs[0], n=args.n, translate=translate, n_bootstrap=args.n_bootstrap, seed=args.seed,
        translator=translator,
    )  # fmt: skip


def _routing_generations(examples, args, translate, n_variants: int) -> int:
    """Model generations ``eval route`` will make (request translations, then one per request and
    variant), for the progress bar; refuses ``--translate gold`` on requests without ``text_en``."""
    items = list(examples) if examples is not None else load_routing_examples()
    items = items[: args.n] if args.n is not None else items
    if translate == "gold":
        missing = [ex.id for ex in items if ex.lang != "eng" and not ex.text_en]
        if missing:
            raise InputError(
                f"--translate gold needs an English gloss (text_en) on every non-English request; "
                f"{len(missing)} lack one (first: {missing[0]}); use --translate model"
            )
    n_translations = sum(ex.lang != "eng" for ex in items) if as_route_on(translate).translates else 0
    return n_translations + len(items) * n_variants


translate_command = guard(_eval_translate)
compare_command = guard(_eval_compare)
summarize_command = guard(_eval_summarize)
route_command = guard(_eval_route)


def register_data_and_eval(subparsers: argparse._SubParsersAction) -> None:
    """Add ``data list|fetch|languages`` and ``eval translate|compare|summarize|route`` to ``subparsers``."""
    register_data(subparsers)
    register_eval(subparsers)


def eval_main(argv: list[str] | None = None) -> int:
    """Run these commands without the top-level CLI (``python -m aya_lab.eval.cli data list``)."""
    parser = argparse.ArgumentParser(prog="aya-lab")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    register_data_and_eval(sub)
    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(eval_main())
