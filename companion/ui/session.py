"""What the screens share: the card library, the game on the table, the voice, the readers and
the cards scanned. Screens only show this state and send intents through its methods; nothing
else changes it (one-way data flow).

Every method runs on the Kivy main thread (readers hand their scans over with
``Clock.schedule_once``). ``apply`` returns only once the engine has made the event durable in
the journal, and only then are the observers told, so nothing is shown or spoken before it is
on the disk.

Observers bind to the events of this EventDispatcher (not a widget)::

    session.bind(on_state=lambda session: ...)          # the game changed (any cause)
    session.bind(on_result=lambda session, result: ...) # every answer, refusals included
    session.bind(on_scan=lambda session, scan: ...)     # a card was laid (or an unknown tag)

``on_state`` fires after a new game, a resume, a closed game, and every accepted intent;
``on_result`` fires for every intent, accepted or refused, so that refusals can be shown and
spoken; a refusal changes nothing and fires no ``on_state``.
"""

from __future__ import annotations

import logging
from collections import deque
from pathlib import Path
from typing import Any

from kivy.event import EventDispatcher
from kivy.properties import NumericProperty, ObjectProperty

from companion import paths
from companion.i18n import language
from companion.table.engine import Game, Intent, Refusal, Result
from companion.table.journal import GameRow, Journal, JournalError

log = logging.getLogger(__name__)

SOURCES = ("touch", "key", "scan")
SCAN_HISTORY = 100


def default_journal_path() -> Path:
    """The same journal as ``python -m companion table``: a game started there resumes here."""
    return paths.data_dir() / "games.sqlite3"


def refused(key: str, text: str = "", source: str = "touch", data: Any = None, **values: Any) -> Result:
    """A Result that refuses with a message key, for what never reached the engine."""
    return Result(False, Intent("refused", source=source, text=text), reason=(key, values), data=data)


