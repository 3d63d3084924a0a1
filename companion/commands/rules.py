"""``python -m companion rules --game GAME QUERY``: the matching rules sections and glossary entries."""

from __future__ import annotations

import argparse
import json
import sys

from companion.commands.args import whole_number


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("--game", required=True)
    p.add_argument("query", nargs="+")
    p.add_argument("--limit", type=whole_number(1), default=5)
    p.add_argument("--json", action="store_true")


def run(args: argparse.Namespace) -> int:
    from companion.cards.gamedata import GlossaryEntry
    from companion.cards.library import CardLibrary
    from companion.cards.rules import search_rules
    from companion.i18n import language, t

    library = CardLibrary()
    game = library.game(args.game)
    if game is None:
        errors = library.errors().get(args.game)
        print(t("cards.game_disabled", error=errors[0]) if errors else
              t("cards.unknown_game", game=args.game, games=", ".join(library.games)), file=sys.stderr)
        return 2
    query = " ".join(args.query)
    hits = search_rules(game, query, limit=args.limit)
    lang = language()
    if args.json:
        print(json.dumps([{
            "kind": "glossary" if isinstance(h.item, GlossaryEntry) else "rules",
            "id": h.item.id,
            "title": h.item.names if isinstance(h.item, GlossaryEntry) else h.item.title,
            "text": h.item.text,
            "score": h.score,
        } for h in hits], ensure_ascii=False, indent=1))
        return 0 if hits else 1
    if not hits:
        print(t("cards.no_hits", query=query))
        return 1
    for h in hits:
        item = h.item
        title = item.name(lang) if isinstance(item, GlossaryEntry) else (item.title.get(lang) or item.title["fr"])
        label = t("rules.glossary" if isinstance(item, GlossaryEntry) else "rules.section", lang=lang)
        print(f"== {title} ({label})")
        print(item.text.get(lang) or item.text["fr"])
        print()
    return 0
