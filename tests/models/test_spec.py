"""Spec strings: each kind parses; each bad spec gets a one-line error naming it and the fix."""

import pytest

from aya_lab.models import ModelNotFoundError, ModelSpecError, load_chat_model, load_model, parse_spec
from aya_lab.models.fake import FakeChatModel


@pytest.mark.parametrize(
    "spec,kind,target",
    [
        ("smollm2", "smollm2", ""),
        ("gemma3-270m", "gemma3-270m", ""),
        ("hf:HuggingFaceTB/SmolLM2-360M-Instruct", "hf", "HuggingFaceTB/SmolLM2-360M-Instruct"),
        ("seq2seq:/models/nllb", "seq2seq", "/models/nllb"),
        ("fake:a|b", "fake", "a|b"),
    ],
)
def test_parse_each_kind(spec, kind, target):
    parsed = parse_spec(spec)
    assert (parsed.kind, parsed.target) == (kind, target)


@pytest.mark.parametrize("spec", ["gpt4", "openai:gpt-4o", "smollm2:x", "", "HF:foo/bar"])
def test_unknown_prefix_names_value_and_forms(spec):
    with pytest.raises(ModelSpecError) as err:
        parse_spec(spec)
    msg = str(err.value)
    assert repr(spec) in msg and "hf:<path-or-hub-id>" in msg and "\n" not in msg


def test_empty_target():
    with pytest.raises(ModelSpecError, match=r"names no model after 'hf:'"):
        parse_spec("hf:  ")


def test_missing_local_path(tmp_path):
    missing = tmp_path / "nope"
    with pytest.raises(ModelNotFoundError) as err:
        load_model(f"hf:{missing}")
    assert str(missing) in str(err.value) and "\n" not in str(err.value)


def test_hub_id_not_cached_offline(monkeypatch, tmp_path):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    with pytest.raises(ModelNotFoundError) as err:
        load_model("hf:some-org/not-downloaded-model")
    msg = str(err.value)
    assert "'some-org/not-downloaded-model'" in msg and "HF_HUB_OFFLINE" in msg and "huggingface-cli download" in msg


def test_fake_spec_answers_in_order():
    model = load_model("fake:one|two")
    assert isinstance(model, FakeChatModel)
    assert [model.invoke("x").content, model.invoke("y").content, model.invoke("z").content] == ["one", "two", "one"]


def test_agents_refuse_seq2seq_spec():
    with pytest.raises(ModelSpecError, match="seq2seq translation model"):
        load_chat_model("seq2seq:/x")


def test_default_spec_from_env(monkeypatch):
    from aya_lab.models import default_model_spec

    monkeypatch.setenv("AYA_LAB_MODEL", "fake:hi")
    assert default_model_spec() == "fake:hi"
    assert load_model().invoke("q").content == "hi"


def test_each_role_has_its_measured_default_and_env_overrides_it(monkeypatch):
    from aya_lab.models.loader import DEFAULT_ROLE_SPECS, default_model_spec, default_role_models

    assert default_role_models() == dict(DEFAULT_ROLE_SPECS) == {"translator": "gemma3-270m", "aya": "smollm2"}
    monkeypatch.setenv("AYA_LAB_MODEL", "fake:hi")  # sets every role
    assert default_role_models() == {"translator": "fake:hi", "aya": "fake:hi"}
    monkeypatch.setenv("AYA_LAB_MODEL_TRANSLATOR", "fake:bonjour")  # one role wins over the global one
    assert default_role_models() == {"translator": "fake:bonjour", "aya": "fake:hi"}
    with pytest.raises(ModelSpecError, match="did you mean 'translator'"):
        default_model_spec("translater")


def test_near_miss_embedded_spec_says_did_you_mean():
    with pytest.raises(ModelSpecError) as err:
        parse_spec("gemma3")
    msg = str(err.value)
    assert "did you mean 'gemma3-270m'?" in msg and "smollm2, gemma3-270m" in msg and "\n" not in msg


def test_gemma3_is_a_chat_model_spec_for_agents(monkeypatch):
    """``gemma3-270m`` loads as a base model (completion prompts only), never refused as seq2seq."""
    from aya_lab.models import loader

    seen = {}

    def fake_load(spec, model_dir, weights, **kw):
        seen.update(spec=spec, model_dir=str(model_dir), weights=weights, **kw)
        return "model"

    monkeypatch.setattr(loader, "converted_model_dir", lambda name: f"/converted/{name}")
    monkeypatch.setattr(loader, "embedded_gguf", lambda name: f"/assembled/{name}.gguf")
    monkeypatch.setattr(loader.HFChatModel, "load", staticmethod(fake_load))
    monkeypatch.setattr(loader.LlamaCppChatModel, "load", staticmethod(fake_load))
    for spec in ("gemma3-270m~transformers", "gemma3-270m"):
        seen.clear()
        assert load_chat_model(spec, reuse=False) == "model"
        assert seen["require_chat_template"] is False and seen["weights"].startswith("gguf-sha256:a5fd3b62230aa5ec")
        assert seen["model_dir"] == ("/converted/gemma3-270m" if "~" in spec else "/assembled/gemma3-270m.gguf")
