"""Fixtures of the fine-tuning tests: tiny random Llamas (SmolLM2's tokenizer and chat template, hidden size 16,
2 layers) built once per session, a small routing file, and a quick training setting that moves their loss
in a few steps. Torch computes on one thread here (competing threads make tiny models far slower on shared
cores)."""

from __future__ import annotations

import json

import pytest

from aya_lab.datasets.project import load_routing_examples

ALL_LINEAR = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")
QUICK = {
    "steps": 4, "batch_size": 4, "learning_rate": 3e-2, "targets": ALL_LINEAR, "warmup": 1, "max_tokens": 160,
    "checkpoint_every": 2, "dropout": 0.0, "progress": False,
}  # fmt: skip
"""Options that make a tiny random model's loss fall within a few steps (a high learning rate, every linear
layer adapted)."""


@pytest.fixture(scope="session", autouse=True)
def _one_thread():
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.fixture(scope="session")
def tiny_base(tmp_path_factory):
    from tests.fakes import tiny_llama

    return tiny_llama(tmp_path_factory.mktemp("tiny-base"), seed=0, context=512)


@pytest.fixture(scope="session")
def other_base(tmp_path_factory):
    from tests.fakes import tiny_llama

    return tiny_llama(tmp_path_factory.mktemp("other-base"), seed=1, context=512)


@pytest.fixture(scope="session")
def route_file(tmp_path_factory):
    """24 routing requests of the project's set (6 per label), as a user's JSONL file."""
    by_label: dict[str, list] = {}
    for r in load_routing_examples():
        by_label.setdefault(r.label, []).append(r)
    records = [r for rows in by_label.values() for r in rows[:6]]
    path = tmp_path_factory.mktemp("route") / "requests.jsonl"
    path.write_text("\n".join(json.dumps(r.model_dump(exclude_none=True)) for r in records) + "\n", encoding="utf-8")
    return path


@pytest.fixture(scope="session")
def trained(tiny_base, route_file, tmp_path_factory):
    """An adapter trained once for the session (4 quick steps of the route task)."""
    from aya_lab.tune import train_adapter

    out = tmp_path_factory.mktemp("adapters") / "route"
    return train_adapter(task="route", model=f"hf:{tiny_base}", data=str(route_file), out=out, **QUICK)
