"""The real architectures researchers point aya_lab at, as tiny random models built on the fly.

Chat families (``hf:PATH``): Cohere / Aya Expanse, Qwen2.5, Qwen3, Llama 3, Gemma 3 (sliding window) and
the tiny Llama with SmolLM2's tokenizer; seq2seq families (``seq2seq:PATH``): NLLB-200 (M2M100 with
FLORES-200 codes) and Marian. For each: a room send (chat) or an evaluation (seq2seq) runs end to end
through the spec string, batched greedy output equals one-by-one output under padding (compared on the
generated token ids, not only the text), the fingerprint is stable, and the dtype is bf16 on CUDA and
fp32 on CPU. Everything runs with one torch thread: on a shared 2-core machine a tiny model's decoding
step is ~50x slower when threads compete.
"""

from __future__ import annotations

import pytest
import torch
import transformers
from langchain_core.embeddings import DeterministicFakeEmbedding
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage

from aya_lab.eval import Seq2SeqSystem, evaluate_translation
from aya_lab.models import GenerationCache, load_chat_model, load_model
from aya_lab.room import ChatRoom
from tests.fakes import CHAT_FAMILIES, tiny_chat_family, tiny_llama, tiny_marian, tiny_nllb

pytestmark = pytest.mark.integration

CHAT = [*CHAT_FAMILIES, "smollm2-llama"]
SEQ2SEQ = ["nllb", "marian"]
UNEVEN = [
    [HumanMessage("hi")],
    [SystemMessage("You translate."), HumanMessage("a much longer message about the budget report due on friday")],
    [HumanMessage("hello team"), AIMessage("Hello!"), HumanMessage("the meeting moved to monday")],
    [HumanMessage("ok")],
]
# What each family's rendered prompt looks like around a system + user turn (facts about the format).
RENDERED = {
    "cohere": ("<BOS_TOKEN><|START_OF_TURN_TOKEN|><|SYSTEM_TOKEN|>S<|END_OF_TURN_TOKEN|>", "<|CHATBOT_TOKEN|>"),
    "qwen2": ("<|im_start|>system\nS<|im_end|>\n", "<|im_start|>assistant\n"),
    "qwen3": ("<|im_start|>system\nS<|im_end|>\n", "<|im_start|>assistant\n<think>\n\n</think>\n\n"),
    "llama3": ("<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\nS<|eot_id|>", "<|end_header_id|>\n\n"),
    "gemma3": ("<bos><start_of_turn>user\nS\n\nU<end_of_turn>\n", "<start_of_turn>model\n"),
    "smollm2-llama": ("<|im_start|>system\nS<|im_end|>\n", "<|im_start|>assistant\n"),
}
END_OF_TURN = {
    "cohere": "<|END_OF_TURN_TOKEN|>",
    "qwen2": "<|im_end|>",
    "qwen3": "<|im_end|>",
    "llama3": "<|eot_id|>",
    "gemma3": "<end_of_turn>",
    "smollm2-llama": "<|im_end|>",
}


@pytest.fixture(scope="module", autouse=True)
def _one_torch_thread():
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def build(family: str, path, seed: int = 0):
    if family == "smollm2-llama":
        return tiny_llama(path, seed=seed, context=2048)
    if family == "nllb":
        return tiny_nllb(path, seed=seed)
    if family == "marian":
        return tiny_marian(path, seed=seed)
    return tiny_chat_family(family, path, seed=seed)


@pytest.fixture(scope="module")
def family_dir(tmp_path_factory):
    built: dict[str, object] = {}

    def get(family: str):
        if family not in built:
            built[family] = build(family, tmp_path_factory.mktemp(f"tiny-{family}"))
        return built[family]

    return get


def spy_generate(hf_model, monkeypatch) -> dict[tuple[int, ...], list[int]]:
    """Record, per unpadded input row, the raw generated ids (prompt and trailing padding removed)."""
    seen: dict[tuple[int, ...], list[int]] = {}
    original = hf_model.generate
    pad = hf_model.generation_config.pad_token_id

    def spy(**kwargs):
        out = original(**kwargs)
        width = 0 if hf_model.config.is_encoder_decoder else kwargs["input_ids"].shape[1]
        for ids, mask, row in zip(kwargs["input_ids"], kwargs["attention_mask"], out.tolist()):
            new = row[width:]
            while len(new) > 1 and new[-1] == pad:
                new.pop()
            seen[tuple(ids[mask.bool()].tolist())] = new
        return out

    monkeypatch.setattr(hf_model, "generate", spy)
    return seen


