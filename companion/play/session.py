"""The game on the table, for every front end: one ``Session`` per running companion.

Front ends only read its state and send it intents (a command line such as ``pool 2 -3``, or an
``Intent``); nothing else changes the game. ``apply`` returns once the engine has made the event
durable in the journal, and only then are the observers told, so nothing is shown or spoken
before it is on the disk. Calls may come from several threads (the window, the phone server):
they are served one at a time.

Observers (plain callbacks, called in the caller's thread)::

    session.subscribe("state", lambda: ...)          # the game changed (any cause)
    session.subscribe("result", lambda result: ...)  # every answer, refusals included
    session.subscribe("scan", lambda scan: ...)      # a card was laid (or an unknown tag)
    session.subscribe("seat", lambda seat: ...)      # a key or a touch picked a seat (None: the active one)
    session.subscribe("proposal", lambda p: ...)     # a card laid proposes an action (None: no longer)

``state`` fires after a new game, a resume, a closed game and every accepted change; ``result``
fires for every intent, accepted or refused; a refusal changes nothing and fires no ``state``.

Scan to play: a card laid during a game proposes what it most likely means (``play``,
``acquire`` or ``defeat`` for the reader's seat, or the active one) as a ``Proposal``; nothing
is applied until a front end calls ``confirm`` (Enter, ``ok``, a touch). Any other accepted
change, a new card or a new game drops the proposal, so a stale one is never applied.
"""

from __future__ import annotations

import logging
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion import paths, registry
from companion.i18n import language
from companion.play.observers import Observers
from companion.table import cardplay
from companion.table.cardplay import LastLaid
from companion.table.engine import Game, Intent, Refusal, Result
from companion.table.journal import GameRow, Journal, JournalError

log = logging.getLogger(__name__)

SOURCES = ("touch", "key", "scan", "script", "phone")
# What the rules answer to a card whose essences of your choice are not given yet.
CHOICE_REFUSALS = ("table.card.refuse.choose", "table.card.refuse.choice")
SCAN_HISTORY = 100


def default_journal_path() -> Path:
    """The one journal of the user: a game started by any front end resumes in any other."""
    return paths.data_dir() / "games.sqlite3"


def refused(key: str, text: str = "", source: str = "touch", data: Any = None, **values: Any) -> Result:
    """A Result that refuses with a message key, for what never reached the engine."""
    return Result(False, Intent("refused", source=_source(source), text=text), reason=(key, values), data=data)


def crypt_card_finder(library: Any, game_id: str) -> Callable[[str], tuple[str, int] | None] | None:
    """A crypt card (a vampire) named at the table, found in the session's own card library (never
    a second library loaded behind its back): (printed name, capacity), typos forgiven; None when
    the game has no such cards."""
    finder = getattr(registry.code(game_id, "rules"), "crypt_card", None)
    if library is None or finder is None:
        return None
    return lambda name: finder(name, library)


@dataclass
class Proposal:
    """What a card laid most likely means, waiting for one confirmation."""

    intent: Intent  # play / acquire / defeat, for a fixed seat (never "whoever is active later")
    card: Any
    choices: dict[str, Any] | None  # what must be chosen first (essences "of your choice"), or None
    check: Result | None  # what applying would answer now; None while only a choice is missing

    @property
    def seat(self) -> int:
        return int(self.intent.seat or 0)

    def text(self, game: Game, lang: str | None = None) -> str:
        """The question, e.g. "Mystique : acquérir pour 3 runes ?"."""
        return cardplay.proposal_text(game, self.intent, lang)

    def blocked(self, lang: str | None = None) -> str:
        """Why it cannot be applied as it stands ("Ann ne peut pas payer..."), or ""."""
        return self.check.reason_text(lang) if self.check is not None and not self.check.ok else ""


