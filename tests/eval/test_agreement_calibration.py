"""A translator's agreement threshold is calibration data: chosen by the stated rule on labelled first drafts
(:mod:`aya_lab.eval.labelled_drafts`), written into the translator's record, re-derived from the committed
files, and read by the room only for drafts under the prompt it was measured on."""

from __future__ import annotations

import json

import numpy as np
import pytest

from aya_lab.agents.calibration import AGREEMENT_TARGET, translator_record
from aya_lab.agents.faithfulness import RealOutputFloor, agreement_for
from aya_lab.errors import InputError
from aya_lab.eval.calibration import agreement_calibration, agreement_sources, recorded_scores
from aya_lab.eval.configs import FaithfulnessConfig
from aya_lab.eval.labelled_drafts import RealDraft, choose_agreement, load_agreement_drafts
from aya_lab.models.fake import FakeChatModel
from aya_lab.rag.sentence_encoder import ENCODER_NAME
from aya_lab.settings import DEFAULT_ROLE_SPECS

FLOOR = RealOutputFloor(0.5, frozenset({"deu", "eng"}), "m")


def _draft(i: int, label: str) -> RealDraft:
    return RealDraft(f"m{i}", f"Nachricht {i}", "deu", "eng", f"message {i}", label)


def test_the_lowest_threshold_that_leaves_at_most_the_target_partial_and_unmarked_is_chosen():
    drafts = [_draft(0, "partial"), _draft(1, "partial"), _draft(2, "faithful"), _draft(3, "faithful")]
    agreements = [0.62, 0.78, 0.95, None]  # one draft alone has no agreement: never doubted by it
    choice = choose_agreement(drafts, agreements, np.full(4, 0.99), FLOOR, {"deu": 0.1, "eng": 0.1}, target=0.25)
    assert choice.threshold == 0.65 and choice.target == 0.25
    assert choice.shares[0.5] == (0.5, 0.0) and choice.shares[0.65] == (0.25, 0.0) and choice.shares[0.8] == (0.0, 0.0)
    none = choose_agreement(drafts, [1.0, 1.0, 1.0, 1.0], np.full(4, 0.99), FLOOR, {"deu": 0.1, "eng": 0.1}, 0.1)
    assert none.threshold == 0.9 and none.shares[0.9] == (0.5, 0.0)  # none reaches the target: the highest
    low = choose_agreement(drafts, agreements, np.array([0.99, 0.3, 0.99, 0.3]), FLOOR, {"deu": 0.1, "eng": 0.1})
    assert low.shares[0.5] == (0.25, 0.25)  # under the floor: flagged whatever the agreement


def test_a_bad_drafts_file_is_one_line(tmp_path):
    labels = tmp_path / "labels.jsonl"
    labels.write_text("", encoding="utf-8")
    bad = tmp_path / "drafts.jsonl"
    bad.write_text(json.dumps({"id": "x", "src": "deu", "text": "Hallo"}) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"drafts.jsonl:1: not a drafts record \(KeyError\('drafts'\)\); write id"):
        load_agreement_drafts(bad, [labels])
    with pytest.raises(InputError, match="no such drafts file; pass --agreement-drafts"):
        load_agreement_drafts(tmp_path / "missing.jsonl", [labels])
    with pytest.raises(InputError, match="--agreement-drafts needs --agreement-labels"):
        agreement_sources(FaithfulnessConfig(agreement_drafts=str(bad)), "gemma3-270m")


def test_the_committed_agreement_threshold_is_rederived_from_its_committed_files():
    committed = translator_record(DEFAULT_ROLE_SPECS["translator"])
    assert committed is not None and committed.agreement is not None
    found = agreement_sources(FaithfulnessConfig(), committed.model)
    assert found is not None
    path, labels, prompt = found
    drafts, agreements = load_agreement_drafts(path, labels)
    recorded = recorded_scores()
    assert recorded is not None
    pairs = [(d.source.strip(), d.draft.strip()) for d in drafts]
    assert len(recorded.get_similarities(ENCODER_NAME, pairs)) == len(drafts) == 164
    scores = np.array([recorded.get_similarities(ENCODER_NAME, [p])[0] for p in pairs])
    floor = RealOutputFloor(committed.floor, frozenset(committed.floor_languages), committed.model,
                            frozenset(committed.unsupported))  # fmt: skip
    choice = choose_agreement(drafts, agreements, scores, floor, target=committed.agreement.target)
    derived = agreement_calibration(choice, len(drafts), prompt, [path, *labels])
    assert derived == committed.agreement and derived.threshold == 0.8 and derived.target == AGREEMENT_TARGET


def test_the_room_reads_the_threshold_of_the_drafts_model_and_prompt():
    assert agreement_for(FakeChatModel(spec="gemma3-270m"), "user_translate/baseline") == 0.8
    assert agreement_for(FakeChatModel(spec="gemma3-270m"), "user_translate/nearest") == 0.0  # another prompt's
    assert agreement_for(FakeChatModel(), "user_translate/baseline") == 0.0  # no record: never doubted by it
    assert agreement_for(object(), "user_translate/baseline") == 0.0  # no spec
