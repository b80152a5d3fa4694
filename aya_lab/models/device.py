"""Device and dtype choice: CUDA in bf16 when available, else CPU in fp32."""

from __future__ import annotations

import torch

__all__ = ["pick_device"]


def pick_device(device: str | None = None) -> tuple[str, torch.dtype]:
    """``(device, dtype)``: an explicit device wins; otherwise CUDA+bf16 if available, else CPU+fp32."""
    if device is None:
        device = "cuda" if torch.cuda.is_available() else "cpu"
    dtype = torch.bfloat16 if device.startswith("cuda") else torch.float32
    return device, dtype
