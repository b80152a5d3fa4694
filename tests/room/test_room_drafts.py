"""The room's translations chosen from several drafts (``drafts``) and doubted when they disagree
(``agreement``): draft 0 (or, with ``select: similarity``, the draft most like the message) reaches the feed,
one batch per round, a note names the doubt."""

import pytest

from aya_lab.agents.guard import UNVERIFIED
from aya_lab.graph import SpecError
from aya_lab.models.fake import FakeChatModel
from aya_lab.prompts import load_pool
from aya_lab.room import ChatRoom
from aya_lab.room.room import default_graph_path

GERMAN = "Guten Morgen, das Treffen ist am Freitag um zehn Uhr."


def _graph(tmp_path, agreement, select="first"):
    spec = default_graph_path().read_text(encoding="utf-8")
    old = "{prompt: user_translate/baseline, context_window: 0, drafts: 3, agreement: calibrated}"
    assert spec.count(old) == 1  # the default graph's message delivery
    new = (
        f"{{prompt: user_translate/completion, context_window: 0, drafts: 3, agreement: {agreement}, select: {select}}}"
    )
    path = tmp_path / "aya_drafts.yaml"
    path.write_text(spec.replace(old, new), encoding="utf-8")
    return path


def test_draft_zero_of_three_is_delivered_and_a_disagreement_is_flagged(make_room, tmp_path):
    drafts = ["Good morning, the meeting is on Friday at ten.", "The invoice was paid.",
              "Good morning, the meeting is on Friday at ten o'clock."]  # fmt: skip
    firsts = [f"<human> German: {record['deu']}" for record in load_pool("translations")[::2]]  # 6 records, step 2
    model = FakeChatModel(rules=list(zip(firsts, drafts, strict=True)))
    room = make_room(model=model, users={"lena": "deu", "kofi": "eng"}, graph=_graph(tmp_path, 0.9))
    report = room.send("lena", GERMAN)
    (got,) = room.feed("kofi")
    assert got.text == f"{UNVERIFIED} {drafts[0]} | original: {GERMAN}"
    assert model.batches == [3]
    (note,) = report.guard_notes
    assert "translation deu->eng unverified (agreement: the translator's drafts agree 0." in note
    assert note.endswith(f'draft "{drafts[0]}"')


def test_select_similarity_delivers_the_draft_most_like_the_message(make_room, tmp_path):
    drafts = ["The invoice was paid.", "Good morning, the meeting is on Friday at ten.", "The invoice was paid!"]
    firsts = [f"<human> German: {record['deu']}" for record in load_pool("translations")[::2]]
    model = FakeChatModel(rules=list(zip(firsts, drafts, strict=True)))
    graph = _graph(tmp_path, 0.0, "similarity")
    room = make_room(model=model, users={"lena": "deu", "kofi": "eng"}, graph=graph)
    report = room.send("lena", GERMAN)
    assert room.feed("kofi")[0].text == drafts[1] and report.guard_notes == [] and model.batches == [3]


def test_drafts_that_agree_arrive_plain(make_room, tmp_path):
    model = FakeChatModel(default="Good morning, the meeting is on Friday at ten.")
    room = make_room(model=model, users={"lena": "deu", "kofi": "eng"}, graph=_graph(tmp_path, 0.9))
    report = room.send("lena", GERMAN)
    assert room.feed("kofi")[0].text == "Good morning, the meeting is on Friday at ten." and report.guard_notes == []


@pytest.mark.parametrize(
    "bad,message",
    [
        (
            "drafts: 9, agreement: calibrated",
            "flows[2].factory_parameter.drafts: Input should be less than or equal to 8 (got 9)",
        ),
        (
            "drafts: 3, agreement: 1.5",
            "flows[2].factory_parameter.agreement: Input should be a number from 0 to 1, or 'calibrated' (got 1.5)",
        ),
        (
            "drafts: 3, agreement: measured",
            "flows[2].factory_parameter.agreement: Input should be a number from 0 to 1, or 'calibrated' (got 'measured')",
        ),
        (
            "drafts: 3, agreement: 0.8, select: best",
            "flows[2].factory_parameter.select: Input should be 'first' or 'similarity' (got 'best')",
        ),
    ],
)
def test_a_bad_draft_parameter_is_one_line_and_no_room_file_is_made(tmp_path, bad, message):
    spec = default_graph_path().read_text(encoding="utf-8").replace("drafts: 3, agreement: calibrated", bad)
    graph = tmp_path / "bad.yaml"
    graph.write_text(spec, encoding="utf-8")
    with pytest.raises(SpecError) as caught:
        ChatRoom.open(tmp_path / "room.sqlite", model=FakeChatModel(default="x"), users={"kofi": "eng"}, graph=graph)
    assert str(caught.value).endswith(message) and "\n" not in str(caught.value)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.yaml"]


def _disagreeing(spec):
    drafts = ["Good morning, the meeting is on Friday at ten.", "The invoice was paid.",
              "Good morning, the meeting is on Friday at ten o'clock."]  # fmt: skip
    firsts = [f"<human> German: {record['deu']}" for record in load_pool("translations")[::2]]
    return FakeChatModel(spec=spec, rules=list(zip(firsts, drafts, strict=True)))


def test_a_calibrated_agreement_is_the_threshold_the_translators_record_measured_for_the_prompt(
    make_room, tmp_path, monkeypatch
):
    """``agreement: calibrated``: the record of the model that wrote the drafts gives the threshold, for drafts
    under the node's prompt; the committed record measured the shipped prompt's, so under another prompt the
    disagreeing drafts raise no doubt, and with a record measured for this prompt they do."""
    from aya_lab.agents import faithfulness

    graph = _graph(tmp_path, "calibrated")  # prompt user_translate/completion
    room = make_room(model=_disagreeing("gemma3-270m"), users={"lena": "deu", "kofi": "eng"}, graph=graph)
    assert not any("agreement" in note for note in room.send("lena", GERMAN).guard_notes)
    committed = faithfulness.translator_record("gemma3-270m")
    assert committed is not None and committed.agreement is not None
    measured = committed.agreement.model_copy(update={"prompt": "user_translate/completion", "threshold": 0.9})
    record = committed.model_copy(update={"agreement": measured, "floor": -1.0})
    monkeypatch.setattr(faithfulness, "translator_record", lambda spec: record if spec == "gemma3-270m" else None)
    room = make_room(model=_disagreeing("gemma3-270m"), users={"lena": "deu", "kofi": "eng"}, graph=graph)
    (note,) = room.send("lena", GERMAN).guard_notes
    assert "(agreement: the translator's drafts agree 0." in note and "< 0.90)" in note
