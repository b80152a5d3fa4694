"""Failure categories of translation outputs: each output lands in the first category that applies."""

import pandas as pd
import pytest

from aya_lab.eval.translation.scoring import FAILURE_CATEGORIES, failure_category, failure_counts, loops

SRC = "The meeting has been moved to Friday afternoon because the client cannot come on Thursday."
FRA = "La réunion a été déplacée au vendredi après-midi car le client ne peut pas venir jeudi."


def test_each_category_is_reached():
    assert failure_category("eng", "fra", SRC, "") == "empty"
    assert failure_category("eng", "fra", SRC, SRC) == "echo"
    assert failure_category("eng", "fra", SRC, "Sure, here is the translation: " + FRA) == "answers the message"
    assert (
        failure_category(
            "eng", "fra", SRC, "Die Besprechung wurde auf Freitagnachmittag verschoben, weil der Kunde nicht kann."
        )
        == "wrong language"
    )
    assert failure_category("eng", "fra", SRC, "la réunion a la réunion a la réunion a la réunion a été") == "loop"
    assert failure_category("eng", "fra", SRC, "La réunion.") == "length"
    assert failure_category("eng", "fra", SRC, FRA.replace("jeudi", "jeudi à 15 h")) == "wrong number"
    assert failure_category("eng", "fra", SRC, FRA, generated=64, limit=64) == "cut off"
    assert failure_category("eng", "fra", SRC, FRA, generated=30, limit=64) == "passes the checks"
    assert failure_category("eng", "fra", SRC, FRA, generated=64) == "passes the checks"  # no limit: not cut off


def test_loops_needs_three_repeats_of_a_trigram():
    assert loops("a b c a b c a b c")
    assert not loops("a b c a b c")
    assert not loops("")


def test_counts_have_every_category_and_keep_system_order():
    outs = pd.DataFrame({"system": ["m", "m", "copy"], "category": ["echo", "loop", "echo"]})
    table = failure_counts(outs, ["copy", "m"])
    assert list(table.index) == ["copy", "m"] and list(table.columns) == FAILURE_CATEGORIES
    assert table.loc["m", "loop"] == 1 and table.loc["copy", "echo"] == 1 and table.loc["copy", "loop"] == 0
    with pytest.raises(ValueError, match="no 'category' column"):
        failure_counts(outs.drop(columns="category"))
