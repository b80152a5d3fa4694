"""The adapters committed under data/adapters load: their files match their run cards, their base is
the embedded model they name, and each folder is documented in data/adapters/README.md."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from aya_lab.models.adapter import CARD_FILE, check_base, read_adapter
from aya_lab.models.embedded import EMBEDDED

ROOT = Path(__file__).resolve().parents[2] / "data" / "adapters"
FOLDERS = sorted(p.parent for p in ROOT.rglob(CARD_FILE))


def test_there_are_committed_adapters():
    assert len(FOLDERS) >= 3  # eng-swh at 50/100/200 steps at least


@pytest.mark.parametrize("folder", FOLDERS, ids=lambda p: str(p.relative_to(ROOT)))
def test_committed_adapter_matches_its_card_and_base(folder):
    adapter = read_adapter(folder)
    base = adapter.card["base"]
    assert base["spec"] in EMBEDDED  # trained on an embedded model, so it loads from a fresh clone
    check_base(adapter, f"gguf-sha256:{EMBEDDED[base['spec']].expected_sha256()[:24]}", f"{base['spec']}+lora:{folder}")
    if folder.name.startswith("step-"):  # a saved step of a run: the card says that step
        assert adapter.card["steps"] == int(folder.name.split("-")[1])
    here = str(folder.relative_to(ROOT.parent.parent))
    assert here.split("/step-")[0] in (ROOT / "README.md").read_text("utf-8")  # documented
    assert f"+lora:{here}`" in (folder / "README.md").read_text("utf-8")  # its card names this folder's spec


def test_saved_steps_of_one_run_share_its_identity():
    runs: dict[Path, set[str]] = {}
    for folder in FOLDERS:
        card = json.loads((folder / CARD_FILE).read_text("utf-8"))
        runs.setdefault(folder.parent, set()).add(json.dumps(card["run"], sort_keys=True))
    assert all(len(ids) == 1 for parent, ids in runs.items() if parent != ROOT)
