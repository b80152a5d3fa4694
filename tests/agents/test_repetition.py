"""Degenerate repetition (aya_lab.agents.repetition) and the guard's ``repetition`` check."""

import pytest

from aya_lab.agents.guard import TranslationGuard
from aya_lab.agents.repetition import repetition_loop


@pytest.mark.parametrize(
    "text",
    [
        "@aya 750 EUR, la 750 EUR, la 750 EUR, la 750 EUR, la 750 EUR, la 750 EUR, la",
        "Die 100000000000000000000000000000000000",
        "Ikuwaa ta ta ta ta ta ta ta ta ta ta ta",
        "Ikuweza kuchelewa kwa kuchelewa kwa kuchelewa kwa kuchelewa kwa kuchelewa kwa",
    ],
)
def test_a_loop_is_found(text):
    assert repetition_loop(text) is not None


@pytest.mark.parametrize(
    "text",
    [
        "The budget meeting has moved to Friday at 10 am, room 4B.",
        "Bitte, bitte, bitte komm morgen pünktlich zur Besprechung.",
        "Ha ha ha, that was funny; see you all at the party tonight then.",
        "Tarehe 1, 2, 3 na 4 Desemba ofisi itafungwa.",
    ],
)
def test_honest_text_is_not_a_loop(text):
    assert repetition_loop(text) is None


def test_the_guard_withholds_a_looping_translation_unless_the_source_loops():
    guard = TranslationGuard(("repetition",))
    source = "Can you confirm the number of participants for Friday's lunch?"
    looping = "Ikuweza kuchelewa kwa kuchelewa kwa kuchelewa kwa kuchelewa kwa kuchelewa kwa"
    verdict = guard.check(source, looping, "eng", "swh")
    assert not verdict.ok and verdict.reasons[0].startswith("repetition: the output loops: 'kuchelewa kwa' repeats")
    assert guard.check("no no no no no", "hapana hapana hapana hapana hapana", "eng", "swh").ok
