"""Everything the library knows, gathered from its sources: the games' folders (shipped and the
user's own), the cards a game reads from elsewhere (its ``card_source`` hook) and the user's
overlay. A broken game folder disables that game, with its error kept for
display; the other games still load."""

from __future__ import annotations

import os
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from companion import paths, registry
from companion.cards import gcpause

if TYPE_CHECKING:
    from companion.cards.gamedata import GameInfo
    from companion.cards.model import Card

# The readers of the games' files (cardfile, gamedata's reader, validate, yamlload) are imported
# by the functions that build: a start reads the card index and never needs them, and their
# imports were a twentieth of the window's work before its first frame.


def cardmap_dir() -> Path:
    """The game data shipped with the program (``COMPANION_CARDMAP`` overrides, for tests)."""
    return registry.builtin_dir()


def overlay_dir() -> Path:
    """Users' own cards: one ``<game>.yaml`` per game, in the user data directory. Not created
    here: reading works on a read-only home; saving a card creates it (overlay.add_card)."""
    return paths.data_dir() / "cards"


class SourceError(Exception):
    """A game's card source could not fetch or read its lists; the message says why."""


@dataclass
class Catalog:
    games: dict[str, GameInfo] = field(default_factory=dict)
    cards: dict[str, dict[str, Card]] = field(default_factory=dict)  # game → id → card
    errors: dict[str, list[str]] = field(default_factory=dict)  # game → messages
    transient: bool = False  # a failure that may pass (krcg unreadable): not worth caching
    index_key: str = ""  # the card index's key when this catalog is the one stored there
    index_games: tuple[str, ...] = ()  # then the games (parts) of that key, in order

    def error(self, game: str, message: str) -> None:
        self.errors.setdefault(game, []).append(message)


Progress = Callable[[int, int, str], None]  # (games done, games in all, the game now being read)


def game_folders(cardmap: Path, user_games: Path | None = None) -> list[Path]:
    """The shipped games' folders, then the user's own games (``<data dir>/games/<id>/``), each
    a game by data alone; a user's folder never shadows a shipped game of the same id."""
    folders = sorted(p for p in cardmap.iterdir() if p.is_dir() and (p / "game.yaml").exists())
    if user_games is not None and user_games.is_dir():
        taken = {p.name for p in folders}
        folders += sorted(p for p in user_games.iterdir()
                          if p.is_dir() and (p / "game.yaml").exists() and p.name not in taken)
    return folders


def units(cardmap: Path, overlay: Path | None, user_games: Path | None = None) -> list[tuple[str, Path | None]]:
    """What the catalog is made of, one part per game, in the order it lists them: each game's
    folder (``game_folders``), then each overlay file naming no such game (an error of its own).
    Each part is built, and kept in the card index, apart from the others."""
    parts: list[tuple[str, Path | None]] = [(folder.name, folder) for folder in game_folders(cardmap, user_games)]
    if overlay is not None and overlay.is_dir():
        known = {game_id for game_id, _ in parts}
        parts += [(path.stem, None) for path in sorted(overlay.glob("*.yaml")) if path.stem not in known]
    return parts


def unit_files(game_id: str, folder: Path | None, overlay: Path | None) -> list[Path]:
    """The files one part of the catalog is read from (its card source's aside): its folder's
    YAML files and its overlay file when there is one (a dangling link too). An absent one is
    not named: homes without cards of their own share one card index (``COMPANION_CACHE``)."""
    files = sorted(folder.glob("*.yaml")) if folder is not None else []
    own = overlay / f"{game_id}.yaml" if overlay is not None else None
    if own is not None and os.path.lexists(own):
        files.append(own)
    return files


