"""Model-backed translation systems: spec grammar, context window, signatures, batching; sweeps; CLI."""

from __future__ import annotations

import pytest

from aya_lab.eval.translation.specs import SystemSpecError, parse_system, system_kinds
from aya_lab.eval.translation.systems import PivotSystem, PromptSystem, Seq2SeqSystem, resolve_system
from aya_lab.models.fake import FakeChatModel
from tests.fakes import FakeRoomModel


def _room_model() -> FakeRoomModel:
    return FakeRoomModel(default="traduction")


@pytest.mark.parametrize(
    "spec, expected",
    [
        ("smollm2", ("smollm2", "baseline", 0)),
        ("smollm2@strict", ("smollm2", "strict", 0)),
        ("smollm2@baseline+ctx3", ("smollm2", "baseline", 3)),
        ("smollm2+ctx10", ("smollm2", "baseline", 10)),
        ("hf:/models/x@y/tiny@strict+ctx2", ("hf:/models/x@y/tiny", "strict", 2)),
        ("hf:org/model", ("hf:org/model", "baseline", 0)),
    ],
)
def test_prompt_spec_grammar(spec, expected):
    parsed = parse_system(spec)
    assert (parsed.model.text, parsed.variant, parsed.context_window) == expected


@pytest.mark.parametrize(
    "spec, needle",
    [
        ("smollm2@", "empty prompt variant"),
        ("smollm2+ctx", "needs a number"),
        ("smollm2+ctxthree", "needs a number"),
        ("smollm2+ctx11", "over 10"),
        ("smollm2@nope", "no prompt variant 'nope'"),
        ("hf:", "names no model"),
        ("seq2seq:", "names no model after 'seq2seq:'"),
        ("smollm3", "unknown system 'smollm3' (did you mean 'smollm2'?)"),
    ],
)
def test_spec_errors_are_one_line(spec, needle):
    with pytest.raises(SystemSpecError) as info:
        resolve_system(spec)
    message = str(info.value)
    assert needle in message and "\n" not in message


def test_registered_kinds_include_model_backed_ones():
    assert {"smollm2", "hf", "fake", "seq2seq", "copy", "pivot"} <= set(system_kinds())


def test_fake_spec_resolves_to_a_named_prompt_system():
    system = resolve_system("fake:bonjour@strict+ctx3")
    assert isinstance(system, PromptSystem)
    assert system.name == "fake:bonjour@strict+ctx3"
    assert (system.prompt.variant, system.context_window) == ("strict", 3)
    assert system.translate(["hello"], "eng", "fra") == ["bonjour"]
    named = resolve_system("mine=fake:bonjour@strict")
    assert named.name == "mine"
    pivot = resolve_system("pivot:fake:x@strict")
    assert isinstance(pivot, PivotSystem) and isinstance(pivot.first, PromptSystem)


def test_prompt_system_batches_one_call_per_chunk_and_cleans_outputs():
    model = _room_model()
    system = PromptSystem(model)
    out = system.translate(["one", "two", "three"], "eng", "fra")
    assert out == ["[French] one", "[French] two", "[French] three"]
    assert model.batches == [3]
    assert system.translate(["same"], "fra", "fra") == ["same"]  # identity: no model call
    assert model.batches == [3]


def test_prompt_system_uses_the_last_k_context_segments():
    model = _room_model()
    system = PromptSystem(model, "baseline", context_window=2)
    context = [[], ["s1"], ["s1", "s2", "s3"]]
    system.translate(["a", "b", "c"], "eng", "fra", context=context)
    by_message = {p.rsplit("<message>", 1)[1].removesuffix("</message>"): p for p in model.prompts}
    assert "Context" not in by_message["a"]
    assert "colleague: s1" in by_message["b"]
    assert "colleague: s2" in by_message["c"] and "colleague: s3" in by_message["c"]
    assert "s1" not in by_message["c"]  # only the last K = 2
    no_ctx = _room_model()
    PromptSystem(no_ctx, context_window=0).translate(["b"], "eng", "fra", context=[["s1"]])
    assert "s1" not in no_ctx.prompts[0]


def test_signature_changes_with_prompt_variant_and_context_window():
    model = FakeChatModel(default="x")
    base, strict = PromptSystem(model, "baseline"), PromptSystem(model, "user_translate/strict")
    ctx = PromptSystem(model, "baseline", context_window=3)
    assert base.signature()["model_fingerprint"] == model.fingerprint
    assert base.signature()["graph_spec_hash"] == "-"
    assert base.signature()["prompt_hash"] != strict.signature()["prompt_hash"]
    assert base.signature()["prompt_hash"] == ctx.signature()["prompt_hash"]
    assert base.signature() != ctx.signature()
    assert (base.name, strict.name, ctx.name) == (
        "fake:scripted@baseline",
        "fake:scripted@strict",
        "fake:scripted@baseline+ctx3",
    )


def test_prompt_system_rejects_bad_arguments():
    with pytest.raises(ValueError, match="context_window"):
        PromptSystem(FakeChatModel(default="x"), context_window=-1)
    with pytest.raises(ValueError, match="chat model"):
        PromptSystem(object())
    with pytest.raises(ValueError, match="seq2seq model"):
        Seq2SeqSystem(object())


