"""The wheel works without the checkout: it carries the prompts, the knowledge base and the graph specs.

One slow test builds the wheel the way ``pip install .`` does (not editable), checks its contents,
installs it into a bare folder and runs the installed package from a directory outside the repository.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from aya_lab.rag.scope import POOL_FILES
from aya_lab.rag.vector_record import RECORD_FILE
from aya_lab.settings import DEFAULT_DIRECTION_ADAPTERS

ROOT = Path(__file__).resolve().parent.parent
PIP = [sys.executable, "-m", "pip"]

PROBE = """
import json, aya_lab
from aya_lab.paths import kb_dir, prompts_dir
from aya_lab.prompts import load_prompt
from aya_lab.agents.calibration import load_thresholds, translator_record
from aya_lab.rag.margins import scope_margins
print(json.dumps({
    "package": aya_lab.__file__,
    "thresholds": sorted(load_thresholds().thresholds),
    "translator_floor": translator_record("gemma3-270m").floor,
    "min_margin": scope_margins().min_margin,
    "prompts": str(prompts_dir()),
    "kb": str(kb_dir()),
    "kb_files": sorted(p.name for p in kb_dir().iterdir()),
    "strict": load_prompt("user_translate/strict").name,
    "strict_vars": sorted(load_prompt("user_translate/strict").variables),
}))
"""


def _expected_members() -> set[str]:
    """Every file the wheel must carry, as wheel member names."""
    members = {p.relative_to(ROOT).as_posix() for p in (ROOT / "aya_lab").rglob("*.py")}
    members |= {p.relative_to(ROOT).as_posix() for p in (ROOT / "aya_lab" / "graphs").glob("*.yaml")}
    members |= {
        "aya_lab/resources/prompts/" + p.relative_to(ROOT / "prompts").as_posix()
        for p in (ROOT / "prompts").glob("*/*.yaml")
    }
    members |= {"aya_lab/resources/kb/" + p.name for p in (ROOT / "data" / "kb").glob("*.md")}
    members |= {"aya_lab/resources/fewshot/" + p.name for p in (ROOT / "data" / "fewshot").glob("*.yaml")}
    members |= {"aya_lab/resources/glossary/" + p.name for p in (ROOT / "data" / "glossary").glob("*.tsv")}
    members |= {"aya_lab/resources/rag/" + name for name in (*POOL_FILES, RECORD_FILE)}  # the room's scope pool
    # the guard's thresholds and the translators' records, the quoting scope's margins: what the room reads
    members |= {"aya_lab/resources/calibration/" + p.name for p in (ROOT / "data" / "calibration").glob("*.json")}
    members |= {  # the measured direction adapters the room defaults to (settings.DEFAULT_DIRECTION_ADAPTERS)
        "aya_lab/resources/adapters/" + p.relative_to(ROOT / "data" / "adapters").as_posix()
        for _, folder in DEFAULT_DIRECTION_ADAPTERS.values()
        for p in (ROOT / "data" / "adapters" / folder).iterdir()
    }
    return members


@pytest.mark.slow
def test_installed_wheel_carries_prompts_kb_and_graphs_and_runs_the_demo(tmp_path):
    """Build, inspect, install with ``--target``, then run from outside the repository.

    ``pip install --target`` stands in for a fresh virtual environment: the installed copy is put
    first on ``PYTHONPATH`` (ahead of the checkout's editable install, which the probe rules out by
    checking where ``aya_lab`` was imported from), while the third-party dependencies come from the
    project's own venv. The demo runs through the installed ``aya-lab`` script on the ``fake:ok``
    model, so it needs no weights, but it opens the room's knowledge base from the wheel's
    ``data/kb`` copy with the real embedder.
    """
    wheels, target, outside = tmp_path / "wheels", tmp_path / "site", tmp_path / "elsewhere"
    outside.mkdir()
    build = [*PIP, "wheel", "--quiet", "--no-deps", "--no-build-isolation", str(ROOT), "-w", str(wheels)]
    subprocess.run(build, check=True, cwd=tmp_path, capture_output=True, timeout=300)
    (wheel,) = wheels.glob("aya_lab-*.whl")

    names = set(zipfile.ZipFile(wheel).namelist())
    missing = sorted(_expected_members() - names)
    assert not missing, f"the wheel lacks {missing[:5]} (list new subpackages under [tool.setuptools] packages)"
    assert "aya_lab/resources/prompts/user_translate/strict.yaml" in names
    assert "aya_lab/resources/kb/travel_policy.md" in names and "aya_lab/graphs/aya.yaml" in names

    install = [*PIP, "install", "--quiet", "--no-deps", "--target", str(target), str(wheel)]
    subprocess.run(install, check=True, cwd=tmp_path, capture_output=True, timeout=300)
    env = {k: v for k, v in os.environ.items() if not k.startswith("AYA_LAB_")}
    env.update(PYTHONPATH=str(target), AYA_LAB_CACHE_DIR=str(tmp_path / "cache"))

    probe = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=outside, env=env, capture_output=True, text=True, timeout=300, check=True
    )
    found = json.loads(probe.stdout.strip().splitlines()[-1])
    assert Path(found["package"]).is_relative_to(target)
    assert Path(found["prompts"]) == target / "aya_lab" / "resources" / "prompts"
    assert Path(found["kb"]) == target / "aya_lab" / "resources" / "kb"
    assert found["kb_files"] == sorted(p.name for p in (ROOT / "data" / "kb").glob("*.md"))
    assert found["strict"] == "user_translate/strict" and "target_language" in found["strict_vars"]
    # the records the guard and the quoting scope read come from the wheel (the demo's second message needs them)
    assert found["thresholds"] == sorted(
        json.loads((ROOT / "data" / "calibration" / "faithfulness-thresholds.json").read_text())["thresholds"]
    )
    assert found["translator_floor"] > 0 and found["min_margin"] > 0

    script = target / "bin" / "aya-lab"
    assert script.is_file(), "the wheel declares no aya-lab console script"
    demo = subprocess.run(
        [sys.executable, str(script), "demo", "--model", "fake:ok", "--room", str(tmp_path / "demo.sqlite")],
        cwd=outside,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert demo.returncode == 0, demo.stderr[-2000:]
    assert "6 messages in" in demo.stdout and "--- feed of lena (deu,eng) ---" in demo.stdout
    assert (tmp_path / "demo.kb.sqlite").is_file()
