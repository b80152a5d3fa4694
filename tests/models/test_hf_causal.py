"""The real transformers path on a tiny random Llama (SmolLM2 tokenizer and chat template)."""

import json
import logging

import pytest
from langchain_core.messages import HumanMessage, SystemMessage
from langchain_core.prompts import ChatPromptTemplate

from aya_lab.models import GenerationCache, NoChatTemplateError, load_model, record_generations
from aya_lab.models.hf_causal import HFChatModel
from tests.fakes import tiny_llama

pytestmark = pytest.mark.integration

UNEVEN = [
    [HumanMessage("hi")],
    [SystemMessage("You translate."), HumanMessage("a much longer message about the budget report due on friday")],
    [HumanMessage("hello there team, the meeting moved")],
    [HumanMessage("ok")],
]


def _model(path, **kw):
    return load_model(f"hf:{path}", settings={"max_new_tokens": 8}, reuse=False, **kw)


def test_batched_equals_one_by_one_with_uneven_lengths(tiny_llama_dir):
    model = _model(tiny_llama_dir)
    model.cache = GenerationCache("unused", "off")
    model.batch_size = 8
    batched = [r.text for r in model.generate_texts(UNEVEN)]
    model.batch_size = 1
    single = [r.text for r in model.generate_texts(UNEVEN)]
    assert batched == single
    assert len(set(batched)) == len(UNEVEN)  # distinct prompts give distinct (random-model) outputs
    assert all(batched)


def test_left_padding_and_token_counts(tiny_llama_dir):
    model = _model(tiny_llama_dir)
    prompts = [model.render(c) for c in UNEVEN]
    inputs, truncated = model._encode(prompts)
    mask = inputs["attention_mask"]
    assert not any(truncated)
    assert (mask[:, -1] == 1).all()  # left padding: every row ends with a real token
    assert mask.sum(1).tolist() == [model.count_tokens(p) for p in prompts]
    results = model.generate_texts(UNEVEN)
    assert [r.prompt_tokens for r in results] == [model.count_tokens(p) for p in prompts]
    assert all(0 < r.completion_tokens <= 8 for r in results)


def test_one_padded_generate_call_per_batch(tiny_llama_dir, monkeypatch):
    model = _model(tiny_llama_dir)
    model.batch_size = 3
    calls = []
    original = model.hf_model.generate

    def spy(**kwargs):
        calls.append(kwargs["input_ids"].shape[0])
        return original(**kwargs)

    monkeypatch.setattr(model.hf_model, "generate", spy)
    model.generate_texts(UNEVEN + UNEVEN[:1])  # a duplicate prompt is generated once
    assert sorted(calls) == [1, 3]


def test_cache_hit_skips_generate(tiny_llama_dir, monkeypatch):
    model = _model(tiny_llama_dir)
    first = model.generate_texts(UNEVEN[:2])
    monkeypatch.setattr(model.hf_model, "generate", lambda **k: pytest.fail("generate called on a hit"))
    second = model.generate_texts(UNEVEN[:2])
    assert [r.text for r in first] == [r.text for r in second]
    assert all(r.cached for r in second)


def test_fingerprint_stable_and_sensitive(tiny_llama_dir, tmp_path):
    a, b = _model(tiny_llama_dir), _model(tiny_llama_dir)
    assert a.fingerprint == b.fingerprint
    assert a.fingerprint.startswith("sha256:")
    hot = load_model(f"hf:{tiny_llama_dir}", settings={"max_new_tokens": 8, "temperature": 0.8}, reuse=False)
    assert hot.fingerprint != a.fingerprint
    other = tiny_llama(tmp_path / "other", seed=1)
    assert _model(other).fingerprint != a.fingerprint


def test_composes_with_langchain_prompts(tiny_llama_dir):
    model = _model(tiny_llama_dir)
    chain = ChatPromptTemplate.from_messages([("system", "Be brief."), ("human", "{q}")]) | model
    out = chain.batch([{"q": "one"}, {"q": "two two"}])
    assert len(out) == 2 and all(m.content for m in out)
    assert out[0].usage_metadata["output_tokens"] > 0
    with record_generations() as records:
        chain.invoke({"q": "one"})
    assert records[0].prompt.startswith("<|im_start|>system\nBe brief.")
    assert records[0].result.cached is True


def test_long_prompt_truncated_from_left_with_warning(tmp_path, caplog):
    path = tiny_llama(tmp_path / "short", context=64)
    model = _model(path)
    long = " ".join(f"word{i}" for i in range(200))
    with caplog.at_level(logging.WARNING):
        (result,) = model.generate_texts([[HumanMessage(long)]])
    assert result.truncated and result.prompt_tokens == 64 - 8
    assert "truncating it from the left" in caplog.text


def test_model_without_chat_template(tmp_path):
    path = tiny_llama(tmp_path / "nochat")
    cfg = json.loads((path / "tokenizer_config.json").read_text())
    cfg.pop("chat_template", None)
    (path / "tokenizer_config.json").write_text(json.dumps(cfg))
    (path / "chat_template.jinja").unlink(missing_ok=True)
    with pytest.raises(NoChatTemplateError) as err:
        _model(path)
    assert str(path) in str(err.value) and "seq2seq:" in str(err.value)


def test_empty_input_list(tiny_llama_dir):
    with pytest.raises(ValueError, match="empty list"):
        _model(tiny_llama_dir).generate_texts([])


def test_is_an_hfchatmodel_on_cpu_fp32(tiny_llama_dir):
    model = _model(tiny_llama_dir)
    assert isinstance(model, HFChatModel)
    assert model.device == "cpu" and str(model.hf_model.dtype) == "torch.float32"
