"""``aya-lab eval faithfulness``: calibrate the translation guard's faithfulness thresholds on the
calibration split of ``data/faithfulness/pairs.jsonl``, and the real-output floor on the translator's
labelled drafts (:mod:`aya_lab.eval.faithfulness_real`), and report precision/recall with 95% CIs on the
held-out split (:mod:`aya_lab.eval.faithfulness`), without the floor and, in one line, with it. Bad input (a missing file, a malformed line) is one
``error: ...`` line naming the file and the fix, exit status 2."""

from __future__ import annotations

import argparse
from pathlib import Path

from aya_lab.agents.faithfulness import FAITHFUL_THRESHOLDS, REAL_OUTPUT_FLOOR, faithfulness_scores
from aya_lab.datasets.project import CorpusError
from aya_lab.eval.cli_support import check_out, guard, pandas_display
from aya_lab.eval.faithfulness import evaluate_faithfulness, report
from aya_lab.eval.faithfulness_data import default_set_path
from aya_lab.eval.faithfulness_real import calibrate_floor, floor_table, load_real_drafts

__all__ = ["faithfulness_command"]


def _eval_faithfulness(args: argparse.Namespace) -> int:
    check_out(args.out)
    path = Path(args.data) if args.data else default_set_path()
    if not path.is_file():
        raise CorpusError(
            f"{path}: file not found; pass --data a JSONL file of labelled pairs (default {default_set_path()})"
        )
    drafts = load_real_drafts(args.real_messages, args.real_labels)
    draft_scores = faithfulness_scores([d.source for d in drafts], [d.draft for d in drafts])
    floor = calibrate_floor(drafts, draft_scores)
    result = evaluate_faithfulness(path, args.split, n_bootstrap=args.n_bootstrap)
    if result.data.skipped:
        missing = ", ".join(f"{name} ({n} pairs)" for name, n in result.data.skipped.items())
        print(f"note: skipped pairs of external sets that are not here: {missing}; set AYA_LAB_DATA_DIR")
    print("thresholds picked on the calibration split (in code: aya_lab.agents.faithfulness.FAITHFUL_THRESHOLDS):")
    for lang, value in sorted(result.thresholds.items()):
        code = FAITHFUL_THRESHOLDS.get(lang)
        same = "" if code == value else f"   (code has {code}; update it)" if code is not None else "   (not in code)"
        print(f"  {lang}: {value:.3f}{same}")
    ours = REAL_OUTPUT_FLOOR
    same = "" if floor == ours else f"   (code has {ours}; update it)"
    print(f"real-output floor of {floor.model} on {len(drafts)} labelled drafts: {floor.value:.3f} for pairs within "
          f"{', '.join(sorted(floor.languages))}; unsupported (no faithful draft): "
          f"{', '.join(sorted(floor.unsupported)) or 'none'}{same}")  # fmt: skip
    print(
        "  the gate alone on those drafts, in-sample (the floor was placed on them); flagged: between threshold and floor:"
    )
    with pandas_display():
        print(floor_table(drafts, draft_scores, floor).to_string(index=False, float_format=lambda x: f"{x:.3f}"))
    shown = result.table.copy()
    with pandas_display():
        print(f"\n{args.split} split: {len(shown)} rows; precision/recall of 'unfaithful' (withheld), 95% CIs:")
        print(shown.to_string(index=False, float_format=lambda x: f"{x:.3f}"))
    chosen = [i for i, p in enumerate(result.data.pairs) if p.split == args.split]
    floored = report([result.data.pairs[i] for i in chosen], result.scores[chosen], result.thresholds,
                     n_bootstrap=args.n_bootstrap, floor=floor).iloc[0]  # fmt: skip
    print(f"\nwith the floor applied to these written pairs (as if they were the default translator's drafts): "
          f"honest withheld {floored['withheld']:.3f} [{floored['withheld_low']:.3f}, {floored['withheld_high']:.3f}], "
          f"recall {floored['recall']:.3f} [{floored['recall_low']:.3f}, {floored['recall_high']:.3f}]")  # fmt: skip
    if args.out:
        out = Path(args.out)
        out.parent.mkdir(parents=True, exist_ok=True)
        shown.to_csv(out, index=False)
        print(f"wrote {out}")
    return 0


faithfulness_command = guard(_eval_faithfulness)
"""``aya-lab eval faithfulness`` (its options: :func:`aya_lab.eval.parsers.add_faithfulness`)."""
