""""Rejoindre un tournoi": the organiser's enrolment URL of this table (what ``venue --json`` prints
per table: ``mqtt://table-N:PASSWORD@HOST:PORT/EVENT``) typed or pasted, then the running table is
joined to the hub by the venue's own ``join`` (the one door, the same link as ``--venue URL``).
The broker is waited for in a thread; what happened is shown and said in the user's language."""

from __future__ import annotations

import threading
from typing import Any

from kivy.app import App
from kivy.clock import Clock
from kivy.properties import BooleanProperty, StringProperty
from kivy.uix.screenmanager import Screen

from companion.i18n import t
from companion.ui.screens import load_kv
from companion.ui.widgets import load_widgets_kv
from companion.venue.join import Refused, Unreachable, join, leave


class VenueScreen(Screen):
    status = StringProperty("")
    busy = BooleanProperty(False)  # the broker is being waited for
    joined = BooleanProperty(False)  # the table is in a venue: it may leave it

    def __init__(self, **kwargs: Any) -> None:
        load_widgets_kv()
        load_kv("venue")
        super().__init__(**kwargs)
        self.runtime: Any = None  # the app's (set by a test that has no running app)

    def _runtime(self) -> Any:
        if self.runtime is not None:
            return self.runtime
        return getattr(App.get_running_app(), "runtime", None)

    def a11y_summary(self) -> str:
        return self.status or t("venue.join.prompt")

    def on_enter(self, *_args: Any) -> None:
        runtime = self._runtime()
        link = getattr(runtime, "venue", None) if runtime is not None else None
        self.joined = link is not None
        if link is not None and not self.busy:
            self.status = t("venue.join.joined", table=link.table, event=link.event)

    def focus_order(self) -> list[Any]:
        ids = self.ids
        return [ids.url_input, ids.join_button, ids.leave_button, ids.table_button]

    def show_table(self) -> None:
        if self.manager is not None and self.manager.has_screen("table"):
            self.manager.current = "table"

    def join(self) -> None:
        """Join with what the field holds: in a thread (the broker may take seconds to answer)."""
        runtime = self._runtime()
        url = " ".join(self.ids.url_input.text.split())
        if self.busy or runtime is None:
            return
        if not url:
            self._tell(t("venue.join.empty"))
            return
        self.busy = True
        self._tell(t("venue.join.joining"))
        threading.Thread(target=self._join, args=(runtime, url), name="venue-join", daemon=True).start()

    def _join(self, runtime: Any, url: str) -> None:
        try:
            link = join(runtime, url)
            text = t("venue.join.joined", table=link.table, event=link.event)
            joined = True
        except ValueError:
            text, joined = t("venue.bad_url", url=_hidden(url)), False
        except Unreachable as exc:
            text, joined = t("venue.join.unreachable", host=str(exc)), False
        except Refused as exc:  # already in the players' language
            text, joined = str(exc), False
        Clock.schedule_once(lambda _dt: self._done(text, joined))

    def _done(self, text: str, joined: bool) -> None:
        self.busy = False
        self._tell(text)
        link = getattr(self._runtime(), "venue", None)
        self.joined = link is not None
        if joined:
            self.ids.url_input.text = ""  # the table's password is not left on the screen

    def leave(self) -> None:
        """Leave the venue: the table plays on alone, its journal and outbox kept on the disk (what
        the hub had not acknowledged goes at the next join). In a thread: the link gives the
        broker a second to take what is queued."""
        runtime = self._runtime()
        link = getattr(runtime, "venue", None) if runtime is not None else None
        if self.busy or link is None:
            self._tell(t("venue.leave.not_joined"))
            return
        self.busy = True
        self._tell(t("venue.leave.leaving"))
        text = t("venue.leave.done", table=link.table, event=link.event)

        def run() -> None:
            try:
                leave(runtime)
            finally:
                Clock.schedule_once(lambda _dt: self._done(text, False))

        threading.Thread(target=run, name="venue-leave", daemon=True).start()

    def _tell(self, text: str) -> None:
        self.status = text
        runtime = self._runtime()
        if runtime is not None:
            runtime.say(text)


def _hidden(url: str) -> str:
    """The URL as said and shown back: its password out (people around the table hear it)."""
    head, at, tail = url.rpartition("@")
    if not at or ":" not in head.split("//")[-1]:
        return url
    user = head.rsplit(":", 1)[0]
    return f"{user}:…@{tail}"
