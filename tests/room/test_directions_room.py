"""A room with a translator for one direction: that direction's messages (and Aya's English of a
request in that language) go through its model; every other direction through the translator role's."""

from __future__ import annotations

from aya_lab.models.fake import FakeChatModel
from tests.fakes import FakeRoomModel


class EchoBase(FakeChatModel):
    """A fake base model completing ``X: text\\nY:`` with ``[Y] <mark>text``."""

    spec: str = "fake:base"
    has_chat_template: bool = False
    mark: str = ""

    def answer(self, prompt: str) -> str:
        *_, source_line, target = prompt.rsplit("\n", 2)
        return f" [{target.rstrip(':')}] {self.mark}{source_line.split(': ', 1)[-1]}\n"


def test_one_direction_uses_its_own_model_and_the_others_the_translator(make_room):
    translator, swh_eng = EchoBase(), EchoBase(mark="adapted: ")
    room = make_room(
        models={"translator": translator, "aya": FakeRoomModel(default="ok"), "translator:swh-eng": swh_eng}
    )
    assert room.models["translator:swh-eng"] is swh_eng
    report = room.send("amara", "Habari timu")
    assert report.delivered["kofi"] == "[English] adapted: Habari timu"  # swh -> eng: the direction's model
    assert report.delivered["lena"] == "[German] Habari timu"  # swh -> deu: the translator role
    assert swh_eng.prompts and all("English:" in p.rsplit("\n", 1)[-1] for p in swh_eng.prompts)
    report = room.send("lena", "Guten Morgen")
    assert report.delivered["kofi"] == "[English] Guten Morgen"  # deu -> eng is not the direction
    assert len(swh_eng.prompts) == 3 and swh_eng.batches == [3]  # three drafts of the one swh -> eng message


def test_without_a_direction_every_translation_uses_the_translator(make_room):
    translator = EchoBase()
    room = make_room(models={"translator": translator, "aya": FakeRoomModel(default="ok")})
    assert not any(key.startswith("translator:") for key in room.models)
    report = room.send("amara", "Habari timu")
    assert report.delivered["kofi"] == "[English] Habari timu"


def test_each_direction_is_judged_by_the_record_of_the_model_that_wrote_it(make_room):
    # gemma3-270m's record (data/calibration) withholds its Swahili drafts; the adapter has no record of its
    # own, so its swh -> eng draft is judged by the model-independent gate only, never by its base's rule
    checks = ("faithful",)
    base = EchoBase(spec="gemma3-270m", guard_checks=checks)
    adapter = EchoBase(spec="gemma3-270m+lora:data/adapters/gemma3-270m-swh-eng/step-050", guard_checks=checks)
    room = make_room(models={"translator": base, "aya": FakeRoomModel(default="ok"), "translator:swh-eng": adapter})
    report = room.send("amara", "Habari timu, mkutano umehamishwa hadi Ijumaa.")
    assert report.delivered["lena"].startswith("[not translated] ")  # swh -> deu: gemma3-270m's record
    assert (
        [n for n in report.guard_notes if "produced no faithful translation" in n]
        == [n for n in report.guard_notes if "swh->deu" in n]
        != []
    )
    assert not any("swh->eng" in n and "gemma3-270m produced" in n for n in report.guard_notes)
