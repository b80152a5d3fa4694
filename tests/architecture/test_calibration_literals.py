"""Calibrations are data, never numbers typed into code (DESIGN §3, "Every model is judged by its own
record"): the modules that hold and read the faithfulness gate's figures contain no float literal in
[0.5, 1.0), the band where similarity thresholds and floors lie (honest translations score about 0.8-0.95;
method parameters such as the quantiles are below 0.5, and 1.0 is the scale's bound). Parsed with ``ast``."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "aya_lab"
GATE_MODULES = ("agents/faithfulness.py", "agents/calibration.py")


def measured_literals(source: str) -> list[tuple[int, float]]:
    """``(line, value)`` of every float literal in [0.5, 1.0) (docstrings are strings, not literals)."""
    return [
        (node.lineno, node.value)
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Constant) and type(node.value) is float and 0.5 <= node.value < 1.0
    ]


@pytest.mark.parametrize("module", GATE_MODULES)
def test_no_measured_threshold_is_typed_into_the_gate(module):
    found = measured_literals((PACKAGE / module).read_text(encoding="utf-8"))
    assert not found, f"{module}: {found}: a measured figure belongs in data/calibration/ (its command writes it)"


def test_the_rule_sees_a_typed_threshold():
    assert measured_literals('X = {"eng": 0.843}\n"""0.9 in a docstring"""\nY = 0.05\nZ = 1.0') == [(1, 0.843)]


SCOPE_MODULES = ("rag/sections.py", "agents/query.py")
METHOD_CONSTANTS = {"QUOTE_MARGIN", "TITLE_WEIGHT"}
"""Chosen by judgement on development questions and documented (docs/ROOM.md, "Answers that quote"), not
thresholds on a measured score; the scope margins are measured (data/calibration/scope-margins.json)."""


@pytest.mark.parametrize("module", SCOPE_MODULES)
def test_no_scope_margin_is_typed_into_the_quoting_code(module):
    tree = ast.parse((PACKAGE / module).read_text(encoding="utf-8"))
    allowed = {
        id(node.value)
        for node in tree.body
        if isinstance(node, ast.Assign) and {getattr(t, "id", None) for t in node.targets} <= METHOD_CONSTANTS
    }
    found = [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and type(node.value) is float
        and 0 < node.value < 0.5
        and id(node) not in allowed
    ]
    assert not found, f"{module}: {found}: a scope margin belongs in data/calibration/scope-margins.json"
