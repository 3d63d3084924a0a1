"""The log screen: the events of the game with their time, the newest first, and undo and
redo. What undo took back stays in the log, marked, since history is never rewritten."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from kivy.properties import BooleanProperty, ObjectProperty, StringProperty
from kivy.uix.label import Label
from kivy.uix.screenmanager import Screen

from companion.i18n import language, t
from companion.table.engine import render
from companion.table.journal import Event
from companion.ui.screens import load_kv
from companion.ui.widgets import load_widgets_kv
from companion.ui.widgets.buttons import compose

SHOWN = 200  # the newest events; the whole game is in the journal and its export


@dataclass(frozen=True)
class LogEntry:
    event_id: int
    clock: str
    source: str
    text: str
    undone: bool


def undone_ids(events: list[Event]) -> set[int]:
    """Events taken back by an undo and not put back by a redo."""
    undone: set[int] = set()
    for ev in events:
        if ev.type == "undo":
            undone.update(ev.payload.get("targets", []))
        elif ev.type == "redo":
            undone.difference_update(ev.payload.get("targets", []))
    return undone


def log_lines(game: Any, lang: str | None = None) -> list[LogEntry]:
    lang = lang or language()
    events = game.events()
    undone = undone_ids(events)
    lines = []
    for ev in events[-SHOWN:]:
        notes = [render(game.data, k, v, lang) for k, v in ev.payload.get("notes", [])]
        text = " ".join(notes) or ev.payload.get("text") or ev.type
        lines.append(LogEntry(ev.id, time.strftime("%H:%M:%S", time.localtime(ev.ts)),
                             t(f"ui.source.{ev.source}", lang), text, ev.id in undone))
    lines.reverse()  # the newest on top, where the eye lands
    return lines


class LogLine(Label):
    undone = BooleanProperty(False)  # shown in grey and with the word "annulé"


class LogScreen(Screen):
    session = ObjectProperty(None, allownone=True)
    title = StringProperty("")
    can_undo = BooleanProperty(False)
    can_redo = BooleanProperty(False)

    def __init__(self, **kwargs) -> None:
        load_widgets_kv()
        load_kv("log")
        kwargs.setdefault("name", "log")
        super().__init__(**kwargs)
        self.lines: list[LogEntry] = []
        self._stale = False

    def bind_session(self, session: Any) -> None:
        self.session = session
        session.bind(on_state=lambda *_: self._changed())
        self.refresh()

    def _changed(self) -> None:
        # Written when seen: the log is up to 200 lines, each a label drawn anew, and the app
        # makes this screen in idle time; refreshed at every change of the game it made every
        # tap at the table pay for a screen nobody was looking at.
        if self.manager is not None and self.manager.current == self.name:
            self.refresh()
        else:
            self._stale = True

    def on_pre_enter(self, *_args: Any) -> None:
        if self._stale:
            self.refresh()

    def relabel(self) -> None:
        self.refresh()

    def refresh(self) -> None:
        self._stale = False
        game = self.session.game if self.session is not None else None
        box = self.ids.events
        box.clear_widgets()
        if game is None:
            self.title = t("ui.table.empty")
            self.can_undo = self.can_redo = False
            self.lines = []
            return
        self.title = t("ui.log.title", game=game.data.name(language()))
        self.can_undo, self.can_redo = game.can_undo > 0, game.can_redo > 0
        self.lines = log_lines(game)
        for line in self.lines:
            mark = compose("\u21b6", t("ui.log.undone")) + " " if line.undone else ""
            box.add_widget(LogLine(
                text=f"[b]{line.clock}[/b]  {compose('', line.source)} — {mark}{compose('', line.text)}",
                undone=line.undone))

    def undo(self) -> None:
        if self.session is not None:
            self.session.undo()

    def redo(self) -> None:
        if self.session is not None:
            self.session.redo()
