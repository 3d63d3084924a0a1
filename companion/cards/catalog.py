"""Everything the library knows, gathered from its sources: the cardmap folders, krcg's VTES
lists and the user's overlay. A broken game folder disables that game, with its error kept for
display; the other games still load."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from companion import paths
from companion.cards.cardfile import load_cards, parse_card
from companion.cards.gamedata import GameInfo, load_game
from companion.cards.model import Card
from companion.cards.validate import Checker
from companion.cards.yamlload import DataError, load_file


def cardmap_dir() -> Path:
    """The game data shipped with the program (``COMPANION_CARDMAP`` overrides, for tests)."""
    override = os.environ.get("COMPANION_CARDMAP")
    if override:
        return Path(override)
    return Path(__file__).resolve().parents[2] / "cardmap"


def overlay_dir() -> Path:
    """Users' own cards: one ``<game>.yaml`` per game, in the user data directory. Not created
    here: reading works on a read-only home; saving a card creates it (overlay.add_card)."""
    return paths.data_dir() / "cards"


@dataclass
class Catalog:
    games: dict[str, GameInfo] = field(default_factory=dict)
    cards: dict[str, dict[str, Card]] = field(default_factory=dict)  # game → id → card
    errors: dict[str, list[str]] = field(default_factory=dict)  # game → messages
    transient: bool = False  # a failure that may pass (krcg unreadable): not worth caching
    index_key: str = ""  # the card index's key when this catalog is the one stored there

    def error(self, game: str, message: str) -> None:
        self.errors.setdefault(game, []).append(message)


def source_files(cardmap: Path, overlay: Path | None) -> list[Path]:
    files = sorted(cardmap.glob("*/*.yaml"))
    if overlay is not None and overlay.is_dir():
        files += sorted(overlay.glob("*.yaml"))
    return files


Progress = Callable[[int, int, str], None]  # (games done, games in all, the game now being read)


def build(cardmap: Path | None = None, overlay: Path | None = None, with_vtes: bool = True,
          progress: Progress | None = None) -> Catalog:
    cardmap = cardmap or cardmap_dir()
    overlay = overlay if overlay is not None else overlay_dir()
    catalog = Catalog()
    folders = sorted(p for p in cardmap.iterdir() if p.is_dir() and (p / "game.yaml").exists())
    for done, folder in enumerate(folders):
        if progress is not None:
            progress(done, len(folders), folder.name)
        game_file = folder / "game.yaml"
        try:
            game = load_game(game_file, _shown(game_file, cardmap))
        except DataError as exc:
            catalog.error(folder.name, str(exc))
            continue
        catalog.games[game.id] = game
        cards: dict[str, Card] = {}
        cards_file = folder / "cards.yaml"
        if cards_file.exists():
            try:
                cards = {c.id: c for c in load_cards(cards_file, game, _shown(cards_file, cardmap))}
            except DataError as exc:
                catalog.error(game.id, str(exc))
                del catalog.games[game.id]  # half a game would mislead a player
                continue
        if game.id == "vtes" and with_vtes:
            try:
                from companion.cards import vtes

                cards.update({c.id: c for c in vtes.iter_cards()})
                for warning in vtes.warnings:  # updated lists set aside: the bundled ones are in use
                    catalog.error("vtes", f"cards update: {warning}")
                if not cards:
                    raise LookupError("krcg gave no card")
            except Exception as exc:  # krcg missing, of an unknown line, or its data unreadable
                catalog.error("vtes", f"krcg {vtes_version()}: {type(exc).__name__}: {exc}")
                catalog.transient = True
        catalog.cards[game.id] = cards
    if overlay.is_dir():
        for path in sorted(overlay.glob("*.yaml")):
            _load_overlay(catalog, path)
    return catalog


def vtes_version() -> str:
    from companion.cards.vtes import krcg_version

    return krcg_version()


def completed(shipped: Card, own: Card) -> Card:
    """A shipped card known only by its name and type (ASTRAL's starter decks), completed by the
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