def build(cardmap: Path | None = None, overlay: Path | None = None, with_sources: bool = True,
          progress: Progress | None = None, user_games: Path | None = None,
          only: Collection[str] | None = None) -> Catalog:
    """Everything known; ``user_games`` defaults to the user's games folder when the shipped
    cardmap is the default one too (a test's own cardmap comes alone). ``only``: the games (parts,
    see ``units``) to build, the others left out (the card index has them)."""
    if cardmap is None and user_games is None:
        user_games = registry.user_dir()
    cardmap = cardmap or cardmap_dir()
    overlay = overlay if overlay is not None else overlay_dir()
    catalog = Catalog()
    wanted = [(game_id, folder) for game_id, folder in units(cardmap, overlay, user_games)
              if only is None or game_id in only]
    # As the folder lists them (a special file or a dangling link too: its reader names it).
    own = {path.stem: path for path in sorted(overlay.glob("*.yaml"))} if overlay.is_dir() else {}
    for done, (game_id, folder) in enumerate(wanted):
        if progress is not None:
            progress(done, len(wanted), game_id)
        with gcpause.paused():  # thousands of cards and their source's objects, none garbage
            if folder is not None:
                _load_folder(catalog, folder, cardmap, with_sources)
            if game_id in own:
                _load_overlay(catalog, own[game_id])
    return catalog


def _load_folder(catalog: Catalog, folder: Path, cardmap: Path, with_sources: bool) -> None:
    from companion.cards.cardfile import load_cards
    from companion.cards.gamedata import load_game
    from companion.cards.yamlload import DataError

    game_file = folder / "game.yaml"
    try:
        game = load_game(game_file, _shown(game_file, cardmap))
    except DataError as exc:
        catalog.error(folder.name, str(exc))
        return
    catalog.games[game.id] = game
    cards: dict[str, Card] = {}
    cards_file = folder / "cards.yaml"
    if cards_file.exists():
        try:
            cards = {c.id: c for c in load_cards(cards_file, game, _shown(cards_file, cardmap))}
        except DataError as exc:
            catalog.error(game.id, str(exc))
            del catalog.games[game.id]  # half a game would mislead a player
            return
    source = registry.hook(game.id, "card_source") if with_sources else None
    if source is not None:
        try:
            cards.update({c.id: c for c in source.cards()})
            for warning in source.warnings():  # updated lists set aside: the shipped ones are in use
                catalog.error(game.id, f"cards update: {warning}")
            if not cards:
                raise LookupError(f"{source.name()} gave no card")
        except Exception as exc:  # a library missing, of an unknown line, or its data unreadable
            catalog.error(game.id, f"{source.name()} {source.version()}: {type(exc).__name__}: {exc}")
            catalog.transient = True
    catalog.cards[game.id] = cards


def completed(shipped: Card, own: Card) -> Card:
    """A shipped card known only by its name and type (a starter deck listed without texts), completed by the
    user's card of the same id: the user's effect, what the list knew kept where the user's card
    is silent."""
    from dataclasses import replace

    extra = {**shipped.extra, **{k: v for k, v in own.extra.items() if v not in (None, "", [], {})}}
    return replace(own, extra=extra, aliases=tuple(dict.fromkeys((*shipped.aliases, *own.aliases))))


def known_ids(cards: dict[str, Card]) -> set[str]:
    """Ids a user's new card may not take: every card but the shipped ones still waiting for
    their effect text, which ``cards add`` completes."""
    return {cid for cid, c in cards.items() if c.text or c.extra.get("overlay")}


def _shown(path: Path, root: Path) -> str:
    try:
        return f"cardmap/{path.relative_to(root)}"
    except ValueError:
        return str(path)


def _load_overlay(catalog: Catalog, path: Path) -> None:
    from companion.cards.cardfile import parse_card
    from companion.cards.validate import Checker
    from companion.cards.yamlload import DataError, load_file

    game_id = path.stem
    game = catalog.games.get(game_id)
    if game is None:
        catalog.error(game_id, f"{path}: no game {game_id!r} for these cards")
        return
    try:
        data = load_file(path)
        if data is None:
            return
        top = Checker(str(path), data, "")
        top.only({"cards"})
        items = top.get("cards", list, default=[])
        for i, item in enumerate(items):
            card = parse_card(str(path), item, f"cards[{i}]", game, overlay=True)
            shipped = catalog.cards.get(game_id, {}).get(card.id)
            if shipped is not None and not shipped.extra.get("overlay"):
                if shipped.text:
                    # A user's card never silently replaces a shipped one with the same id.
                    catalog.error(game_id, f"{path}: cards[{i}].id: {card.id!r} is already a card of {game_id}")
                    continue
                card = completed(shipped, card)
            catalog.cards.setdefault(game_id, {})[card.id] = card
    except DataError as exc:
        catalog.error(game_id, str(exc))
