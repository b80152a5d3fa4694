"""The chat room: the Aya registry of graph factories (:mod:`~.nodes`), :class:`ChatRoom` on a SQLite
checkpointer (:mod:`~.room`) and the ipywidgets panel (:mod:`~.panel`). Only the faces (CLI, demo,
notebooks) import this package."""

from aya_lab.room.room import ChatRoom, RoomError, default_graph_path

__all__ = ["ChatRoom", "RoomError", "default_graph_path"]
