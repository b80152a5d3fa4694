"""The README's graph section: its example spec, diagram, run and hashes stay true."""

from __future__ import annotations

from pathlib import Path

from graph_helpers import EXAMPLES

from aya_lab.graph import build_graph, default_registry, draw, load_spec, spec_hash

README = Path(__file__).resolve().parents[2] / "README.md"


def section() -> str:
    text = README.read_text(encoding="utf-8")
    assert "<!-- section:graph -->" in text, "the README's graph section markers are missing"
    return text.split("<!-- section:graph -->", 1)[1].split("<!-- /section:graph -->", 1)[0]


def test_example_runs_as_documented():
    reg = default_registry()
    app = build_graph(load_spec(EXAMPLES / "triage.yaml", registry=reg), reg).compile()
    assert app.invoke({"request": "summarize", "log": []}) == {"request": "summarize", "log": ["intake", "summarize"]}
    assert app.invoke({"request": "hi", "log": []})["log"] == ["intake", "answer"]
    variant = build_graph(load_spec(EXAMPLES / "triage_always_summarize.yaml", registry=reg), reg).compile()
    assert variant.invoke({"request": "hi", "log": []})["log"] == ["intake", "summarize", "answer"]


def test_readme_shows_the_current_spec_diagram_and_hashes():
    text = section()
    reg = default_registry()
    spec_text = (EXAMPLES / "triage.yaml").read_text(encoding="utf-8")
    body = "\n".join(line for line in spec_text.splitlines() if not line.startswith("#"))
    assert body.strip() in text
    mermaid = draw(EXAMPLES / "triage.yaml", reg)
    for line in mermaid.splitlines():
        if "-->" in line or "-.->" in line:
            assert line in text
    assert spec_hash(load_spec(EXAMPLES / "triage.yaml", registry=reg)) in text
    assert spec_hash(load_spec(EXAMPLES / "triage_always_summarize.yaml", registry=reg)) in text
