"""``aya-lab eval faithfulness``: calibrate the translation guard's faithfulness gate and report on it.

It picks the per-language thresholds on the calibration split of ``data/faithfulness/pairs.jsonl`` and
places a translator's real-output floor on its labelled drafts (:mod:`aya_lab.eval.faithfulness_real`;
``--translator`` names the model that wrote them), then reports precision/recall with 95% CIs on the
held-out split (:mod:`aya_lab.eval.faithfulness`), without the floor and, in one line, with it. Each
measured number is compared with the committed calibration (``data/calibration/``);
``--write-calibration [DIR]`` writes both calibration files there (:mod:`aya_lab.eval.calibration_files`),
after every figure is computed, never a half-written one. Bad input (a missing file, a malformed line,
external sets missing when writing) is one ``error: ...`` line naming the file and the fix, exit status 2.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

import numpy as np

from aya_lab.agents.calibration import (
    CalibrationError,
    ThresholdsCalibration,
    TranslatorCalibration,
    calibration_dir,
    load_thresholds,
    translator_record,
)
from aya_lab.agents.faithfulness import RealOutputFloor, faithfulness_scores
from aya_lab.datasets.project import CorpusError
from aya_lab.errors import InputError
from aya_lab.eval.calibration_files import thresholds_calibration, translator_calibration, write_calibration
from aya_lab.eval.cli_support import check_out, guard, pandas_display
from aya_lab.eval.fabrications import default_labels_path
from aya_lab.eval.faithfulness import (
    evaluate_faithfulness,
    faithfulness_table,
    gate_report,
    picked_thresholds,
    scored_pairs,
)
from aya_lab.eval.faithfulness_data import default_set_path
from aya_lab.eval.faithfulness_real import (
    RealDraft,
    calibrate_floor,
    default_messages_path,
    floor_table,
    load_real_drafts,
)
from aya_lab.eval.report import Report

__all__ = ["faithfulness_command"]


def _check_calibration_dir(value: str | None) -> None:
    """Refuse, before any work, a ``--write-calibration`` folder that is a file or cannot be written."""
    if value is None:
        return
    path = Path(value)
    if path.exists() and not path.is_dir():
        raise InputError(f"--write-calibration {value!r} is a file; pass a folder, e.g. data/calibration")
    existing = next((p for p in (path, *path.parents) if p.exists()), Path("."))
    if not existing.is_dir() or not os.access(existing, os.W_OK | os.X_OK):
        raise InputError(f"--write-calibration {value!r}: {existing} cannot be written; pass a folder you can write")


def _print_thresholds(thresholds: dict[str, float]) -> None:
    try:
        committed: dict[str, float] | None = load_thresholds().thresholds
    except CalibrationError as exc:
        committed = None
        print(f"note: {exc}")
    print(f"thresholds picked on the calibration split (committed: {calibration_dir()}):")
    for lang, value in sorted(thresholds.items()):
        old = (committed or {}).get(lang)
        same = "" if old == value else f"   (committed {old}; rerun with --write-calibration)"
        print(f"  {lang}: {value:.3f}{same}")


def _print_floor(floor: RealOutputFloor, n_drafts: int) -> None:
    try:
        record = translator_record(floor.model)
    except CalibrationError as exc:
        record = None
        print(f"note: {exc}")
    old = None if record is None else (record.floor, set(record.floor_languages), set(record.unsupported))
    same = (
        ""
        if old == (floor.value, set(floor.languages), set(floor.unsupported))
        else (
            "   (differs from the committed record; rerun with --write-calibration)"
            if old
            else "   (no committed record)"
        )
    )
    print(f"real-output floor of {floor.model} on {n_drafts} labelled drafts: {floor.value:.3f} for pairs within "
          f"{', '.join(sorted(floor.languages))}; unsupported (no faithful draft): "
          f"{', '.join(sorted(floor.unsupported)) or 'none'}{same}")  # fmt: skip


def _eval_faithfulness(args: argparse.Namespace) -> int:
    check_out(args.out)
    _check_calibration_dir(args.write_calibration)
    if not args.translator.strip():
        raise InputError(
            "--translator is empty; pass the spec of the model that wrote the labelled drafts, e.g. gemma3-270m"
        )
    path = Path(args.data) if args.data else default_set_path()
    if not path.is_file():
        raise CorpusError(
            f"{path}: file not found; pass --data a JSONL file of labelled pairs (default {default_set_path()})"
        )
    drafts = load_real_drafts(args.real_messages, args.real_labels)
    draft_scores = faithfulness_scores([d.source for d in drafts], [d.draft for d in drafts])
    floor = calibrate_floor(drafts, draft_scores, model=args.translator.strip())
    result = evaluate_faithfulness(path, args.split, n_bootstrap=args.n_bootstrap)
    skipped = result.meta["skipped"]
    if isinstance(skipped, dict) and skipped:
        missing = ", ".join(f"{name} ({n} pairs)" for name, n in skipped.items())
        print(f"note: skipped pairs of external sets that are not here: {missing}; set AYA_LAB_DATA_DIR")
    thresholds = picked_thresholds(result)
    _print_thresholds(thresholds)
    _print_floor(floor, len(drafts))
    print(
        "  the gate alone on those drafts, in-sample (the floor was placed on them); flagged: between threshold and floor:"
    )
    with pandas_display():
        table = floor_table(drafts, draft_scores, floor, thresholds)
        print(table.to_string(index=False, float_format=lambda x: f"{x:.3f}"))
    shown = faithfulness_table(result)
    with pandas_display():
        print(f"\n{args.split} split: {len(shown)} rows; precision/recall of 'unfaithful' (withheld), 95% CIs:")
        print(shown.to_string(index=False, float_format=lambda x: f"{x:.3f}"))
    pairs, scores = scored_pairs(result)
    chosen = [i for i, p in enumerate(pairs) if p.split == args.split]
    floored = gate_report([pairs[i] for i in chosen], scores[chosen], thresholds, n_bootstrap=args.n_bootstrap,
                     floor=floor).iloc[0]  # fmt: skip
    print(f"\nwith the floor applied to these written pairs (as if they were {floor.model}'s drafts): "
          f"honest withheld {floored['withheld']:.3f} [{floored['withheld_low']:.3f}, {floored['withheld_high']:.3f}], "
          f"recall {floored['recall']:.3f} [{floored['recall_low']:.3f}, {floored['recall_high']:.3f}]")  # fmt: skip
    if args.write_calibration is not None:
        _write(args, result, drafts, draft_scores, floor)
    if args.out:
        out = Path(args.out)
        out.parent.mkdir(parents=True, exist_ok=True)
        shown.to_csv(out, index=False)
        print(f"wrote {out}")
    return 0


def _write(
    args: argparse.Namespace,
    result: Report,
    drafts: list[RealDraft],
    scores: np.ndarray,
    floor: RealOutputFloor,
) -> None:
    """Both calibration files, each record built (and checked) before either is written."""
    sources = [args.real_messages or default_messages_path(), args.real_labels or default_labels_path()]
    records: list[ThresholdsCalibration | TranslatorCalibration] = [
        thresholds_calibration(result),
        translator_calibration(drafts, scores, floor, sources, args.fingerprint, thresholds=picked_thresholds(result)),
    ]
    for record in records:
        print(f"wrote {write_calibration(record, Path(args.write_calibration))}")


faithfulness_command = guard(_eval_faithfulness)
"""``aya-lab eval faithfulness`` (its options: :func:`aya_lab.eval.parsers.add_faithfulness`)."""
