"""Encoder-decoder NMT models (``seq2seq:<path-or-hub-id>``): NLLB-200, M2M100, Marian.

transformers 5 has no translation pipeline, so this runs ``model.generate`` directly, batched with
padding, through the same generation cache as chat models (the cached "prompt" is
``"<src>-><tgt>\\n<text>"``). Language codes are mapped per model family:

- NLLB (``NllbTokenizer``): FLORES-200 codes (``swh_Latn``); ``src_lang`` on the tokenizer and the
  target code forced as the first generated token;
- M2M100: ISO 639-1 codes (``sw``), ``src_lang`` and ``get_lang_id(tgt)``;
- Marian: a multi-target model has ``>>xxx<<`` tokens (the target token is prefixed to the source);
  a single-pair model translates its one pair whatever the codes say (documented, not checked).

User text never becomes a control token: language codes, ``>>xxx<<`` and other special-token strings
inside a text are escaped (:mod:`aya_lab.models.control_tokens`) before the model's own are added.

It is a LangChain ``Runnable``: ``invoke({"text": ..., "src": "eng", "tgt": "swh"}) -> str``.
"""

from __future__ import annotations

import time
from typing import Any

import torch
from langchain_core.runnables import Runnable, RunnableConfig

from aya_lab.languages import get_language
from aya_lab.models.base import GenerationResult, cached_generate
from aya_lab.models.cache import GenerationCache, get_default_cache
from aya_lab.models.control_tokens import escape_control_tokens
from aya_lab.models.device import pick_device
from aya_lab.models.errors import ModelInputError
from aya_lab.models.fingerprint import combine
from aya_lab.models.settings import GenerationSettings

__all__ = ["Seq2SeqTranslator"]


