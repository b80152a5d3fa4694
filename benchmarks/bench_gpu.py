"""Raw ``generate`` vs aya_lab's batched path, on random-initialised models of real shapes.

One prepared script for a short GPU window. Models are built on the device from their configs (no
weights, no download): Aya Expanse 8B's shape (``CohereForCausalLM``) in bf16, Gemma 3 270M's
(``Gemma3ForCausalLM``, sliding window) and NLLB-200-distilled-600M's (``M2M100ForConditionalGeneration``).
For each model and batch size (1, 8, 32, 128) every row decodes exactly ``--new-tokens`` tokens
(``min_new_tokens = max_new_tokens``, so the timing measures compute, not where a random model stops):

- ``raw``: the tokenizer with left padding and one ``model.generate`` call, as a script would;
- ``aya_lab``: the same prompts through :func:`aya_lab.models.base.cached_generate` (cache off), i.e.
  :class:`~aya_lab.models.hf_causal.HFChatModel` / :class:`~aya_lab.models.seq2seq.Seq2SeqTranslator`
  exactly as the room and the evaluators call them;
- ``aya_lab+static`` (``--static-cache``, causal models): the same with transformers' static KV cache.

One JSON line per configuration: tok/s, segments/min, seconds, peak GPU memory, the decoding steps per
second and the fraction of the memory-bandwidth roofline (weight bytes read per step × steps/s ÷
``--bandwidth``, 4.8 TB/s for an H200; for NLLB the decoder's weights, which are what each step reads),
the aya_lab/raw speed ratio, and the minutes 500k new tokens would take at that rate.

``--smoke`` runs the same code on the CPU with tiny shapes (tests/test_bench_gpu_smoke.py runs it).
Imports: torch, transformers and ``aya_lab.models`` only, which needs langchain-core (and its
dependencies) but not LangChain, LangGraph or the rest of aya_lab (docs/SCALE.md, "Measuring a GPU").
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

os.environ["AYA_LAB_CACHE_MODE"] = "off"  # measure generation, never a cache hit
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import torch  # noqa: E402
import transformers  # noqa: E402
from tokenizers import Tokenizer, decoders, models, pre_tokenizers  # noqa: E402
from transformers import NllbTokenizer, PreTrainedTokenizerFast  # noqa: E402

from aya_lab.models.base import cached_generate  # noqa: E402
from aya_lab.models.hf_causal import HFChatModel  # noqa: E402
from aya_lab.models.seq2seq import Seq2SeqTranslator  # noqa: E402
from aya_lab.models.settings import GenerationSettings  # noqa: E402

# name -> (config class, model class, the published config's shape)
SHAPES: dict[str, tuple[str, str, dict[str, Any]]] = {
    "aya-expanse-8b": (
        "CohereConfig",
        "CohereForCausalLM",
        dict(
            vocab_size=256000,
            hidden_size=4096,
            intermediate_size=14336,
            num_hidden_layers=32,
            num_attention_heads=32,
            num_key_value_heads=8,
            max_position_embeddings=8192,
            logit_scale=0.125,
            use_qk_norm=False,
            tie_word_embeddings=True,
            pad_token_id=0,
            bos_token_id=5,
            eos_token_id=255001,
        ),
    ),
    "gemma3-270m": (
        "Gemma3TextConfig",
        "Gemma3ForCausalLM",
        dict(
            vocab_size=262144,
            hidden_size=640,
            intermediate_size=2048,
            num_hidden_layers=18,
            num_attention_heads=4,
            num_key_value_heads=1,
            head_dim=256,
            query_pre_attn_scalar=256,
            sliding_window=512,
            max_position_embeddings=32768,
            tie_word_embeddings=True,
            pad_token_id=0,
            eos_token_id=1,
            bos_token_id=2,
        ),
    ),
    "nllb-200-distilled-600m": (
        "M2M100Config",
        "M2M100ForConditionalGeneration",
        dict(
            vocab_size=256206,
            d_model=1024,
            encoder_layers=12,
            decoder_layers=12,
            encoder_attention_heads=16,
            decoder_attention_heads=16,
            encoder_ffn_dim=4096,
            decoder_ffn_dim=4096,
            max_position_embeddings=1024,
            scale_embedding=True,
            dropout=0.0,
            attention_dropout=0.0,
            pad_token_id=1,
            bos_token_id=0,
            eos_token_id=2,
            decoder_start_token_id=2,
        ),
    ),
}
# --smoke: the same architectures, tiny (every other setting as above)
TINY: dict[str, dict[str, Any]] = {
    "aya-expanse-8b": dict(
        vocab_size=512,
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=2,
        num_key_value_heads=1,
        eos_token_id=511,
        bos_token_id=5,
    ),
    "gemma3-270m": dict(
        vocab_size=512,
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=2,
        num_key_value_heads=1,
        head_dim=16,
        query_pre_attn_scalar=16,
        sliding_window=8,
    ),
    "nllb-200-distilled-600m": dict(
        vocab_size=512,
        d_model=32,
        encoder_layers=1,
        decoder_layers=1,
        encoder_attention_heads=2,
        decoder_attention_heads=2,
        encoder_ffn_dim=64,
        decoder_ffn_dim=64,
        max_position_embeddings=128,
    ),
}
SENTENCE = "The quarterly budget report is due on Friday; please send your figures to the finance team. "


def build_model(name: str, smoke: bool, device: str, dtype: torch.dtype) -> Any:
    """A random-initialised model of ``name``'s shape, created directly on ``device`` in ``dtype``."""
    config_cls, model_cls, shape = SHAPES[name]
    config = getattr(transformers, config_cls)(**{**shape, **(TINY[name] if smoke else {})})
    torch.manual_seed(0)
    with torch.device(device):
        model = getattr(transformers, model_cls)._from_config(config, dtype=dtype)
    return model.eval()


