"""The held-out validation examples of a finished ``translate`` run, as files an evaluation can score.

A run holds out a seeded share of its examples for the validation loss (:func:`~aya_lab.tune.batches.split_indices`).
:func:`held_out_pairs` rebuilds that split from the run card alone (the data, the direction, the split's
settings and seed), after checking that the data still hashes to what was trained on, so a learning curve
can be scored in chrF on exactly the examples no step trained on. :func:`write_held_out` writes them as a
``files:SRC-TGT:SRC.txt,REF.txt`` set for :func:`~aya_lab.eval.evaluate_translation`.

Examples the run dropped as too long are kept here: they are held out all the same (the card counts them).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import cast

from aya_lab.datasets.parallel import load_parallel, parse_pair
from aya_lab.models.adapter import read_adapter
from aya_lab.tune.batches import split_indices
from aya_lab.tune.errors import TrainingDataError
from aya_lab.tune.examples import files_sha256

__all__ = ["held_out_pairs", "write_held_out"]


def held_out_pairs(adapter: str | os.PathLike[str]) -> tuple[str, list[str], list[str]]:
    """``(pair, sources, references)`` of the examples the ``translate`` run of ``adapter`` held out.

    Raises :class:`TrainingDataError` (one line) for another task's adapter or data that changed since.
    """
    card = read_adapter(adapter).card
    run = cast(dict[str, object], card.get("run", {}))  # the run's identity (TuneConfig.identity)
    if card.get("task") != "translate" or not run.get("pair"):
        raise TrainingDataError(
            f"adapter {adapter} was trained for task {card.get('task')!r}; held-out pairs exist only for translate"
        )
    src, tgt = parse_pair(str(run["pair"]))
    data = str(run["data"])
    parallel = load_parallel(data, src, tgt, split=None if data.startswith("files:") else "train")
    if files_sha256(parallel.files) != run.get("data_sha256"):
        raise TrainingDataError(
            f"the data of adapter {adapter} ({', '.join(parallel.files)}) changed since it was trained; restore the "
            "files it was trained on to rebuild its held-out split"
        )
    numbers = cast(dict[str, float], run)  # the split's settings among them are numbers
    _, val = split_indices(
        len(parallel.sources), validation=float(numbers["validation"]), max_validation=int(numbers["max_validation"]),
        max_train=int(numbers["max_train"]), seed=int(numbers["seed"]), source=data,
    )  # fmt: skip
    return f"{src}-{tgt}", [parallel.sources[i] for i in val], [parallel.references[i] for i in val]


def write_held_out(adapter: str | os.PathLike[str], folder: str | os.PathLike[str]) -> str:
    """Write ``adapter``'s held-out pairs to ``folder`` and return their ``files:`` dataset spec."""
    pair, sources, references = held_out_pairs(adapter)
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    src_file, ref_file = out / f"heldout.{pair}.src.txt", out / f"heldout.{pair}.ref.txt"
    src_file.write_text("".join(s.replace("\n", " ") + "\n" for s in sources), encoding="utf-8")
    ref_file.write_text("".join(r.replace("\n", " ") + "\n" for r in references), encoding="utf-8")
    return f"files:{pair}:{src_file},{ref_file}"
