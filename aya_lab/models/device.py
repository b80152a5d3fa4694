"""Device and dtype choice (CUDA in bf16 when available, else CPU in fp32), and transformers kept quiet
(no progress bars on stderr: notebook outputs are compared by nbval)."""

from __future__ import annotations

import torch

__all__ = ["pick_device", "silence_transformers"]


def pick_device(device: str | None = None) -> tuple[str, torch.dtype]:
    """``(device, dtype)``: an explicit device wins; otherwise CUDA+bf16 if available, else CPU+fp32."""
    if device is None:
        device = "cuda" if torch.cuda.is_available() else "cpu"
    dtype = torch.bfloat16 if device.startswith("cuda") else torch.float32
    return device, dtype


def silence_transformers() -> None:
    """No transformers progress bars on stderr and only errors logged, for the whole process (notebook
    outputs are compared by nbval). Idempotent; called before any model or embedder is loaded."""
    from transformers.utils import logging as hf_logging  # heavy: imported only when a model is loaded

    hf_logging.disable_progress_bar()
    hf_logging.set_verbosity_error()