def byte_tokenizer() -> Any:
    """Bytes as tokens (ids 3..258) behind <pad>=0, <bos>=1, <eos>=2: valid ids for every model here."""
    vocab = {"<pad>": 0, "<bos>": 1, "<eos>": 2}
    for ch in sorted(pre_tokenizers.ByteLevel.alphabet()):
        vocab[ch] = len(vocab)
    core = Tokenizer(models.BPE(vocab=vocab, merges=[]))
    core.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    core.decoder = decoders.ByteLevel()
    tok = PreTrainedTokenizerFast(tokenizer_object=core, pad_token="<pad>", bos_token="<bos>", eos_token="<eos>")
    tok.padding_side = "left"
    return tok


def nllb_tokenizer() -> Any:
    """An NLLB tokenizer (FLORES-200 codes as specials) over letters; its ids stay below 512."""
    vocab = {"<s>": 0, "<pad>": 1, "</s>": 2, "<unk>": 3, "▁": 4}
    for ch in "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789,.;'":
        vocab[ch] = len(vocab)
    return NllbTokenizer(vocab=vocab, merges=[])


def wrap(name: str, model: Any, device: str, settings: GenerationSettings, batch: int) -> Any:
    """aya_lab's own model objects around an already built model (what the loader does after loading)."""
    if model.config.is_encoder_decoder:
        translator = Seq2SeqTranslator.__new__(Seq2SeqTranslator)
        translator.spec, translator.model_dir, translator.weights = f"bench:{name}", "-", f"random:{name}"
        translator.settings, translator.batch_size, translator.cache, translator.device = settings, batch, None, device
        translator.tokenizer, translator.model, translator.family = nllb_tokenizer(), model, "nllb"
        return translator
    chat = HFChatModel(
        spec=f"bench:{name}",
        model_dir="-",
        weights=f"random:{name}",
        device=device,
        settings=settings,
        batch_size=batch,
    )
    chat._tokenizer, chat._model = byte_tokenizer(), model
    return chat


