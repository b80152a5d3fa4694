"""Test doubles and tiny real models. **Tests only.**

- :class:`FakeRoomModel`: a fake chat model that *translates* by tagging (``[German] text``), keyed on
  the structure of the prompt files, not on their wording.
- :class:`FakeKnowledgeBase`: the knowledge base's contract (``KnowledgeBaseLike``) in memory, with
  scripted retrieval.
- Evaluation systems: :class:`ReferenceSystem` (answers with the reference), :class:`ChatModelTranslator`.
- Tiny *random* real Hugging Face models built on the fly (:func:`tiny_llama`, :func:`tiny_marian`),
  so tests exercise the real transformers code paths without big weights. Weights are seeded, so
  outputs are deterministic (and meaningless).
"""

from __future__ import annotations

import hashlib
import re
import shutil
import string
import tempfile
from collections.abc import Callable, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from langchain_core.messages import HumanMessage, SystemMessage

from aya_lab.models.base import LocalChatModel
from aya_lab.models.fake import FakeChatModel, FakeModelError
from aya_lab.paths import cache_dir
from aya_lab.prompts import PromptFile, list_variants, load_prompt
from aya_lab.rag.facts import Fact
from aya_lab.rag.index import Retrieved
from aya_lab.rag.sections import Section


class FakeRoomModel(FakeChatModel):
    """A fake that *translates* by tagging: a ``user_translate`` prompt for language X about message M
    answers ``[X] M``; an ``aya_translate`` prompt (Aya's request into English) answers ``[English] R``.
    Other prompts follow the FakeChatModel rules (substring ``rules``, then ``responses`` in order, then
    ``default``).

    Keyed on structure, not wording: every variant file of those two tasks becomes a pattern of its own
    template (its text kept literally, each ``{variable}`` a capture, a repeated one a back-reference), and
    the answer is built from the captured variables. Rewording a prompt file changes nothing here; a
    prompt that renames or drops ``target_language``/``message``/``request`` breaks the fake, as it should.
    """

    spec: str = "fake:room"

    def answer(self, prompt: str) -> str:
        for task, reply in _TRANSLATION_ANSWERS.items():
            for variant in list_variants(task):
                match = _template_pattern(self._template_text(load_prompt(f"{task}/{variant}"))).fullmatch(prompt)
                if match:
                    return reply(match.groupdict())
        return super().answer(prompt)

    def _template_text(self, prompt_file: PromptFile) -> str:
        """The prompt file rendered the way this model renders a conversation, its ``{fields}`` left in."""
        messages = [SystemMessage(prompt_file.system)] if prompt_file.system else []
        return self.render([*messages, HumanMessage(prompt_file.user)])


# task -> the tagged answer built from the captured prompt variables
_TRANSLATION_ANSWERS: dict[str, Callable[[dict[str, str]], str]] = {
    "user_translate": lambda v: f"[{v['target_language']}] {v['message'].strip()}",
    "aya_translate": lambda v: f"[English] {v['request'].strip()}",
}


@lru_cache(maxsize=64)
def _template_pattern(template: str) -> re.Pattern[str]:
    """A regex matching ``template`` rendered with any values (``{{``/``}}`` are literal braces)."""
    parts: list[str] = []
    seen: set[str] = set()
    for literal, field, _, _ in string.Formatter().parse(template):
        parts.append(re.escape(literal))
        if field:
            parts.append(f"(?P={field})" if field in seen else f"(?P<{field}>.*)")
            seen.add(field)
    return re.compile("".join(parts), re.DOTALL)


