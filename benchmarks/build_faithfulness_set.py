"""Build ``data/faithfulness/pairs.jsonl``, the faithfulness gate's labelled calibration set (issue 25).

    AYA_LAB_DATA_DIR=../shared/data .venv/bin/python benchmarks/build_faithfulness_set.py

Deterministic (no randomness): for every source sentence and translation direction it writes one
``faithful`` pair (the sentence and its human translation) and one unfaithful pair whose kind rotates
over those that apply to the target: ``unrelated`` (another sentence's translation, same split),
``example_echo`` (a sentence of the few-shot pool, data/fewshot/translations.yaml, in the target
language, English where the pool lacks it), ``example_paraphrase`` (data/faithfulness/paraphrases.yaml),
``partial`` (the first half of the translation's words, for translations of 6+ words) and
``wrong_fact`` (the translation with its first number or weekday changed). Sources:

- ``data/faithfulness/messages.yaml``: 36 room messages in eng, swh, deu, fra; all 12 directions;
  even-numbered messages calibrate, odd ones are held out;
- ``data/workplace``: 63 chat lines, eng<->fra and eng<->deu; conversations d01, d03, ... calibrate;
- MAFAND-MT **dev** (never test): the first 60 usable lines (4+ words, no ``---`` headline marker) of
  eng<->swh, eng<->yor, eng<->hau, stored as references (``mafand/dev/SRC-TGT`` + line), never as text;
  even lines calibrate. Needs ``AYA_LAB_DATA_DIR`` to build (and to load those rows).

Real-model outputs (kind ``model_output``), when present in ``data/faithfulness/model_outputs.jsonl``, are
appended as they are.
"""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from aya_lab.datasets.parallel import load_parallel
from aya_lab.datasets.project import load_workplace, load_workplace_doc_ids
from aya_lab.eval.faithfulness import first_half, wrong_fact
from aya_lab.prompts import load_pool

ROOT = Path(__file__).resolve().parents[1]
FOLDER = ROOT / "data" / "faithfulness"
ROOM = ("eng", "swh", "deu", "fra")
MAFAND = ("swh", "yor", "hau")
N_MAFAND = 60

POOL = load_pool("translations")
PARAPHRASES = yaml.safe_load((FOLDER / "paraphrases.yaml").read_text(encoding="utf-8"))["paraphrases"]


def negative_kinds(output: str, tgt: str) -> list[str]:
    kinds = ["unrelated", "example_echo"]
    if tgt in PARAPHRASES:
        kinds.append("example_paraphrase")
    if len(output.split()) >= 6:
        kinds.append("partial")
    if wrong_fact(output, tgt) not in (None, output):
        kinds.append("wrong_fact")
    return kinds


def negative_output(kind: str, i: int, output: str, tgt: str, other: str | dict) -> str | dict:
    """The unfaithful output of ``kind`` for sentence ``i`` (``other``: an unrelated translation)."""
    if kind == "unrelated":
        return other
    if kind == "example_echo":
        record = POOL[i % len(POOL)]
        return record.get(tgt, record["eng"])
    if kind == "example_paraphrase":
        options = PARAPHRASES[tgt]
        return options[i % len(options)]
    if isinstance(output, dict):  # a reference: the loader applies the transform
        return {**output, "transform": "first_half" if kind == "partial" else kind}
    return first_half(output) if kind == "partial" else wrong_fact(output, tgt)


def rows_for(origin, split, i, k, src, tgt, source, output, output_text, other) -> list[dict]:
    """A faithful row and one unfaithful row (kind rotating with ``i + k``)."""
    kinds = negative_kinds(output_text, tgt)
    kind = kinds[(i + k) % len(kinds)]
    base = {"split": split, "src": src, "tgt": tgt, "source": source, "origin": f"{origin}:{i}"}
    return [
        {"id": f"{origin}-{i}-{src}-{tgt}-faithful", **base, "kind": "faithful", "label": "faithful", "output": output},
        {
            "id": f"{origin}-{i}-{src}-{tgt}-{kind}",
            **base,
            "kind": kind,
            "label": "unfaithful",
            "output": negative_output(kind, i, output, tgt, other),
        },
    ]


def message_rows() -> list[dict]:
    messages = yaml.safe_load((FOLDER / "messages.yaml").read_text(encoding="utf-8"))["messages"]
    directions = [(a, b) for a in ROOM for b in ROOM if a != b]
    rows = []
    for i, msg in enumerate(messages):
        split = "calibration" if i % 2 == 0 else "holdout"
        for k, (a, b) in enumerate(directions):
            other = messages[(i + 8) % len(messages)][b]  # same parity: the same split
            rows += rows_for("messages", split, i, k, a, b, msg[a], msg[b], msg[b], other)
    return rows


def workplace_rows() -> list[dict]:
    docs = load_workplace_doc_ids()
    text = {lang: load_workplace(lang) for lang in ("eng", "fra", "deu")}
    rows = []
    for k, (a, b) in enumerate([("eng", "fra"), ("fra", "eng"), ("eng", "deu"), ("deu", "eng")]):
        for i, doc in enumerate(docs):
            split = "calibration" if int(doc.lstrip("d")) % 2 == 1 else "holdout"
            same = [j for j, d in enumerate(docs) if (int(d.lstrip("d")) % 2 == 1) == (split == "calibration")]
            other = text[b][same[(same.index(i) + 7) % len(same)]]
            rows += rows_for("workplace", split, i, k, a, b, text[a][i], text[b][i], text[b][i], other)
    return rows


def mafand_rows() -> list[dict]:
    rows = []
    for lang in MAFAND:
        ds = load_parallel("mafand", "eng", lang, split="dev")
        usable = [
            j
            for j in range(len(ds))
            if len(ds.sources[j].split()) >= 4 and not ds.sources[j].startswith("---") and "---" not in ds.references[j]
        ][:N_MAFAND]
        sides = {"eng": ds.sources, lang: ds.references}
        for k, (a, b) in enumerate([("eng", lang), (lang, "eng")]):
            for n, j in enumerate(usable):
                split = "calibration" if n % 2 == 0 else "holdout"
                ref = lambda side, line, a=a, b=b: {"ref": f"mafand/dev/{side}-{b if side == a else a}", "line": line}  # noqa: E731
                other = ref(b, usable[(n + 2) % len(usable)])
                rows += rows_for(f"mafand_{lang}", split, j, k, a, b, ref(a, j), ref(b, j), sides[b][j], other)
    return rows


def main() -> None:
    rows = message_rows() + workplace_rows() + mafand_rows()
    extra = FOLDER / "model_outputs.jsonl"
    if extra.exists():
        rows += [json.loads(line) for line in extra.read_text(encoding="utf-8").splitlines() if line.strip()]
    out = FOLDER / "pairs.jsonl"
    out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    kinds: dict[str, int] = {}
    for r in rows:
        kinds[r["kind"]] = kinds.get(r["kind"], 0) + 1
    print(f"wrote {out.relative_to(ROOT)}: {len(rows)} pairs; {kinds}")


if __name__ == "__main__":
    main()
