"""Every number in a notebook's prose is one the notebook printed (issue 28, part 5).

For each ``notebooks/*.ipynb`` (the committed JSON, parsed; nothing is executed), every number of every
markdown cell must appear in some output of the same notebook's code cells — stream text,
``text/plain``, ``text/markdown`` or ``text/html``, so conclusions rendered by ``report()`` /
``Markdown(...)`` count — rounded no finer than the output shows (:mod:`aya_lab.notebook_prose` says
exactly what counts as a number and as found). Exempt by construction: numbers inside code spans and
fenced code (commands, paths, spec strings), link targets, and digits that are part of a name
(``SmolLM2``, ``NTREX-128``, ``135M``, ``fp32``).

Two short lists, each entry with its reason:

- :data:`ALLOW` — text blanked before numbers are read: not findings, so no output could carry them;
- :data:`SETTINGS` — phrases that state how a notebook runs: their numbers are looked up in the
  notebook's code instead of its outputs, so a setting the prose states is still the one the code sets.

A failure names the notebook, the markdown cell (index and first line) and the number in its context.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from aya_lab.notebook_prose import prose_violations

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"

ALLOW = {
    r"\b\d{4}-\d{2}-\d{2}\b": "a date: when outputs were recorded or a set written (provenance, not a result)",
    r"\b95%(?=\s(?:\w+\s)?(?:CIs?|confidence|interval))": "the confidence level of every interval (a method constant)",
    r"^#+ \d+\.": "a section number in a heading",
    r"\bp\s*<\s*0\.05\b": "the significance level of every test (a method constant)",
}

SETTINGS = {
    r"\b\d+\s+new\s+tokens": "the generation limit: the code's max_new_tokens",
    r"\b\d+\s+resamples": "the bootstrap's resample count: the code's n_bootstrap",
}

XFAIL: dict[str, str] = {}
"""Notebooks whose prose is known not to pass yet, with the reason (none now)."""


def notebook_params():
    out = []
    for path in sorted(NOTEBOOKS.glob("*.ipynb")):
        marks = [pytest.mark.xfail(strict=False, reason=XFAIL[path.name])] if path.name in XFAIL else []
        out.append(pytest.param(path, id=path.stem, marks=marks))
    return out


def test_every_notebook_is_checked():
    names = {p.name for p in NOTEBOOKS.glob("*.ipynb")}
    assert len(names) >= 7, names
    assert set(XFAIL) <= names, "an xfail mark names a notebook that does not exist"


@pytest.mark.parametrize("path", notebook_params())
def test_prose_numbers_appear_in_outputs(path):
    notebook = json.loads(path.read_text(encoding="utf-8"))
    violations = prose_violations(notebook, path.name, allow=ALLOW, settings=SETTINGS)
    assert not violations, (
        f"{len(violations)} number(s) in the prose of {path.name} that no output of the notebook shows "
        "(print them, render the sentence from variables, or correct it):\n" + "\n".join(map(str, violations))
    )
