"""``aya-lab eval run grounding``: the drafts set loads with its quotes checked, and the figures the docs
quote are what the command computes."""

import json

import pytest

from aya_lab.cli import main
from aya_lab.errors import InputError
from aya_lab.eval.grounding import evaluate_grounding, grounding_table, load_drafts


def test_every_draft_quotes_the_handbook_and_the_set_has_both_labels():
    drafts = load_drafts()
    assert len(drafts) >= 40 and {d.label for d in drafts} == {"fabricated", "honest"}
    assert all(d.passages for d in drafts)


def test_the_documented_figures():
    rep = evaluate_grounding()
    rows = {(r.label, r.kind): r for r in grounding_table(rep, "drafts").itertuples()}
    assert rows[("fabricated", "all")].n == 39 and round(rows[("fabricated", "all")].rate, 3) == 0.051
    assert rows[("honest", "all")].rate == 0.0
    for kind in ("wrong_date", "invented_entity", "mixed", "note_contradiction"):
        assert rows[("fabricated", kind)].rate == 0.0
    copies = grounding_table(rep, "summaries").set_index("text")
    assert copies.loc["reference summaries", "withheld"] == 0.0 and copies.loc["whole transcript", "withheld"] == 1.0
    assert rep.score("delivered", set="drafts", label="fabricated", kind="all") == rows[("fabricated", "all")].rate


def test_a_quote_found_nowhere_is_one_line(tmp_path):
    row = {"id": "x", "kind": "honest", "label": "honest", "question": "q", "draft": "d",
           "passages": [{"source": "travel_policy.md", "quote": "no such sentence"}]}  # fmt: skip
    path = tmp_path / "d.jsonl"
    path.write_text(json.dumps(row) + "\n")
    with pytest.raises(InputError, match="quote 'no such sentence' is in no paragraph of travel_policy.md"):
        load_drafts(path)


def test_the_command_prints_the_three_tables_and_the_mistakes(capsys, tmp_path):
    assert main(["eval", "run", "grounding", "--n-bootstrap", "50", "--out", str(tmp_path / "d.csv")]) == 0
    out = capsys.readouterr().out
    assert "== drafts" in out and "== rag proxies" in out and "== summaries" in out
    assert "== drafts the checks got wrong" in out and "n07" in out  # a fabricated draft delivered
    assert (tmp_path / "d.items.csv").read_text().count("\n") == len(load_drafts()) + 1  # one row per draft
