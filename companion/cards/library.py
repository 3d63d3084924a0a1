"""The card library: one place to ask for a card by reference, whatever its game."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable

from companion.cards.model import Card, parse_ref


class CardLibrary:
    """Cards of every game, by reference. Sources are loaded on first use, once."""

    def __init__(self, sources: dict[str, Callable[[], Iterable[Card]]] | None = None) -> None:
        self._sources = dict(sources) if sources is not None else default_sources()
        self._cards: dict[str, dict[str, Card]] = {}
        self._errors: dict[str, str] = {}
        self._lock = threading.Lock()  # the UI and a reader may ask for a game at once

    @property
    def games(self) -> tuple[str, ...]:
        return tuple(self._sources)

    def errors(self) -> dict[str, str]:
        return dict(self._errors)

    def load(self, game: str) -> dict[str, Card]:
        with self._lock:
            if game not in self._cards:
                source = self._sources.get(game)
                cards: dict[str, Card] = {}
                if source is not None:
                    try:
                        cards = {c.id: c for c in source()}
                    except Exception as exc:  # a broken game disables itself, not the program
                        self._errors[game] = f"{type(exc).__name__}: {exc}"
                self._cards[game] = cards
            return self._cards[game]

    def get(self, ref: str) -> Card | None:
        parts = parse_ref(ref)
        if parts is None:
            return None
        game, card_id = parts
        return self.load(game).get(card_id)

    def cards(self, game: str) -> list[Card]:
        return list(self.load(game).values())

    def find_by_name(self, game: str, name: str) -> Card | None:
        """Exact, case-insensitive name lookup (the fuzzy search lives in cards.search)."""
        wanted = name.strip().casefold()
        for card in self.load(game).values():
            if card.name.casefold() == wanted or any(
                n.casefold() == wanted for n in (*card.names.values(), *card.aliases)
            ):
                return card
        return None


def default_sources() -> dict[str, Callable[[], Iterable[Card]]]:
    from companion.cards import vtes

    return {"vtes": vtes.iter_cards}
