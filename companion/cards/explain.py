"""What a card means: its keywords looked up in its game's glossary (for `cards show`, the
Card screen and the full spoken verbosity)."""

from __future__ import annotations

from companion.cards.gamedata import GameInfo, GlossaryEntry
from companion.cards.model import Card, localized
from companion.cards.search import normalize


def find_term(game: GameInfo | None, word: str) -> GlossaryEntry | None:
    """A glossary entry by id, name or alias, accent- and case-insensitive."""
    if game is None:
        return None
    wanted = normalize(word)
    for entry in game.glossary:
        keys = {entry.id, *entry.names.values(), *entry.aliases}
        if wanted in {normalize(k) for k in keys}:
            return entry
    return None


def keyword_entries(card: Card, game: GameInfo | None) -> list[GlossaryEntry]:
    seen: dict[str, GlossaryEntry] = {}
    for word in card.keywords:
        entry = find_term(game, word)
        if entry is not None:
            seen.setdefault(entry.id, entry)
    return list(seen.values())


def keyword_names(card: Card, game: GameInfo | None, lang: str = "fr") -> list[str]:
    """The card's keywords as words: disciplines by name, superior ones (written upper-case)
    marked ("Domination supérieure" for ``DOM``), so that nobody has to know the abbreviations."""
    from companion.i18n import t

    names = []
    for word in card.keywords:
        entry = find_term(game, word)
        name = entry.name(lang) if entry is not None else word
        if entry is not None and entry.kind == "discipline" and word.isupper():
            name = t("card.superior", lang=lang, name=name)
        names.append(name)
    return names


def card_type(game: GameInfo | None, type_id: str):
    """The game's card type for a type as a card gives it: krcg says "Master" or "Action
    Modifier" where the game data has ``master`` and ``action-modifier``."""
    if game is None:
        return None
    wanted = normalize(type_id).replace(" ", "-")
    for ct in game.card_types:
        if ct.id == type_id or normalize(ct.id) == wanted or wanted in {
                normalize(n).replace(" ", "-") for n in ct.names.values()}:
            return ct
    return None


def type_names(card: Card, game: GameInfo | None, lang: str = "fr") -> list[str]:
    """The card's types as words a player knows ("Artefact", not "artifact")."""
    names = []
    for type_id in card.types:
        known = card_type(game, type_id)
        term = None if known else find_term(game, type_id)
        if known is not None:
            names.append(known.names.get(lang) or known.names.get("fr") or type_id)
        elif term is not None:
            names.append(term.name(lang))
        else:
            names.append(type_id)
    return names


def cost_display(card: Card, lang: str = "fr") -> str:
    """The cost in the reader's language: a card source may print costs in English ("1 blood"),
    each as an ``<kind>_cost`` field, said through ``cost.<game>.<kind>``."""
    from companion.i18n import t

    extra = card.extra or {}
    parts = [t(f"cost.{card.game}.{key[:-5]}", lang=lang, n=value)
             for key, value in extra.items() if key.endswith("_cost") and value not in (None, "")]
    if parts:
        return ", ".join(parts)
    if extra.get("crypt"):
        return ""  # a vampire's capacity is not a cost; it has its own line
    structured = extra.get("cost")
    if isinstance(structured, dict) and structured:
        words = {key: t(f"cost.{card.game}.{key}", lang=lang) for key in structured}
        if all(word != f"cost.{card.game}.{key}" for key, word in words.items()):
            return " + ".join(f"{amount} {words[key]}" for key, amount in structured.items())
    return card.cost


def is_imbued(card: Card) -> bool:
    return "Imbued" in card.types


def card_rows(card: Card, game: GameInfo | None, lang: str = "fr") -> list[tuple[str, str]]:
    """(label, value) rows under the card's name, for every front end: type, cost, then a crypt
    card's capacity (an Imbued's life), group, title, clan (creed) and disciplines (virtues),
    superior ones marked, or another game's points and keywords."""
    from companion.i18n import t

    extra = card.extra if isinstance(card.extra, dict) else {}
    imbued = is_imbued(card)
    rows = []
    if card.types:
        rows.append((t("card.type", lang=lang), ", ".join(dict.fromkeys(type_names(card, game, lang)))))
    cost = cost_display(card, lang)
    if cost:
        rows.append((t("card.cost", lang=lang), cost))
    labels = {"capacity": "card.life" if imbued else "card.capacity", "group": "card.group",
              "title": "card.title", "points": "card.points"}
    for key, label in labels.items():
        if extra.get(key) not in (None, "", 0):
            rows.append((t(label, lang=lang), str(extra[key])))
    if extra.get("clans"):
        rows.append((t("card.creed" if imbued else "card.clan", lang=lang), ", ".join(map(str, extra["clans"]))))
    if extra.get("deck"):
        rows.append((t("card.deck", lang=lang), str(extra["deck"])))
    if card.keywords:
        label = ("card.virtues" if imbued else "card.disciplines") if extra.get("disciplines") else "card.keywords"
        rows.append((t(label, lang=lang), ", ".join(keyword_names(card, game, lang))))
    return rows


def card_lines(card: Card, game: GameInfo | None, lang: str = "fr") -> list[str]:
    """The whole card as text lines, for a terminal or a screen reader."""
    from companion.i18n import t

    card = localized(card, lang)
    lines = [f"{card.name}  [{card.ref}]"]
    other = [n for lg, n in card.names.items() if n != card.name]
    if other:
        lines.append("  " + " / ".join(other))
    pair = t("text.label_value", lang)
    lines.extend(pair.format(label=label, value=value) for label, value in card_rows(card, game, lang))
    if card.text:
        lines.append("")
        lines.extend(card.text.splitlines())
    entries = keyword_entries(card, game)
    if entries:
        lines.append("")
        lines.append(t("card.keywords", lang=lang))
        for entry in entries:
            text = entry.text.get(lang) or entry.text.get("fr", "")
            lines.append("- " + pair.format(label=entry.name(lang), value=text))
    if card.rulings:
        lines.append("")
        lines.append(t("card.rulings", lang=lang))
        lines.extend(f"- {r}" for r in card.rulings)
    if not card.confirmed:
        lines.append("")
        lines.append(t("card.unconfirmed", lang=lang))
    return lines
