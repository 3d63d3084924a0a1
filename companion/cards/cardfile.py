"""Cards from a ``cards.yaml`` file (the game's own, or a user's overlay), checked field by field."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from companion import registry
from companion.cards.effects import parse_effects
from companion.cards.gamedata import GameInfo, plain
from companion.cards.model import Card
from companion.cards.validate import Checker, describe
from companion.cards.yamlload import DataError, load_text_kept, read_file
from companion.i18n import t

COMMON = frozenset({"id", "name", "names", "aliases", "type", "subtypes", "cost", "points", "text", "texts", "flavor",
                    "keywords", "confirmed", "source", "faq", "rulings", "stats", "effects"})


def cost_text(game: str | GameInfo, cost: dict[str, int], lang: str = "fr") -> str:
    """``2 runes + 1 puissance``: each resource by its word (``cost.<game>.<key>``), else by the
    name of the table counter it moves (a user's game has no messages of its own)."""
    info = game if isinstance(game, GameInfo) else None
    game_id = info.id if info is not None else str(game)
    table = info.table if info is not None else {}
    counters = {**(table.get("counters") or {}), **(table.get("shared") or {})}
    parts = []
    for key, amount in cost.items():
        word = t(f"cost.{game_id}.{key}", lang=lang)
        if word == f"cost.{game_id}.{key}":
            names = (counters.get(key) or {}).get("names") if isinstance(counters.get(key), dict) else None
            word = (names.get(lang) or names.get("fr") or key) if isinstance(names, dict) else key
        parts.append(f"{amount} {word}")
    return " + ".join(parts)


def load_cards(path: Path, game: GameInfo, shown: str | None = None, overlay: bool = False) -> list[Card]:
    shown = shown or str(path)
    # Kept parsed, as a game.yaml is: the card index is built again from these files whenever
    # a game's file changes, and the YAML parse was most of a build without the sources (and
    # of the tests that build the catalog).
    data = load_text_kept(read_file(path, shown), shown, _kept_name(path))
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
                "id", t("data.duplicate_id", id=repr(card.id), first=f"cards[{seen[card.id]}]"))
        seen[card.id] = i
        cards.append(card)
    return cards


def _kept_name(path: Path) -> str:
    """The cache file of a cards.yaml kept parsed: one per game folder's name (the text's digest
    tells two folders of the same name apart)."""
    import hashlib

    return f"cards-{hashlib.blake2b(path.parent.name.encode(), digest_size=8).hexdigest()}.marshal"


def parse_card(shown: str, item: Any, where: str, game: GameInfo, overlay: bool = False) -> Card:
    c = Checker(shown, item, where)
    c.mapping()
    # Structured fields a game adds to its cards: its game.yaml's card_fields (cardmap/README.md).
    c.only(COMMON | frozenset(game.card_fields))
    card_id = c.ident("id")
    name = c.get("name", str, required=True)
    names = c.texts("names", required=False, langs=())
    card_type = c.get("type", str, required=True)
    if card_type not in game.type_ids():
        raise c.fail("type", t("data.unknown_card_type", got=repr(card_type),
                               choices=", ".join(sorted(game.type_ids()))))
    keywords = c.str_list("keywords")
    known = {g.id for g in game.glossary}
    for k, keyword in enumerate(keywords):
        if keyword not in known:
            kw_list = item["keywords"]
            raise DataError(shown, kw_list.item_lines[k] if hasattr(kw_list, "item_lines") else c.data.line,
                            f"{where}.keywords[{k}]", t("data.unknown_keyword", got=repr(keyword), game=game.id))
    raw_cost = item.get("cost")
    if isinstance(raw_cost, str):
        cost: dict[str, int] = {}
        cost_display = raw_cost
    else:
        cost = c.counts("cost")
        cost_display = cost_text(game, cost, game.card_language)
    points = c.get("points", int, default=0)
    if points < 0:
        raise c.fail("points", t("data.at_least", least=0, got=describe(points)))
    extra: dict[str, Any] = {"type": card_type, "subtypes": c.str_list("subtypes"), "cost": cost,
                             "points": points, "overlay": overlay}
    if c.get("stats", dict) is not None:
        extra["stats"] = plain(item["stats"])
    if c.get("source", str):
        extra["source"] = item["source"]
    faq = c.str_list("faq")
    if faq:
        extra["faq"] = faq
    _own_fields(c, game, extra)
    check_own = registry.hook(game.id, "check_card_fields")  # a game's closer checks, in its code
    if check_own is not None:
        check_own(c, extra)
    effects = parse_effects(c, game)
    if effects:
        extra["effects"] = effects
    text = c.get("text", str, required=True)
    # The card's text in other languages (``texts: {en: ...}``): a listener of that language
    # hears and reads the card in it, its name from ``names`` (cards.model.localized).
    for lang, own in c.texts("texts", required=False, langs=()).items():
        if lang != game.card_language and own:
            extra.setdefault("i18n", {})[lang] = {"name": names.get(lang) or name, "text": own}
    return Card(
        game=game.id, id=card_id, name=name, types=(card_type, *extra["subtypes"]), cost=cost_display,
        text=text, lang=game.card_language, names={game.card_language: name, **names},
        aliases=tuple(c.str_list("aliases")), keywords=tuple(keywords),
        rulings=tuple(c.str_list("rulings")) + tuple(faq), flavor=c.get("flavor", str, default=""),
        confirmed=c.get("confirmed", bool, default=True), extra=extra)


def _own_fields(c: Checker, game: GameInfo, extra: dict[str, Any]) -> None:
    """The game's own card fields, each read by its kind; a field with a default is always set."""
    item = c.mapping()
    for name, spec in game.card_fields.items():
        kind, has_default = spec["kind"], "default" in spec
        if name not in item or item[name] is None:
            if has_default:
                extra[name] = spec["default"]
            continue
        if kind == "text":
            extra[name] = c.get(name, str)
        elif kind == "number":
            extra[name] = c.get(name, int)
        elif kind == "counts":
            extra[name] = c.counts(name)
        elif kind == "id":
            extra[name] = c.ident(name)
        elif kind == "list":
            extra[name] = plain(c.get(name, list))
        else:
            extra[name] = plain(c.get(name, dict))