class Seq2SeqTranslator(Runnable[dict, str]):
    """A seq2seq NMT model with per-family language-code mapping, batching and caching."""

    def __init__(
        self,
        spec: str,
        model_dir: str,
        weights: str,
        *,
        settings: GenerationSettings | None = None,
        batch_size: int = 16,
        device: str | None = None,
        cache: GenerationCache | None = None,
    ) -> None:
        from transformers import AutoModelForSeq2SeqLM, AutoTokenizer

        self.spec, self.model_dir, self.weights = spec, model_dir, weights
        self.settings = settings or GenerationSettings()
        self.batch_size = batch_size
        self.cache = cache
        self.device, dtype = pick_device(device)
        self.tokenizer = AutoTokenizer.from_pretrained(model_dir)
        self.model = AutoModelForSeq2SeqLM.from_pretrained(model_dir, dtype=dtype).to(self.device).eval()
        name = type(self.tokenizer).__name__.lower()
        model_type = getattr(self.model.config, "model_type", "")
        if "nllb" in name:
            self.family = "nllb"
        elif model_type == "m2m_100":
            self.family = "m2m100"
        elif model_type == "marian":
            self.family = "marian"
        else:
            self.family = model_type or "seq2seq"

    # -- contract shared with chat models ------------------------------------------------------
    @property
    def engine_label(self) -> str:
        """What runs the model, for a reader."""
        return f"transformers seq2seq, {str(self.model.dtype).removeprefix('torch.')}, {self.device}"

    @property
    def dispatch_size(self) -> int:
        """Cache misses per ``generate`` call: one batch."""
        return self.batch_size

    @property
    def fingerprint(self) -> str:
        return combine(self.weights, self.settings.cache_key(), self.family)

    def _active_cache(self) -> GenerationCache | None:
        return self.cache if self.cache is not None else get_default_cache()

    def lang_code(self, lang: str) -> str:
        """This model's code for ``lang`` (any spelling accepted by :func:`get_language`)."""
        language = get_language(lang)
        if self.family == "nllb":
            return language.nllb
        if self.family == "m2m100":
            if language.m2m is None:
                raise ModelInputError(f"{self.spec}: M2M100 does not cover {language}; use an NLLB model")
            return language.m2m
        if self.family == "marian":
            vocab = self.tokenizer.get_vocab()
            for code in (language.code, *language.aliases, language.iso1 or ""):
                if code and f">>{code}<<" in vocab:
                    return code
            return language.iso1 or language.code
        return language.code

    def _marian_targets(self) -> set[str]:
        return {t[2:-2] for t in self.tokenizer.get_vocab() if t.startswith(">>") and t.endswith("<<")}

    def translate(self, texts: list[str], src: str, tgt: str, *, repeat: int = 0) -> list[GenerationResult]:
        """Translate ``texts`` from ``src`` to ``tgt`` (any language spelling); one result per text."""
        if not texts:
            raise ModelInputError(f"{self.spec}: got an empty list of texts; pass at least one")
        s, t = self.lang_code(src), self.lang_code(tgt)
        if self.family == "marian" and self._marian_targets() and t not in self._marian_targets():
            raise ModelInputError(
                f"{self.spec}: target {tgt!r} is not one of this Marian model's targets "
                f"({', '.join(sorted(self._marian_targets()))})"
            )
        prompts = [f"{s}->{t}\n{escape_control_tokens(text, self.tokenizer)}" for text in texts]
        return cached_generate(self, prompts, repeat=repeat)

    @torch.inference_mode()
    def _generate_uncached(self, prompts: list[str], repeat: int = 0) -> list[GenerationResult]:
        by_pair: dict[str, list[int]] = {}
        for i, p in enumerate(prompts):
            by_pair.setdefault(p.split("\n", 1)[0], []).append(i)
        results: list[GenerationResult | None] = [None] * len(prompts)
        for header, idx in by_pair.items():
            src, tgt = header.split("->", 1)
            texts = [prompts[i].split("\n", 1)[1] for i in idx]
            for i, r in zip(idx, self._generate_pair(texts, src, tgt, repeat), strict=True):
                results[i] = r
        return [r for r in results if r is not None]

    def _generate_pair(self, texts: list[str], src: str, tgt: str, repeat: int) -> list[GenerationResult]:
        kwargs: dict[str, Any] = {"max_new_tokens": self.settings.max_new_tokens}
        if self.family in {"nllb", "m2m100"}:
            self.tokenizer.src_lang = src
            forced = (
                self.tokenizer.convert_tokens_to_ids(tgt) if self.family == "nllb" else self.tokenizer.get_lang_id(tgt)
            )
            kwargs["forced_bos_token_id"] = forced
        elif self.family == "marian" and self._marian_targets():
            texts = [f">>{tgt}<< {t}" for t in texts]
        if self.settings.greedy:
            kwargs.update(do_sample=False, num_beams=1)
        else:
            torch.manual_seed(self.settings.seed + repeat)
            kwargs.update(do_sample=True, temperature=self.settings.temperature, top_p=self.settings.top_p)
        enc = self.tokenizer(texts, return_tensors="pt", padding=True, truncation=True)
        enc = {k: v.to(self.device) for k, v in enc.items()}
        started = time.perf_counter()
        out = self.model.generate(**enc, **kwargs)
        elapsed = time.perf_counter() - started
        decoded = self.tokenizer.batch_decode(out, skip_special_tokens=True)
        pad = self.tokenizer.pad_token_id
        results = []
        for text, ids, row in zip(decoded, enc["attention_mask"], out, strict=True):
            n_out = int((row != pad).sum().item())
            results.append(GenerationResult(text.strip(), int(ids.sum().item()), n_out, latency_s=elapsed / len(texts)))
        return results

    # -- Runnable interface --------------------------------------------------------------------------
    def invoke(self, input: dict, config: RunnableConfig | None = None, **kwargs: object) -> str:
        return self.translate([input["text"]], input["src"], input["tgt"])[0].text

    def batch(
        self,
        inputs: list[dict],
        config: RunnableConfig | list[RunnableConfig] | None = None,
        *,
        return_exceptions: bool = False,
        **kwargs: object,
    ) -> list[str]:
        out: list[str] = [""] * len(inputs)
        groups: dict[tuple[str, str], list[int]] = {}
        for i, inp in enumerate(inputs):
            groups.setdefault((inp["src"], inp["tgt"]), []).append(i)
        for (src, tgt), idx in groups.items():
            for i, r in zip(idx, self.translate([inputs[i]["text"] for i in idx], src, tgt), strict=True):
                out[i] = r.text
        return out