# -- chat families ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("family", CHAT)
def test_chat_format_and_stop_tokens(family, family_dir):
    model = load_model(f"hf:{family_dir(family)}", settings={"max_new_tokens": 4}, reuse=False)
    prompt = model.render([SystemMessage("S"), HumanMessage("U")])
    head, tail = RENDERED[family]
    assert prompt.startswith(head) and prompt.endswith(tail)
    tok = model.tokenizer
    assert tok.convert_tokens_to_ids(END_OF_TURN[family]) in model._stop_ids()
    assert tok.padding_side == "left" and tok.pad_token_id is not None  # Llama 3 has no pad: EOS stands in
    if family == "smollm2-llama":  # enable_thinking=False leaves a template that ignores it unchanged
        plain = tok.apply_chat_template([{"role": "user", "content": "U"}], tokenize=False, add_generation_prompt=True)
        assert model.render([HumanMessage("U")]) == plain


def test_gemma_template_rejects_non_alternating_turns(family_dir):
    model = load_model(f"hf:{family_dir('gemma3')}", settings={"max_new_tokens": 4}, reuse=False)
    with pytest.raises(Exception, match="must alternate"):
        model.render([HumanMessage("a"), HumanMessage("b")])


USERS = {"amara": "swh", "lena": "German", "kofi": "en"}


def open_room(tmp_path, model):
    kb = tmp_path / "kb"
    kb.mkdir()
    (kb / "travel.md").write_text("# Travel policy\n## Flights\nEconomy class for flights under 6 hours.\n")
    return ChatRoom.open(
        tmp_path / "room.sqlite", model=model, users=USERS, kb_dir=kb, embeddings=DeterministicFakeEmbedding(size=32)
    )


@pytest.mark.parametrize("family", CHAT)
def test_room_send_end_to_end(family, family_dir, tmp_path):
    users = USERS
    room = open_room(tmp_path, f"hf:{family_dir(family)}")  # the spec string, default settings
    try:
        report = room.send("amara", "Habari, mkutano umehamishwa hadi Ijumaa")
        assert set(report.delivered) == set(users)
        assert report.delivered["amara"] == "Habari, mkutano umehamishwa hadi Ijumaa"
        generations = [g for visit in room.trace(report.run_id) for g in visit.generations]
        head = RENDERED[family][0].split("S", 1)[0]
        assert generations and all(g["prompt"].startswith(head) for g in generations)
        assert report.model_calls == 2 and report.completion_tokens > 0
    finally:
        room.close()


def test_aya_path_on_the_strictest_template(family_dir, tmp_path):
    """Gemma 3 refuses non-alternating turns: every prompt of Aya's path (translate, route, answer,
    deliver) must alternate. Short generations keep it quick."""
    model = load_chat_model(f"hf:{family_dir('gemma3')}", settings={"max_new_tokens": 12}, reuse=False)
    room = open_room(tmp_path, model)
    try:
        report = room.send("lena", "@aya was ist unsere Reiserichtlinie?")
        assert report.aya_reply is not None and set(report.aya_reply) == set(USERS)
        assert report.model_calls >= 4
    finally:
        room.close()


@pytest.mark.parametrize("family", CHAT)
def test_batched_equals_one_by_one_under_left_padding(family, family_dir, monkeypatch):
    model = load_model(f"hf:{family_dir(family)}", settings={"max_new_tokens": 8}, reuse=False)
    model.cache = GenerationCache("unused", "off")
    seen = spy_generate(model.hf_model, monkeypatch)
    model.batch_size = 8
    batched = [r.text for r in model.generate_texts(UNEVEN)]
    batched_ids, seen_keys = dict(seen), len(seen)
    seen.clear()
    model.batch_size = 1
    single = [r.text for r in model.generate_texts(UNEVEN)]
    assert seen_keys == len(UNEVEN) and seen == batched_ids
    assert batched == single
    assert len({tuple(ids) for ids in seen.values()}) >= 3  # the outputs depend on the prompt


