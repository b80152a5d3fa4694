"""The quoting scope rule's margins are data: the rule that derives them, the committed record, its command."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from aya_lab.rag.margins import (
    GLOSSED_SETS,
    GRID,
    KEEP_IN_SCOPE,
    WRITTEN_SETS,
    MarginsError,
    QuestionMargin,
    derive_margins,
    margins_path,
    scope_margins,
)

ROOT = Path(__file__).resolve().parents[2]
GLOSSED_ONLY = GLOSSED_SETS[1]  # a set the written margin is not chosen on


def question(set_: str, in_scope: bool, margin: float, glossed: float | None = None) -> QuestionMargin:
    return QuestionMargin(set=set_, id="q", lang="swh", in_scope=in_scope, margin=margin, glossed=glossed)


def test_the_written_margin_is_the_strictest_that_keeps_the_share_in_scope():
    inside = [question(WRITTEN_SETS[0], True, m) for m in (0.040, 0.050, 0.060, 0.070, 0.080, 0.090, 0.100, 0.110,
                                                             0.120, 0.130)]  # fmt: skip
    # 9 of 10 (0.9) kept at 0.041 … 0.050; at 0.051 only 8
    assert derive_margins(inside, 0.9, GRID)[0] == 0.050
    assert derive_margins(inside, 1.0, GRID)[0] == 0.040
    assert derive_margins(inside + [question(GLOSSED_ONLY, True, 0.001)], 0.9, GRID)[0] == 0.050  # not its set


def test_no_candidate_keeping_the_share_gives_the_lowest():
    assert derive_margins([question(WRITTEN_SETS[0], True, 0.001)], 0.9, GRID)[0] == GRID[0]


def test_the_glossed_margin_is_the_lowest_that_refuses_as_many_out_of_scope_questions():
    inside = [question(WRITTEN_SETS[0], True, 0.08)] * 10
    outside = [
        question(GLOSSED_ONLY, False, 0.02, glossed=0.075),  # refused written; glossed, refused only above 0.075
        question(GLOSSED_ONLY, False, 0.03, glossed=0.060),
        question(GLOSSED_ONLY, False, 0.04),  # no glossary terms: written margin either way
    ]
    min_margin, glossed = derive_margins(inside + outside, 0.9, GRID)
    assert min_margin == 0.080  # 0.08 kept through 0.080, not at 0.081
    assert glossed == 0.076  # all three refused written; glossed needs both glossed margins below it
    # one refused written (0.02): the lower glossed margin (0.060) is enough to refuse one
    one = [question(GLOSSED_ONLY, False, 0.02, glossed=0.075), question(GLOSSED_ONLY, False, 0.09, glossed=0.060)]
    assert derive_margins([*inside, *one], 0.9, GRID)[1] == 0.061


def test_the_committed_record_states_its_rule_and_data():
    record = scope_margins()
    assert record.keep_in_scope == KEEP_IN_SCOPE and record.grid == list(GRID)
    assert (record.min_margin, record.glossed_margin) == derive_margins(record.questions, KEEP_IN_SCOPE, GRID)
    read = {Path(p).name for p in record.data}
    assert set(WRITTEN_SETS) | set(GLOSSED_SETS) <= read and "travel_policy.md" in read
    written = [q for q in record.questions if q.set in WRITTEN_SETS and q.in_scope]
    assert len(written) == 64  # 48 English, 16 in four other languages


def edited(tmp_path: Path, **changes: object) -> Path:
    raw = json.loads(margins_path().read_text(encoding="utf-8"))
    (tmp_path / margins_path().name).write_text(json.dumps({**raw, **changes}), encoding="utf-8")
    return tmp_path


def test_a_hand_edited_margin_is_one_line_naming_the_field_and_the_command(tmp_path):
    with pytest.raises(MarginsError) as err:
        scope_margins(edited(tmp_path, glossed_margin=0.05))
    message = str(err.value)
    assert (
        "\n" not in message and "glossed_margin" in message and "aya-lab eval run scope --write-calibration" in message
    )


@pytest.mark.parametrize(
    ("changes", "field"), [({"version": 2}, "version"), ({"extra": 1}, "extra"), ({"questions": []}, "questions")]
)
def test_a_malformed_record_is_one_line_naming_the_field(tmp_path, changes, field):
    with pytest.raises(MarginsError, match=rf": {field}\b"):
        scope_margins(edited(tmp_path, **changes))


def test_a_missing_or_broken_file_names_the_fix(tmp_path):
    with pytest.raises(MarginsError, match="file not found; restore it from git or run `aya-lab eval run scope"):
        scope_margins(tmp_path)
    margins_path(tmp_path).write_text("{", encoding="utf-8")
    with pytest.raises(
        MarginsError, match=r"scope-margins.json: line 1: not JSON \(.*\); rerun `aya-lab eval run scope"
    ):
        scope_margins(tmp_path)


def test_the_command_rederives_the_committed_record_from_the_recorded_searches(tmp_path):
    """Replayed through the notebooks' recorded vectors (exact on any CPU), the command writes the committed
    record again: every question's margins, the data's hashes and both margins; only the date may differ."""
    env = {
        **os.environ,
        "AYA_LAB_CACHE_MODE": "replay",
        "AYA_LAB_GENERATION_CACHE": str(ROOT / "notebooks" / "generations.sqlite"),
    }
    proc = subprocess.run(
        [sys.executable, "-m", "aya_lab.cli", "eval", "run", "scope", "--write-calibration", str(tmp_path)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert f"written to {margins_path(tmp_path)}" in proc.stdout
    again = json.loads(margins_path(tmp_path).read_text(encoding="utf-8"))
    committed = json.loads(margins_path().read_text(encoding="utf-8"))
    assert {k: v for k, v in again.items() if k != "date"} == {k: v for k, v in committed.items() if k != "date"}


def test_a_file_given_as_the_folder_is_refused_before_any_search(tmp_path):
    from aya_lab.errors import InputError
    from aya_lab.eval import run

    (tmp_path / "file").write_text("x", encoding="utf-8")
    with pytest.raises(InputError, match="is a file; pass a folder"):
        run("scope", write_calibration=str(tmp_path / "file"))