class FakeKnowledgeBase:
    """The knowledge base's contract (:class:`~aya_lab.agents.protocols.KnowledgeBaseLike`) in memory.

    ``relevant`` answers the best ``k`` of the scripted ``hits``, whatever the query. ``add_fact`` keeps
    ``(text, author, run_id)`` in ``rows`` under a string id, as the real store does (simplified: a fact
    of a run is listed at once, with no commit). ``facts`` lists the scripted ``notes``, then the rows,
    dated ``created_at``; ``sections`` lists the scripted ``handbook``; ``forget`` removes a row and appends ``(id, text, author, by, reason)`` to
    ``audit_rows``.
    """

    def __init__(
        self,
        hits: Sequence[Retrieved] = (),
        notes: Sequence[Fact] = (),
        created_at: str = "2026-11-30T10:00:00+00:00",
        handbook: Sequence[Section] = (),
    ) -> None:
        self.hits, self.notes, self.created_at = list(hits), list(notes), created_at
        self.handbook = list(handbook)
        self.rows: dict[str, tuple[str, str, str | None]] = {}
        self.audit_rows: list[tuple[str, str, str, str, str]] = []

    def relevant(self, query: str, k: int = 4, min_score: float | None = None) -> list[Retrieved]:
        return self.hits[:k]

    def add_fact(self, text: str, *, author: str, run_id: str | None = None) -> str:
        fact_id = str(len(self.rows) + len(self.audit_rows) + 1)
        self.rows[fact_id] = (text, author, run_id)
        return fact_id

    def facts(self) -> list[Fact]:
        return [*self.notes, *(Fact(i, text, author, self.created_at) for i, (text, author, _) in self.rows.items())]

    def sections(self) -> list[Section]:
        return list(self.handbook)

    def forget(self, fact_id: str, *, by: str, reason: str = "") -> None:
        text, author, _ = self.rows.pop(str(fact_id))
        self.audit_rows.append((str(fact_id), text, author, by, reason))

    # the run API (RoomKnowledgeBase): facts are listed at once here, so a commit has nothing to do
    def commit_run(self, run_id: str) -> int:
        return sum(1 for _, _, rid in self.rows.values() if rid == run_id)

    def discard_run(self, run_id: str) -> int:
        gone = [i for i, (_, _, rid) in self.rows.items() if rid == run_id]
        for i in gone:
            del self.rows[i]
        return len(gone)

    def pending_runs(self) -> list[str]:
        return []

    def discard_uncommitted(self) -> int:
        return 0


# -- evaluation fakes ------------------------------------------------------------------------------------


class ReferenceSystem:
    """A translation system that answers with the reference (tests: a 'perfect' system).

    Built from ``(sources, references, src, tgt)`` tuples or from ParallelSets; looks each input up by
    (src, tgt, text). ``noise`` > 0 drops that share of words from each answer, deterministically
    (a 'noisy' system); ``calls`` counts ``translate`` calls; ``fail_after`` raises FakeModelError
    on that call (to test resuming a killed run).
    """

    def __init__(
        self, sets: Sequence[Any], *, name: str = "reference", noise: float = 0.0, fail_after: int | None = None
    ) -> None:
        self.name = name
        self.noise = noise
        self.fail_after = fail_after
        self.calls = 0
        self.seen_context: list[list[str]] = []
        self._table: dict[tuple[str, str, str], str] = {}
        for item in sets:
            if hasattr(item, "sources"):
                sources, refs, src, tgt = item.sources, item.references, item.src, item.tgt
                english = getattr(item, "english", None)
                if english is not None and "eng" not in (src, tgt):
                    for a, b, e in zip(sources, refs, english):
                        self._table[(src, "eng", a)] = e
                        self._table[("eng", tgt, e)] = b
            else:
                sources, refs, src, tgt = item
            for a, b in zip(sources, refs):
                self._table[(src, tgt, a)] = b

    def _corrupt(self, text: str) -> str:
        if self.noise <= 0:
            return text
        words = text.split()
        keep = [w for w in words if int(hashlib.sha256(w.encode()).hexdigest()[:8], 16) / 0xFFFFFFFF >= self.noise]
        return " ".join(keep or words[:1])

    def translate(self, texts, src, tgt, *, context=None):
        self.calls += 1
        if self.fail_after is not None and self.calls > self.fail_after:
            raise FakeModelError(f"{self.name}: scripted failure on call {self.calls}")
        if context is not None:
            self.seen_context.extend(context)
        return [self._corrupt(self._table.get((src, tgt, t), t)) for t in texts]

    def signature(self) -> dict[str, str]:
        return {"model_fingerprint": f"fake-{self.name}-{self.noise}", "prompt_hash": "-", "graph_spec_hash": "-"}


