"""Test doubles and tiny real models. **Tests only.**

- :class:`FakeRoomModel`: a fake chat model that *translates* by tagging (``[German] text``), keyed on
  the structure of the prompt files, not on their wording.
- Evaluation systems: :class:`ReferenceSystem` (answers with the reference), :class:`ChatModelTranslator`.
- Tiny *random* real Hugging Face models built on the fly (:func:`tiny_llama`, :func:`tiny_marian`),
  so tests exercise the real transformers code paths without big weights. Weights are seeded, so
  outputs are deterministic (and meaningless).
"""

from __future__ import annotations

import hashlib
import re
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from langchain_core.messages import HumanMessage

from aya_lab.models.base import LocalChatModel
from aya_lab.models.fake import FakeChatModel, FakeModelError
from aya_lab.paths import cache_dir


class FakeRoomModel(FakeChatModel):
    """A fake that *translates* by tagging: a user-agent prompt asking for language X about message M
    answers ``[X] M``; Aya's request translation answers ``[English] R``. Other prompts follow the
    FakeChatModel rules (substring ``rules``, then ``responses`` in order, then ``default``)."""

    spec: str = "fake:room"

    def answer(self, prompt: str) -> str:
        m = re.search(r"into (\w[\w ()]*?)\. If it is already", prompt)
        if m and "Message: " in prompt:
            return f"[{m.group(1)}] " + prompt.rsplit("Message: ", 1)[1].strip()
        if "Translate the user's request into English" in prompt:
            return "[English] " + prompt.rsplit("\n<human> ", 1)[-1].strip()
        return super().answer(prompt)


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
