"""llama.cpp as a generation engine: a GGUF file in, batched decoding of many prompts out.

This module talks to llama.cpp through ``llama-cpp-python``'s low-level bindings (``llama_cpp``), not its
``Llama`` class, because the ``Llama`` class decodes one sequence at a time. :class:`LlamaEngine` keeps one
model and one context with a KV stream per parallel sequence (``n_seq_max`` of them), so a batch of prompts
is decoded together: each ``llama_decode`` step feeds one new token of every unfinished sequence, and every
weight read from memory serves all of them (what that saves on 2 AVX2 cores, where the quantised
arithmetic also bounds a step, is measured in ``docs/ENGINES.md``).

What was simplified, and why:

- Sampling is done here, in numpy, on the logits llama.cpp returns for each sequence's last token:
  greedy (argmax) by default; with ``temperature > 0``, temperature then top-p then a draw from a numpy
  generator seeded with ``seed + repeat`` (so a sampled generation is reproducible). The repetition
  penalty follows transformers' rule (logits of tokens already in prompt or output: divided by the
  penalty when positive, multiplied when negative). llama.cpp's own sampler chain would be faster for
  sampling but has no per-batch seed and a different penalty window; greedy, the default everywhere in
  this project, spends nothing on it.
- Stop strings are checked on the decoded new text of each sequence after every step (after
  ``min_new_tokens``), the same rule as the transformers engine's ``StopOnStrings``; end-of-generation
  tokens are masked until ``min_new_tokens`` are out.
- A prompt longer than the context window minus ``max_new_tokens`` is truncated from the left.
- **Prompt reuse.** Each parallel sequence has its own KV stream (``kv_unified`` off), and a stream keeps
  what it last decoded. A new prompt goes to the stream holding the longest common prefix with it, and
  only the rest is decoded: the room's few-shot completion prompts share their examples per target
  language, so most of a prompt is computed once per stream, not once per message.

Loading errors (a truncated or corrupted file, an architecture llama.cpp does not know) are read from
llama.cpp's own log and raised as one line naming the file and the fix; llama.cpp prints nothing.
"""

from __future__ import annotations

import ctypes
import logging
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from aya_lab.models.llama_bindings import (
    GGUFLoadError,
    LlamaCppUnavailableError,
    bindings,
    check_gguf_file,
    clear_log,
    llama_cpp_version,
    load_failure,
)
from aya_lab.models.llama_sampling import Sampling, choose_token
from aya_lab.models.llama_vocab import LlamaModelFacts

__all__ = [
    "GGUFLoadError",
    "LlamaCppUnavailableError",
    "LlamaEngine",
    "Sampling",
    "SequenceOutput",
    "llama_cpp_version",
]

_log = logging.getLogger(__name__)

_LOAD_LOCK = threading.Lock()
_ENGINES: dict[tuple[str, int, int, int, str], LlamaEngine] = {}
PAD_TO, PAD_FROM = 4, 3  # see LlamaEngine._pad


@dataclass(frozen=True)
class SequenceOutput:
    """One decoded sequence: the new text (special tokens removed), token counts and truncation."""

    text: str
    prompt_tokens: int
    completion_tokens: int
    truncated: bool