class ChatModelTranslator:
    """A translation system over a (fake) chat model: one generation per segment, via generate_texts."""

    def __init__(self, model: LocalChatModel, name: str = "chat") -> None:
        self.model = model
        self.name = name

    def translate(self, texts, src, tgt, *, context=None):
        results = self.model.generate_texts([[HumanMessage(content=t)] for t in texts])
        return [r.text for r in results]

    def signature(self) -> dict[str, str]:
        return {"model_fingerprint": self.model.fingerprint, "prompt_hash": "-", "graph_spec_hash": "-"}


# -- tiny real models -----------------------------------------------------------------------------------
def smollm2_tokenizer_dir() -> Path:
    """A directory with SmolLM2's tokenizer files (extracted from the GGUF once, then reused)."""
    target = cache_dir() / "models" / "smollm2-tokenizer"
    if (target / "tokenizer_config.json").exists():
        return target
    from transformers import AutoTokenizer

    from aya_lab.models.embedded import find_embedded_gguf

    gguf = find_embedded_gguf()
    tok = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
    tmp = Path(tempfile.mkdtemp(dir=target.parent if target.parent.exists() else None))
    tok.save_pretrained(tmp)
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        tmp.rename(target)
    except OSError:
        shutil.rmtree(tmp, ignore_errors=True)
    return target


def tiny_llama(path: str | Path | None = None, *, seed: int = 0, context: int = 256) -> Path:
    """Save a tiny random Llama with SmolLM2's tokenizer to ``path`` (a new temp dir if ``None``)."""
    import torch
    from transformers import AutoTokenizer, LlamaConfig, LlamaForCausalLM

    out = Path(path) if path is not None else Path(tempfile.mkdtemp(prefix="tiny-llama-"))
    tok = AutoTokenizer.from_pretrained(smollm2_tokenizer_dir())
    config = LlamaConfig(
        vocab_size=len(tok),
        hidden_size=16,
        intermediate_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        num_key_value_heads=1,
        max_position_embeddings=context,
        bos_token_id=tok.bos_token_id,
        eos_token_id=tok.eos_token_id,
        pad_token_id=tok.pad_token_id,
        tie_word_embeddings=False,
        initializer_range=0.5,
    )
    torch.manual_seed(seed)
    model = LlamaForCausalLM(config)
    model.save_pretrained(out)
    tok.save_pretrained(out)
    return out


def tiny_marian(path: str | Path | None = None, *, seed: int = 0) -> Path:
    """Save a tiny random Marian model with a word-level toy tokenizer to ``path``."""
    import torch
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import MarianConfig, MarianMTModel, PreTrainedTokenizerFast

    out = Path(path) if path is not None else Path(tempfile.mkdtemp(prefix="tiny-marian-"))
    words = "the a meeting is on friday moved to monday report budget send please thanks team".split()
    vocab = {"<pad>": 0, "</s>": 1, "<unk>": 2, ">>fra<<": 3, ">>deu<<": 4}
    for w in words:
        vocab.setdefault(w, len(vocab))
    core = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>"))
    core.pre_tokenizer = pre_tokenizers.Whitespace()
    from tokenizers.processors import TemplateProcessing

    core.post_processor = TemplateProcessing(single="$A </s>", special_tokens=[("</s>", 1)])
    tok = PreTrainedTokenizerFast(
        tokenizer_object=core,
        pad_token="<pad>",
        eos_token="</s>",
        unk_token="<unk>",
        additional_special_tokens=[">>fra<<", ">>deu<<"],
    )
    config = MarianConfig(
        vocab_size=len(vocab),
        d_model=16,
        encoder_layers=1,
        decoder_layers=1,
        encoder_attention_heads=2,
        decoder_attention_heads=2,
        encoder_ffn_dim=32,
        decoder_ffn_dim=32,
        max_position_embeddings=64,
        pad_token_id=0,
        eos_token_id=1,
        decoder_start_token_id=0,
        forced_eos_token_id=1,
    )
    torch.manual_seed(seed)
    model = MarianMTModel(config)
    model.save_pretrained(out)
    tok.save_pretrained(out)
    return out


