"""The chat pairs written for training (``data/synth/translate_chat*.txt``, README there): line-aligned, no empty
or repeated line, and the later batches share no message, nor any run of six words, with a message of the room's
unseen-message sets, which measure the adapters trained on them (the French, German and Spanish batch not with
their English glosses or the nearest-examples pool either)."""

from __future__ import annotations

import json
import re

import pytest
import yaml

from aya_lab.paths import project_root

SYNTH = project_root() / "data" / "synth"
ADVERSARIAL = project_root() / "data" / "adversarial"
RUN = 6


def _lines(name: str) -> list[str]:
    return (SYNTH / name).read_text(encoding="utf-8").splitlines()


def _runs(text: str, n: int = RUN) -> set[tuple[str, ...]]:
    words = re.findall(r"\w+", text.lower())
    return {tuple(words[i : i + n]) for i in range(len(words) - n + 1)}


def _test_records() -> list[dict]:
    paths = sorted(p for p in ADVERSARIAL.glob("unseen*.jsonl") if "_labels" not in p.name)
    return [json.loads(line) for p in paths for line in p.read_text(encoding="utf-8").splitlines()]


def _near(lines: list[str], texts: list[str]) -> list[str]:
    """The ``lines`` equal to one of ``texts`` (case and spaces aside) or sharing a run of :data:`RUN` words with one."""
    test_runs, exact = set().union(*map(_runs, texts)), {t.strip().lower() for t in texts}
    return [line for line in lines if line.strip().lower() in exact or _runs(line) & test_runs]


PAIRS = [
    ("translate_chat.swh.txt", "translate_chat.eng.txt"),
    ("translate_chat2.swh.txt", "translate_chat2.eng.txt"),
] + [(f"translate_chat3.{lang}.txt", f"translate_chat3.{lang}.eng.txt") for lang in ("fra", "deu", "spa")]


@pytest.mark.parametrize("source, english", PAIRS)
def test_pairs_are_line_aligned_with_no_empty_or_repeated_line(source, english):
    src, eng = _lines(source), _lines(english)
    assert len(src) == len(eng) > 0
    assert all(line.strip() for line in src + eng)
    assert len(set(src)) == len(src)


def test_the_second_batch_repeats_neither_the_first_nor_a_test_message():
    first, second = set(_lines("translate_chat.swh.txt")), _lines("translate_chat2.swh.txt")
    assert len(second) == 1586
    assert not first & set(second)
    tests = [r["text"] for r in _test_records()]
    assert len(tests) >= 1000  # every set was read
    near = _near(second, tests)
    assert not near, near[:3]


def test_the_third_batch_repeats_no_test_message_gloss_or_pool_record():
    records = _test_records()
    pool = yaml.safe_load((project_root() / "data" / "fewshot" / "chat_translations.yaml").read_text(encoding="utf-8"))
    texts = [r["text"] for r in records] + [r.get("note", "").removeprefix("gloss: ") for r in records]
    texts += [text for example in pool["examples"] for text in example.values()]
    counts = {}
    for source, english in PAIRS[2:]:
        counts[source] = len(_lines(source))
        near = _near(_lines(source) + _lines(english), texts)
        assert not near, near[:3]
    assert counts == {"translate_chat3.fra.txt": 605, "translate_chat3.deu.txt": 618, "translate_chat3.spa.txt": 618}


def test_the_check_sees_a_shared_run_of_six_words():
    assert _runs("Kuna mtu anajua nenosiri la Wi-Fi ya wageni?") & _runs("Kuna mtu anajua nenosiri la Wi-Fi jamani")
    assert not _runs("saa mbili asubuhi") & _runs("saa mbili asubuhi")  # under six words: no run
