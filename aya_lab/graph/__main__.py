"""``python -m aya_lab.graph COMMAND ...``: the ``aya-lab graph`` commands without the console script,
e.g. ``python -m aya_lab.graph show aya`` (the room's graph: state, nodes and their parameters, edges)."""

from __future__ import annotations

import sys

from aya_lab.graph.cli import graph_main

if __name__ == "__main__":  # pragma: no cover
    sys.exit(graph_main(["graph", *sys.argv[1:]]))