# -- tiny random models of the families researchers use (Aya Expanse, Qwen, Llama 3, Gemma 3, NLLB) -----
# Each builder makes a model from its family's transformers config class (2 layers, hidden size 32,
# seeded) and a tokenizer carrying that family's special tokens, BOS/EOS/pad conventions and chat-template
# *format* — written here from the published format, not copied from any checkpoint. What is simplified:
# the tokenizer model is a byte-level BPE without merges (every byte one token), whatever the family's
# real tokenizer; the template keeps only what aya_lab sends (system, user and assistant turns).

_COHERE_TEMPLATE = (
    "{{ bos_token }}{% for m in messages %}<|START_OF_TURN_TOKEN|>"
    "{% if m['role'] == 'system' %}<|SYSTEM_TOKEN|>{% elif m['role'] == 'user' %}<|USER_TOKEN|>"
    "{% else %}<|CHATBOT_TOKEN|>{% endif %}{{ m['content'] }}<|END_OF_TURN_TOKEN|>{% endfor %}"
    "{% if add_generation_prompt %}<|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|>{% endif %}"
)
# ChatML; Qwen2.5 adds a default system turn, Qwen3 an empty think block when thinking is off.
_CHATML_TURNS = (
    "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n"
)
_QWEN25_TEMPLATE = (
    "{% if messages[0]['role'] != 'system' %}<|im_start|>system\nYou are Qwen, created by Alibaba Cloud. "
    "You are a helpful assistant.<|im_end|>\n{% endif %}" + _CHATML_TURNS + "{% endif %}"
)
_QWEN3_TEMPLATE = (
    _CHATML_TURNS
    + "{% if enable_thinking is defined and enable_thinking is false %}<think>\n\n</think>\n\n{% endif %}{% endif %}"
)
_LLAMA3_TEMPLATE = (
    "{{ bos_token }}{% for m in messages %}<|start_header_id|>{{ m['role'] }}<|end_header_id|>\n\n"
    "{{ m['content'] | trim }}<|eot_id|>{% endfor %}"
    "{% if add_generation_prompt %}<|start_header_id|>assistant<|end_header_id|>\n\n{% endif %}"
)
# Gemma has no system role (the system text opens the first user turn) and insists on alternation.
_GEMMA3_TEMPLATE = (
    "{{ bos_token }}{% if messages[0]['role'] == 'system' %}{% set first = messages[0]['content'] + '\n\n' %}"
    "{% set turns = messages[1:] %}{% else %}{% set first = '' %}{% set turns = messages %}{% endif %}"
    "{% for m in turns %}{% if (m['role'] == 'user') != (loop.index0 % 2 == 0) %}"
    "{{ raise_exception('Conversation roles must alternate user/assistant/user/assistant/...') }}{% endif %}"
    "<start_of_turn>{{ 'model' if m['role'] == 'assistant' else 'user' }}\n"
    "{{ (first if loop.first else '') + m['content'] | trim }}<end_of_turn>\n{% endfor %}"
    "{% if add_generation_prompt %}<start_of_turn>model\n{% endif %}"
)

