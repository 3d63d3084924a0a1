"""Rules questions, answered offline: search over a game's rules sections and glossary."""

from __future__ import annotations

from companion.cards.gamedata import GameInfo, GlossaryEntry, RuleSection
from companion.cards.search import Doc, DocIndex, Hit


def rules_index(game: GameInfo) -> DocIndex[GlossaryEntry | RuleSection]:
    docs: list[Doc[GlossaryEntry | RuleSection]] = []
    for entry in game.glossary:
        docs.append(Doc(entry, (*entry.names.values(), *entry.aliases, entry.id),
                        " ".join(entry.text.values())))
    for section in game.rules:
        docs.append(Doc(section, tuple(section.title.values()), " ".join(section.text.values())))
    return DocIndex(docs)


def search_rules(game: GameInfo, query: str, limit: int = 10) -> list[Hit[GlossaryEntry | RuleSection]]:
    return rules_index(game).search(query, limit=limit)