class _FakeSeq2Seq:
    spec = "seq2seq:fake"
    fingerprint = "fp-s2s"

    def __init__(self):
        self.calls = []

    def translate(self, texts, src, tgt):
        from aya_lab.models import GenerationResult

        self.calls.append((list(texts), src, tgt))
        return [GenerationResult(f"{tgt}:{t}", 1, 1) for t in texts]


def test_seq2seq_system_translates_in_one_call_and_ignores_context():
    model = _FakeSeq2Seq()
    system = Seq2SeqSystem(model)
    assert system.translate(["a", "b"], "eng", "swh", context=[["x"], ["y"]]) == ["swh:a", "swh:b"]
    assert model.calls == [(["a", "b"], "eng", "swh")]
    assert system.signature() == {"model_fingerprint": "fp-s2s", "prompt_hash": "-", "graph_spec_hash": "-"}
    assert system.name == "seq2seq:fake"


def test_prompt_systems_through_the_evaluator(mini_data):
    from aya_lab.eval import evaluate_translation

    model = _room_model()
    systems = [PromptSystem(model, "baseline", name="base"), PromptSystem(model, "strict", context_window=3, name="s")]
    res = evaluate_translation(systems, "ntrex128", "eng-fra", n=6, n_bootstrap=20, n_ar=20, langid=False)
    calls = res.df[(res.df["metric"] == "llm_calls")].set_index("system")["score"]
    assert calls.to_dict() == {"base": 6.0, "s": 6.0}
    assert set(res.df["prompt_hash"]) == {systems[0].prompt.content_hash, systems[1].prompt.content_hash}
    assert model.batches == [6, 6]  # one batch per chunk and system


def test_sweep_translation_runs_each_variant_and_names_bad_ones(mini_data):
    from aya_lab.eval import sweep_translation
    from aya_lab.prompts import PromptError

    res = sweep_translation(
        ["baseline", "user_translate/strict"],
        "ntrex128",
        model=_room_model(),
        pairs="eng-fra",
        n=4,
        n_bootstrap=20,
        n_ar=20,
        langid=False,
    )
    assert res.systems == ["baseline", "strict"] and res.baseline == "baseline"
    with pytest.raises(PromptError, match="unknown user_translate variant 'nope'; variants: baseline, (.*, )?strict"):
        sweep_translation(["baseline", "nope"], model=_room_model())
    with pytest.raises(PromptError, match="no variants"):
        sweep_translation([], model=_room_model())
    with pytest.raises(PromptError, match="repeated: strict"):
        sweep_translation("strict,strict", model=_room_model())
    with pytest.raises(ValueError, match="pass pairs for dataset 'ntrex128'"):
        sweep_translation(["baseline"], "ntrex128", model=_room_model())


def test_routing_and_summarizer_sweeps_are_their_own_typed_evaluators():
    from aya_lab.datasets.project import load_routing_examples, load_transcripts
    from aya_lab.eval import Report, evaluate_summarizers, sweep_routing

    model = FakeChatModel(rules=[("Tool:", "chat")], default="3")
    sw = sweep_routing(
        ["baseline", "fewshot"], model=model, examples=load_routing_examples()[:8], translate="gold", n_bootstrap=50
    )
    assert isinstance(sw, Report) and sw.task == "routing" and sw.systems == ["baseline", "fewshot"]
    res = evaluate_summarizers(["two_call"], model=model, transcripts=load_transcripts()[:2], n_bootstrap=50)
    assert isinstance(res, Report) and res.systems == ["two_call"]
    with pytest.raises(ValueError, match="unknown summarizer variant 'three_call'"):
        evaluate_summarizers(["three_call"], model=model, transcripts=load_transcripts()[:2])


def test_cli_translation_accepts_model_specs(mini_data, capsys):
    from aya_lab.cli import main

    argv = [
        "eval",
        "run",
        "translation",
        "--systems",
        "a=fake:bonjour,b=fake:salut@strict+ctx2",
        "--dataset",
        "ntrex128",
    ]
    argv += [
        "--pairs",
        "eng-fra",
        "--n",
        "4",
        "--n-bootstrap",
        "20",
        "--n-ar",
        "20",
        "--no-progress",
        "--no-faithfulness",
    ]
    assert main(argv) == 0
    assert "eng-fra" in capsys.readouterr().out
    argv = ["eval", "run", "translation", "--systems", "smollm2@nope", "--dataset", "ntrex128", "--pairs", "eng-fra"]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: no prompt variant 'nope'") and "\n" not in err


@pytest.mark.integration
def test_prompt_system_on_a_tiny_llama_through_the_evaluator(tiny_llama_dir):
    from aya_lab.eval import evaluate_translation
    from aya_lab.models import load_model

    model = load_model(f"hf:{tiny_llama_dir}", settings={"max_new_tokens": 6}, reuse=False)
    system = PromptSystem(model, "baseline", context_window=2, name="tiny")
    res = evaluate_translation([system], "workplace", "eng-fra", n=4, n_bootstrap=20, n_ar=10, langid=False)
    assert len(res.items) == 4
    row = res.df[(res.df["metric"] == "llm_calls")].iloc[0]
    assert row["score"] == 4 and row["model_fingerprint"] == model.fingerprint
    assert row["prompt_hash"] == system.prompt.content_hash
    again = evaluate_translation([system], "workplace", "eng-fra", n=4, n_bootstrap=20, n_ar=10, langid=False)
    assert list(again.items["hypothesis"]) == list(res.items["hypothesis"])  # cached, same outputs
