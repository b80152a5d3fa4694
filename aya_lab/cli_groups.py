"""The ``aya-lab`` command groups whose parsers live with their code: :data:`GROUPS`, the one table of each
group's help and registrars.

It imports nothing, so any layer may read it: each group's registrar (``aya_lab.graph.cli:register_graph``,
``aya_lab.datasets.cli:register_data``...) takes its group's help from here, and :mod:`aya_lab.cli` lists
every group with that help without importing one (``aya-lab --help`` stays fast).
"""

from __future__ import annotations

__all__ = ["GROUPS", "group_help"]

GROUPS: dict[str, tuple[str, tuple[str, ...]]] = {
    "graph": ("graph specs: schema, validate, show, draw, hash, resolve", ("aya_lab.graph.cli:register_graph",)),
    "data": (
        "test sets and training data: list, fetch, language codes, synth",
        ("aya_lab.datasets.cli:register_data",),
    ),
    "eval": (
        "evaluate: run a task (translation, summaries, routing, ...), compare saved reports",
        ("aya_lab.eval.task_cli:register_tasks",),
    ),
    "tune": ("train a LoRA adapter: translate, summarize-onecall, route", ("aya_lab.tune.parser:register_tune",)),
}
"""Command groups whose parsers live with their code: name -> (help, ``module:function`` registrars)."""


def group_help(name: str) -> str:
    """The help of command group ``name`` (``graph``, ``data``, ``eval``, ``tune``)."""
    return GROUPS[name][0]
