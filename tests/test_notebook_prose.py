"""The number reader behind the notebooks' prose check (aya_lab.notebook_prose)."""

from decimal import Decimal

from aya_lab.notebook_prose import is_found, output_numbers, output_text, prose_numbers, prose_violations


def texts(markdown, allow=()):
    return [n.text for n in prose_numbers(markdown, allow)]


def test_decimals_percentages_integers_and_ranges_are_read():
    found = texts("hit@1 is 0.721 (13 of 60), 86% of 8,952; ranges 0.86–1.00 and 5-6; ±0.0; 3-shot")
    assert found == "0.721 13 60 86% 8,952 0.86 1.00 5 6 0.0 3".split()
    pct = prose_numbers("about 13.5 % of them")[0]
    assert (pct.value, pct.decimals, pct.percent) == (Decimal("13.5"), 1, True)


def test_dates_and_versions_are_one_token_each():
    numbers = prose_numbers("recorded 2026-12-01 with sacrebleu 2.6.0")
    assert [(n.text, n.kind) for n in numbers] == [("2026-12-01", "date"), ("2.6.0", "version")]


def test_names_code_and_links_are_not_numbers():
    md = (
        "SmolLM2-135M-Instruct, Gemma's 270M, fp32, NTREX-128, NLLB-200, v1, hit@1, H200's\n"
        "`n=60`, [the set](https://example.org/2023/x.html)\n```bash\nhead -n 40 file\n```\nend 7"
    )
    assert texts(md) == ["7"]


def test_allow_patterns_blank_their_text():
    assert texts("Gemma 3 scores 12.5", allow=[r"Gemma 3\b"]) == ["12.5"]


def test_a_rounded_figure_is_found_an_invented_one_is_not():
    numbers, literal = output_numbers("chrF 35.14 ±2.3, share 0.857, 20% echoes, 1,234 outputs, 2026-12-02")
    found = {t: is_found(prose_numbers(t)[0], numbers, literal) for t in ("35.1", "35", "86%", "0.2", "1,234")}
    assert found == {"35.1": True, "35": True, "86%": True, "0.2": True, "1,234": True}
    for invented in ("35.2", "35.140", "87%", "2.4", "2026-12-01"):
        assert not is_found(prose_numbers(invented)[0], numbers, literal), invented


def test_html_tables_count_as_text_and_their_styles_do_not():
    cell = {
        "outputs": [
            {
                "output_type": "execute_result",
                "data": {"text/html": ["<style>td {width: 71.5px}</style>", "<td>0.721</td><td>a &amp; b</td>"]},
            },
            {"output_type": "stream", "name": "stdout", "text": ["13 of 60\n"]},
            {"output_type": "display_data", "data": {"image/png": "99.9"}},
        ]
    }
    text = output_text(cell)
    assert "0.721" in text and "a & b" in text and "13 of 60" in text
    assert "71.5" not in text and "99.9" not in text


def notebook(markdown, output, code="x = 1"):
    return {
        "cells": [
            {"cell_type": "markdown", "source": markdown},
            {"cell_type": "code", "source": code, "outputs": [{"output_type": "stream", "text": output}]},
        ]
    }


def test_violations_name_the_notebook_cell_and_number():
    found = prose_violations(notebook("## Scores\nchrF is 35.1, BLEU 13.6", "chrF 35.1"), "nb.ipynb")
    assert [v.number.text for v in found] == ["13.6"]
    assert str(found[0]).startswith("nb.ipynb, cell 0 (## Scores): '13.6'")


def test_a_setting_is_checked_against_the_code_not_the_outputs():
    nb = notebook("at most 64 new tokens", "done", code='load(settings={"max_new_tokens": 64})')
    assert prose_violations(nb, "nb", settings=[r"\d+ new tokens"]) == []
    drifted = notebook("at most 48 new tokens", "done 48", code='load(settings={"max_new_tokens": 64})')
    assert [v.number.text for v in prose_violations(drifted, "nb", settings=[r"\d+ new tokens"])] == ["48"]
