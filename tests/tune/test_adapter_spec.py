"""Adapters are models (issue 26, part 2): ``BASE+lora:PATH`` parses with any base, loads merged on transformers
(outputs equal PEFT's unmerged model), carries the adapter's hash in its fingerprint (so the generation cache
never mixes base and adapter, or two adapters), and works where a model spec does (evaluation systems,
notebook cache files)."""

from __future__ import annotations

import shutil

import pytest
import torch
from langchain_core.messages import HumanMessage

from aya_lab.eval.translation.systems import resolve_system
from aya_lab.models import GenerationCache, load_model, parse_spec
from aya_lab.models.adapter import read_adapter
from aya_lab.models.errors import AdapterError
from aya_lab.notebook import model_weights
from aya_lab.tune import train_adapter
from tests.tune.conftest import QUICK


@pytest.mark.parametrize(
    ("spec", "kind", "target", "engine", "adapter"),
    [
        ("gemma3-270m+lora:runs/adapters/swh", "gemma3-270m", "", None, "runs/adapters/swh"),
        ("smollm2~transformers+lora:a", "smollm2", "", "transformers", "a"),
        ("smollm2+lora:runs/a~llama.cpp", "smollm2", "", "llama.cpp", "runs/a"),
        ("smollm2+lora:~/adapters/x", "smollm2", "", None, "~/adapters/x"),
        ("hf:org/name+lora:/abs/path", "hf", "org/name", None, "/abs/path"),
        ("gguf:/m/gemma.gguf+lora:a", "gguf", "/m/gemma.gguf", None, "a"),
    ],
)
def test_the_spec_grammar(spec, kind, target, engine, adapter):
    parsed = parse_spec(spec)
    assert (parsed.kind, parsed.target, parsed.engine, parsed.adapter, parsed.text) == (
        kind,
        target,
        engine,
        adapter,
        spec,
    )
    assert parse_spec(spec.split("+lora:")[0]).adapter is None


def test_the_fingerprint_changes_with_the_adapter(tiny_base, trained, route_file, tmp_path):
    base = load_model(f"hf:{tiny_base}")
    adapted = load_model(trained.spec)
    other = train_adapter(task="route", model=f"hf:{tiny_base}", data=str(route_file), out=tmp_path / "seed1",
                          **{**QUICK, "seed": 1, "steps": 2})  # fmt: skip
    second = load_model(other.spec)
    prints = {base.fingerprint, adapted.fingerprint, second.fingerprint}
    assert len(prints) == 3
    assert adapted.fingerprint.startswith(f"{base.weights}+{trained.card['adapter']}#")
    assert load_model(trained.spec, reuse=False).fingerprint == adapted.fingerprint  # stable across loads
    shutil.rmtree(trained.path.parent / "moved", ignore_errors=True)
    moved = shutil.copytree(trained.path, trained.path.parent / "moved")
    assert load_model(f"hf:{tiny_base}+lora:{moved}").fingerprint == adapted.fingerprint  # content, not place


def test_an_adapter_retrained_in_place_is_loaded_anew(tiny_base, route_file, tmp_path):
    options = {"task": "route", "model": f"hf:{tiny_base}", "data": str(route_file), "out": tmp_path / "a", **QUICK}
    first = load_model(train_adapter(**options).spec)
    again = train_adapter(**{**options, "seed": 7, "overwrite": True, "restart": True})
    assert load_model(again.spec).fingerprint != first.fingerprint


def test_the_merged_model_computes_what_the_unmerged_adapter_computes(tiny_base, trained):
    from peft import PeftModel
    from transformers import AutoModelForCausalLM

    merged = load_model(trained.spec, reuse=False)
    unmerged = PeftModel.from_pretrained(AutoModelForCausalLM.from_pretrained(tiny_base), str(trained.path)).eval()
    base = AutoModelForCausalLM.from_pretrained(tiny_base).eval()
    ids = merged.tokenizer("Request: what is the travel policy?", return_tensors="pt")["input_ids"]
    with torch.no_grad():
        got, want, plain = (m(ids).logits for m in (merged.hf_model, unmerged, base))
    assert torch.allclose(got, want, atol=1e-4)
    assert not torch.allclose(got, plain, atol=1e-2)  # the adapter changed something


def test_the_generation_cache_keeps_base_and_adapter_apart(tiny_base, trained, tmp_path):
    cache = GenerationCache(tmp_path / "gen.sqlite", "readwrite")
    conversation = [HumanMessage("hello")]
    for spec in (f"hf:{tiny_base}", trained.spec):
        model = load_model(spec, settings={"max_new_tokens": 3}, reuse=False)
        model.cache = cache
        assert model.generate_texts([conversation])[0].cached is False  # the adapter never hits the base's row
    assert len(cache) == 2


def test_adapters_work_where_model_specs_do(tiny_base, trained):
    system = resolve_system(f"hf:{tiny_base}+lora:{trained.path}@baseline+ctx2")
    assert system.model.spec == trained.spec and system.context_window == 2
    assert system.signature()["model_fingerprint"] == load_model(trained.spec).fingerprint
    assert (
        model_weights(trained.spec) == f"{read_adapter(trained.path).card['base']['weights']}+{trained.card['adapter']}"
    )
    assert model_weights(f"hf:{tiny_base}") == read_adapter(trained.path).card["base"]["weights"]
    assert model_weights("smollm2") is None
    with pytest.raises(AdapterError, match="was trained on"):  # the embedded names are system kinds too
        resolve_system(f"gemma3-270m+lora:{trained.path}@strict")
