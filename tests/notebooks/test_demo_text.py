"""``make demo``'s closing text states notebook 03's verdicts, as its executed "What this shows" renders them.

The demo prints which languages the default translator beats both floors into English from, and which have too
few documents to test (:data:`aya_lab.demo.STILL_FAILS`). The check reads the committed notebook's rendered
conclusion (the output of the cell that states them), so a re-recording that changes a verdict fails here until
the demo says the same.
"""

from __future__ import annotations

import json
import re

from aya_lab.demo import STILL_FAILS
from aya_lab.languages import get_language
from aya_lab.paths import project_root


def _conclusions() -> str:
    """The rendered "What this shows" bullets of notebook 03 (the markdown output that holds them)."""
    notebook = json.loads((project_root() / "notebooks" / "03_translation_low_resource.ipynb").read_text("utf-8"))
    for cell in notebook["cells"]:
        for output in cell.get("outputs", []):
            text = "".join(output.get("data", {}).get("text/markdown", ""))
            if "the low-resource languages fail" in text:
                return text
    raise AssertionError("notebook 03 renders no 'What this shows' conclusion")


def _pairs(text: str, label: str) -> set[str]:
    """The pairs a conclusion lists after ``label:`` (inline code, up to the next semicolon or full stop)."""
    match = re.search(re.escape(label) + r": ([^;.]*)", text)
    assert match, f"notebook 03's conclusion no longer says '{label}:'"
    return set(re.findall(r"`([a-z]{3}-[a-z]{3})`", match.group(1)))


def _names(pairs: set[str]) -> set[str]:
    return {get_language(code).name for pair in pairs for code in pair.split("-") if code != "eng"}


def test_the_demo_names_the_languages_notebook_03_finds():
    text = _conclusions()
    assert "translates French and German into English" in text and "It beats both floors there" in text
    both_into = {"French", "German"} | _names(_pairs(text, "beats both floors"))
    too_few = _names(_pairs(text, "too few documents to test"))
    stated_into = re.search(r"into English from ([^;]*);", STILL_FAILS)
    assert stated_into, "the demo's closing text no longer names the languages into English"
    assert set(re.split(r", | and ", stated_into.group(1))) == both_into
    if too_few:
        stated_few = re.search(r"English; ([^.]*) have too few documents to test", STILL_FAILS)
        assert stated_few and set(re.split(r", | and ", stated_few.group(1))) == too_few