@pytest.mark.parametrize("family", [*CHAT, *SEQ2SEQ])
def test_fingerprint_is_stable_and_names_the_weights(family, family_dir, tmp_path):
    kind = "seq2seq" if family in SEQ2SEQ else "hf"
    settings = {"max_new_tokens": 4}
    first = load_model(f"{kind}:{family_dir(family)}", settings=settings, reuse=False).fingerprint
    again = load_model(f"{kind}:{family_dir(family)}", settings=settings, reuse=False).fingerprint
    rebuilt = load_model(f"{kind}:{build(family, tmp_path / 'same')}", settings=settings, reuse=False).fingerprint
    other = load_model(f"{kind}:{build(family, tmp_path / 'other', seed=1)}", settings=settings, reuse=False)
    assert first == again == rebuilt and first.startswith("sha256:")
    assert other.fingerprint != first


@pytest.mark.parametrize("family", [*CHAT, *SEQ2SEQ])
def test_bf16_on_cuda_and_fp32_on_cpu(family, family_dir, monkeypatch):
    kind = "seq2seq" if family in SEQ2SEQ else "hf"
    spec = f"{kind}:{family_dir(family)}"
    cpu = load_model(spec, settings={"max_new_tokens": 4}, reuse=False)
    assert cpu.device == "cpu" and _dtype(cpu) == torch.float32
    moved: list[str] = []
    original_to = transformers.PreTrainedModel.to

    def to(self, *args, **kwargs):  # no GPU here: record the move to CUDA instead of making it
        if args and str(args[0]).startswith("cuda"):
            moved.append(str(args[0]))
            return self
        return original_to(self, *args, **kwargs)

    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(transformers.PreTrainedModel, "to", to)
    gpu = load_model(spec, settings={"max_new_tokens": 4}, reuse=False)
    assert gpu.device == "cuda" and moved == ["cuda"] and _dtype(gpu) == torch.bfloat16


def _dtype(model):
    return (model.hf_model if hasattr(model, "hf_model") else model.model).dtype


# -- seq2seq families ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("family", SEQ2SEQ)
def test_seq2seq_evaluation_end_to_end(family, family_dir):
    model = load_model(f"seq2seq:{family_dir(family)}", settings={"max_new_tokens": 12}, reuse=False)
    res = evaluate_translation(
        [Seq2SeqSystem(model)], "workplace", "eng-fra", n=3, n_bootstrap=20, n_ar=10, langid=False
    )
    assert len(res.items) == 3
    assert {"bleu", "chrf"} <= {m.lower() for m in res.df["metric"]}
    assert set(res.df["model_fingerprint"]) == {model.fingerprint}


@pytest.mark.parametrize("family", SEQ2SEQ)
def test_seq2seq_batched_equals_one_by_one(family, family_dir, monkeypatch):
    model = load_model(f"seq2seq:{family_dir(family)}", settings={"max_new_tokens": 6}, reuse=False)
    model.cache = GenerationCache("unused", "off")
    seen = spy_generate(model.model, monkeypatch)
    texts = ["the meeting is on friday", "send the report please", "thanks team", "a"]
    tgt = "swh" if family == "nllb" else "fra"
    batched = [r.text for r in model.translate(texts, "eng", tgt)]
    batched_ids = dict(seen)
    seen.clear()
    model.batch_size = 1
    single = [r.text for r in model.translate(texts, "eng", tgt)]
    assert batched == single and seen == batched_ids and len(seen) == len(texts)


@pytest.mark.parametrize("tgt,code", [("swh", "swh_Latn"), ("Hausa", "hau_Latn"), ("fr", "fra_Latn")])
def test_nllb_language_codes(tgt, code, family_dir, monkeypatch):
    model = load_model(f"seq2seq:{family_dir('nllb')}", settings={"max_new_tokens": 4}, reuse=False)
    assert model.family == "nllb" and model.lang_code(tgt) == code
    calls = []
    original = model.model.generate

    def spy(**kwargs):
        calls.append(kwargs)
        return original(**kwargs)

    monkeypatch.setattr(model.model, "generate", spy)
    model.translate(["the team"], "English", tgt)
    tok = model.tokenizer
    (call,) = calls
    assert call["forced_bos_token_id"] == tok.convert_tokens_to_ids(code)
    assert call["input_ids"][0, 0].item() == tok.convert_tokens_to_ids("eng_Latn")  # source code leads
