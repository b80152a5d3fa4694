"""Every model spec is a translation system (one registry, no model loaded); help texts come from it; a
prompt a base model gets instead of the one asked for is printed and recorded."""

from __future__ import annotations

import json

import pytest

from aya_lab.cli import main
from aya_lab.eval.translation import systems as translation_systems
from aya_lab.eval.translation.specs import SystemSpecError, floor_kinds, parse_system, system_help
from aya_lab.eval.translation.systems import PromptSystem
from aya_lab.models.fake import FakeChatModel
from aya_lab.models.registry import MODEL_KINDS, spec_forms


class BaseFake(FakeChatModel):
    """A scripted model without a chat template, as Gemma 3 270M base is."""

    spec: str = "fake:base"
    has_chat_template: bool = False


@pytest.mark.parametrize(
    "spec, kind, model_kind, variant, k",
    [
        ("gemma3-270m", "prompt", "gemma3-270m", "baseline", 0),
        ("smollm2", "prompt", "smollm2", "baseline", 0),
        ("smollm2@strict+ctx3", "prompt", "smollm2", "strict", 3),
        ("gemma3-270m~transformers@completion", "prompt", "gemma3-270m", "completion", 0),
        ("hf:org/model@strict", "prompt", "hf", "strict", 0),
        ("gguf:/models/x.gguf", "prompt", "gguf", "baseline", 0),
        ("gemma3-270m+lora:runs/adapters/a@completion+ctx2", "prompt", "gemma3-270m", "completion", 2),
        ("seq2seq:facebook/nllb-200-distilled-600M", "nmt", "seq2seq", None, 0),
    ],
)
def test_model_specs_parse_as_systems_without_loading(spec, kind, model_kind, variant, k):
    parsed = parse_system(spec)
    assert (parsed.kind, parsed.model.kind, parsed.variant, parsed.context_window) == (kind, model_kind, variant, k)
    assert not parsed.floor


def test_the_adapter_and_the_engine_stay_on_the_model_part():
    parsed = parse_system("mine=gemma3-270m+lora:runs/a~llama.cpp@completion")
    assert parsed.name == "mine"
    assert (parsed.model.adapter, parsed.model.engine) == ("runs/a", "llama.cpp")


def test_every_kind_of_the_model_registry_is_a_system():
    for name, kind in MODEL_KINDS.items():
        spec = name if not kind.prefixed else f"{name}:org/x"
        assert parse_system(spec).model.kind == name


def test_floors_and_pivots_parse_and_check_their_rest():
    assert parse_system("copy").floor and parse_system("other-sentence:7").floor
    assert parse_system("p=pivot:gemma3-270m").kind == "pivot"
    with pytest.raises(SystemSpecError, match="unknown system 'nope'"):
        parse_system("pivot:nope")  # the inner spec is checked too
    with pytest.raises(SystemSpecError, match="numeric seed"):
        parse_system("other-sentence:x")


@pytest.mark.parametrize(
    "spec, needle",
    [
        ("smollm3", "unknown system 'smollm3' (did you mean 'smollm2'?)"),
        ("gpt4:x", "unknown system 'gpt4:x'"),
        ("seq2seq:org/nmt@strict", "take no prompt variant or context window"),
        ("gemma3-270m~vllm", "unknown engine 'vllm'"),
        ("smollm2@nope", "no prompt variant 'nope'"),
    ],
)
def test_bad_specs_are_one_line_naming_the_value(spec, needle):
    with pytest.raises(SystemSpecError) as info:
        parse_system(spec)
    message = str(info.value)
    assert needle in message and "\n" not in message


def test_the_unknown_spec_error_lists_the_forms_of_both_registries():
    with pytest.raises(SystemSpecError) as info:
        parse_system("nonsense")
    message = str(info.value)
    for form in [*floor_kinds(), "pivot:SPEC", *spec_forms(tests=False)]:
        assert form in message


def test_translate_help_lists_floors_and_every_model_form(capsys):
    assert main(["eval", "run", "translation", "--help"]) == 0
    out = capsys.readouterr().out
    assert floor_kinds() == ["copy", "other-sentence[:SEED]"]
    for form in [*floor_kinds(), *spec_forms(tests=False), "BASE+lora:PATH", "pivot:SPEC"]:
        assert form in out
    assert system_help().splitlines()[1] == " floors:"


