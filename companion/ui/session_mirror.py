"""The core Session (companion/play/session.py) mirrored for the screens (``SessionMirror``): Kivy
properties and events, always on Kivy's main thread.

The game itself lives in the core; this binding only mirrors it, so that kv rules can bind to
``revision`` or ``game`` and screens can ``bind(on_state=...)`` as with any Kivy object. A
change made from another thread (a phone, a reader) reaches the screens on the next frame::

    session.bind(on_state=lambda session: ...)          # the game changed (any cause)
    session.bind(on_result=lambda session, result: ...) # every answer, refusals included
    session.bind(on_scan=lambda session, scan: ...)     # a card was laid (or an unknown tag)

Intents (``apply``, ``undo``, ``new_game``...) go straight to the core and return its Result.
"""

from __future__ import annotations

import threading
from typing import Any

from kivy.clock import Clock
from kivy.event import EventDispatcher
from kivy.properties import NumericProperty, ObjectProperty

from companion.play.session import Session as CoreSession


class SessionMirror(EventDispatcher):
    """The state holder behind every screen: a mirror of the core Session."""

    game = ObjectProperty(None, allownone=True)  # companion.table.engine.Game
    last_result = ObjectProperty(None, allownone=True)
    last_scan = ObjectProperty(None, allownone=True)
    # The seat a keyboard or a touch has picked for the next change (0-based), None for the
    # active player: the core's, so that the keys, the screen and the phones agree on it.
    selected_seat = ObjectProperty(None, allownone=True)
    revision = NumericProperty(0)  # +1 at every on_state, for kv bindings

    __events__ = ("on_state", "on_result", "on_scan", "on_proposal")

    def __init__(self, core: CoreSession | None = None, voice: Any = None, journal_path: Any = None,
                 library: Any = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        # A core of its own when none is given (a screen tested alone, the screenshots).
        core = self.core = core if core is not None else CoreSession(library, journal_path)
        self.voice = voice  # companion.play.voice.Voice (the Settings screen adjusts it)
        self._main = threading.get_ident()
        self._unsubscribe = [
            core.subscribe("state", lambda: self._on_main(self._state)),
            core.subscribe("result", lambda result: self._on_main(self._result, result)),
            core.subscribe("scan", lambda scan: self._on_main(self._scan, scan)),
            core.subscribe("seat", lambda seat: self._on_main(self._seat, seat)),
            core.subscribe("proposal", lambda proposal: self._on_main(self._proposal, proposal)),
        ]
        self.game = core.game

    # -- the core's news, on the main thread -------------------------------------------------

    def _on_main(self, fn: Any, *args: Any) -> None:
        if threading.get_ident() == self._main:
            fn(*args)
        else:
            Clock.schedule_once(lambda _dt: fn(*args))

    def _state(self) -> None:
        self.game = self.core.game
        self.selected_seat = self.core.selected_seat
        self.revision += 1
        self.dispatch("on_state")

    def _result(self, result: Any) -> None:
        self.last_result = result
        self.dispatch("on_result", result)

    def _seat(self, seat: int | None) -> None:
        self.selected_seat = seat

    def _scan(self, scan: Any) -> None:
        self.last_scan = scan
        self.dispatch("on_scan", scan)

    def _proposal(self, proposal: Any) -> None:
        self.dispatch("on_proposal", proposal)

    @property
    def proposal(self) -> Any:
        """What the card last laid proposes (companion.play.session.Proposal), or None."""
        return self.core.proposal

    # -- intents: the core's ------------------------------------------------------------------

    def new_game(self, *args: Any, **kwargs: Any) -> Any:
        return self.core.new_game(*args, **kwargs)

    def resume(self, *args: Any, **kwargs: Any) -> Any:
        return self.core.resume(*args, **kwargs)

    def apply(self, *args: Any, **kwargs: Any) -> Any:
        return self.core.apply(*args, **kwargs)

    def undo(self, source: str = "touch") -> Any:
        return self.core.undo(source)

    def redo(self, source: str = "touch") -> Any:
        return self.core.redo(source)

    def add_scan(self, scan: Any) -> None:
        self.core.add_scan(scan)

    def confirm(self, choice: list[str] | None = None, source: str = "touch") -> Any:
        return self.core.confirm(choice, source)

    def dismiss(self) -> bool:
        return self.core.dismiss()

    def select_seat(self, seat: int | None) -> None:
        self.core.select_seat(seat)

    def saved_games(self) -> list[Any]:
        return self.core.saved_games()

    def close(self) -> None:
        for unsubscribe in self._unsubscribe:
            unsubscribe()
        self._unsubscribe = []
        self.core.close()
        self.game = None

    # -- reading ------------------------------------------------------------------------------

    @property
    def library(self) -> Any:
        return self.core.library

    @property
    def journal(self) -> Any:
        return self.core.journal

    @property
    def journal_path(self) -> Any:
        return self.core.journal_path

    @property
    def scans(self) -> Any:
        return self.core.scans

    @property
    def state(self) -> dict[str, Any] | None:
        return self.core.state

    @property
    def seat_names(self) -> list[str]:
        return self.core.seat_names

    @property
    def lang(self) -> str:
        return self.core.lang

    def on_state(self) -> None:
        pass

    def on_result(self, result: Any) -> None:
        pass

    def on_scan(self, scan: Any) -> None:
        pass

    def on_proposal(self, proposal: Any) -> None:
        pass
