"""How the room's three-draft rule was chosen (docs/ROOM.md, "Three drafts, and a doubt when they disagree").

``--write`` translates the ordinary French, German and Spanish messages of ``data/adversarial/unseen7.jsonl``
and ``unseen8.jsonl`` into English with three drafts each (the room's default translator and prompt,
:class:`~aya_lab.agents.user.UserAgent` with ``drafts=3``) and writes ``data/adversarial/drafts3_dev.jsonl``
(about 4 minutes alone on 2 cores). Without it, the script reads that file, judges the first draft and the
medoid of the three by the committed labels (``unseen7_labels.jsonl``, ``unseen8_labels.jsonl`` and
``drafts3_dev_labels.jsonl``), runs the shipped guard on each, and prints the table docs/ROOM.md quotes:
shares of the deliveries (each English draft counted once per reader who gets it in run 7's room) that are
faithful and delivered, partial and unmarked, faithful and flagged, for one draft, the medoid, and the first
draft flagged under each agreement threshold. (The translator's record holds the threshold the shipped room uses:
``aya-lab eval run faithfulness --write-calibration`` chooses it by the same rule, each draft counted once;
data/calibration/README.md.)

``--prompt nearest`` does the same for the room of ``aya_lab/graphs/aya_nearest.yaml`` (``user_translate/nearest``:
draft 0 shown the five pool examples most like the message, drafts 1 and 2 the next five and the five after),
with ``data/adversarial/drafts3_nearest_dev.jsonl`` and its labels ``drafts3_nearest_dev_labels.jsonl`` (first
drafts only, so no medoid row).

``--select similarity`` judges the draft the room delivers with ``select: similarity`` instead of draft 0: the
one most like its source under the guard's encoder (:func:`~aya_lab.agents.consensus.consensus`), flagged by
its own agreement with the other two; the chosen drafts no earlier label covered are labelled in
``drafts3_similar_dev_labels.jsonl``.

``--write --model SPEC --messages FILE... --out FILE`` writes another translator's drafts file instead (no table):
what its own agreement threshold is measured on, with a person's labels of its first drafts (docs/MODELS.md).

    python benchmarks/drafts_agreement.py [--write] [--prompt completion|nearest] [--select first|similarity]
    python benchmarks/drafts_agreement.py --write --model SPEC --messages FILE... --out FILE [--languages deu,fra]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

import pandas as pd
from sacrebleu.metrics import CHRF

from aya_lab.agents.consensus import SELECTIONS, Selection, consensus
from aya_lab.agents.faithfulness import translator_floor
from aya_lab.agents.guard import ALL_CHECKS, TranslationGuard
from aya_lab.errors import AyaLabError
from aya_lab.eval.attacks import load_attacks
from aya_lab.eval.labelled_drafts import AGREEMENT_THRESHOLDS
from aya_lab.paths import project_root

ADVERSARIAL = project_root() / "data" / "adversarial"
DRAFTS = {"completion": ADVERSARIAL / "drafts3_dev.jsonl", "nearest": ADVERSARIAL / "drafts3_nearest_dev.jsonl"}
LABELS = {
    "completion": ("unseen7_labels.jsonl", "unseen8_labels.jsonl", "drafts3_dev_labels.jsonl"),
    "nearest": (
        "unseen7_labels.jsonl",
        "unseen8_labels.jsonl",
        "drafts3_dev_labels.jsonl",
        "drafts3_nearest_dev_labels.jsonl",
    ),
}
READERS = {"deu": 3, "fra": 3, "spa": 4}  # run 7's readers who get a message in English: all but its own
THRESHOLDS = AGREEMENT_THRESHOLDS  # the candidates the calibration command tries (aya_lab.eval.labelled_drafts)
SIMILAR_LABELS = "drafts3_similar_dev_labels.jsonl"  # the drafts chosen by similarity that no run had labelled


def write_drafts(
    prompt: str = "completion",
    model: str = "gemma3-270m",
    messages: Sequence[Path] | None = None,
    out: Path | None = None,
    languages: Sequence[str] = tuple(READERS),
) -> Path:
    """The translator ``model``'s English drafts (three where its prompt has examples, as in the room) of every
    ordinary message in ``languages`` of ``messages`` (default sets 7 and 8), under the room's translation
    prompt (``completion``) or ``user_translate/nearest``, written to ``out`` (default the committed drafts
    file of ``prompt``): the drafts file a translator's agreement threshold is measured on
    (``aya-lab eval run faithfulness --write-calibration ... --agreement-drafts FILE``)."""
    from aya_lab.agents.user import UserAgent
    from aya_lab.models.loader import load_chat_model

    name = "user_translate/nearest" if prompt == "nearest" else "user_translate/baseline"
    agent = UserAgent(load_chat_model(model), name, drafts=3)
    files = messages or [ADVERSARIAL / f"unseen{n}.jsonl" for n in (7, 8)]
    records = [r for path in files for r in load_attacks(path, ["ordinary"])]  # a bad file: one line naming it
    rows = []
    for src in languages:
        todo = [r for r in records if r.lang == src]
        drafted = agent.draft_texts([r.text for r in todo], src, "eng") if todo else []
        rows += [{"id": r.id, "src": src, "text": r.text, "drafts": list(d.drafts)} for r, d in zip(todo, drafted)]
    path = out or DRAFTS[prompt]
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


def medoid(drafts: list[str]) -> str:
    """The draft with the highest mean sentence chrF against the others (ties: the earlier)."""
    chrf = CHRF()
    means = [
        sum(chrf.sentence_score(d, [o]).score for j, o in enumerate(drafts) if j != i) for i, d in enumerate(drafts)
    ]
    return drafts[max(range(len(drafts)), key=lambda i: (means[i], -i))]


def _labels(prompt: str, select: Selection = "first") -> dict[tuple[str, str], str]:
    out = {}
    for name in LABELS[prompt] + ((SIMILAR_LABELS,) if select == "similarity" else ()):
        for line in (ADVERSARIAL / name).open(encoding="utf-8"):
            r = json.loads(line)
            if r["reader_lang"] == "eng":
                out[(r["id"], r["draft"])] = r["label"]
    return out


def table(prompt: str = "completion", select: Selection = "first") -> pd.DataFrame:
    """The shares docs/ROOM.md quotes, one row per rule (drafts whose delivered draft or medoid is unlabelled
    are left out; the medoid is judged only for ``completion`` with draft 0 delivered). ``select``: which draft
    the room delivers."""
    labels = _labels(prompt, select)
    rows = pd.read_json(DRAFTS[prompt], lines=True)
    chosen = [consensus(d, t, select) for d, t in zip(rows["drafts"], rows["text"], strict=True)]
    rows["delivered"] = [c.text for c in chosen]
    rows["agreement"] = [c.agreement for c in chosen]
    judged = ["delivered"] + (["medoid"] if prompt == "completion" and select == "first" else [])
    if "medoid" in judged:
        rows["medoid"] = rows["drafts"].map(medoid)
    for draft in judged:
        rows[f"l_{draft}"] = [labels.get((i, d)) for i, d in zip(rows["id"], rows[draft], strict=True)]
    rows = rows.dropna(subset=[f"l_{draft}" for draft in judged])
    weight = rows["src"].map(READERS)
    floor = translator_floor("gemma3-270m")

    def shares(draft: str, label: str, threshold: float) -> dict[str, float]:
        guard = TranslationGuard(ALL_CHECKS, floor, threshold)
        verdicts = [
            guard.check(t, d, s, "eng", a if threshold else None)
            for t, d, s, a in zip(rows["text"], rows[draft], rows["src"], rows["agreement"], strict=True)
        ]
        passed = pd.Series([v.ok and not v.flagged for v in verdicts], index=rows.index)
        flagged = pd.Series([v.flagged for v in verdicts], index=rows.index)
        delivered = passed | flagged
        faithful, partial = rows[label] == "faithful", rows[label] == "partial"
        total = weight.sum()
        return {
            "faithful delivered": float((weight * (faithful & delivered)).sum() / total),
            "partial unmarked": float((weight * (partial & passed)).sum() / total),
            "faithful flagged": float((weight * (faithful & flagged)).sum() / total),
        }

    name = "first draft" if select == "first" else "most similar draft"
    unflagged = "one draft" if select == "first" else f"{name}, never flagged by agreement"
    out = {unflagged: shares("delivered", "l_delivered", 0.0)}
    out |= {"medoid": shares("medoid", "l_medoid", 0.0)} if "medoid" in judged else {}
    out |= {f"{name}, agreement {t}": shares("delivered", "l_delivered", t) for t in THRESHOLDS}
    frame = pd.DataFrame(out).T
    frame.attrs.update(drafts=len(rows), deliveries=int(weight.sum()))
    return frame


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help="write the drafts first (runs the model)")
    parser.add_argument("--prompt", choices=sorted(DRAFTS), default="completion", help="the translator's prompt")
    parser.add_argument("--select", choices=SELECTIONS, default="first", help="which draft the room delivers")
    parser.add_argument("--model", default="gemma3-270m", help="with --write: the translator (a model spec)")
    parser.add_argument("--messages", nargs="+", type=Path, help="with --write: message sets (default: sets 7, 8)")
    parser.add_argument(
        "--languages", default=",".join(READERS), help="with --write: source languages, comma-separated"
    )
    parser.add_argument("--out", type=Path, help="with --write: the drafts file to write, and no table")
    args = parser.parse_args(argv)
    if args.write:
        languages = [lang.strip() for lang in args.languages.split(",") if lang.strip()]
        try:
            written = write_drafts(args.prompt, args.model, args.messages, args.out, languages)
        except AyaLabError as exc:  # a bad messages file or model spec: one line, nothing written
            print(f"error: {exc}", file=sys.stderr)
            sys.exit(2)
        if args.out is not None:
            print(f"wrote {sum(1 for _ in written.open(encoding='utf-8'))} messages' drafts to {written}")
            return
    frame = table(args.prompt, args.select)
    print(f"{frame.attrs['drafts']} drafts, {frame.attrs['deliveries']} deliveries")
    print(frame.round(3).to_string())


if __name__ == "__main__":
    main()
