"""The Swahili -> English chat pairs written for training (``data/synth/translate_chat*.{swh,eng}.txt``, README
there): line-aligned, no empty or repeated line, and the second batch shares no message, nor any run of six words,
with a message of the room's unseen-message sets, which measure the adapters trained on them."""

from __future__ import annotations

import json
import re

import pytest

from aya_lab.paths import project_root

SYNTH = project_root() / "data" / "synth"
ADVERSARIAL = project_root() / "data" / "adversarial"
RUN = 6


def _lines(name: str) -> list[str]:
    return (SYNTH / name).read_text(encoding="utf-8").splitlines()


def _runs(text: str, n: int = RUN) -> set[tuple[str, ...]]:
    words = re.findall(r"\w+", text.lower())
    return {tuple(words[i : i + n]) for i in range(len(words) - n + 1)}


def _test_messages() -> list[str]:
    paths = sorted(p for p in ADVERSARIAL.glob("unseen*.jsonl") if "_labels" not in p.name)
    return [json.loads(line)["text"] for p in paths for line in p.read_text(encoding="utf-8").splitlines()]


@pytest.mark.parametrize("stem", ["translate_chat", "translate_chat2"])
def test_pairs_are_line_aligned_with_no_empty_or_repeated_line(stem):
    swh, eng = _lines(f"{stem}.swh.txt"), _lines(f"{stem}.eng.txt")
    assert len(swh) == len(eng) > 0
    assert all(line.strip() for line in swh + eng)
    assert len(set(swh)) == len(swh)


def test_the_second_batch_repeats_neither_the_first_nor_a_test_message():
    first, second = set(_lines("translate_chat.swh.txt")), _lines("translate_chat2.swh.txt")
    assert len(second) == 1586
    assert not first & set(second)
    tests = _test_messages()
    assert len(tests) >= 1000  # every set was read
    test_runs = set().union(*map(_runs, tests))
    exact = {t.strip().lower() for t in tests}
    near = [line for line in second if line.strip().lower() in exact or _runs(line) & test_runs]
    assert not near, near[:3]


def test_the_check_sees_a_shared_run_of_six_words():
    assert _runs("Kuna mtu anajua nenosiri la Wi-Fi ya wageni?") & _runs("Kuna mtu anajua nenosiri la Wi-Fi jamani")
    assert not _runs("saa mbili asubuhi") & _runs("saa mbili asubuhi")  # under six words: no run
