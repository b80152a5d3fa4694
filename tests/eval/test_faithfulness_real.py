"""The faithfulness gate's real-output floor (issue 25): placed on a translator's own labelled drafts."""

from __future__ import annotations

import json

import numpy as np
import pytest

from aya_lab.agents.faithfulness import RealOutputFloor
from aya_lab.errors import InputError
from aya_lab.eval.calibration import MIN_UNSUPPORTED_DRAFTS, calibrate_floor, choose_floor_quantile, floor_table
from aya_lab.eval.labelled_drafts import RealDraft, gate_outcomes, load_real_drafts


def _draft(i, label, src="eng", tgt="fra"):
    return RealDraft(f"m{i}", f"source {i}", src, tgt, f"draft {i}", label)


def test_the_floor_is_the_quantile_of_faithful_scores_for_languages_with_enough_of_them():
    drafts = [_draft(i, "faithful") for i in range(5)] + [_draft(9, "faithful", "swh", "fra")]
    drafts.append(_draft(10, "made_up"))
    scores = np.array([0.90, 0.92, 0.94, 0.96, 0.98, 0.91, 0.50])
    floor = calibrate_floor(drafts, scores, quantile=0.0, min_faithful=5)
    assert floor.value == 0.90  # the made-up draft's 0.50 is not used
    assert floor.languages == frozenset({"eng", "fra"})  # swh has one faithful draft: no floor for it
    assert floor.unsupported == frozenset()  # 30 drafts make a language unsupported; these are fewer
    many = drafts + [_draft(20 + i, "made_up", "eng", "yor") for i in range(MIN_UNSUPPORTED_DRAFTS)]
    unsupported = calibrate_floor(many, np.concatenate([scores, np.full(MIN_UNSUPPORTED_DRAFTS, 0.9)])).unsupported
    assert unsupported == frozenset({"yor"})  # English has faithful drafts: supported
    with pytest.raises(InputError, match="no draft is labelled faithful"):
        calibrate_floor([_draft(10, "made_up")], np.array([0.5]))


def test_the_floor_table_shows_what_the_floor_flags_per_label():
    drafts = [_draft(0, "faithful"), _draft(1, "made_up"), _draft(2, "made_up", "swh", "fra")]
    floor = RealOutputFloor(0.9, frozenset({"eng", "fra", "deu", "spa"}), "m")
    table = floor_table(
        drafts, np.array([0.95, 0.89, 0.80]), floor, {"eng": 0.84, "fra": 0.885, "swh": 0.86}
    ).set_index("label")
    assert (table.loc["faithful", "withheld"], table.loc["faithful", "flagged"]) == (0.0, 0.0)
    made_up = table.loc["made_up"]
    assert made_up["withheld"] == 0.5 and made_up["flagged"] == 0.5  # 0.80 < swh-fra's 0.86; 0.89 under the floor


def test_the_committed_drafts_load_with_their_sources_and_a_foreign_label_is_one_error(tmp_path):
    drafts = load_real_drafts()
    assert len(drafts) == 166 and sum(d.label == "faithful" for d in drafts) == 20
    assert all(d.source and d.src != d.tgt for d in drafts)
    labels = tmp_path / "labels.jsonl"
    labels.write_text(json.dumps({"id": "nope-1", "reader_lang": "fra", "draft": "x", "label": "faithful"}) + "\n")
    with pytest.raises(InputError, match="label for 'nope-1', which the messages file lacks"):
        load_real_drafts(labels=labels)


def _real(i, label, source, draft, src="fra", tgt="eng"):
    return RealDraft(f"r{i}", source, src, tgt, draft, label)


def test_the_gate_before_the_floor_withholds_flags_or_leaves_the_draft_to_the_floor():
    drafts = [
        _real(0, "faithful", "La réunion est annulée.", "The meeting is cancelled."),
        _real(1, "partial", "La réunion de lundi est annulée.", "The meeting is cancelled."),  # drops Monday
        _real(2, "made_up", "Merci à tous.", "Thank you all.", "swh", "eng"),  # swh: unsupported
        _real(3, "made_up", "Merci à tous.", "Le budget est validé."),  # under the written threshold
    ]
    floor = RealOutputFloor(0.9, frozenset({"eng", "fra"}), "m", unsupported=frozenset({"swh"}))
    outcomes = gate_outcomes(drafts, np.array([0.95, 0.95, 0.99, 0.70]), floor, {"eng": 0.84, "fra": 0.885})
    assert outcomes == ["scored", "flagged", "withheld", "withheld"]


def test_the_floor_quantile_is_the_lowest_that_keeps_unmarked_partial_drafts_under_the_target():
    faithful = [_real(i, "faithful", f"Le colis {i} est arrivé.", f"Parcel {i} has arrived.") for i in range(20)]
    partial = [_real(20 + i, "partial", f"Le colis {i} est parti.", f"Parcel {i} has arrived.") for i in range(4)]
    drafts = faithful + partial
    faithful_scores = np.linspace(0.900, 0.995, 20)  # quantiles 0.05, 0.10, ... step through them
    scores = np.concatenate([faithful_scores, [0.96, 0.95, 0.93, 0.91]])
    thresholds = {"eng": 0.84, "fra": 0.885}
    # 4 of 24 partial and unmarked at the lowest floor; 2 of 24 (8.3%) once the floor passes 0.93
    choice = choose_floor_quantile(drafts, scores, thresholds, target=0.10)
    floor = calibrate_floor(drafts, scores, choice.quantile)
    assert 0.93 < floor.value <= 0.95 and choice.partial_unmarked == pytest.approx(2 / 24)
    lower = calibrate_floor(drafts, scores, round(choice.quantile - 0.05, 2))
    assert lower.value <= 0.93  # the quantile below it would leave three unmarked
    unreachable = choose_floor_quantile(drafts, np.concatenate([faithful_scores, [0.999] * 4]), thresholds, 0.01)
    assert unreachable.quantile == 0.5 and unreachable.partial_unmarked == pytest.approx(4 / 24)
