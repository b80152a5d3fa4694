"""Partial-results files killed mid-write (issue 11): the broken tail is dropped (the file truncated to
its last good line), the missing chunks run again, and every line of the file parses afterwards.

The translation evaluator's ``checkpoint`` (``<out>.partial.jsonl`` from ``aya-lab eval run translation --out``)
is the only writer of partial results; the routing and summarization evaluators keep none."""

from __future__ import annotations

import json

import pytest

from aya_lab.eval.translation.evaluate import evaluate_translation
from tests.eval.conftest import ENG, SWA
from tests.fakes import CountingSystem


@pytest.fixture
def run(tmp_path):
    """Evaluate 12 segments in 3 chunks of 4 with a checkpoint; return how many texts were translated."""
    (tmp_path / "en.txt").write_text("\n".join(ENG) + "\n", encoding="utf-8")
    (tmp_path / "sw.txt").write_text("\n".join(SWA) + "\n", encoding="utf-8")
    dataset = f"files:eng-swh:{tmp_path / 'en.txt'},{tmp_path / 'sw.txt'}"
    ckpt = tmp_path / "run.partial.jsonl"

    def go() -> int:
        system = CountingSystem()
        kwargs = {"n_bootstrap": 20, "n_ar": 10, "langid": False, "chunk_size": 4, "checkpoint": ckpt}
        evaluate_translation([system], dataset, **kwargs)
        return system.seen

    assert go() == 12
    return ckpt, go


def rows(ckpt) -> list[dict]:
    text = ckpt.read_text(encoding="utf-8")
    assert text.endswith("\n")
    return [json.loads(line) for line in text.splitlines()]  # every line parses


def test_a_record_killed_before_its_newline_is_kept_and_the_next_starts_on_its_own_line(run):
    ckpt, go = run
    lines = ckpt.read_text(encoding="utf-8").splitlines()
    ckpt.write_text(lines[0] + "\n" + lines[1], encoding="utf-8")  # killed between the record and "\n"
    assert go() == 4  # chunks 1 and 2 came from the file
    assert len(rows(ckpt)) == 3


def test_a_binary_tail_is_dropped_and_its_chunk_runs_again(run):
    ckpt, go = run
    lines = ckpt.read_text(encoding="utf-8").splitlines()
    ckpt.write_bytes((lines[0] + "\n").encode() + b'{"key": "\xff\xfe\x00')
    assert go() == 8
    assert len(rows(ckpt)) == 3


def test_a_file_holding_only_a_broken_line_is_truncated_and_run_again(run):
    ckpt, go = run
    ckpt.write_text('{"key": "abc", "outp', encoding="utf-8")
    assert go() == 12
    assert len(rows(ckpt)) == 3
