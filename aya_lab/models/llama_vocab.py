"""What a loaded GGUF model says about itself, read through llama.cpp: metadata, size, quantisation, and its
vocabulary (tokenising, detokenising, control tokens and end-of-generation tokens).

:class:`LlamaModelFacts` is a mixin of :class:`~aya_lab.models.llama_engine.LlamaEngine`; it reads the
engine's ``_lib`` (the ``llama_cpp`` bindings), ``_model``, ``_vocab`` and ``n_vocab``, and keeps no state of
its own.
"""

from __future__ import annotations

import ctypes
from collections.abc import Sequence
from typing import Any

__all__ = ["LlamaModelFacts"]


class LlamaModelFacts:
    """Metadata and vocabulary of the engine's model (see the module docstring for what it reads)."""

    _lib: Any
    _model: Any
    _vocab: Any
    n_vocab: int

    # -- metadata and vocabulary -------------------------------------------------------------------------
    def metadata(self, key: str) -> str | None:
        """A GGUF metadata value as text (``None`` when the file has no such key)."""
        size = 1 << 16
        while True:
            buf = ctypes.create_string_buffer(size)
            n = self._lib.llama_model_meta_val_str(self._model, key.encode(), buf, size)
            if n < 0:
                return None
            if n < size:
                return buf.value.decode("utf-8", "replace")
            size = n + 1

    def describe(self) -> str:
        """llama.cpp's one-line description of the model (architecture, size, quantization)."""
        buf = ctypes.create_string_buffer(256)
        self._lib.llama_model_desc(self._model, buf, 256)
        return buf.value.decode("utf-8", "replace")

    def file_type(self) -> str:
        """The quantization of the weights as llama.cpp names it (e.g. ``Q4_K - Medium``)."""
        code = self._lib.llama_model_ftype(self._model)
        name = self._lib.llama_ftype_name(code)
        return name.decode() if name else f"ftype {code}"

    def size_bytes(self) -> int:
        """Bytes of all the model's tensors as stored (what one decoding step reads, at most)."""
        return int(self._lib.llama_model_size(self._model))

    def n_params(self) -> int:
        """The model's parameter count, as llama.cpp reads it from the file."""
        return int(self._lib.llama_model_n_params(self._model))

    def token_text(self, token: int) -> str:
        if token < 0 or token >= self.n_vocab:
            return ""
        raw = self._lib.llama_vocab_get_text(self._vocab, token)
        return raw.decode("utf-8", "replace") if raw else ""

    def _special_tokens(self) -> tuple[tuple[str, ...], frozenset[int]]:
        """(control-token strings of length >= 2, longest first; end-of-generation token ids)."""
        lib, vocab = self._lib, self._vocab
        special = lib.LLAMA_TOKEN_ATTR_CONTROL | lib.LLAMA_TOKEN_ATTR_USER_DEFINED
        strings, eog = set(), set()
        for token in range(self.n_vocab):
            attr = lib.llama_vocab_get_attr(vocab, token)
            if attr & special:
                if lib.llama_vocab_is_eog(vocab, token):
                    eog.add(token)
                if attr & lib.LLAMA_TOKEN_ATTR_CONTROL:
                    text = self.token_text(token)
                    if len(text.strip()) >= 2:
                        strings.add(text)
        for token in (lib.llama_vocab_eos(vocab), lib.llama_vocab_eot(vocab)):
            if token >= 0:
                eog.add(int(token))
        return tuple(sorted(strings, key=lambda s: (-len(s), s))), frozenset(eog)

    def tokenize(self, text: str, *, parse_special: bool = True) -> list[int]:
        """Token ids of ``text`` (no BOS added; control-token strings in it are parsed as such)."""
        data = text.encode("utf-8")
        size = len(data) + 8
        out = (self._lib.llama_token * size)()
        n = self._lib.llama_tokenize(self._vocab, data, len(data), out, size, False, parse_special)
        if n < 0:
            size = -n
            out = (self._lib.llama_token * size)()
            n = self._lib.llama_tokenize(self._vocab, data, len(data), out, size, False, parse_special)
        return list(out[:n])

    def detokenize(self, tokens: Sequence[int]) -> str:
        """Text of ``tokens`` with special tokens removed."""
        if not tokens:
            return ""
        arr = (self._lib.llama_token * len(tokens))(*tokens)
        size = 8 * len(tokens) + 16
        while True:
            buf = ctypes.create_string_buffer(size)
            n = self._lib.llama_detokenize(self._vocab, arr, len(tokens), buf, size, True, False)
            if n >= 0:
                return buf.raw[:n].decode("utf-8", "replace")
            size = -n + 1

    def _piece(self, token: int) -> bytes:
        buf = ctypes.create_string_buffer(64)
        n = self._lib.llama_token_to_piece(self._vocab, token, buf, 64, 0, False)
        return buf.raw[: max(0, n)]