class LlamaEngine(LlamaModelFacts):
    """One GGUF model on llama.cpp with a KV stream of ``n_ctx`` tokens for each of ``n_seq_max`` sequences.

    Use :meth:`shared` (one engine per file, threads and context size in a process). Thread-safe: one
    batch decodes at a time.
    """

    def __init__(
        self, path: Path, *, threads: int, n_ctx: int = 2048, n_seq_max: int = 16, lora: Path | None = None
    ) -> None:
        lib = bindings()
        self.path, self.threads, self.lora = path, threads, lora
        self._lib, self._lock = lib, threading.Lock()
        check_gguf_file(path)
        clear_log()
        params = lib.llama_model_default_params()
        params.n_gpu_layers = 0
        model = lib.llama_model_load_from_file(str(path).encode(), params)
        if not model:
            raise load_failure(path)
        self._model = model
        self._vocab = lib.llama_model_get_vocab(model)
        self.n_vocab = int(lib.llama_vocab_n_tokens(self._vocab))
        self.n_ctx_train = int(lib.llama_model_n_ctx_train(model))
        self.n_ctx = min(n_ctx, self.n_ctx_train) if self.n_ctx_train > 0 else n_ctx
        self.n_seq_max = n_seq_max
        self._ctx: object | None = None  # the context, its KV streams and batch: made on first use (_open)
        self._memory: object | None = None
        self._batch: Any = None
        self._adapter = self._load_lora(lora) if lora is not None else None
        self._slots: list[list[int]] = [[] for _ in range(n_seq_max)]  # tokens each KV stream holds
        self._used = [0] * n_seq_max  # when each stream was last assigned (least recently used first)
        self._clock = 0
        self.control_strings, self.eog_ids = self._special_tokens()
        self.add_bos = bool(lib.llama_vocab_get_add_bos(self._vocab))
        self._bos_id = max(0, int(lib.llama_vocab_bos(self._vocab)))
        self.bos_text = self.token_text(int(lib.llama_vocab_bos(self._vocab)))  # "" when there is none
        self.eos_text = self.token_text(int(lib.llama_vocab_eos(self._vocab)))

    def _load_lora(self, lora: Path) -> object:
        """Load the LoRA GGUF ``lora`` for this model (set on the context when it is made, :meth:`_open`); a
        refused file is a one-line :class:`GGUFLoadError` at load, as a refused model is."""
        check_gguf_file(lora)
        clear_log()
        adapter = self._lib.llama_adapter_lora_init(self._model, str(lora).encode())
        if not adapter:
            self._lib.llama_model_free(self._model)
            raise load_failure(lora, "load the LoRA adapter")
        return adapter

    def _open(self) -> None:
        """Make the context (a KV stream of ``n_ctx`` cells per sequence) and the batch, on the first decode, and
        set the LoRA adapter on it (scale 1: llama.cpp applies the adapter's ``alpha / r`` itself). A replayed
        run never decodes, so it never pays for them (time and memory: ``benchmarks/bench_engine_load.py``,
        docs/ENGINES.md). The caller holds the lock."""
        if self._ctx is not None:
            return
        lib = self._lib
        cparams = lib.llama_context_default_params()
        cparams.n_ctx = self.n_ctx * self.n_seq_max  # one KV stream of n_ctx cells per sequence (kv_unified off)
        cparams.n_batch = cparams.n_ctx
        cparams.n_seq_max = self.n_seq_max
        cparams.n_threads = cparams.n_threads_batch = self.threads
        cparams.kv_unified = False
        cparams.flash_attn_type = lib.LLAMA_FLASH_ATTN_TYPE_DISABLED
        cparams.no_perf = True
        clear_log()
        ctx = lib.llama_init_from_model(self._model, cparams)
        if not ctx:
            raise load_failure(self.path, "make a context for")
        if self._adapter is not None:
            adapters = (lib.llama_adapter_lora_p_ctypes * 1)(self._adapter)
            if lib.llama_set_adapters_lora(ctx, adapters, 1, (ctypes.c_float * 1)(1.0)) != 0:
                lib.llama_free(ctx)
                raise load_failure(self.lora or self.path, "apply the LoRA adapter")
        self._ctx, self._memory = ctx, lib.llama_get_memory(ctx)
        self._batch = lib.llama_batch_init(cparams.n_ctx, 0, 1)

    @classmethod
    def shared(
        cls, path: Path, *, threads: int, n_ctx: int = 2048, n_seq_max: int = 16, lora: Path | None = None
    ) -> LlamaEngine:
        """The process's engine for ``path`` (with LoRA GGUF ``lora`` applied, if given) with these threads and
        context sizes (loaded once)."""
        key = (str(Path(path).resolve()), threads, n_ctx, n_seq_max, str(lora or ""))
        with _LOAD_LOCK:
            if key not in _ENGINES:
                _ENGINES[key] = cls(Path(path), threads=threads, n_ctx=n_ctx, n_seq_max=n_seq_max, lora=lora)
            return _ENGINES[key]

    # -- generation ------------------------------------------------------------------------------------
    def generate(
        self,
        prompts: Sequence[str],
        sampling: Sampling,
        *,
        stop: Sequence[str] = (),
        repeat: int = 0,
        parallel: int | None = None,
    ) -> list[SequenceOutput]:
        """Decode every prompt (already rendered; BOS written as text where wanted) and return its new text.

        At most ``parallel`` sequences (default and cap: ``n_seq_max``) are decoded together, each in its
        own KV stream, sharing every ``llama_decode`` step. When a sequence finishes, the next prompt takes
        its stream at the next step (its prompt tokens ride in the same ``llama_decode`` call as the others'
        new tokens), so a batch never waits for its longest member with most streams idle.
        """
        if self._model is None:  # its vocabulary is freed too: tokenizing would abort the process
            raise RuntimeError(f"the llama.cpp engine for {self.path.name} is closed; load the model again")
        limit = max(1, self.n_ctx - sampling.max_new_tokens)
        encoded, truncated = [], []
        for prompt in prompts:
            ids = self.tokenize(prompt)
            truncated.append(len(ids) > limit)
            if len(ids) > limit:
                _log.warning(
                    "%s: prompt of %d tokens exceeds the context window (%d - %d new); truncating it from the left",
                    self.path.name,
                    len(ids),
                    self.n_ctx,
                    sampling.max_new_tokens,
                )
                ids = ids[-limit:]
            encoded.append(ids or [self._bos_id])
        width = max(1, min(parallel or self.n_seq_max, self.n_seq_max))
        rng = np.random.default_rng(sampling.seed + repeat)
        with self._lock:
            self._open()
            try:
                generated = _Schedule(self, encoded, width, sampling, list(stop), rng).run()
            except BaseException:  # a failed decode leaves the KV cache in an unknown state: forget it all
                self._empty_streams()
                raise
        return [
            SequenceOutput(
                self.detokenize([t for t in tokens if t not in self.eog_ids]).strip(), len(ids), len(tokens), cut
            )
            for ids, tokens, cut in zip(encoded, generated, truncated, strict=True)
        ]

    def _best_free_slot(self, ids: list[int], busy: set[int]) -> int:
        """The free KV stream whose cached tokens share the longest prefix with ``ids`` (ties: the least
        recently used), so a few-shot prompt's examples are computed once per stream."""
        free = [slot for slot in range(self.n_seq_max) if slot not in busy]
        return max(free, key=lambda slot: (_common_prefix(self._slots[slot], ids), -self._used[slot]))

    def _admit(self, ids: list[int], busy: set[int]) -> tuple[int, int]:
        """Put prompt ``ids`` into a free stream's part of the batch; returns ``(stream, logits row)``."""
        slot = self._best_free_slot(ids, busy)
        keep = self._reuse(slot, ids)
        for pos in range(keep, len(ids)):
            self._add(ids[pos], pos, slot, pos == len(ids) - 1)
        self._slots[slot] = list(ids)
        self._clock += 1
        self._used[slot] = self._clock
        return slot, self._batch.n_tokens - 1

    def _pad(self, width: int, spare: list[int]) -> None:
        """Fill a decoding step of ``width`` sequences up to a multiple of :data:`PAD_TO` with throw-away rows
        (from 3 rows on). llama.cpp's repacked CPU kernels multiply the weights by four columns at once and
        take the rest one matrix-vector product each, so on AVX2 a step of 3 rows costs more than one of 4
        (``benchmarks/bench_decode_step.py`` times steps of 1 to 16 rows; figures in ``docs/ENGINES.md``).
        A pad row repeats its stream's first token at the next position; its output is never read."""
        missing = (-width) % PAD_TO if width >= PAD_FROM else 0
        for slot in spare[:missing]:
            if not self._slots[slot]:
                self._lib.llama_memory_seq_rm(self._memory, slot, -1, -1)
                self._slots[slot] = [self._bos_id]
                self._add(self._bos_id, 0, slot, True)
                continue
            self._add(self._slots[slot][0], len(self._slots[slot]), slot, True)
            self._slots[slot].append(self._slots[slot][0])

    def _reuse(self, slot: int, ids: list[int]) -> int:
        """Drop what stream ``slot`` holds beyond its common prefix with ``ids`` (the last prompt token is always
        decoded again: its logits start generation); returns how many cached tokens are kept."""
        keep = min(_common_prefix(self._slots[slot], ids), len(ids) - 1)
        if not self._lib.llama_memory_seq_rm(self._memory, slot, keep, -1):  # e.g. a sliding-window cache
            self._lib.llama_memory_seq_rm(self._memory, slot, -1, -1)
            keep = 0
        return keep

    def _add(self, token: int, pos: int, seq: int, logits: bool) -> None:
        b, i = self._batch, self._batch.n_tokens
        b.token[i], b.pos[i], b.n_seq_id[i], b.logits[i] = token, pos, 1, int(logits)
        b.seq_id[i][0] = seq
        b.n_tokens = i + 1

    def _decode(self) -> None:
        code = self._lib.llama_decode(self._ctx, self._batch)
        if code != 0:
            raise RuntimeError(
                f"llama_decode returned {code} for {self.path.name}: {load_failure(self.path, 'decode with')}"
            )

    def _choose(
        self,
        row: int,
        prompt: list[int],
        new: list[int],
        s: Sampling,
        step: int,
        rng: np.random.Generator,
    ) -> int:
        ptr = self._lib.llama_get_logits_ith(self._ctx, row)
        logits = np.ctypeslib.as_array(ptr, shape=(self.n_vocab,))
        return choose_token(logits, prompt, new, s, step, self.eog_ids, rng)

    def forget(self) -> None:
        """Empty every KV stream, so the next batch is decoded from scratch.

        Why it matters: a prompt decoded after a reused prefix, or beside other prompts, can differ in the
        last bits of its logits from the same prompt decoded alone (llama.cpp's CPU kernels take another
        path for one row than for several), and greedy decoding of a small model sometimes turns on such a
        bit. Outputs are deterministic for the same sequence of calls in a fresh process, and the generation
        cache replays them exactly; call this before a run that must not depend on what came before it."""
        with self._lock:
            self._empty_streams()

    def _empty_streams(self) -> None:
        """Clear the KV cache and what each stream is recorded to hold (the caller holds the lock)."""
        if self._memory is not None:
            self._lib.llama_memory_clear(self._memory, True)
        self._slots = [[] for _ in range(self.n_seq_max)]

    def close(self) -> None:
        """Free the context, batch and model (the engine is unusable afterwards)."""
        with self._lock:
            if self._ctx is not None:
                self._lib.llama_batch_free(self._batch)
                self._lib.llama_free(self._ctx)
                self._ctx = self._memory = self._batch = None
            if self._model is not None:
                self._lib.llama_model_free(self._model)
                self._model = None


