"""The training examples are the room's own prompts with the answers its parsers read back; the split and the
batch order are seeded and independent of where a run stopped; a long prompt loses its oldest tokens."""

from __future__ import annotations

import json

import pytest

from aya_lab.agents.summarizer import OneCallSummarizer
from aya_lab.agents.user import UserAgent
from aya_lab.datasets.project import load_transcripts
from aya_lab.eval.summarization import transcript_messages
from aya_lab.models import load_model
from aya_lab.models.fake import FakeChatModel
from aya_lab.models.hf_causal import HFChatModel
from aya_lab.paths import project_root
from aya_lab.prompts import completion_request, fit_prompt
from aya_lab.tune.batches import batch_rows, split_indices, tokenize
from aya_lab.tune.errors import TrainingDataError
from aya_lab.tune.examples import load_task_data, onecall_target

SYNTH = project_root() / "data" / "synth" / "summarize.jsonl"


@pytest.fixture(scope="module")
def chat_model(tiny_base):
    return load_model(f"hf:{tiny_base}", reuse=False)


@pytest.fixture(scope="module")
def base_model(tmp_path_factory):
    """A tiny Gemma 3 without a chat template, loaded as the embedded base model is (completion prompts only)."""
    from tests.fakes import tiny_gemma3

    folder = tiny_gemma3(tmp_path_factory.mktemp("gemma"))
    return HFChatModel.load("tiny-gemma3", str(folder), "tiny", require_chat_template=False)


def test_the_one_call_answer_reads_back_as_the_gold():
    for t in load_transcripts(SYNTH)[:40]:
        model = FakeChatModel(spec="fake:gold", responses=[onecall_target(t)])
        result = OneCallSummarizer(model).summarize(t.request, transcript_messages(t))
        assert result.count_requested == t.gold_count, t.id
        assert result.action_items == [(a.owner.lower(), a.task) for a in t.gold_action_items], t.id
        assert result.summary == t.reference_summary


def test_translation_examples_use_the_user_agents_prompt(chat_model, base_model, tmp_path):
    src, ref = tmp_path / "en.txt", tmp_path / "sw.txt"
    src.write_text("The truck is late.\nSee you tomorrow.\n", encoding="utf-8")
    ref.write_text("Lori limechelewa.\nTutaonana kesho.\n", encoding="utf-8")
    for model in (chat_model, base_model):
        data = load_task_data("translate", f"files:{src},{ref}", model, pair="eng-swh")
        assert data.examples[0].prompt == UserAgent(model).conversation("The truck is late.", "eng", "swh")
        assert data.examples[0].target == "Lori limechelewa." and data.files == [str(src), str(ref)]
    assert data.prompt.name == "user_translate/completion"  # the base model gets the few-shot completion prompt
    (row,), _ = tokenize(base_model, data.examples[:1], 512)
    prompt = base_model.render(data.examples[0].prompt)
    assert prompt.endswith("Swahili:") and completion_request(data.examples[0].prompt) is not None
    tok = base_model.tokenizer
    assert row.ids[: row.answer_from] == tok(prompt, add_special_tokens=False)["input_ids"]
    assert tok.decode(row.ids[row.answer_from :]) == " Lori limechelewa.\n"  # the answer, then the stop string


def test_chat_answers_end_with_the_end_of_turn_token(chat_model, route_file):
    data = load_task_data("route", str(route_file), chat_model)
    first = json.loads(route_file.read_text().splitlines()[0])
    assert data.examples[0].prompt == fit_prompt("supervisor/baseline", chat_model).render(request=first["text_en"])
    (row,), _ = tokenize(chat_model, data.examples[:1], 512)
    assert chat_model.tokenizer.decode(row.ids[row.answer_from :]) == first["label"] + chat_model.tokenizer.eos_token


def test_a_long_prompt_loses_its_oldest_tokens_and_a_long_answer_is_dropped(chat_model, route_file):
    data = load_task_data("route", str(route_file), chat_model)
    (full,), _ = tokenize(chat_model, data.examples[:1], 512)
    (cut,), dropped = tokenize(chat_model, data.examples[:1], 40)
    assert dropped == 0 and len(cut.ids) == 40 and cut.ids[-10:] == full.ids[-10:] and cut.ids[0] != full.ids[0]
    long = [type(data.examples[0])(data.examples[0].prompt, "word " * 40, "x")]
    assert tokenize(chat_model, long, 40) == ([], 1)


def test_the_split_is_seeded_and_holds_out_at_least_one():
    train, val = split_indices(30, validation=0.1, max_validation=64, max_train=100, seed=0, source="f")
    assert len(val) == 3 and len(train) == 27 and not set(train) & set(val)
    assert (train, val) == split_indices(30, validation=0.1, max_validation=64, max_train=100, seed=0, source="f")
    assert split_indices(30, validation=0.1, max_validation=64, max_train=100, seed=1, source="f")[1] != val
    assert len(split_indices(3, validation=0.01, max_validation=64, max_train=100, seed=0, source="f")[1]) == 1
    assert len(split_indices(1000, validation=0.5, max_validation=64, max_train=10, seed=0, source="f")[0]) == 10
    with pytest.raises(TrainingDataError, match="f has 1 usable example"):
        split_indices(1, validation=0.1, max_validation=64, max_train=100, seed=0, source="f")


def test_the_batch_of_a_step_does_not_depend_on_the_steps_before_it():
    pool, size = 10, 4
    rows = [batch_rows(step, pool, size, seed=3) for step in range(5)]  # 20 positions: two whole epochs
    flat = [r for batch in rows for r in batch]
    assert sorted(flat[:10]) == list(range(10)) and sorted(flat[10:20]) == list(range(10))
    assert flat[:10] != flat[10:20]  # each epoch its own order
    assert batch_rows(3, pool, size, seed=3) == rows[3] and batch_rows(3, pool, size, seed=4) != rows[3]


def test_the_answer_only_loss_equals_the_models_own_loss_and_its_gradient(tiny_base):
    import torch
    from transformers import AutoModelForCausalLM

    from aya_lab.tune.batches import Tokenized, answer_loss, collate

    model = AutoModelForCausalLM.from_pretrained(tiny_base)
    # rows of different lengths (right padding) and answers of different lengths, one answer of one token
    rows = [
        Tokenized(list(range(10, 30)), 15, "a"),
        Tokenized(list(range(40, 52)), 4, "b"),
        Tokenized([5, 6, 7], 2, "c"),
    ]
    batch = collate(rows, pad_id=0, device="cpu")
    full = model(**batch).loss
    fast = answer_loss(model, batch)
    assert torch.allclose(fast, full, atol=1e-5)
    (g_full,) = torch.autograd.grad(full, model.lm_head.weight)
    (g_fast,) = torch.autograd.grad(answer_loss(model, batch), model.lm_head.weight)
    assert torch.allclose(g_fast, g_full, atol=1e-6)
    # a loss that ignored the answer mask would differ: the prompt tokens are not free
    assert not torch.allclose(fast, model(**{**batch, "labels": batch["input_ids"]}).loss, atol=1e-3)
