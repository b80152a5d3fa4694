from __future__ import annotations

import pytest
from graph_helpers import make_registry

from aya_lab.graph import Registry


@pytest.fixture
def registry() -> Registry:
    return make_registry()
