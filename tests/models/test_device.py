"""Device choice: CUDA + bf16 when available, CPU + fp32 otherwise; an explicit device wins."""

import torch

from aya_lab.models.device import pick_device


def test_cpu_default_is_fp32(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert pick_device() == ("cpu", torch.float32)


def test_cuda_when_available_is_bf16(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    assert pick_device() == ("cuda", torch.bfloat16)


def test_explicit_device_wins(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    assert pick_device("cpu") == ("cpu", torch.float32)
    assert pick_device("cuda:1") == ("cuda:1", torch.bfloat16)