def test_a_base_model_gets_the_completion_prompt_and_the_system_says_so():
    system = PromptSystem(BaseFake(default="bonjour"), "baseline")
    assert system.prompt.name == "user_translate/completion"
    assert system.name == "fake:base@completion"
    sig = system.signature()
    assert sig["prompt"] == "user_translate/completion"
    assert sig["prompt_requested"] == "user_translate/baseline"
    assert sig["prompt_hash"] == system.prompt.content_hash
    assert system.prompt_note.startswith("fake:base@completion: prompt: fake:base has no chat template")
    chat = PromptSystem(FakeChatModel(default="x"), "baseline")
    assert chat.prompt_note is None and "prompt_requested" not in chat.signature()


def test_the_swap_is_recorded_in_results_their_display_and_saved_form(mini_data, tmp_path):
    from aya_lab.eval import evaluate_translation
    from aya_lab.eval.report import Report

    system = PromptSystem(BaseFake(default="bonjour"), "baseline", name="gemma")
    res = evaluate_translation([system], "ntrex128", "eng-fra", n=4, n_bootstrap=20, n_ar=10, langid=False)
    assert res.meta["prompt_notes"] == [system.prompt_note]
    assert res.meta["systems"]["gemma"]["prompt"] == "user_translate/completion"
    assert system.prompt_note in res.table().caption
    res.save(tmp_path / "r.csv")
    saved = json.loads((tmp_path / "r.json").read_text())
    assert saved["meta"]["systems"]["gemma"]["prompt_requested"] == "user_translate/baseline"
    assert Report.load(tmp_path / "r.csv").meta["prompt_notes"] == [system.prompt_note]


def test_the_cli_prints_the_swap_on_stderr(mini_data, capsys, monkeypatch):
    monkeypatch.setattr(
        translation_systems, "load_chat_model", lambda spec, **kw: BaseFake(spec=spec, default="bonjour")
    )
    argv = ["eval", "run", "translation", "--systems", "gemma3-270m", "--dataset", "ntrex128", "--pairs", "eng-fra"]
    assert main([*argv, "--n", "2", "--n-bootstrap", "20", "--n-ar", "10", "--no-progress", "--no-faithfulness"]) == 0
    captured = capsys.readouterr()
    assert "gemma3-270m@completion: prompt: gemma3-270m has no chat template" in captured.err
    assert "gemma3-270m@completion" in captured.out


def test_the_cli_checks_every_system_before_loading_a_model(mini_data, capsys, monkeypatch):
    loaded = []
    monkeypatch.setattr(
        translation_systems, "load_chat_model", lambda spec, **kw: loaded.append(spec) or BaseFake(spec=spec)
    )
    argv = ["eval", "run", "translation", "--systems", "smollm2,smollm3", "--dataset", "ntrex128"]
    assert main([*argv, "--pairs", "eng-fra"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: unknown system 'smollm3'") and err.count("\n") == 1
    assert loaded == []
    assert (
        main(["eval", "run", "translation", "--systems", "gemma4", "--dataset", "ntrex128", "--pairs", "eng-fra"]) == 2
    )
    err = capsys.readouterr().err
    assert "unknown system 'gemma4'" in err and "gemma3-270m" in err and err.count("\n") == 1


def test_sequences_refuse_an_empty_multi_data_before_loading_a_model(capsys, monkeypatch):
    monkeypatch.setattr("aya_lab.models.load_chat_model", lambda *a, **k: pytest.fail("a model was loaded"))
    assert main(["eval", "run", "sequences", "--multi-data", "", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: sequences option multi_data='': ") and "names no file" in err and err.count("\n") == 1


def test_routing_and_summaries_record_the_translator_prompt():
    from aya_lab.datasets.project import load_routing_examples, load_transcripts
    from aya_lab.eval import evaluate_routing, evaluate_summarizers

    chat = FakeChatModel(rules=[("Tool:", "chat")], default="3")
    res = evaluate_routing(chat, load_routing_examples()[:6], translator=BaseFake(default="hi"), n_bootstrap=20)
    assert res.meta["translator_prompt"]["prompt"] == "aya_translate/completion"
    assert "has no chat template" in res.meta["translator_prompt"]["prompt_note"]
    assert (
        evaluate_routing(chat, load_routing_examples()[:6], translate=False, n_bootstrap=20).meta["translator_prompt"]
        == {}
    )
    summ = evaluate_summarizers(["two_call"], model=chat, transcripts=load_transcripts()[:1], n_bootstrap=20)
    assert summ.meta["translator_prompt"] == {"prompt": "aya_translate/baseline"}
