"""Tiny *random* real models for tests: the real transformers code paths without big weights.

- :func:`build_tiny_llama`: a 2-layer Llama (hidden size 16) with SmolLM2's tokenizer and chat template
  (taken from the converted embedded model, or from its GGUF once), saved to a directory.
- :func:`build_tiny_marian`: a 2-layer Marian with a word-level toy tokenizer, saved to a directory.

Weights are seeded, so outputs are deterministic (and meaningless). Building takes well under a second
once the SmolLM2 tokenizer has been extracted (cached under the aya_lab cache dir).
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from aya_lab.paths import cache_dir

__all__ = ["build_tiny_llama", "build_tiny_marian", "smollm2_tokenizer_dir"]


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


def build_tiny_llama(path: str | Path | None = None, *, seed: int = 0, context: int = 256) -> Path:
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


def build_tiny_marian(path: str | Path | None = None, *, seed: int = 0) -> Path:
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
        tokenizer_object=core, pad_token="<pad>", eos_token="</s>", unk_token="<unk>",
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
