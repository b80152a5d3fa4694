"""Routing on requests written after the keyword rules (issue 28): the unseen set, who decided, and
paired tests of paths."""

from __future__ import annotations

import json
from collections import Counter

import numpy as np
import pandas as pd
import pytest

from aya_lab.cli import main
from aya_lab.datasets.project import ROUTING_LABELS, default_paths, load_routing_examples
from aya_lab.errors import InputError
from aya_lab.eval.report import Report
from aya_lab.eval.resampling import holm, mcnemar_exact, paired_accuracy
from aya_lab.eval.routing import decided_by
from aya_lab.eval.routing_sequences import paths_paired
from aya_lab.languages import normalize_language


def test_the_unseen_set_has_100_requests_in_six_languages_balanced_over_valid_labels():
    items = load_routing_examples("unseen")
    assert len(items) >= 100 and len({e.id for e in items}) == len(items)
    langs = Counter(e.lang for e in items)
    assert len(langs) == 6 and {"eng", "swh", "deu", "fra"} <= set(langs)
    assert all(normalize_language(lang) == lang for lang in langs)
    labels = Counter(e.label for e in items)
    assert set(labels) == set(ROUTING_LABELS) and max(labels.values()) - min(labels.values()) <= 1
    assert all(e.text_en and e.text_en.strip() for e in items)
    assert all((e.text == e.text_en) == (e.lang == "eng") for e in items)  # a gloss for every other request


def test_the_unseen_set_shares_no_request_with_the_in_sample_set():
    seen = {e.text.casefold() for e in load_routing_examples()}
    assert not [e.id for e in load_routing_examples("unseen") if e.text.casefold() in seen]


def test_a_set_name_and_its_path_load_the_same_requests(tmp_path):
    assert load_routing_examples("unseen") == load_routing_examples(default_paths()["routing_unseen"])
    assert load_routing_examples("requests") == load_routing_examples()
    path = tmp_path / "mine.jsonl"
    path.write_text(json.dumps({"text": "hi", "lang": "eng", "label": "chat"}) + "\n", encoding="utf-8")
    assert [e.text for e in load_routing_examples(str(path))] == ["hi"]


def test_decided_by_splits_accuracy_by_who_decided():
    ex = pd.DataFrame(
        {
            "prompt": ["p"] * 5 + ["q"] * 2,
            "correct": [1, 0, 1, 1, 0, 1, 1],
            "fallback": [0, 0, 1, 1, 1, 1, 1],
        }
    )
    out = decided_by(ex, ["prompt"], n_bootstrap=50).set_index(["prompt", "decided_by"])
    assert out.loc[("p", "all"), "n"] == 5 and out.loc[("p", "all"), "accuracy"] == pytest.approx(0.6)
    assert out.loc[("p", "model"), "n"] == 2 and out.loc[("p", "model"), "accuracy"] == pytest.approx(0.5)
    assert out.loc[("p", "keyword fallback"), "share"] == pytest.approx(0.6)
    assert out.loc[("p", "keyword fallback"), "accuracy"] == pytest.approx(2 / 3)
    assert out.loc[("q", "model"), "n"] == 0 and np.isnan(out.loc[("q", "model"), "accuracy"])  # not 0
    low, high = out.loc[("p", "keyword fallback"), ["ci_low", "ci_high"]]
    assert 0 <= low <= 2 / 3 <= high <= 1
    with pytest.raises(InputError, match="no column 'fallback_rate'"):
        decided_by(ex, ["prompt"], fallback="fallback_rate")


def test_paired_accuracy_counts_discordant_requests_and_needs_both_tests():
    a = pd.Series([1.0] * 10 + [0.0] * 30, index=[f"r{i}" for i in range(40)])
    b = pd.Series([1.0] * 40, index=a.index[::-1])  # another order: aligned by id
    t = paired_accuracy(a, b, n_bootstrap=200)
    assert (t["only_a"], t["only_b"], t["n"]) == (0, 30, 40)
    assert t["diff"] == pytest.approx(0.75) and t["p_mcnemar"] == pytest.approx(mcnemar_exact(0, 30))
    assert t["significant"] and t["ci_low"] > 0
    same = paired_accuracy(a, a, n_bootstrap=200)
    assert same["diff"] == 0 and same["p_mcnemar"] == 1.0 and not same["significant"]
    one = a.copy()
    one.iloc[10] = 1.0  # one request apart is never significant
    assert not paired_accuracy(a, one, n_bootstrap=200)["significant"]
    with pytest.raises(InputError, match="same requests"):
        paired_accuracy(a, b.iloc[:-1])


def _sequences() -> Report:
    rows = []
    for i in range(30):
        lang = "eng" if i < 10 else "fra"
        for path, right in (("room", i % 3 == 0), ("original", i % 3 == 0 or i >= 10), ("gold", True)):
            for router in ("keyword", "llm"):
                rows.append({"set": "single", "system": router, "path": path, "id": f"r{i}", "lang": lang,
                             "sequence_accuracy": float(right or (router == "llm" and path == "room"))})  # fmt: skip
    scores = pd.DataFrame({"system": ["keyword", "llm"], "metric": ["sequence_accuracy"] * 2, "score": [0.0, 0.0]})
    return Report("sequences", scores, pd.DataFrame(rows))


def test_paired_paths_tests_each_router_on_two_paths_of_the_same_requests():
    res = _sequences()
    out = paths_paired(res, "room", "original", n_bootstrap=200).set_index("system")
    kw, llm = out.loc["keyword"], out.loc["llm"]
    assert (kw["b"], kw["c"], kw["n"]) == (0, 14, 30) and kw["significant"]
    assert (llm["b"], llm["c"]) == (6, 0) and llm["score_baseline"] == 1.0 and llm["delta"] == pytest.approx(-0.2)
    assert out["p_holm"].tolist() == pytest.approx(holm(out["p"].to_numpy()).tolist())  # one family: the table
    french = paths_paired(res, "room", "gold", langs=["fra"], n_bootstrap=200).set_index("system")
    assert french.loc["keyword", "n"] == 20 and french.loc["keyword", "c"] == 14
    with pytest.raises(InputError, match="not both run"):
        paths_paired(res, "room", "auto")


def test_cli_on_the_unseen_set_splits_deciders_and_tests_paths(tmp_path, capsys):
    common = ["--model", "fake:query", "--data", "unseen", "--n", "12", "--n-bootstrap", "20", "--no-progress"]
    assert main(["eval", "run", "routing", *common, "--translate", "gold", "--out", str(tmp_path / "r.csv")]) == 0
    text = capsys.readouterr().out
    assert "who decided" in text and "keyword fallback" in text
    decided = text[text.index("who decided") :].splitlines()
    assert any(" all 12 " in " ".join(line.split()) + " " for line in decided)
    argv = ["eval", "run", "sequences", *common, "--sets", "single", "--paths", "room,original"]
    assert main([*argv, "--out", str(tmp_path / "s.csv")]) == 0
    text = capsys.readouterr().out
    assert "original path against the room path" in text and "p_mcnemar" in text
    assert (tmp_path / "s.items.csv").exists()
