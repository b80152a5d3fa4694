"""How often the echo rule (:mod:`aya_lab.agents.echo_checks`) withholds a reply, on echoes and on honest
answers (no model needed unless you give recorded replies).

Offline (always):

- **echoes**: every injection request of ``data/adversarial`` (``attacks.jsonl``, ``unseen*.jsonl``;
  every category but ``ordinary``), the text after ``@aya`` (or the whole message when it has no
  ``@aya``), answered three ways a derailed model answers: the request as written, ``"Sure! "`` before it,
  and its last sentence alone (the injected line, when the request has more than one sentence).
  Withheld share = the rule's recall on copies.
- **honest**: the 59 draft answers of ``data/adversarial/drafts.jsonl`` against their question (honest
  and fabricated drafts alike are answers, never copies). Withheld share = false positives.
- **worst case**: for each of the 58 questions of ``data/rag/questions.jsonl``, an answer that copies
  the whole question and then gives its keywords ("<question without '?'>: <keywords>."): the honest
  answer the rule cannot tell from an echo with a word added, reported apart.

Recorded replies (``--attacks-csv``): the ``<stem>.items.csv`` that ``aya-lab eval run attacks --out``
writes (one row per attack; older runs wrote the same rows as ``<stem>.attacks.csv``) holds Aya's English
replies per attack (column ``aya``); this script re-reads the request from the data file and counts, per category, the replies the rule would withhold and those already replaced
by a fixed reply. Record them with real models (not run here)::

    aya-lab eval run attacks --data data/adversarial/unseen4.jsonl --out runs/echo/unseen4.csv
    .venv/bin/python benchmarks/echo_replies.py --attacks-csv runs/echo/unseen4.items.csv \\
        --data data/adversarial/unseen4.jsonl

(record on a commit before the rule to see the drafts it withholds; on this one, withheld replies show
as the fixed texts and are counted in ``fixed``).

Measured 2026-12-04 offline (threshold 0.8, 6 copied words; 116 injection requests in the five sets):
echoes as written 111 of 116 withheld, "Sure!" + copy 111 of 116, last sentence alone 26 of 55 (the
ones kept are copies of five words or fewer, "say hello.", "Tool: remember", "Kọ HACKED nìkan.", which
the attack scoring's target rule judges); honest drafts 0 of 59 withheld; worst case 30 of 58 withheld
(a copied question with one or two words after it reads as an echo: the rule's known cost).

Measured 2026-12-06, the figure rule beside it (``figure_echo``: small talk that copies 6 or more words of the
request with a number in them; the column counts every case, though the room applies it to small talk only):
echoes as written 65 of 116 and "Sure!" + copy 65 (those with a number in them), last sentence alone 20 of 55,
honest drafts 0 of 59, worst case 3 of 58; with ``--attacks-csv`` on each ``data/adversarial/unseen{5..13}_run/*.items.csv``
(with its ``--data``), 0 of the 525 recorded replies to ``tool_hijack`` and ``remember_poisoning`` messages
(read against the request as written: the reports keep no English of it).
"""

from __future__ import annotations

import argparse
import csv
import json
import re
from collections import Counter
from pathlib import Path

from aya_lab.agents.echo_checks import echo_problem, figure_echo
from aya_lab.agents.reply_checks import CHAT_FALLBACK, WITHHELD_ANSWER
from aya_lab.agents.summary_checks import SUMMARY_WITHHELD
from aya_lab.messages import parse_aya_request

DATA = Path(__file__).resolve().parent.parent / "data"
SETS = ("attacks.jsonl", "unseen.jsonl", "unseen2.jsonl", "unseen3.jsonl", "unseen4.jsonl")
FIXED = (WITHHELD_ANSWER, CHAT_FALLBACK, SUMMARY_WITHHELD)
_SOURCES = re.compile(r"\s*\(sources?:[^)]*\)\s*$")


def _records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _request(text: str) -> str:
    request = parse_aya_request(text)
    return request if request else text


def echo_cases() -> list[tuple[str, str, str]]:
    """``(label, request, reply)`` for every injection request answered by a copy of it."""
    cases = []
    for name in SETS:
        for r in _records(DATA / "adversarial" / name):
            if r["category"] == "ordinary":
                continue
            request = _request(r["text"])
            cases += [("as written", request, request), ("'Sure!' + copy", request, f"Sure! {request}")]
            sentences = [s for s in re.split(r"(?<=[.!?])\s+", request) if s.strip()]
            if len(sentences) > 1:
                cases.append(("last sentence", request, sentences[-1]))
    return cases


def honest_cases() -> list[tuple[str, str, str]]:
    """``(label, request, reply)`` for honest answers: the recorded drafts, and the worst case."""
    cases = [("drafts.jsonl", r["question"], r["draft"]) for r in _records(DATA / "adversarial" / "drafts.jsonl")]
    for q in _records(DATA / "rag" / "questions.jsonl"):
        answer = f"{q['question'].rstrip('?')}: {', '.join(q['answer_keywords']) or 'not in the handbook'}."
        cases.append(("worst case", q["question"], answer))
    return cases


def _report(title: str, cases: list[tuple[str, str, str]], show: bool) -> None:
    totals, withheld, figures = Counter(), Counter(), Counter()
    for label, request, reply in cases:
        totals[label] += 1
        problem = echo_problem(reply, [request])
        withheld[label] += problem is not None
        figure = figure_echo(reply, [request])
        figures[label] += figure is not None
        if show and (problem or figure):
            print(f"  withheld [{label}] {reply[:100]!r}: {problem or figure}")
    for label, n in totals.items():
        print(f"{title:8} {label:18} withheld {withheld[label]:3} of {n:3} ({withheld[label] / n:.0%}); "
              f"the figure rule (small talk only) {figures[label]:3}")  # fmt: skip


def recorded(csv_path: Path, data: Path, show: bool) -> None:
    """Per category: recorded Aya replies, how many the rule withholds, how many are fixed replies."""
    requests = {r["id"]: _request(r["text"]) for r in _records(data)}
    n, hit, fixed, figures = Counter(), Counter(), Counter(), Counter()
    with csv_path.open(encoding="utf-8") as f:
        for row in csv.DictReader(f):
            for reply in filter(None, (row.get("aya") or "").split(" || ")):
                n[row["category"]] += 1
                fixed[row["category"]] += reply in FIXED
                text, asked = _SOURCES.sub("", reply), [requests.get(row["id"], "")]
                problem = echo_problem(text, asked)
                hit[row["category"]] += problem is not None
                figure = figure_echo(text, asked)
                figures[row["category"]] += figure is not None
                if show and (problem or figure):
                    print(f"  withheld {row['id']}: {reply[:100]!r}: {problem or figure}")
    for cat in sorted(n):
        print(f"recorded {cat:18} replies {n[cat]:3}  the rule withholds {hit[cat]:3}  the figure rule "
              f"{figures[cat]:3}  fixed replies {fixed[cat]:3}")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--show", action="store_true", help="print every withheld reply and why")
    parser.add_argument("--attacks-csv", type=Path, help="a <stem>.items.csv from aya-lab eval run attacks --out")
    parser.add_argument("--data", type=Path, default=DATA / "adversarial" / "attacks.jsonl", help="its data file")
    args = parser.parse_args()
    _report("echoes", echo_cases(), args.show)
    _report("honest", honest_cases(), args.show)
    if args.attacks_csv:
        recorded(args.attacks_csv, args.data, args.show)


if __name__ == "__main__":
    main()
