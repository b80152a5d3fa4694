from __future__ import annotations

import pytest
from graph_helpers import make_registry

from aya_lab.graph import Registry
from aya_lab.graph import cli as graph_cli

HELPER_REGISTRIES = (
    "graph_helpers:make_registry",
    "parameter_helpers:greet_registry",
    "kenkenpa_helpers:kenkenpa_registry",
)
"""The test helpers' registries, which ``--registry`` accepts here as the project's own (it refuses any
other ``module:attr``)."""


@pytest.fixture
def registry() -> Registry:
    return make_registry()


@pytest.fixture(autouse=True)
def _helper_registries(monkeypatch: pytest.MonkeyPatch) -> None:
    for ref in HELPER_REGISTRIES:
        monkeypatch.setitem(graph_cli.KNOWN_REGISTRIES, ref, ref)
