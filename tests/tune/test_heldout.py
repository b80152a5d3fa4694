"""The held-out split of a translate run, rebuilt from its run card (aya_lab.tune.heldout)."""

from __future__ import annotations

import pytest

from aya_lab.tune import TrainingDataError, train_adapter
from aya_lab.tune.heldout import held_out_pairs, write_held_out
from tests.tune.conftest import QUICK


@pytest.fixture(scope="module")
def translate_run(tiny_base, tmp_path_factory):
    folder = tmp_path_factory.mktemp("mt")
    src, ref = folder / "src.txt", folder / "ref.txt"
    src.write_text("".join(f"The parcel number {i} arrived late.\n" for i in range(30)), encoding="utf-8")
    ref.write_text("".join(f"Kifurushi namba {i} kilifika kwa kuchelewa.\n" for i in range(30)), encoding="utf-8")
    out = folder / "adapter"
    result = train_adapter(
        task="translate", model=f"hf:{tiny_base}", data=f"files:{src},{ref}", pair="eng-swh", out=out,
        validation=0.2, **{**QUICK, "steps": 2},
    )  # fmt: skip
    return result, src, ref


def test_the_held_out_pairs_are_the_runs_validation_examples_and_aligned(translate_run, tmp_path):
    result, src, _ = translate_run
    pair, sources, references = held_out_pairs(result.path)
    assert pair == "eng-swh"
    assert len(sources) == len(references) == result.card["data"]["validation"] == 6
    assert len(set(sources)) == 6  # distinct lines of the file, in the file
    assert set(sources) <= set(src.read_text(encoding="utf-8").splitlines())
    for s, r in zip(sources, references, strict=True):
        assert s.split()[3] == r.split()[2]  # line i of one file still translates line i of the other
    spec = write_held_out(result.path, tmp_path / "heldout")
    assert spec.startswith("files:eng-swh:")
    written = spec.split(":", 2)[2].split(",")
    assert [line for line in open(written[0], encoding="utf-8").read().splitlines()] == sources


def test_changed_data_and_another_tasks_adapter_are_refused(translate_run, trained):
    result, src, _ = translate_run
    with pytest.raises(TrainingDataError, match="trained for task 'route'"):
        held_out_pairs(trained.path)
    original = src.read_text(encoding="utf-8")
    try:
        src.write_text(original.replace("parcel number 3 ", "parcel number three "), encoding="utf-8")
        with pytest.raises(TrainingDataError, match="changed since it was trained"):
            held_out_pairs(result.path)
    finally:
        src.write_text(original, encoding="utf-8")