# family -> (config class, tokens: (bos, eos, pad, other specials), template, extra generation EOS tokens)
CHAT_FAMILIES: dict[str, dict[str, Any]] = {
    "cohere": dict(
        config="CohereConfig",
        specials=[
            "<PAD>",
            "<UNK>",
            "<BOS_TOKEN>",
            "<EOS_TOKEN>",
            "<|START_OF_TURN_TOKEN|>",
            "<|END_OF_TURN_TOKEN|>",
            "<|USER_TOKEN|>",
            "<|CHATBOT_TOKEN|>",
            "<|SYSTEM_TOKEN|>",
        ],
        bos="<BOS_TOKEN>",
        eos="<|END_OF_TURN_TOKEN|>",
        pad="<PAD>",
        stop=["<EOS_TOKEN>"],
        template=_COHERE_TEMPLATE,
        extra=dict(logit_scale=0.0625),
    ),
    "qwen2": dict(
        config="Qwen2Config",
        specials=["<|endoftext|>", "<|im_start|>", "<|im_end|>"],
        bos=None,
        eos="<|im_end|>",
        pad="<|endoftext|>",
        stop=["<|endoftext|>"],
        template=_QWEN25_TEMPLATE,
        extra={},
    ),
    "qwen3": dict(
        config="Qwen3Config",
        specials=["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<think>", "</think>"],
        bos=None,
        eos="<|im_end|>",
        pad="<|endoftext|>",
        stop=["<|endoftext|>"],
        template=_QWEN3_TEMPLATE,
        extra=dict(head_dim=16),
    ),
    "llama3": dict(
        config="LlamaConfig",
        specials=[
            "<|begin_of_text|>",
            "<|end_of_text|>",
            "<|start_header_id|>",
            "<|end_header_id|>",
            "<|eom_id|>",
            "<|eot_id|>",
        ],
        bos="<|begin_of_text|>",
        eos="<|eot_id|>",
        pad=None,
        stop=["<|end_of_text|>", "<|eom_id|>"],
        template=_LLAMA3_TEMPLATE,
        extra=dict(rope_parameters={"rope_type": "default", "rope_theta": 500000.0}),
    ),
    "gemma3": dict(
        config="Gemma3TextConfig",
        specials=["<pad>", "<eos>", "<bos>", "<unk>", "<start_of_turn>", "<end_of_turn>"],
        bos="<bos>",
        eos="<eos>",
        pad="<pad>",
        stop=["<end_of_turn>"],
        template=_GEMMA3_TEMPLATE,
        # a window far shorter than aya_lab's prompts, one sliding and one global layer
        # (untied head: a tied random Gemma, its input scaled by sqrt(hidden), repeats its last token)
        extra=dict(
            head_dim=16,
            query_pre_attn_scalar=16,
            sliding_window=16,
            tie_word_embeddings=False,
            layer_types=["sliding_attention", "full_attention"],
        ),
    ),
}
MODEL_CLASSES = {
    "CohereConfig": "CohereForCausalLM",
    "Qwen2Config": "Qwen2ForCausalLM",
    "Qwen3Config": "Qwen3ForCausalLM",
    "LlamaConfig": "LlamaForCausalLM",
    "Gemma3TextConfig": "Gemma3ForCausalLM",
}


