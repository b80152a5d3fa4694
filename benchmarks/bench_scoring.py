"""Translation scoring: sacrebleu's plain path against what the evaluation does, side by side, same inputs.

Three parts of scoring a translation evaluation, each timed both ways in one process (median of ``--repeats``),
with the outputs checked equal (bit for bit):

  statistics — every system's segment statistics (BLEU, chrF, chrF++) against one reference stream: sacrebleu's
               ``_extract_corpus_statistics`` per system (each extracts the references again) against
               :func:`~aya_lab.eval.metrics.segment_statistics` over all systems at once (each reference
               extracted once; a fresh memo each repeat, so nothing is remembered from the last); ``again``: the
               same segments scored a second time (the pooled analysis after the pairs'), from the memo;
  BLEU rows  — the BLEU of 10,000 resampled rows of summed statistics (what one approximate-randomisation test
               scores): ``compute_bleu`` row by row against :func:`~aya_lab.eval.metrics.scores_from_stats`;
  echo chrF  — sentence chrF of every output against every few-shot example (the echo check before its length
               bound): ``CHRF().sentence_score`` against :class:`~aya_lab.sentence_chrf.SentenceChrF`.

Data: ``--n`` segments of NTREX-128 eng-fra from ``AYA_LAB_DATA_DIR``; the systems are the source copied, the
references shuffled, and the references with every fifth word dropped.

    .venv/bin/python benchmarks/bench_scoring.py --n 300 --repeats 5
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
from sacrebleu.metrics import CHRF

from aya_lab.datasets.parallel import load_parallel
from aya_lab.eval import metrics
from aya_lab.eval.metrics import make_metrics, scores_from_stats, segment_statistics
from aya_lab.sentence_chrf import SentenceChrF


def _median(fn, repeats: int, fresh: bool = True) -> tuple[float, object]:
    times, out = [], None
    for _ in range(repeats):
        if fresh:
            metrics._SEGMENTS.clear()
        start = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=300)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    data = load_parallel("ntrex128", "eng", "fra", n=args.n)
    refs, sources = list(data.references), list(data.sources)
    rng = np.random.default_rng(0)
    systems = [sources, list(rng.permutation(refs)), [" ".join(r.split()[::5] + r.split()) for r in refs]]
    rows = []

    def plain_statistics():
        return [[m._extract_corpus_statistics(h, [refs]) for m in make_metrics("fra").values()] for h in systems]

    def our_statistics():
        every, out = [h for s in systems for h in s], []
        for metric in make_metrics("fra").values():
            stats = segment_statistics(metric, every, refs * len(systems))
            out.append([stats[i * len(refs) : (i + 1) * len(refs)] for i in range(len(systems))])
        return [list(x) for x in zip(*out)]

    rows.append(("statistics", *_median(plain_statistics, args.repeats), *_median(our_statistics, args.repeats)))
    our_statistics()  # the segments scored once already, as the pooled analysis finds them
    rows.append(("again", *_median(plain_statistics, args.repeats), *_median(our_statistics, args.repeats, False)))
    bleu = make_metrics("fra")["BLEU"]
    summed = np.asarray(bleu._extract_corpus_statistics(refs, [refs]), dtype=np.float64)
    resampled = rng.integers(0, 2, (10_000, len(refs))).astype(bool) @ summed
    rows.append(("BLEU rows",
                 *_median(lambda: [float(bleu._compute_score_from_stats(r).score) for r in resampled], args.repeats),
                 *_median(lambda: list(scores_from_stats(bleu, resampled)), args.repeats)))  # fmt: skip
    examples, outputs = refs[:40], systems[2][:100]

    def our_echo():
        chrf = SentenceChrF()  # a fresh one each repeat: nothing remembered from the last
        return [chrf.score(o, e) for o in outputs for e in examples]

    rows.append(("echo chrF",
                 *_median(lambda: [CHRF().sentence_score(o, [e]).score for o in outputs for e in examples], args.repeats),
                 *_median(our_echo, args.repeats)))  # fmt: skip
    print(f"{args.n} segments of NTREX-128 eng-fra, {len(systems)} systems, median of {args.repeats}")
    print(f"{'part':<12} {'sacrebleu s':>12} {'aya_lab s':>10} {'ratio':>6} equal")
    for name, plain_s, plain, ours_s, ours in rows:
        print(f"{name:<12} {plain_s:>12.3f} {ours_s:>10.3f} {plain_s / ours_s:>6.1f} {plain == ours}")


if __name__ == "__main__":
    main()
