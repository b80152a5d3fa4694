"""Wall time and peak memory of every ``aya-lab ... --help`` (issue 39: each under 0.5 s and 100 MB).

Each help (``aya-lab --help``, every command group and every subcommand, found by walking the real
parser) runs ``--runs`` times in a fresh interpreter (``python -c "from aya_lab.cli import main; ..."``,
as the console script does); reported per command: the median wall time and the median peak RSS of the
child (``resource.getrusage(RUSAGE_CHILDREN)``, read after each run in a fresh wrapper process, so one
run's peak is not another's). Usage::

    python benchmarks/bench_cli_help.py [--runs 5] [--out results.json] [--against OTHER_CHECKOUT]

``--against`` measures the same commands with another checkout's package, side by side.

Run it alone on the machine: every figure is a single process's start-up, which other load skews.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

from aya_lab.cli import build_parser

ROOT = Path(__file__).resolve().parents[1]
CHILD = "import sys; from aya_lab.cli import main; sys.exit(main(sys.argv[1:]))"
MEASURE = """
import json, resource, subprocess, sys, time
start = time.perf_counter()
code = subprocess.run([sys.executable, "-c", sys.argv[1], *sys.argv[2:]], stdout=subprocess.DEVNULL).returncode
wall = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(json.dumps({"code": code, "wall": wall, "rss_kb": peak}))
"""


def commands(parser: argparse.ArgumentParser, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """Every command path of ``parser``: the top level, each group and each subcommand."""
    found = [prefix]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                found += commands(sub, (*prefix, name))
    return found


def measure(path: tuple[str, ...], runs: int, root: Path = ROOT) -> dict:
    """Median wall seconds and peak RSS (MB) of ``aya-lab PATH --help`` over ``runs`` fresh processes,
    with the package of the checkout ``root``."""
    env = {**os.environ, "PYTHONPATH": str(root)}
    walls, peaks = [], []
    for _ in range(runs):
        out = subprocess.run(
            [sys.executable, "-c", MEASURE, CHILD, *path, "--help"],
            cwd=root, env=env, capture_output=True, text=True, check=True,
        ).stdout  # fmt: skip
        row = json.loads(out)
        if row["code"] != 0:
            raise SystemExit(f"aya-lab {' '.join(path)} --help exited with {row['code']}")
        walls.append(row["wall"])
        peaks.append(row["rss_kb"] / 1024)
    return {"command": " ".join(path), "seconds": statistics.median(walls), "rss_mb": statistics.median(peaks)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="fresh processes per command (median reported)")
    parser.add_argument("--out", default=None, help="also write the rows as JSON")
    parser.add_argument("--against", default=None, help="another checkout (e.g. before a change), measured beside")
    args = parser.parse_args(argv)
    paths = commands(build_parser())
    rows = [measure(path, args.runs) for path in paths]
    other = [measure(path, args.runs, Path(args.against)) for path in paths] if args.against else []
    head = f"{'command':<28} {'median s':>9} {'peak MB':>8}"
    print(head + (f"  | {'against s':>9} {'peak MB':>8}" if other else ""))
    for i, row in enumerate(rows):
        line = f"{'aya-lab ' + row['command']:<28} {row['seconds']:>9.3f} {row['rss_mb']:>8.1f}"
        print(line + (f"  | {other[i]['seconds']:>9.3f} {other[i]['rss_mb']:>8.1f}" if other else ""))
    worst_s, worst_mb = max(r["seconds"] for r in rows), max(r["rss_mb"] for r in rows)
    print(f"slowest {worst_s:.3f} s, largest {worst_mb:.1f} MB ({len(rows)} commands, {args.runs} runs each)")
    if args.out:
        Path(args.out).write_text(json.dumps(rows, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
