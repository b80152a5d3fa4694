"""The ``llama-cpp-python`` bindings, loaded on first use, and what goes wrong loading a GGUF file.

:func:`bindings` imports ``llama_cpp`` (a compiled library: its absence is a one-line
:class:`LlamaCppUnavailableError` naming the tools its build needs and the other engine) and routes
llama.cpp's log into a short buffer instead of stderr; :func:`load_failure` turns the buffer's last error
lines into the one-line reason of a :class:`GGUFLoadError`. :func:`check_gguf_file` refuses a path that is
not a regular file starting with the GGUF magic before llama.cpp reads it.
"""

from __future__ import annotations

import collections
import ctypes
from pathlib import Path
from types import ModuleType
from typing import Any

from aya_lab.models.errors import ModelNotFoundError

__all__ = [
    "GGUFLoadError",
    "LlamaCppUnavailableError",
    "bindings",
    "check_gguf_file",
    "clear_log",
    "llama_cpp_version",
    "load_failure",
]

LLAMA_CPP_PIN = "llama-cpp-python==0.3.36"
_BUILD_HINT = (
    f"install it with `pip install {LLAMA_CPP_PIN}` (it compiles llama.cpp: needs cmake and a C++ compiler, "
    "e.g. `apt-get install cmake g++`), or run the model on transformers with the spec suffix ~transformers"
)
_LOG_LINES: collections.deque[str] = collections.deque(maxlen=40)
_LOG_CALLBACK: Any = None  # kept referenced: llama.cpp holds the C pointer
_GGML_LOG_WARN = 3


class LlamaCppUnavailableError(ModelNotFoundError):
    """``llama-cpp-python`` is not installed or its compiled library does not load."""


class GGUFLoadError(ModelNotFoundError):
    """llama.cpp refused a GGUF file (truncated, corrupted, or an architecture it does not know)."""


def bindings() -> ModuleType:
    """The ``llama_cpp`` module, with llama.cpp's log routed into :data:`_LOG_LINES` (nothing printed)."""
    global _LOG_CALLBACK
    try:
        import llama_cpp
    except (ImportError, OSError) as exc:  # OSError: the shared library is there but does not load
        raise LlamaCppUnavailableError(f"the llama.cpp engine is not available ({exc}); {_BUILD_HINT}") from None
    if _LOG_CALLBACK is None:

        def keep(level: int, text: bytes | None, _user: Any) -> None:
            if level >= _GGML_LOG_WARN and text:
                _LOG_LINES.append(text.decode("utf-8", "replace").strip())

        _LOG_CALLBACK = llama_cpp.llama_log_callback(keep)
        llama_cpp.llama_log_set(_LOG_CALLBACK, ctypes.c_void_p(0))
        llama_cpp.llama_backend_init()
    return llama_cpp


def llama_cpp_version() -> str:
    """The installed ``llama-cpp-python`` version (part of every llama.cpp generation's fingerprint)."""
    return str(bindings().__version__)


def clear_log() -> None:
    """Forget llama.cpp's earlier log lines (before a load whose failure is to be explained)."""
    _LOG_LINES.clear()


def load_failure(path: Path, what: str = "load") -> GGUFLoadError:
    """The one-line error for a GGUF file llama.cpp could not ``what``: its reason and the fix."""
    return GGUFLoadError(f"llama.cpp cannot {what} {path}: {_reason()}; {_file_fix(path)}")


def check_gguf_file(path: Path) -> None:
    """A one-line error for a path that is not a readable regular file starting with the GGUF magic."""
    if not path.is_file():
        raise GGUFLoadError(f"GGUF file {path} does not exist or is not a regular file; pass a path to a .gguf file")
    with path.open("rb") as f:
        head = f.read(4)
    if head != b"GGUF":
        raise GGUFLoadError(f"{path} is not a GGUF file (it starts with {head!r}, not b'GGUF'); {_file_fix(path)}")


def _reason() -> str:
    """llama.cpp's last error lines, as one line (or a generic reason when it logged none)."""
    lines = [line for line in _LOG_LINES if line]
    errors = [line for line in lines if "error" in line.lower() or "failed" in line.lower()] or lines
    return "; ".join(dict.fromkeys(errors[-3:])) or "no reason logged"


def _file_fix(path: Path) -> str:
    return (
        f"check that {path.name} is complete (re-download or reinstall the package that ships it) and of an "
        "architecture llama.cpp supports; transformers-only models run as hf:<path>"
    )
