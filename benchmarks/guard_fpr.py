"""False-positive rate of the translation guard on honest translations (no model needed).

The workplace set (``data/workplace``) has English sources and human-quality references in French,
German, Spanish and Mandarin. Each (source, reference) pair is an honest translation, in both
directions (English -> X and X -> English); the guard should pass every one. Prints, per language pair,
how many pairs the guard withheld and which checks fired, with a 95% Wilson interval.

    .venv/bin/python benchmarks/guard_fpr.py [--show] [--floor]

``flagged`` counts the references that pass every check but fall under the floor: delivered ``[unverified]``
beside the original. ``--floor`` applies the default translator's real-output floor (its record in ``data/calibration/``) as if these human
references were its drafts: the cost the floor would have for a translator as free as a person.
"""

from __future__ import annotations

import argparse
import math
from collections import Counter

from aya_lab.agents.faithfulness import translator_floor
from aya_lab.agents.guard import TranslationGuard
from aya_lab.datasets.project import load_workplace
from aya_lab.settings import DEFAULT_ROLE_SPECS

LANGS = ("fra", "deu", "spa", "cmn")


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval for k successes out of n."""
    if n == 0:
        return (math.nan, math.nan)
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--show", action="store_true", help="print every withheld pair and its reasons")
    parser.add_argument("--floor", action="store_true", help="apply the default translator's real-output floor")
    args = parser.parse_args()
    guard = TranslationGuard(floor=translator_floor(DEFAULT_ROLE_SPECS["translator"]) if args.floor else None)
    english = load_workplace("eng")
    total_k = total_n = total_f = 0
    print(f"{'pair':<9} {'withheld':>8} {'n':>4} {'rate':>6}  95% CI          {'flagged':>7}  checks fired")
    for lang in LANGS:
        refs = load_workplace(lang)
        for src, tgt, sources, outputs in (("eng", lang, english, refs), (lang, "eng", refs, english)):
            fired: Counter[str] = Counter()
            k = flagged = 0
            for source, output in zip(sources, outputs, strict=True):
                verdict = guard.check(source, output, src, tgt)
                flagged += verdict.flagged
                if not verdict.ok:
                    k += 1
                    fired.update(r.split(":", 1)[0] for r in verdict.reasons)
                    if args.show:
                        print(f"  {src}->{tgt}: {source!r} -> {output!r}: {'; '.join(verdict.reasons)}")
            lo, hi = wilson(k, len(sources))
            checks = ", ".join(f"{c} {n}" for c, n in fired.most_common()) or "-"
            print(
                f"{src}->{tgt:<4} {k:>8} {len(sources):>4} {k / len(sources):>6.1%}  [{lo:.1%}, {hi:.1%}]  "
                f"{flagged:>7}  {checks}"
            )
            total_k, total_n, total_f = total_k + k, total_n + len(sources), total_f + flagged
    lo, hi = wilson(total_k, total_n)
    print(f"{'all':<9} {total_k:>8} {total_n:>4} {total_k / total_n:>6.1%}  [{lo:.1%}, {hi:.1%}]  {total_f:>7}")


if __name__ == "__main__":
    main()
