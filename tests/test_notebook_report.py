"""Notebook prose generated from variables fails loudly when a value is missing or unused."""

import pytest

from aya_lab.notebook_report import render_report, report


def test_values_fill_the_text_with_their_formats():
    text = render_report("hit@1 is {hit:.0%} (n={n}); Δ {d:+.1f}", hit=0.915, n=48, d=-2.04)
    assert text == "hit@1 is 92% (n=48); Δ -2.0"
    assert report("{x}", x=1).data == "1"


def test_a_missing_value_is_named():
    with pytest.raises(KeyError, match="no value for share"):
        render_report("{share:.0%} of {n}", n=3)


def test_an_unused_value_is_named():
    with pytest.raises(ValueError, match="extra passed but not in the text"):
        render_report("{n}", n=3, extra=1)


def test_attribute_and_index_fields_count_as_their_root():
    assert render_report("{r.n} and {xs[0]}", r=type("R", (), {"n": 5}), xs=[7]) == "5 and 7"