def _common_prefix(a: Sequence[int], b: Sequence[int]) -> int:
    """Length of the longest common prefix of two token lists."""
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


class _Schedule:
    """One :meth:`LlamaEngine.generate` call: prompts wait in order, at most ``width`` decode at once, and a
    finished sequence's stream goes to the next waiting prompt in the next ``llama_decode`` step."""

    def __init__(
        self,
        engine: LlamaEngine,
        prompts: list[list[int]],
        width: int,
        sampling: Sampling,
        stop: list[str],
        rng: np.random.Generator,
    ) -> None:
        self.engine, self.prompts, self.width = engine, prompts, width
        self.sampling, self.stop, self.rng = sampling, stop, rng
        self.waiting = list(range(len(prompts)))[::-1]  # popped from the end: first prompt first
        self.new: list[list[int]] = [[] for _ in prompts]
        self.text = [b""] * len(prompts)
        self.slot: dict[int, int] = {}  # decoding prompt -> its stream
        self.row: dict[int, int] = {}  # decoding prompt -> the batch row whose logits it reads next

    def run(self) -> list[list[int]]:
        """The new tokens of every prompt, in the prompts' order.

        Waiting prompts are decoded in a call of their own (not in the step of the sequences already
        running), so a running sequence's step has the same rows, and takes the same kernel path, as
        when every prompt starts together."""
        engine = self.engine
        while self.waiting or self.slot:
            if self.waiting and len(self.slot) < self.width:
                engine._batch.n_tokens = 0
                self._choose_after_decode(self._fill())
            if self.slot:
                engine._batch.n_tokens = 0
                for i, slot in self.slot.items():
                    token = self.new[i][-1]
                    engine._add(token, len(engine._slots[slot]), slot, True)
                    engine._slots[slot].append(token)
                    self.row[i] = engine._batch.n_tokens - 1
                busy = set(self.slot.values())
                engine._pad(len(self.slot), [s for s in range(engine.n_seq_max) if s not in busy])
                self._choose_after_decode(list(self.slot))
        return self.new

    def _fill(self) -> list[int]:
        """Admit waiting prompts into free streams, up to ``width`` decoding at once; returns them."""
        admitted = []
        while self.waiting and len(self.slot) < self.width:
            i = self.waiting.pop()
            self.slot[i], self.row[i] = self.engine._admit(self.prompts[i], set(self.slot.values()))
            admitted.append(i)
        return admitted

    def _choose_after_decode(self, decoding: list[int]) -> None:
        """Run the batch, then give each of ``decoding`` its next token; finished ones leave their stream."""
        self.engine._decode()
        for i in decoding:
            if self._finished(i):
                del self.slot[i], self.row[i]

    def _finished(self, i: int) -> bool:
        """Choose prompt ``i``'s next token from its row's logits; True when its sequence is done (an
        end-of-generation token, a stop string after ``min_new_tokens``, or ``max_new_tokens`` reached)."""
        s, new = self.sampling, self.new[i]
        step = len(new)
        token = self.engine._choose(self.row[i], self.prompts[i], new, s, step, self.rng)
        new.append(token)
        if token in self.engine.eog_ids:
            return True
        self.text[i] += self.engine._piece(token)
        if self.stop and step + 1 >= max(1, s.min_new_tokens):
            decoded = self.text[i].decode("utf-8", "ignore").lstrip()
            if any(stop in decoded for stop in self.stop):
                return True
        return len(new) >= s.max_new_tokens
