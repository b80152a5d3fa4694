"""A model per role in the room: ``translator`` (user agents, Aya's translator, reply delivery) and
``aya`` (supervisor, query, summarizer); a spec named for two roles is loaded once; bad role names."""

import pytest

from aya_lab.cli import main
from aya_lab.models import ModelSpecError
from aya_lab.models.fake import FakeChatModel
from aya_lab.models.loader import load_role_models, parse_role_models
from tests.fakes import FakeRoomModel

SUMMARY_RULES = [("Tool:", "summarize"), ("Number:", "2"), ("Summary:", "Plans changed.\n- lena: send the report")]


class FakeBaseModel(FakeChatModel):
    """A fake **base** model (no chat template) that completes ``X: text\\nY:`` with ``[Y] text``, then
    rambles on into a next line the way a base model does (the agents must cut at the stop string)."""

    spec: str = "fake:base"
    has_chat_template: bool = False

    def answer(self, prompt: str) -> str:
        *_, source_line, target = prompt.rsplit("\n", 2)
        return f" [{target.rstrip(':')}] {source_line.split(': ', 1)[1]}\nGerman: ramble"


def test_each_role_gets_its_own_model(make_room):
    translator, aya = FakeRoomModel(default="t"), FakeRoomModel(rules=SUMMARY_RULES)
    room = make_room(model=None, models={"translator": translator, "aya": aya})
    assert room.models["translator"] is translator and room.models["aya"] is aya and room.model is aya
    room.send("amara", "Habari")
    report = room.send("lena", "@aya fasse die letzten 2 Nachrichten zusammen")
    assert report.aya_tool == "summarize"
    assert aya.prompts and all("Translate" not in p and "translat" not in p.lower() for p in aya.prompts)
    assert any("Tool:" in p for p in aya.prompts) and not any("Tool:" in p for p in translator.prompts)
    assert any("into English" in p for p in translator.prompts)  # Aya's translator: the translator role
    assert report.aya_reply["lena"].startswith("[German] The last ")  # reply delivery: translator role


def test_model_sets_both_roles_and_models_overrides_one(make_room):
    base, aya = FakeRoomModel(default="x"), FakeRoomModel(default="y")
    room = make_room(model=base, models={"aya": aya})
    assert room.models["translator"] is base and room.models["aya"] is aya


def test_a_spec_named_for_two_roles_is_loaded_once(make_room, monkeypatch):
    loads = []
    real = FakeChatModel.from_spec.__func__

    def counting(cls, spec, **kw):
        loads.append(spec)
        return real(cls, spec, **kw)

    monkeypatch.setattr(FakeChatModel, "from_spec", classmethod(counting))
    room = make_room(model=None, models={"translator": "fake:hello", "aya": "fake:hello"})
    assert loads == ["fake:hello"] and room.models["translator"] is room.models["aya"]
    loads.clear()
    room2 = make_room(
        model=None, models={"translator": "fake:a", "aya": "fake:b"}, path=room.path.with_name("r2.sqlite")
    )
    assert sorted(loads) == ["fake:a", "fake:b"] and room2.models["translator"] is not room2.models["aya"]


def test_a_base_model_translator_gets_completion_prompts_cut_at_the_line(make_room):
    base = FakeBaseModel()
    room = make_room(model=FakeRoomModel(default="ok"), models={"translator": base})
    report = room.send("amara", "Habari timu")
    assert report.delivered["lena"] == "[German] Habari timu"  # the rambling second line is cut
    assert report.delivered["kofi"] == "[English] Habari timu"
    assert all(p.startswith("<human> ") and p.endswith(":") for p in base.prompts)
    assert any("Swahili: Printa ya ghorofa ya pili" in p for p in base.prompts)  # few-shot pool examples


def test_unknown_role_in_models_is_one_line_with_did_you_mean(make_room):
    with pytest.raises(ModelSpecError) as err:
        make_room(model=None, models={"translater": FakeRoomModel(default="x")})
    msg = str(err.value)
    assert "'translater'" in msg and "did you mean 'translator'?" in msg and "\n" not in msg


def test_parse_role_models():
    assert parse_role_models(["fake:a"]) == {"translator": "fake:a", "aya": "fake:a"}
    assert parse_role_models(["fake:a", "translator=fake:b"]) == {"translator": "fake:b", "aya": "fake:a"}
    assert parse_role_models(["translator=gemma3-270m", "aya=smollm2"]) == {
        "translator": "gemma3-270m",
        "aya": "smollm2",
    }
    with pytest.raises(ModelSpecError, match=r"unknown model spec 'gemma3'.*did you mean 'gemma3-270m'"):
        parse_role_models(["translator=gemma3"])


def test_load_role_models_passes_objects_and_loads_strings_once():
    calls = []

    def loader(spec, **kw):
        calls.append((spec, kw))
        return object()

    obj = object()
    roles = load_role_models("fake:x", {"aya": obj}, loader=loader, settings={"max_new_tokens": 4})
    assert roles["aya"] is obj and calls == [("fake:x", {"settings": {"max_new_tokens": 4}})]


def test_cli_unknown_role_is_one_line(capsys):
    assert main(["demo", "--model", "translater=gemma3-270m", "--room", "unused.sqlite"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "unknown model role 'translater'" in err and "did you mean 'translator'" in err