def byte_tokenizer(specials: Sequence[str], *, bos: str | None, eos: str, pad: str | None, template: str) -> Any:
    """A byte-level tokenizer (no merges) with ``specials`` first in the vocabulary and a chat template."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    vocab = {s: i for i, s in enumerate(specials)}
    for ch in sorted(pre_tokenizers.ByteLevel.alphabet()):
        vocab[ch] = len(vocab)
    core = Tokenizer(models.BPE(vocab=vocab, merges=[]))
    core.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    core.decoder = decoders.ByteLevel()
    named = {"bos_token": bos, "eos_token": eos, "pad_token": pad}
    tok = PreTrainedTokenizerFast(
        tokenizer_object=core,
        **{k: v for k, v in named.items() if v is not None},
        additional_special_tokens=[s for s in specials if s not in named.values()],
    )
    tok.chat_template = template
    return tok


def tiny_chat_family(family: str, path: str | Path | None = None, *, seed: int = 0, context: int = 2048) -> Path:
    """Save a tiny random causal LM of ``family`` (a key of :data:`CHAT_FAMILIES`) with its chat format."""
    import torch
    import transformers

    spec = CHAT_FAMILIES[family]
    out = Path(path) if path is not None else Path(tempfile.mkdtemp(prefix=f"tiny-{family}-"))
    tok = byte_tokenizer(spec["specials"], bos=spec["bos"], eos=spec["eos"], pad=spec["pad"], template=spec["template"])
    ids = {name: tok.convert_tokens_to_ids(spec[name]) if spec[name] else None for name in ("bos", "eos", "pad")}
    config = getattr(transformers, spec["config"])(
        vocab_size=len(tok),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=2,
        num_key_value_heads=1,
        max_position_embeddings=context,
        bos_token_id=ids["bos"],
        eos_token_id=ids["eos"],
        pad_token_id=ids["pad"],
        **{"initializer_range": 0.5, **spec["extra"]},
    )
    torch.manual_seed(seed)
    model = getattr(transformers, MODEL_CLASSES[spec["config"]])(config)
    model.generation_config.eos_token_id = [ids["eos"], *tok.convert_tokens_to_ids(spec["stop"])]
    model.save_pretrained(out)
    tok.save_pretrained(out)
    return out


def tiny_nllb(path: str | Path | None = None, *, seed: int = 0) -> Path:
    """Save a tiny random NLLB-200-style model: ``M2M100ForConditionalGeneration`` with an
    ``NllbTokenizer`` carrying the FLORES-200 language codes (``swh_Latn``, ``hau_Latn``, ...)."""
    import torch
    from transformers import M2M100Config, M2M100ForConditionalGeneration, NllbTokenizer

    out = Path(path) if path is not None else Path(tempfile.mkdtemp(prefix="tiny-nllb-"))
    vocab = {"<s>": 0, "<pad>": 1, "</s>": 2, "<unk>": 3, "▁": 4}
    for piece in "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789,.'?!-":
        vocab.setdefault(piece, len(vocab))
    tok = NllbTokenizer(vocab=vocab, merges=[])  # language codes: the FLORES-200 list, added as specials
    config = M2M100Config(
        vocab_size=len(tok),
        d_model=32,
        encoder_layers=1,
        decoder_layers=1,
        encoder_attention_heads=2,
        decoder_attention_heads=2,
        encoder_ffn_dim=64,
        decoder_ffn_dim=64,
        max_position_embeddings=128,
        init_std=0.5,
        dropout=0.0,
        attention_dropout=0.0,
    )
    torch.manual_seed(seed)
    M2M100ForConditionalGeneration(config).save_pretrained(out)
    tok.save_pretrained(out)
    return out


def tiny_gemma3(path: str | Path | None = None, *, seed: int = 0, context: int = 256, sliding_window: int = 8) -> Path:
    """Save a tiny random **Gemma 3** (text) base model to ``path``: SmolLM2's tokenizer without its chat
    template (a base model has none), alternating sliding-window and full-attention layers."""
    import torch
    from transformers import AutoTokenizer, Gemma3ForCausalLM, Gemma3TextConfig

    out = Path(path) if path is not None else Path(tempfile.mkdtemp(prefix="tiny-gemma3-"))
    tok = AutoTokenizer.from_pretrained(smollm2_tokenizer_dir())
    tok.chat_template = None
    config = Gemma3TextConfig(
        vocab_size=len(tok),
        hidden_size=16,
        intermediate_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        num_key_value_heads=1,
        head_dim=8,
        max_position_embeddings=context,
        sliding_window=sliding_window,
        layer_types=["sliding_attention", "full_attention"],
        bos_token_id=tok.bos_token_id,
        eos_token_id=tok.eos_token_id,
        pad_token_id=tok.pad_token_id,
        initializer_range=0.5,
        tie_word_embeddings=False,  # tied, a random Gemma (inputs scaled by sqrt(hidden)) repeats one token
    )
    torch.manual_seed(seed)
    model = Gemma3ForCausalLM(config)
    model.save_pretrained(out)
    tok.save_pretrained(out)
    for name in ("chat_template.jinja", "chat_template.json"):
        (out / name).unlink(missing_ok=True)
    return out


class CountingSystem:
    """A translation system that copies the source, counting the texts it was asked to translate."""

    name = "counting"

    def __init__(self) -> None:
        self.seen = 0

    def translate(self, texts, src, tgt, *, context=None):
        self.seen += len(texts)
        return list(texts)

    def signature(self):
        return {"model_fingerprint": "-", "prompt_hash": "-", "graph_spec_hash": "-"}