class Session:
    """The state every front end shares: the game, the seat picked, the cards laid."""

    EVENTS = ("state", "result", "scan", "seat", "proposal")

    def __init__(self, library: Any = None, journal_path: str | Path | None = None) -> None:
        self.library = library  # companion.cards.library.CardLibrary, the one of the process
        self.journal_path = Path(journal_path) if journal_path else default_journal_path()
        self.game: Game | None = None
        self.selected_seat: int | None = None  # picked by a key or a touch (0-based); None: the active seat
        self.scans: deque[Any] = deque(maxlen=SCAN_HISTORY)  # this game's scans, newest last
        self.last_scan: Any = None
        self.last_result: Result | None = None
        self.proposal: Proposal | None = None
        self.revision = 0  # +1 at every state change
        self.observers = Observers(*self.EVENTS)
        self._journal: Journal | None = None
        self._lock = threading.RLock()
        # The card last laid on each seat's reader, for ``play`` / ``acquire`` / ``defeat`` alone.
        self.laid = LastLaid(active=self._active_seat)

    def subscribe(self, event: str, fn: Callable[..., Any]) -> Callable[[], None]:
        return self.observers.subscribe(event, fn)

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
        with self._lock:
            if self._journal is not None:
                self._journal.close()
                self._journal = None
            self.game = None

    # -- intents ----------------------------------------------------------------------------

    def new_game(self, game_id: str, players: list[str], seed: int | None = None,
                 options: dict[str, Any] | None = None, source: str = "touch", first: str | None = None) -> Result:
        """Start a game; the engine draws the first player, unless the table chose one (``first``,
        a player's name). Returns the draw's result, or a
        refusal (bad names, wrong number of seats) that changed nothing."""
        from companion.table.data import TableDataError

        with self._lock:
            try:
                game = Game.new(self.journal, game_id, players, seed=seed, options=options, source=_source(source),
                                first=first)
            except Refusal as r:
                return self._answer(refused(r.key, source=source, **r.values))
            except (TableDataError, JournalError) as exc:
                return self._answer(refused("ui.error", source=source, error=_cause(exc)))
            self._set_game(game)
            return self._answer(game.opening or refused("ui.error", error=""))

    def resume(self, game_id: int, source: str = "touch") -> Result:
        """Reopen a game of the journal by its number; its state is the replay of its events."""
        from companion.table.data import TableDataError

        with self._lock:
            try:
                game = Game.open(self.journal, int(game_id))
            except (KeyError, ValueError):
                return self._answer(refused("ui.no_such_game", source=source, id=game_id))
            except (TableDataError, JournalError) as exc:
                return self._answer(refused("ui.error", source=source, error=_cause(exc)))
            self._set_game(game)
            if game.opening is not None:  # it had stopped before its first player was drawn
                return self._answer(game.opening)
            return self._answer(Result(True, Intent("resume", source=_source(source)), data=game.data, notes=[
                ("ui.resumed", {"game": f"@g:{game.data.id}", "players": self.seat_names, "id": game.id})]))

    def apply(self, intent: Intent | str, source: str = "touch") -> Result:
        """An intent (or a command line, ``pool 2 -3``) for the game on the table."""
        with self._lock:
            game = self.game
            if game is None:
                return self._answer(refused("ui.no_game", text=intent if isinstance(intent, str) else "",
                                            source=source))
            if isinstance(intent, str):
                text = intent
                try:
                    parsed = self.parser(source).parse(text)
                except Exception as exc:  # a ParseError, or a line the parser could not survive
                    key, values = _parse_refusal(exc)
                    return self._answer(refused(key, text=text, source=source, data=game.data, **values))
                if parsed is None:
                    return self._answer(refused("ui.empty_command", source=source, data=game.data))
                intent = parsed
            intent.source = _source(source)
            active = game.state.get("active")
            try:
                result = game.apply(intent)  # durable in the journal before it returns
            except JournalError as exc:
                return self._answer(refused("ui.error", source=source, data=game.data, error=_cause(exc)))
            if result.ok and result.event is not None:
                if not self._still_holds(self.proposal, active):
                    self._set_proposal(None)  # the table moved on: what was proposed may no longer hold
                self._changed()
            return self._answer(result)

    def confirm(self, choice: list[str] | None = None, source: str = "key") -> Result:
        """Apply the action proposed for the card last laid, with the player's choices if it
        asks for some (essence words: paid first, then gained)."""
        with self._lock:
            proposal = self.proposal
            if proposal is None or self.game is None:
                return self._answer(refused("play.no_proposal", source=source))
            intent = cardplay.with_choice(proposal.intent, choice) if choice else proposal.intent
            intent = Intent(intent.verb, intent.seat, dict(intent.args), source=_source(source), text=intent.text)
            return self.apply(intent, source)  # refused: still proposed, its reason said

    def _still_holds(self, proposal: Any, active: Any) -> bool:
        """A plain "jouer ?" (a card with nothing known to pay or gain) still holds while the
        same player's turn goes on: the numbers it does not touch may move meanwhile."""
        if proposal is None or self.game is None or proposal.intent.args.get("effect") != {}:
            return False
        return proposal.intent is not None and self.game.state.get("active") == active

    def dismiss(self) -> bool:
        """Drop the proposal: the card was laid only to read it."""
        with self._lock:
            had = self.proposal is not None
            self._set_proposal(None)
            return had

    def undo(self, source: str = "touch") -> Result:
        return self.apply(Intent("undo", args={"count": 1}), source)

    def redo(self, source: str = "touch") -> Result:
        return self.apply(Intent("redo", args={"count": 1}), source)

    def parser(self, source: str = "key") -> Any:
        """The command words of the game on the table, with this session's card library."""
        from companion.table.commands import Parser

        assert self.game is not None
        return Parser(self.game.data, self.seat_names, source=_source(source),
                      crypt_card=crypt_card_finder(self.library, self.game.data.id), library=self.library,
                      laid=self.laid)

    def add_scan(self, scan: Any) -> None:
        """A card laid on a reader (already resolved): kept in this game's history."""
        with self._lock:
            self.scans.append(scan)
            self.last_scan = scan
            card = getattr(scan, "card", None)
            proposal = None
            if card is not None and self.game is not None and card.game == self.game.data.id:
                self.laid.record(card.ref, _seat_index(scan))
                proposal = self._propose(card, _seat_index(scan))
        self.observers.emit("scan", scan)
        self._set_proposal(proposal)

    def propose_for(self, card: Any, seat: int) -> Proposal | None:
        """What laying ``card`` would propose for ``seat`` (0-based), without making it the
        table's proposal: a card read privately is proposed on that seat's phone alone."""
        with self._lock:
            if card is None or self.game is None or getattr(card, "game", None) != self.game.data.id:
                return None
            return self._propose(card, seat)

    def _active_seat(self) -> int | None:
        return self.game.state.get("active") if self.game is not None else None

    def _propose(self, card: Any, seat: int | None) -> Proposal | None:
        game = self.game
        assert game is not None
        if seat is None:
            seat = game.state.get("active")
        if seat is None or not 0 <= seat < len(game.state["seats"]):
            return None
        try:
            intent = cardplay.propose(game, card, seat)
        except Exception:  # card data the rules cannot read: the card is still shown and said
            log.exception("no proposal for %s", getattr(card, "ref", card))
            return None
        if intent is None:
            return None
        choices = cardplay.choices_needed(intent)
        check = game.check(intent)
        if choices and not check.ok and check.reason is not None and check.reason[0].startswith(CHOICE_REFUSALS):
            check = None  # only the choice is missing: it is asked, not refused
        return Proposal(intent, card, choices, check)

    def _set_proposal(self, proposal: Proposal | None) -> None:
        if proposal is None and self.proposal is None:
            return
        self.proposal = proposal
        self.observers.emit("proposal", proposal)

    def select_seat(self, seat: int | None) -> None:
        if seat is not None and (self.game is None or not 0 <= seat < len(self.seat_names)):
            return
        changed = seat != self.selected_seat
        self.selected_seat = seat
        if changed:
            self.observers.emit("seat", seat)

    # -- reading ----------------------------------------------------------------------------

    @property
    def state(self) -> dict[str, Any] | None:
        return None if self.game is None else self.game.state

    @property
    def seat_names(self) -> list[str]:
        return [] if self.game is None else [s["name"] for s in self.game.state["seats"]]

    @property
    def last_card(self) -> Any:
        return getattr(self.last_scan, "card", None)

    @property
    def lang(self) -> str:
        return language()

    # -- observers ----------------------------------------------------------------------------

    def _set_game(self, game: Game) -> None:
        self.laid = LastLaid(active=self._active_seat)
        self._set_proposal(None)
        if self.game is not None and self.game is not game and self.game.id != game.id:
            self.game.close()  # another program may open the previous game now
        self.scans.clear()
        self.last_scan = None
        self.selected_seat = None
        self.game = game
        self._changed()

    def _changed(self) -> None:
        self.revision += 1
        self.observers.emit("state")

    def _answer(self, result: Result) -> Result:
        self.last_result = result
        self.observers.emit("result", result)
        return result


def _parse_refusal(exc: Exception) -> tuple[str, dict[str, Any]]:
    key = getattr(exc, "key", None)
    if isinstance(key, str):
        return key, dict(getattr(exc, "values", {}) or {})
    log.exception("a command line could not be read")
    return "ui.error", {"error": f"{type(exc).__name__}"}


def _seat_index(scan: Any) -> int | None:
    """The 0-based seat of the reader a card was laid on (readers number seats from 1)."""
    seat = getattr(scan, "seat", None)
    return seat - 1 if isinstance(seat, int) and seat >= 1 else None


def _cause(exc: Exception) -> str:
    """An error in words: a journal's cause ("disque plein"), or the exception's own text."""
    describe = getattr(exc, "describe", None)
    return describe() if callable(describe) else str(exc)


def _source(source: str) -> str:
    """The journal knows touch, key, scan, script and phone; anything else is a key press."""
    return source if source in SOURCES else "key"
