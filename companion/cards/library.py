"""The card library: one place to ask for a card, a game's data, or a search, whatever the game."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from companion.cards.catalog import Catalog
from companion.cards.model import Card, parse_ref
from companion.textsafe import short_paths

if TYPE_CHECKING:
    from companion.cards.gamedata import GameInfo
    from companion.cards.search import Hit, SearchIndex

log = logging.getLogger(__name__)


class CardLibrary:
    """Cards of every game, by reference, loaded once from the compiled index on first use."""

    def __init__(self, catalog: Catalog | None = None) -> None:
        self._catalog = catalog
        # Re-entrant: search() builds its index from cards(), which may load the catalog first.
        self._lock = threading.RLock()  # the UI and a reader thread may ask at once
        self._search: SearchIndex | None = None
        self.rebuilt = False  # whether the last load had to rebuild the index
        self.progress: Callable[[int, int, str], None] | None = None  # told of each game while rebuilding

    @property
    def catalog(self) -> Catalog:
        if self._catalog is None:
            with self._lock:
                if self._catalog is None:
                    from companion.cards import index

                    self._catalog, self.rebuilt = index.load(progress=self.progress)
        return self._catalog

    @property
    def ready(self) -> bool:
        """Whether the index is loaded: asking before then may wait for a first build."""
        return self._catalog is not None

    def reload(self) -> None:
        """Read the index again on next use (after a user's own card was added to the overlay)."""
        with self._lock:
            self._catalog = None
            self._search = None

    @property
    def games(self) -> tuple[str, ...]:
        return tuple(self.catalog.games)

    def game(self, game_id: str) -> GameInfo | None:
        return self.catalog.games.get(game_id)

    def errors(self) -> dict[str, list[str]]:
        return dict(self.catalog.errors)

    def load_problems(self, lang: str | None = None) -> list[str]:
        """One sentence per game whose data did not load, or loaded only in part, and why: what
        the Home screen, the console and ``doctor`` say at start (never a silent empty game)."""
        from companion.i18n import t

        problems = []
        for game_id, messages in self.errors().items():
            info = self.game(game_id)
            name = info.name(lang or "fr") if info is not None else game_id
            # A long path (a USB stick mounted deep) is shortened in its middle; the reason, which
            # follows it, is never cut.
            reason = short_paths(messages[0].splitlines()[0]) if messages else ""
            more = t("cards.load_more", lang=lang, n=len(messages) - 1) if len(messages) > 1 else ""
            key = "cards.load_partial" if self.load(game_id) else "cards.load_failed"
            problems.append(t(key, lang=lang, game=name, reason=reason, more=more))
        return problems

    def load(self, game: str) -> dict[str, Card]:
        return self.catalog.cards.get(game, {})

    def get(self, ref: str) -> Card | None:
        parts = parse_ref(ref)
        if parts is None:
            return None
        game, card_id = parts
        return self.catalog.cards.get(game, {}).get(card_id)

    def cards(self, game: str | None = None) -> list[Card]:
        if game is not None:
            return list(self.load(game).values())
        return [c for cards in self.catalog.cards.values() for c in cards.values()]

    def lookup(self, text: str) -> Card | None:
        """A card by reference (``<game>:<id>``) or by its exact name in any game (case
        ignored): what ``cards show`` and ``speak`` accept."""
        card = self.get(text)
        if card is None:
            for game in self.games:
                card = self.find_by_name(game, text)
                if card is not None:
                    break
        return card

    def find_by_name(self, game: str, name: str) -> Card | None:
        """Exact, case-insensitive name lookup; see ``search`` for the forgiving one."""
        wanted = name.strip().casefold()
        for card in self.load(game).values():
            if card.name.casefold() == wanted or any(
                n.casefold() == wanted for n in (*card.names.values(), *card.aliases)
            ):
                return card
        return None

    @property
    def search_ready(self) -> bool:
        """Whether the search index is built: the first search before then waits for it."""
        return self._search is not None

    def prepare_search(self) -> None:
        """Build the search index now (a background worker at start calls this), so that no
        player waits seconds for it at the first card they name (a vampire, a card to find)."""
        self._search_index().prepare()

    def search(self, query: str, game: str | None = None, limit: int = 20, **filters: object) -> list[Hit]:
        return self._search_index().search(query, game=game, limit=limit, **filters)

    def _search_index(self) -> SearchIndex:
        """The search's index: its parts as the card index keeps them, those whose cards changed
        ranked again (``index.search_index``); from the cards alone for a catalog of no index."""
        search = self._search
        if search is None:
            with self._lock:
                search = self._search
                if search is None:
                    from companion.cards import index

                    search = self._search = index.search_index(self.catalog)
        return search