def prompts_for(batch: int, prompt_tokens: int) -> list[str]:
    """``batch`` distinct texts of about ``prompt_tokens`` bytes (no two identical: no deduplication)."""
    body = (SENTENCE * (prompt_tokens // len(SENTENCE) + 1))[: max(8, prompt_tokens - 8)]
    return [f"{i:06d} {body}" for i in range(batch)]


def run_raw(wrapped: Any, texts: list[str], new_tokens: int) -> None:
    model, device = (
        (wrapped.model, wrapped.device) if hasattr(wrapped, "family") else (wrapped.hf_model, wrapped.device)
    )
    tok = wrapped.tokenizer
    kwargs: dict[str, Any] = dict(max_new_tokens=new_tokens, min_new_tokens=new_tokens, do_sample=False)
    if hasattr(wrapped, "family"):
        tok.src_lang = "eng_Latn"
        kwargs["forced_bos_token_id"] = tok.convert_tokens_to_ids("fra_Latn")
    enc = tok(texts, return_tensors="pt", padding=True, add_special_tokens=hasattr(wrapped, "family"))
    with torch.inference_mode():
        model.generate(**{k: v.to(device) for k, v in enc.items()}, pad_token_id=tok.pad_token_id, **kwargs)


def run_aya(wrapped: Any, texts: list[str], new_tokens: int) -> None:
    """aya_lab's batched path; ``new_tokens`` is already in the model's settings."""
    if hasattr(wrapped, "family"):
        wrapped.translate(texts, "eng", "fra")
    else:
        cached_generate(wrapped, texts)


def weight_bytes(model: Any) -> tuple[int, int]:
    """(all parameters, parameters each decoding step reads) in bytes; for encoder-decoder models the
    encoder runs once per batch, so a step reads the decoder and the output head."""
    total = sum(p.numel() * p.element_size() for p in model.parameters())
    if not model.config.is_encoder_decoder:
        return total, total
    encoder = model.get_encoder()
    shared = {id(p) for p in model.get_decoder().parameters()} | {
        id(p) for p in model.get_output_embeddings().parameters()
    }
    enc_only = sum(p.numel() * p.element_size() for p in encoder.parameters() if id(p) not in shared)
    return total, total - enc_only


def measure(fn: Any, device: str, *args: Any) -> tuple[float, float | None]:
    """``(seconds, peak GPU GB or None)`` of ``fn(*args)``, synchronising CUDA around it."""
    if device.startswith("cuda"):
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
    start = time.perf_counter()
    fn(*args)
    if device.startswith("cuda"):
        torch.cuda.synchronize()
    seconds = time.perf_counter() - start
    peak = torch.cuda.max_memory_allocated() / 1e9 if device.startswith("cuda") else None
    return seconds, peak


def bench_model(name: str, args: argparse.Namespace, device: str, dtype: torch.dtype) -> list[dict[str, Any]]:
    model = build_model(name, args.smoke, device, dtype)
    total, per_step = weight_bytes(model)
    model.generation_config.max_new_tokens = model.generation_config.min_new_tokens = args.new_tokens
    settings = GenerationSettings(max_new_tokens=args.new_tokens, min_new_tokens=args.new_tokens)
    paths = ["raw", "aya_lab"] + (
        ["aya_lab+static"] if args.static_cache and not model.config.is_encoder_decoder else []
    )
    rows = []
    for batch in args.batches:
        texts = prompts_for(batch, args.prompt_tokens)
        wrapped = wrap(name, model, device, settings, batch)
        run_raw(wrapped, texts[:1], 2)  # warm-up: kernels, allocator
        raw_rate = None
        for path in paths:
            model.generation_config.cache_implementation = "static" if path.endswith("static") else None
            row: dict[str, Any] = dict(
                model=name,
                path=path,
                batch=batch,
                new_tokens=args.new_tokens,
                prompt_tokens=args.prompt_tokens,
                device=device,
                dtype=str(dtype).split(".")[-1],
                params=sum(p.numel() for p in model.parameters()),
                weight_gb=float(f"{total / 1e9:.4g}"),
            )
            try:
                seconds, peak = measure(run_raw if path == "raw" else run_aya, device, wrapped, texts, args.new_tokens)
            except torch.cuda.OutOfMemoryError as exc:  # report and go on: the other rows still count
                torch.cuda.empty_cache()
                rows.append(emit({**row, "error": f"out of memory: {str(exc)[:120]}"}))
                continue
            tok_s = batch * args.new_tokens / seconds
            steps_s = args.new_tokens / seconds
            raw_rate = tok_s if path == "raw" else raw_rate
            rows.append(
                emit(
                    {
                        **row,
                        "seconds": round(seconds, 6),
                        "tok_s": round(tok_s, 1),
                        "segments_min": round(60 * batch / seconds, 1),
                        "peak_gpu_gb": None if peak is None else round(peak, 2),
                        "steps_s": round(steps_s, 2),
                        "roofline_fraction": float(f"{per_step * steps_s / args.bandwidth:.4g}"),
                        "ratio_vs_raw": None if raw_rate is None else round(tok_s / raw_rate, 3),
                        "minutes_per_500k_tokens": round(500_000 / tok_s / 60, 2),
                    }
                )
            )
    model.generation_config.cache_implementation = None
    del model
    if device.startswith("cuda"):
        torch.cuda.empty_cache()
    return rows


def emit(row: dict[str, Any]) -> dict[str, Any]:
    print(json.dumps(row), flush=True)
    return row


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--smoke", action="store_true", help="tiny shapes on the CPU (what the test suite runs)")
    p.add_argument("--models", default=",".join(SHAPES), help=f"comma-separated, of {', '.join(SHAPES)}")
    p.add_argument("--batches", default=None, help="comma-separated batch sizes (default 1,8,32,128; smoke 1,4)")
    p.add_argument("--new-tokens", type=int, default=None, help="new tokens per row (default 128; smoke 4)")
    p.add_argument("--prompt-tokens", type=int, default=64, help="prompt length in tokens (bytes)")
    p.add_argument("--bandwidth", type=float, default=4.8e12, help="memory bandwidth, bytes/s (H200: 4.8e12)")
    p.add_argument("--static-cache", action="store_true", help="also time aya_lab with a static KV cache")
    args = p.parse_args(argv)
    unknown = [m for m in args.models.split(",") if m not in SHAPES]
    if unknown:
        p.error(f"unknown model {unknown[0]!r}; choose from {', '.join(SHAPES)}")
    args.models = args.models.split(",")
    args.batches = [int(b) for b in (args.batches or ("1,4" if args.smoke else "1,8,32,128")).split(",")]
    args.new_tokens = args.new_tokens or (4 if args.smoke else 128)
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    transformers.utils.logging.set_verbosity_error()
    if args.smoke:
        device, dtype = "cpu", torch.float32
        torch.set_num_threads(1)  # tiny models on shared cores: competing threads cost ~50x
    elif not torch.cuda.is_available():
        print("error: no CUDA device; run with --smoke on a CPU", file=sys.stderr)
        return 2
    else:
        device, dtype = "cuda", torch.bfloat16
    print(
        json.dumps(
            {
                "date": dt.date.today().isoformat(),
                "torch": torch.__version__,
                "transformers": transformers.__version__,
                "device_name": torch.cuda.get_device_name() if device == "cuda" else "cpu",
                "bandwidth": args.bandwidth,
            }
        ),
        flush=True,
    )
    for name in args.models:
        bench_model(name, args, device, dtype)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
