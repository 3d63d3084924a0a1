"""Cards from a ``cards.yaml`` file (the game's own, or a user's overlay), checked field by field."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from companion import registry
from companion.cards.effects import parse_effects
from companion.cards.gamedata import GameInfo, plain
from companion.cards.model import Card
from companion.cards.validate import Checker
from companion.cards.yamlload import DataError, load_file
from companion.i18n import t

COMMON = frozenset({"id", "name", "names", "aliases", "type", "subtypes", "cost", "points", "text", "flavor",
                    "keywords", "confirmed", "source", "faq", "rulings", "stats", "effects"})


def cost_text(game: str, cost: dict[str, int], lang: str = "fr") -> str:
    parts = []
    for key, amount in cost.items():
        parts.append(f"{amount} {t(f'cost.{game}.{key}', lang=lang)}")
    return " + ".join(parts)


def load_cards(path: Path, game: GameInfo, shown: str | None = None, overlay: bool = False) -> list[Card]:
    shown = shown or str(path)
    data = load_file(path, shown)
    if data is None:
        return []
    top = Checker(shown, data, "")
    top.only({"cards"})
    raw = top.get("cards", list, required=True)
    cards = []
    seen: dict[str, int] = {}
    for i, item in enumerate(raw):
        card = parse_card(shown, item, f"cards[{i}]", game, overlay=overlay)
        if card.id in seen:
            raise Checker(shown, item, f"cards[{i}]").fail(
                "id", f"duplicate id {card.id!r} (first at cards[{seen[card.id]}])")
        seen[card.id] = i
        cards.append(card)
    return cards


def parse_card(shown: str, item: Any, where: str, game: GameInfo, overlay: bool = False) -> Card:
    c = Checker(shown, item, where)
    c.mapping()
    # Structured fields a game adds to its cards (documented in cardmap/README.md): its own hooks.
    c.only(COMMON | (registry.hook(game.id, "card_fields") or frozenset()))
    card_id = c.ident("id")
    name = c.get("name", str, required=True)
    names = c.texts("names", required=False, langs=())
    card_type = c.get("type", str, required=True)
    if card_type not in game.type_ids():
        raise c.fail("type", f"unknown card type {card_type!r}; expected one of: {', '.join(sorted(game.type_ids()))}")
    keywords = c.str_list("keywords")
    known = {g.id for g in game.glossary}
    for k, keyword in enumerate(keywords):
        if keyword not in known:
            kw_list = item["keywords"]
            raise DataError(shown, kw_list.item_lines[k] if hasattr(kw_list, "item_lines") else c.data.line,
                            f"{where}.keywords[{k}]", f"unknown keyword {keyword!r}: not in the glossary of {game.id}")
    raw_cost = item.get("cost")
    if isinstance(raw_cost, str):
        cost: dict[str, int] = {}
        cost_display = raw_cost
    else:
        cost = c.counts("cost")
        cost_display = cost_text(game.id, cost, game.card_language)
    points = c.get("points", int, default=0)
    if points < 0:
        raise c.fail("points", f"expected a whole number of 0 or more, got the number {points}")
    extra: dict[str, Any] = {"type": card_type, "subtypes": c.str_list("subtypes"), "cost": cost,
                             "points": points, "overlay": overlay}
    if c.get("stats", dict) is not None:
        extra["stats"] = plain(item["stats"])
    if c.get("source", str):
        extra["source"] = item["source"]
    faq = c.str_list("faq")
    if faq:
        extra["faq"] = faq
    read_own = registry.hook(game.id, "read_card_fields")
    if read_own is not None:
        read_own(c, extra)
    effects = parse_effects(c, game.id)
    if effects:
        extra["effects"] = effects
    text = c.get("text", str, required=True)
    return Card(
        game=game.id, id=card_id, name=name, types=(card_type, *extra["subtypes"]), cost=cost_display,
        text=text, lang=game.card_language, names={game.card_language: name, **names},
        aliases=tuple(c.str_list("aliases")), keywords=tuple(keywords),
        rulings=tuple(c.str_list("rulings")) + tuple(faq), flavor=c.get("flavor", str, default=""),
        confirmed=c.get("confirmed", bool, default=True), extra=extra)
