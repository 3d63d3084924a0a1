"""Which seats have a phone, and the cards each of them keeps private (README.md, "Phones as seats").

A card laid on the reader of a seat that has a phone is that seat's secret: it is kept here, told
to that seat's observers only (``private``), and the table only learns that the seat read a card
(``read``). ``reveal`` hands one back to the table. Private cards never reach the journal: they are
not game events, and a hidden card must not outlive the game in a file others can export.

Observers (plain callbacks, called in the caller's thread)::

    phones.subscribe("private", lambda seat, card: ...)  # only that seat's phone may be told
    phones.subscribe("read", lambda seat: ...)           # public: the seat read a card, nothing more
    phones.subscribe("revealed", lambda seat, card: ...) # public: the seat showed a card
    phones.subscribe("phones", lambda seats: ...)        # public: which seats have a phone now
    phones.subscribe("proposal", lambda seat, proposal: ...)  # only that seat: what its private card proposes
"""

from __future__ import annotations

import itertools
import threading
from collections import deque
from collections.abc import Callable
from typing import Any

from companion.i18n import LANGUAGES as LANGS
from companion.play.observers import Observers

PRIVATE_HISTORY = 50  # per seat: a hand, a few turns of draws


def card_json(scan: Any, number: int, games: Callable[[str], Any] | None = None) -> dict[str, Any]:
    """What a seat's phone shows of a card it read: everything the table would have shown, and
    in ``shown`` the same in each language as the console writes it for a screen reader (type,
    cost, clan, disciplines by name; icons as words, never a raw ``[dom]``)."""
    card = scan.card
    seen = scan.to_json()
    # The card as the table would have shown it; not which tag, reader or seat read it.
    out = {"id": number, **{k: seen[k] for k in ("status", "ref", "name", "types", "cost", "text", "detail")}}
    if card is not None:
        out["shown"] = {lang: _shown(card, games, lang) for lang in LANGS}
    return out


def _shown(card: Any, games: Callable[[str], Any] | None, lang: str) -> dict[str, Any]:
    from companion.speech.phrases import written_card

    name, rows, text = written_card(card, games, lang)
    return {"name": name, "rows": [list(row) for row in rows], "text": text}


class Phones:
    EVENTS = ("private", "read", "revealed", "phones", "proposal")

    def __init__(self) -> None:
        self.observers = Observers(*self.EVENTS)
        self._seats: set[int] = set()  # 1-based, as readers are bound (``PATH@2``)
        self._cards: dict[int, deque[tuple[dict[str, Any], Any]]] = {}
        self._numbers = itertools.count(1)
        self._proposals: dict[int, Any] = {}  # per seat: what its last private card proposes
        self._lock = threading.Lock()
        self.games: Callable[[str], Any] | None = None  # the card library's game data (type names)

    def subscribe(self, event: str, fn: Callable[..., Any]) -> Callable[[], None]:
        return self.observers.subscribe(event, fn)

    # -- which seats ------------------------------------------------------------------------

    def attach(self, seat: int) -> None:
        """Seat ``seat`` (1-based) has a phone from now on: its reader's cards are private."""
        with self._lock:
            new = seat not in self._seats
            self._seats.add(seat)
            seats = sorted(self._seats)
        if new:
            self.observers.emit("phones", seats)

    def detach(self, seat: int) -> None:
        """The seat's phone was revoked: its private cards are forgotten with it."""
        with self._lock:
            gone = seat in self._seats
            self._seats.discard(seat)
            self._cards.pop(seat, None)
            self._proposals.pop(seat, None)
            seats = sorted(self._seats)
        if gone:
            self.observers.emit("phones", seats)

    def has_phone(self, seat: int | None) -> bool:
        with self._lock:
            return seat is not None and seat in self._seats

    @property
    def seats(self) -> list[int]:
        with self._lock:
            return sorted(self._seats)

    def clear(self) -> None:
        """A new game: nobody's hand carries over."""
        with self._lock:
            self._cards.clear()
            self._proposals.clear()

    # -- cards ------------------------------------------------------------------------------

    def keep(self, seat: int, scan: Any) -> dict[str, Any]:
        """A card read privately by ``seat``: kept, told to that seat, and only the fact is public."""
        with self._lock:
            card = card_json(scan, next(self._numbers), self.games)
            self._cards.setdefault(seat, deque(maxlen=PRIVATE_HISTORY)).append((card, scan))
        self.observers.emit("private", seat, card)
        self.observers.emit("read", seat)
        return card

    def cards(self, seat: int) -> list[dict[str, Any]]:
        with self._lock:
            return [dict(c) for c, _ in self._cards.get(seat, ())]

    def take(self, seat: int, number: int) -> Any:
        """The scan of private card ``number`` of ``seat``, taken out of its secrets; None if
        the seat has no such card (another seat's number is not this seat's)."""
        with self._lock:
            cards = self._cards.get(seat, deque())
            for item in list(cards):
                if item[0]["id"] == number:
                    cards.remove(item)
                    return item
        return None

    # -- what a private card proposes -------------------------------------------------------

    def propose(self, seat: int, proposal: Any) -> None:
        """The proposal of ``seat``'s private card (None: none any more), told to that seat only."""
        with self._lock:
            if proposal is None and seat not in self._proposals:
                return
            if proposal is None:
                self._proposals.pop(seat, None)
            else:
                self._proposals[seat] = proposal
        self.observers.emit("proposal", seat, proposal)

    def proposal(self, seat: int) -> Any:
        with self._lock:
            return self._proposals.get(seat)
