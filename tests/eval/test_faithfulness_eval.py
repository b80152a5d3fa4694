"""Calibrating the faithfulness gate (``aya-lab eval run faithfulness``) and the hallucination rate of
translation evaluations (issue 25, part 1)."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from aya_lab.cli import main
from aya_lab.datasets.project import CorpusError
from aya_lab.eval import CopySystem, ShuffledReferenceSystem, evaluate_translation
from aya_lab.eval.faithfulness import (
    MIN_HONEST,
    FaithPair,
    calibrate,
    first_half,
    gate_report,
    load_faithfulness_set,
    wrong_fact,
)
from aya_lab.eval.report import Report
from aya_lab.eval.resampling import units_for
from aya_lab.eval.translation.scoring import hallucination_flags, hallucination_rate


def _pair(i, label, src="eng", tgt="fra", kind=None):
    kind = kind or ("faithful" if label == "faithful" else "unrelated")
    return FaithPair(f"p{i}", "holdout", kind, label, src, tgt, f"s{i}", f"o{i}", origin=f"s:{i // 2}")


def test_calibrate_takes_the_quantile_of_honest_scores_per_language():
    pairs = [_pair(i, "faithful") for i in range(MIN_HONEST)] + [_pair(99, "unfaithful")]
    scores = np.array([0.80 + 0.01 * i for i in range(MIN_HONEST)] + [0.1])
    got = calibrate(pairs, scores, quantile=0.0)
    assert got == {"eng": 0.8, "fra": 0.8}  # the unfaithful pair's score is not used
    assert calibrate(pairs[:3], scores[:3]) == {}  # too few honest pairs: no threshold of its own


def test_report_counts_withheld_outputs_per_kind_and_language():
    pairs = [_pair(0, "faithful"), _pair(1, "faithful"), _pair(2, "unfaithful"), _pair(3, "unfaithful")]
    pairs.append(_pair(4, "unfaithful", kind="partial"))
    scores = np.array([0.95, 0.70, 0.60, 0.90, 0.65])  # withheld below 0.8: pairs 1, 2, 4
    table = gate_report(pairs, scores, {"eng": 0.8, "fra": 0.8}, n_bootstrap=50).set_index(["group", "value"])
    overall = table.loc[("all", "all")]
    assert overall["precision"] == pytest.approx(2 / 3) and overall["recall"] == pytest.approx(2 / 3)
    assert overall["withheld"] == pytest.approx(1 / 2) and overall["n_unfaithful"] == 3
    assert 0 <= overall["recall_low"] <= overall["recall"] <= overall["recall_high"] <= 1
    assert table.loc[("kind", "unrelated"), "recall"] == pytest.approx(1 / 2)
    assert np.isnan(table.loc[("kind", "faithful"), "recall"]) and table.loc[("kind", "faithful"), "withheld"] == 0.5
    assert table.loc[("language", "fra"), "recall"] == pytest.approx(2 / 3)


def test_a_gate_that_withholds_no_honest_pair_is_bounded_by_the_exact_interval_not_zero():
    pairs = [_pair(i, "faithful") for i in range(20)] + [_pair(20 + i, "unfaithful") for i in range(20)]
    scores = np.array([0.95] * 20 + [0.10] * 20)  # every honest pair passes, every unfaithful one is withheld
    overall = gate_report(pairs, scores, {"eng": 0.8, "fra": 0.8}, n_bootstrap=50).set_index(["group", "value"])
    row = overall.loc[("all", "all")]
    assert row["withheld"] == 0.0 and row["recall"] == 1.0 and row["precision"] == 1.0
    # the pairs of one source are one unit (origin s:0 ... s:9 for the honest ones): 10 units with none withheld
    assert row["withheld_high"] == pytest.approx(1 - 0.025 ** (1 / 10))
    assert row["recall_low"] == pytest.approx(0.025 ** (1 / 10)) and row["recall_high"] == 1.0


def test_the_transforms_cut_and_change_facts():
    assert first_half("one two three four five six") == "one two three"
    assert wrong_fact("Ich bin vom 3. bis 14. März weg", "deu") == "Ich bin vom 5. bis 14. März weg"
    assert wrong_fact("La réunion est vendredi.", "fra") == "La réunion est mercredi."
    assert wrong_fact("Habari za asubuhi", "swh") is None


def _write(tmp_path, lines):
    path = tmp_path / "pairs.jsonl"
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


GOOD = {"id": "a", "split": "holdout", "kind": "faithful", "label": "faithful", "src": "eng", "tgt": "fra"}
GOOD = json.dumps({**GOOD, "source": "Hello.", "output": "Bonjour."})


@pytest.mark.parametrize(
    "line,message",
    [
        ("{not json", "pairs.jsonl:2: <json>"),
        (
            GOOD.replace('"kind": "faithful"', '"kind": "unrelated"'),
            "pairs.jsonl:2: <record>: label 'faithful' contradicts kind",
        ),
        (GOOD.replace('"Hello."', '{"ref": "mafand/test/eng-swh", "line": 3}'), "dev or train split"),
        (GOOD, "id: 'a' already used on line 1"),
    ],
    ids=["json", "label", "test-split", "duplicate-id"],
)
def test_a_malformed_line_is_one_error_naming_the_file_line_and_fix(tmp_path, line, message):
    with pytest.raises(CorpusError, match=message.replace("(", r"\(").replace("[", r"\[")) as info:
        load_faithfulness_set(_write(tmp_path, [GOOD, line]))
    assert "\n" not in str(info.value)


def test_pairs_of_a_missing_external_set_are_skipped_and_counted(tmp_path, monkeypatch):
    monkeypatch.setenv("AYA_LAB_DATA_DIR", str(tmp_path / "nothing-here"))
    ref = GOOD.replace('"id": "a"', '"id": "b"').replace('"Hello."', '{"ref": "mafand/dev/eng-swh", "line": 3}')
    data = load_faithfulness_set(_write(tmp_path, [GOOD, ref]))
    assert [p.id for p in data.pairs] == ["a"] and data.skipped == {"mafand": 1}
    with pytest.raises(CorpusError, match="the mafand set is missing; set AYA_LAB_DATA_DIR"):
        load_faithfulness_set(tmp_path / "pairs.jsonl", require_external=True)


def test_the_cli_reports_a_missing_file_and_a_bad_line_in_one_line(tmp_path, capsys):
    assert main(["eval", "run", "faithfulness", "--data", str(tmp_path / "nope.jsonl")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: ") and "nope.jsonl: file not found; pass --data" in err and "\n" not in err
    assert main(["eval", "run", "faithfulness", "--data", str(_write(tmp_path, [GOOD, "[1, 2]"]))]) == 2
    err = capsys.readouterr().err.strip()
    assert "pairs.jsonl:2: <record>: expected a JSON object" in err and "\n" not in err


def test_the_cli_calibrates_and_reports_on_a_small_set(tmp_path, capsys):
    lines = []
    for i, (en, fr) in enumerate(
        [("The meeting moved to Friday.", "La réunion a été déplacée à vendredi."),
         ("Please send me the invoice.", "Envoie-moi la facture, s'il te plaît."),
         ("The printer is broken again.", "L'imprimante est encore en panne.")] * 6
    ):  # fmt: skip
        base = {"split": "calibration" if i < 12 else "holdout", "src": "eng", "tgt": "fra", "source": en}
        lines.append(json.dumps({**base, "id": f"f{i}", "kind": "faithful", "label": "faithful", "output": fr}))
        other = "Le camion de livraison est arrivé avec deux heures de retard ce matin."
        lines.append(
            json.dumps({**base, "id": f"u{i}", "kind": "example_echo", "label": "unfaithful", "output": other})
        )
    out, cal = tmp_path / "table.csv", tmp_path / "cal"
    argv = ["eval", "run", "faithfulness", "--data", str(_write(tmp_path, lines)), "--n-bootstrap", "20"]
    run1 = ["--real-messages", "data/adversarial/unseen.jsonl", "--real-labels", "data/adversarial/unseen_labels.jsonl"]
    assert main([*argv, "--out", str(out), "--write-calibration", str(cal), *run1]) == 0
    text = capsys.readouterr().out
    assert "thresholds picked on the calibration split" in text and "holdout split" in text and out.exists()
    picked = text[text.index("thresholds picked") :].splitlines()[2].split()
    assert picked[0] == "eng" and float(picked[1]) > 0  # the language, the threshold picked, the committed one
    # the first unseen run's drafts alone place a floor of their own beside the committed one (six runs')
    assert re.search(
        r"real-output floor of gemma3-270m on 166 labelled drafts: 0\.908 \(committed 0\.923; the 0\.05 quantile of "
        r"the faithful drafts' scores, partial drafts unmarked in-sample \d+\.\d%\) for pairs within deu, eng, fra, "
        r"spa; unsupported: swh, yor;",
        " ".join(text.split()),
    )
    assert Report.load(out).systems == ["gate"]  # a run that writes a calibration applies no floor
    floored = tmp_path / "floored.csv"
    assert main([*argv, "--translator", "gemma3-270m", "--out", str(floored)]) == 0  # the committed floor applied
    assert Report.load(floored).systems == ["gate+floor:gemma3-270m"]


def test_hallucination_flags_copying_passes_and_unrelated_text_fails():
    sources = ["The budget meeting moved to Friday.", "Please lock the storage room when you leave."]
    assert hallucination_flags(sources, sources, "eng", "fra").tolist() == [False, False]
    unrelated = ["Le train est arrivé à la gare à dix heures.", "Notre nouvelle collègue commence à Lyon."]
    assert hallucination_flags(sources, unrelated, "eng", "fra").tolist() == [True, True]
    assert hallucination_flags(sources, ["", sources[1]], "eng", "fra").tolist() == [True, False]
    rate, low, high = hallucination_rate(sources, ["", sources[1]], "eng", "fra", units_for(None, 2), 200)
    assert rate == 0.5 and 0.0 <= low <= rate <= high <= 1.0


def test_translation_results_carry_a_hallucination_rate_with_a_ci():
    res = evaluate_translation(
        [CopySystem(), ShuffledReferenceSystem()], "workplace", "eng-fra", n=12, n_bootstrap=50, n_ar=0, progress=False
    )
    rows = res.df[res.df["metric"] == "hallucination_rate"].set_index("system")
    assert rows.loc["copy", "score"] == 0.0  # a copy is no invention (the echo shares count it)
    assert rows.loc["other-sentence", "score"] >= 0.5
    assert (
        rows.loc["other-sentence", "ci_low"]
        <= rows.loc["other-sentence", "score"]
        <= rows.loc["other-sentence", "ci_high"]
    )
    assert rows["resample_unit"].eq("document").all()
    assert "hallucination_rate" in res.table().data.columns.get_level_values("metric")
    off = evaluate_translation([CopySystem()], "workplace", "eng-fra", n=4, n_ar=0, progress=False, faithfulness=False)
    assert "hallucination_rate" not in set(off.df["metric"])
