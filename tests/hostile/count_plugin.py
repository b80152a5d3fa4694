"""A pytest plugin that prints the hostile-input run's case count per group after collection
(``pytest --collect-only -q -p tests.hostile.count_plugin -m hostile tests/hostile``)."""

from __future__ import annotations

import json
from collections import Counter

import pytest

MARK = "HOSTILE_COUNTS "


def pytest_collection_finish(session: pytest.Session) -> None:
    counts = Counter(str(m.args[0]) for item in session.items for m in item.iter_markers("hostile") if m.args)
    print(MARK + json.dumps(dict(sorted(counts.items()))))