class Session(EventDispatcher):
    """The state holder behind every screen."""

    game = ObjectProperty(None, allownone=True)  # companion.table.engine.Game
    last_result = ObjectProperty(None, allownone=True)
    last_scan = ObjectProperty(None, allownone=True)
    # The seat a keyboard or a touch has picked for the next change (0-based), None for the
    # active player: shared so that the keys and the table screen agree on it.
    selected_seat = ObjectProperty(None, allownone=True)
    revision = NumericProperty(0)  # +1 at every on_state, for kv bindings

    __events__ = ("on_state", "on_result", "on_scan")

    def __init__(self, library: Any = None, voice: Any = None, journal_path: str | Path | None = None,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.library = library  # companion.cards.library.CardLibrary (may still be loading)
        self.voice = voice  # companion.ui.voice.Voice, the one door to speech
        self.readers: list[Any] = []  # companion.readers.base.Reader, started by the app
        self.scans: deque[Any] = deque(maxlen=SCAN_HISTORY)  # this game's scans, newest last
        self.journal_path = Path(journal_path) if journal_path else default_journal_path()
        self._journal: Journal | None = None

    # -- the journal ----------------------------------------------------------------------

    @property
    def journal(self) -> Journal:
        if self._journal is None:
            self._journal = Journal(self.journal_path)
            if self._journal.notice is not None:  # a damaged journal was set aside: say it once
                notice = self._journal.notice
                self._answer(Result(True, Intent("journal"), notes=[(notice.key, notice.values)]))
        return self._journal

    def saved_games(self) -> list[GameRow]:
        """Every game in the journal, the most recently played first; [] if it cannot be read."""
        try:
            return self.journal.games()
        except JournalError:
            log.exception("the journal %s cannot be read", self.journal_path)
            return []

    def close(self) -> None:
        if self._journal is not None:
            self._journal.close()
            self._journal = None
        self.game = None

    # -- intents ----------------------------------------------------------------------------

    def new_game(self, game_id: str, players: list[str], seed: int | None = None,
                 options: dict[str, Any] | None = None, source: str = "touch") -> Result:
        """Start a game (``vtes``, ``ascension``, ``res-arcana``, ``rise``, ``astral``); the
        engine draws the first player. Returns the draw's result, or a refusal (bad names,
        wrong number of seats) that changed nothing."""
        from companion.table.data import TableDataError

        try:
            game = Game.new(self.journal, game_id, players, seed=seed, options=options, source=_source(source))
        except Refusal as r:
            return self._answer(refused(r.key, source=source, **r.values))
        except (TableDataError, JournalError) as exc:
            return self._answer(refused("ui.error", source=source, error=str(exc)))
        self.scans.clear()
        self.selected_seat = None
        if self.game is not None and self.game is not game and self.game.id != game.id:
            self.game.close()  # another program may open the previous game now
        self.game = game
        result = game.opening or refused("ui.error", error="")
        self._changed()
        return self._answer(result)

    def resume(self, game_id: int, source: str = "touch") -> Result:
        """Reopen a game of the journal by its number; its state is the replay of its events."""
        from companion.table.data import TableDataError

        try:
            game = Game.open(self.journal, int(game_id))
        except KeyError:
            return self._answer(refused("ui.no_such_game", id=game_id))
        except (TableDataError, JournalError) as exc:
            return self._answer(refused("ui.error", error=str(exc)))
        self.scans.clear()
        self.selected_seat = None
        if self.game is not None and self.game is not game and self.game.id != game.id:
            self.game.close()  # another program may open the previous game now
        self.game = game
        self._changed()
        if game.opening is not None:  # it had stopped before its first player was drawn
            return self._answer(game.opening)
        return self._answer(Result(True, Intent("resume", source=_source(source)), data=game.data, notes=[
            ("ui.resumed", {"game": game.data.name(self.lang), "players": self.seat_names})]))

    def apply(self, intent: Intent | str, source: str = "touch") -> Result:
        """An intent (or a command line, ``pool 2 -3``) for the game on the table."""
        from companion.table.commands import ParseError, Parser

        game = self.game
        if game is None:
            return self._answer(refused("ui.no_game", text=intent if isinstance(intent, str) else "", source=source))
        if isinstance(intent, str):
            text = intent
            try:
                parsed = Parser(game.data, self.seat_names, source=_source(source)).parse(text)
            except ParseError as exc:
                return self._answer(refused(exc.key, text=text, source=source, data=game.data, **exc.values))
            if parsed is None:
                return self._answer(refused("ui.empty_command", source=source, data=game.data))
            intent = parsed
        intent.source = _source(source)
        try:
            result = game.apply(intent)  # durable in the journal before it returns
        except JournalError as exc:
            return self._answer(refused("ui.error", source=source, data=game.data, error=str(exc)))
        if result.ok and result.event is not None:
            self._changed()
        return self._answer(result)

    def undo(self, source: str = "touch") -> Result:
        return self.apply(Intent("undo", args={"count": 1}), source)

    def redo(self, source: str = "touch") -> Result:
        return self.apply(Intent("redo", args={"count": 1}), source)

    def add_scan(self, scan: Any) -> None:
        """A card laid on a reader (already resolved): kept in this game's history."""
        self.scans.append(scan)
        self.last_scan = scan
        self.dispatch("on_scan", scan)

    def select_seat(self, seat: int | None) -> None:
        if seat is not None and (self.game is None or not 0 <= seat < len(self.seat_names)):
            return
        self.selected_seat = seat

    # -- reading ----------------------------------------------------------------------------

    @property
    def state(self) -> dict[str, Any] | None:
        return None if self.game is None else self.game.state

    @property
    def seat_names(self) -> list[str]:
        return [] if self.game is None else [s["name"] for s in self.game.state["seats"]]

    @property
    def lang(self) -> str:
        return language()

    # -- observers ----------------------------------------------------------------------------

    def _changed(self) -> None:
        self.revision += 1
        self.dispatch("on_state")

    def _answer(self, result: Result) -> Result:
        self.last_result = result
        self.dispatch("on_result", result)
        return result

    def on_state(self) -> None:
        pass

    def on_result(self, result: Result) -> None:
        pass

    def on_scan(self, scan: Any) -> None:
        pass


def _source(source: str) -> str:
    """The journal knows touch, key, scan and script; anything else is a key press."""
    return source if source in (*SOURCES, "script") else "key"
