"""The committed model-independent thresholds are re-derived from the committed pairs and their recorded scores
(same figures, same hashes, on any CPU). Its own file: it reads every external pair (pytest-xdist hands out
whole files, so it runs beside the translator record's re-derivation rather than after it)."""

from __future__ import annotations

import os

import pytest

from aya_lab.agents.calibration import load_thresholds
from aya_lab.eval.calibration import recorded_scores, thresholds_calibration
from aya_lab.eval.faithfulness import evaluate_faithfulness
from aya_lab.paths import project_root
from aya_lab.rag.sentence_encoder import ENCODER_NAME

CHANGES = {"date"}  # what a re-derivation may change: the day it ran


@pytest.mark.slow
def test_the_thresholds_are_rederived_from_the_committed_pairs(monkeypatch):
    """Reads all 2,088 pairs; their external halves need AYA_LAB_DATA_DIR."""
    shared = project_root().parent / "shared" / "data"
    if not os.environ.get("AYA_LAB_DATA_DIR"):
        if not (shared / "mafand").is_dir():
            pytest.skip("the external test sets are not here; set AYA_LAB_DATA_DIR")
        monkeypatch.setenv("AYA_LAB_DATA_DIR", str(shared))
    committed = load_thresholds()
    recorded = recorded_scores()
    assert recorded is not None
    result = evaluate_faithfulness(project_root() / committed.data[0].path, n_bootstrap=0, scores_cache=recorded)
    pairs = [(s.strip(), o.strip()) for s, o in zip(result.items["source"], result.items["output"])]
    assert len(recorded.get_similarities(ENCODER_NAME, pairs)) == len(pairs)  # every score is the recording's
    derived = thresholds_calibration(result)
    assert committed.model_dump(exclude=CHANGES) == derived.model_dump(exclude=CHANGES)
