"""The chat room: the Aya registry of graph factories (:mod:`~.nodes`), :class:`ChatRoom` on a SQLite
checkpointer (:mod:`~.room`), the room file's schema and SQL (:mod:`~.store`), its integrity (:mod:`~.integrity`)
and the ipywidgets panel (:mod:`~.panel`). Only the faces (CLI, demo, notebooks) import this package.

``ChatRoom`` and the rest are imported from :mod:`~.room` on first use (PEP 562), not with the package:
:mod:`~.names` (the names the room's graph spec may use, for ``aya-lab graph validate``) is reachable
without the model stack that :mod:`~.room` brings.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from aya_lab.room.room import ChatRoom, RoomError, default_graph_path

__all__ = ["ChatRoom", "RoomError", "default_graph_path"]


def __getattr__(name: str) -> object:
    if name in __all__:
        return getattr(importlib.import_module("aya_lab.room.room"), name)
    raise AttributeError(f"module 'aya_lab.room' has no attribute {name!r}")
