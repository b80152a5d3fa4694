"""The chat room: the Aya registry of graph factories (:mod:`~.nodes`), :class:`ChatRoom` on a SQLite
checkpointer (:mod:`~.room`), the room file's schema and SQL (:mod:`~.store`), its integrity (:mod:`~.integrity`)
and the ipywidgets panel (:mod:`~.panel`). Only the faces (CLI, demo, notebooks) import this package.

``ChatRoom`` and the rest are imported from :mod:`~.room` on first use (PEP 562), not with the package:
:mod:`~.names` (the names the room's graph spec may use, for ``aya-lab graph validate``) is reachable
without the model stack that :mod:`~.room` brings.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from aya_lab.refs import lazy_exports

if TYPE_CHECKING:
    from aya_lab.room.nodes import aya_registry
    from aya_lab.room.room import ChatRoom, RoomError, default_graph_path

__all__ = ["ChatRoom", "RoomError", "aya_registry", "default_graph_path"]

_HOMES = {"aya_lab.room.room": ("ChatRoom", "RoomError", "default_graph_path"), "aya_lab.room.nodes": ("aya_registry",)}

__getattr__ = lazy_exports(__name__, _HOMES)
