"""Every notebook that reports a p-value states its family of tests and reads its conclusions under Holm
over that family (issue 38, docs/EVALUATION.md "The statistics policy, as implemented").

A notebook reports a p-value when its code reads a paired test's ``p`` (``p_value``, ``p_bootstrap``,
``p_holm`` or a ``"p"`` column). Such a notebook must have a ``## The notebook's family of tests`` section
whose code calls :func:`aya_lab.eval.family` and asserts on its result, so a re-recording that makes a
claimed difference non-significant under the family's correction fails under nbval. No evaluation or paired
test runs after the section: it comes after every test it adjusts (last, or just before the conclusions that
read it).
"""

from __future__ import annotations

import re

import pytest

from aya_lab.paths import project_root
from tests.notebooks.test_readme_findings import section_code

HEADING = "The notebook's family of tests"
P_VALUE = re.compile(r"p_value|p_bootstrap|p_holm|\[\"p\"\]|'p'\]")
NOTEBOOKS = sorted((project_root() / "notebooks").glob("0*.py"))


TEST_CALL = re.compile(
    r"\b(?:run|analyse_group|paired_accuracy|paired_bootstrap|paired_equivalence|paired_usefulness|routers_paired|"
    r"paths_paired|deltas|baseline_tests|combine_summarizer_runs)\("
)


def runs_tests(source: str) -> bool:
    """Whether ``source``'s code runs an evaluation or a paired test (reading their results is fine)."""
    return bool(TEST_CALL.search("\n".join(line for line in source.splitlines() if not line.lstrip().startswith("#"))))


def reports_p_values(source: str) -> bool:
    code = "\n".join(line for line in source.splitlines() if not line.lstrip().startswith("#"))
    return bool(P_VALUE.search(code))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_a_notebook_with_p_values_states_its_family_of_tests(path):
    source = path.read_text(encoding="utf-8")
    if not reports_p_values(source):
        pytest.skip(f"{path.name} reports no p-value")
    code = section_code(source, HEADING)
    assert code is not None, f"{path.name} reports p-values but has no '## {HEADING}' section"
    assert "family(" in code and "assert " in code, f"{path.name}: the family section must call family() and assert"
    after = source.split(f"# ## {HEADING}", 1)[1].split("\n# ## ", 1)
    assert len(after) == 1 or not runs_tests(after[1]), f"{path.name}: a test is run after the family section"


def test_the_check_sees_p_values_and_tests_and_ignores_prose():
    assert reports_p_values('x = t["p"]\n') and reports_p_values("d['p_value']\n")
    assert not reports_p_values("# the p_value of ...\nx = 1\n")
    assert runs_tests('r = run("summaries")\n') and runs_tests("d = deltas(res, 'chrF')\n")
    assert not runs_tests("# run(...) in prose\nreport(rerun=1)\n")
