"""The JupyterLab room panel: every user's feed side by side, a speaker selector and an input box.

``room.panel()`` returns a :class:`RoomPanel`; display it in a notebook. Sending runs the room graph
and re-renders every feed; Aya's replies are marked. A user is added with ``ID:LANGUAGE`` in the
"add user" box (``add_user(text)``); a refused id or language shows as one error line and adds nobody. Text is shown through
:func:`~aya_lab.text_safety.for_html`: escaped, with any control or bidi-override character visible. The logic is plain Python (``send(text)``,
``feeds_html()``) so it is tested headless; the widgets only call it.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from typing import Protocol

import ipywidgets as widgets

from aya_lab.languages import language_name
from aya_lab.messages import Delivery
from aya_lab.room.errors import RoomError
from aya_lab.room.runs import RunReport
from aya_lab.text_safety import for_html

__all__ = ["PanelRoom", "RoomPanel"]

_STYLE = (
    "<style>.aya-feed{font-family:sans-serif;font-size:13px;min-width:220px;max-width:320px}"
    ".aya-feed .aya{background:#f2f0ff;border-left:3px solid #7a5cff;padding:2px 4px}"
    ".aya-feed .own{color:#555}.aya-feed p{margin:3px 0}</style>"
)


class PanelRoom(Protocol):
    """What the panel uses of a room; :class:`~aya_lab.room.ChatRoom` is one (the room imports this module,
    so this module names what it needs instead of importing the class)."""

    @property
    def users(self) -> Mapping[str, str]: ...
    @property
    def readers(self) -> Mapping[str, Sequence[str]]: ...
    def feeds(self) -> Mapping[str, Sequence[Delivery]]: ...
    def send(self, user: str, text: str) -> RunReport: ...
    def add_user(self, user_id: str, language: str | Sequence[str]) -> str: ...


class RoomPanel:
    """Widgets over a :class:`~aya_lab.room.ChatRoom` (see module docstring)."""

    def __init__(self, room: PanelRoom) -> None:
        self.room = room
        users = list(room.users)
        self.speaker = widgets.Dropdown(options=users, value=users[0] if users else None, description="as")
        self.text = widgets.Text(placeholder="message (use @aya to ask Aya)", layout=widgets.Layout(width="420px"))
        self.button = widgets.Button(description="Send", button_style="primary")
        self.status = widgets.HTML()
        self.columns = widgets.HBox()
        self.new_user = widgets.Text(
            placeholder="ID:LANGUAGES, e.g. amara:swh,eng", layout=widgets.Layout(width="220px")
        )
        self.add_button = widgets.Button(description="Add user")
        self.button.on_click(lambda _: self.on_send())
        self.add_button.on_click(lambda _: self.add_user(self.new_user.value))
        inputs = widgets.HBox([self.speaker, self.text, self.button, self.new_user, self.add_button])
        self.widget = widgets.VBox([self.columns, inputs, self.status])
        self.refresh()

    def feeds_html(self) -> dict[str, str]:
        """User -> the HTML of their feed column."""
        out = {}
        for user, feed in self.room.feeds().items():
            langs = ", ".join(language_name(lang) for lang in self.room.readers[user])
            rows = []
            for d in feed:
                cls = "aya" if d.from_aya else ("own" if d.sender == user else "")
                rows.append(f'<p class="{cls}"><b>{for_html(d.sender)}</b>: {for_html(d.text)}</p>')
            out[user] = (
                f'<div class="aya-feed"><h4>{for_html(user)} ({for_html(langs)})</h4>' + "".join(rows) + "</div>"
            )
        return out

    def refresh(self) -> None:
        self.columns.children = [widgets.HTML(_STYLE + h) for h in self.feeds_html().values()]

    def send(self, text: str, speaker: str | None = None) -> RunReport:
        """Send ``text`` as ``speaker`` (default: the selected one); refresh; return the run report."""
        report = self.room.send(speaker or self.speaker.value, text)
        self.refresh()
        self.status.value = html.escape(
            f"run {report.run_id}: {len(report.nodes)} nodes, {report.model_calls} model calls"
        )
        return report

    def add_user(self, text: str) -> str | None:
        """Add the user ``ID:LANGUAGE`` or ``ID:LANGUAGE,LANGUAGE...`` (in order of preference) in ``text``;
        returns their id (normal form), or ``None`` with the one-line error in the status (nobody added)."""
        name, sep, language = str(text).strip().partition(":")
        try:
            if not sep:
                raise RoomError(f"{text!r} is no ID:LANGUAGE; write e.g. amara:swh or amara:swh,eng")
            user = self.room.add_user(name.strip(), language.strip())
        except ValueError as exc:
            self.status.value = f'<span style="color:#b00">error: {for_html(str(exc))}</span>'
            return None
        speaker = self.speaker.value
        self.speaker.options = list(self.room.users)
        self.speaker.value = speaker or user
        self.new_user.value = ""
        self.refresh()
        names = ", ".join(language_name(lang) for lang in self.room.readers[user])
        self.status.value = html.escape(f"added {user} ({names})")
        return user

    def on_send(self) -> None:
        """The Send button handler: errors are shown in the panel, the room stays as it was."""
        try:
            self.send(self.text.value)
            self.text.value = ""
        except ValueError as exc:
            self.status.value = f'<span style="color:#b00">error: {for_html(str(exc))}</span>'

    def _ipython_display_(self) -> None:
        from IPython.display import display

        display(self.widget)
