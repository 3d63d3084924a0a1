"""``python -m companion cards search|show|stats|validate|add|update``."""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from companion import registry
from companion.commands.args import whole_number


def configure(p: argparse.ArgumentParser) -> None:
    sub = p.add_subparsers(dest="action", required=True, metavar="ACTION")
    s = sub.add_parser("search", help="ranked hits for a query")
    s.add_argument("query", nargs="+")
    s.add_argument("--game")
    s.add_argument("--type", dest="card_type")
    s.add_argument("--cost", type=int)
    s.add_argument("--clan", help="a card's clan or faction, in the games whose cards have one")
    s.add_argument("--limit", type=whole_number(1), default=10)
    s.add_argument("--json", action="store_true")
    s = sub.add_parser("show", help="the whole card, with keyword definitions and rulings")
    s.add_argument("ref", nargs="+", help=f"game:id ({registry.example_ref()}) or the card's exact name")
    s.add_argument("--json", action="store_true")
    s = sub.add_parser("stats", help="cards per game and per type")
    s.add_argument("--json", action="store_true")
    s = sub.add_parser("validate", help="check a cardmap folder (default: the shipped one and your own cards)")
    s.add_argument("dir", nargs="?")
    s.add_argument("--json", action="store_true")
    s = sub.add_parser("add", help="add one of your own cards (asks for what is missing)")
    s.add_argument("--game", required=True)
    s.add_argument("--id")
    s.add_argument("--name")
    s.add_argument("--en-name")
    s.add_argument("--type", dest="card_type")
    s.add_argument("--cost", help="e.g. 3, or energy=2")
    s.add_argument("--text")
    s.add_argument("--keywords", help="comma-separated glossary ids")
    s.add_argument("--stat", action="append", default=[], help="name=value, e.g. pv=5 (repeatable)")
    s.add_argument("--json", action="store_true")
    _configure_update(sub)


def _configure_update(sub: Any) -> None:
    """``cards update``: the lists of a game whose cards come from elsewhere than its cards.yaml
    (its card source, the game's own code, which does the work). No game code is imported here:
    ``--help`` stays fast."""
    s = sub.add_parser("update", help="fetch the current official card lists of a game whose cards come from "
                                      "them, and their French and Spanish translations, check them, use them "
                                      "from now on")
    s.add_argument("--mirror", metavar="URL", help="fetch every file from this base URL instead of the official sites")
    s.add_argument("--revert", action="store_true",
                   help="forget the fetched lists: back to the ones its card source bundles")
    s.add_argument("--timeout", type=float, default=60.0, help="seconds per file (default 60)")
    s.add_argument("--json", action="store_true")


def _out(args: argparse.Namespace, data: object, lines: list[str]) -> None:
    if args.json:
        print(json.dumps(data, ensure_ascii=False, indent=1))
    else:
        print("\n".join(lines))


def run(args: argparse.Namespace) -> int:
    from companion.cards.library import CardLibrary

    action = args.action
    if action == "validate":
        return _validate(args)
    if action == "update":
        return _update(args)
    library = CardLibrary()
    if action == "search":
        return _search(args, library)
    if action == "show":
        return _show(args, library)
    if action == "stats":
        return _stats(args, library)
    return _add(args, library)


def _check_game(library, game: str | None) -> str | None:
    from companion.i18n import t

    if game is None or game in library.games:
        return None
    errors = library.errors().get(game)
    if errors:
        return t("cards.game_disabled", error=errors[0])
    return t("cards.unknown_game", game=game, games=", ".join(library.games))


def _search(args, library) -> int:
    from companion.i18n import t

    problem = _check_game(library, args.game)
    if problem:
        print(problem, file=sys.stderr)
        return 2
    query = " ".join(args.query)
    hits = library.search(query, game=args.game, limit=args.limit, type=args.card_type, cost=args.cost,
                          clan=args.clan)
    data = [{"ref": h.card.ref, "name": h.card.name, "types": list(h.card.types), "cost": h.card.cost,
             "score": h.score, "matched": h.where} for h in hits]
    lines = [f"{h.card.ref:28} {h.card.name}  ({', '.join(h.card.types)})" for h in hits]
    _out(args, data, lines or [t("cards.no_hits", query=query)])
    return 0 if hits else 1


def _show(args, library) -> int:
    from companion.cards.explain import card_lines, keyword_entries
    from companion.i18n import language, t

    ref = " ".join(args.ref)
    card = library.lookup(ref)
    if card is None:
        print(t("cards.not_found", ref=ref), file=sys.stderr)
        return 2
    game = library.game(card.game)
    data = card.to_json()
    data["keyword_definitions"] = [{"id": e.id, "names": e.names, "text": e.text}
                                   for e in keyword_entries(card, game)]
    _out(args, data, card_lines(card, game, language()))
    return 0


def _stats(args, library) -> int:
    data = {}
    lines = []
    for game in library.games:
        cards = library.cards(game)
        # A card of two types ("Action Modifier/Reaction") counts once under each.
        per_type = Counter(t for c in cards for t in (c.types or ("?",)))
        data[game] = {"cards": len(cards), "types": dict(per_type.most_common())}
        lines.append(f"{game}: {len(cards)}")
        lines.extend(f"  {k}: {v}" for k, v in per_type.most_common())
    for game, errors in library.errors().items():
        data.setdefault(game, {})["errors"] = errors
        lines.extend(f"! {e}" for e in errors)
    for game, source in _sources():
        lists = source.info()
        data[f"{game}_lists"] = {source.name(): source.version(), "updated": lists}
        lines.append(f"{game} lists: {source.name()} {source.version()}, "
                     + (f"updated {lists.get('fetched')} ({lists.get('source')})" if lists else "bundled"))
    _out(args, data, lines)
    return 0


def _sources() -> list[tuple[str, Any]]:
    """The games whose cards come from lists the program can fetch again (their card source)."""
    found = [(game, registry.hook(game, "card_source")) for game in registry.builtin_ids()]
    return [(game, source) for game, source in found if source is not None and hasattr(source, "update")]


def _game_name(game: str) -> str:
    """The game's name in the current language (its game.yaml's ``names``), for a message."""
    from companion.cards.gamedata import load_game
    from companion.i18n import language

    path = registry.game_file(game)
    return load_game(path).name(language()) if path is not None else game


def _update(args) -> int:
    from companion.cards.catalog import SourceError
    from companion.i18n import t

    sources = _sources()
    if not sources:
        print(t("cards.update.none"), file=sys.stderr)
        return 2
    (game, source), = sources  # one game's lists today; a second would need a --game
    name = _game_name(game)
    if args.revert:
        had = source.revert()
        _out(args, {"reverted": had}, [t("cards.update.reverted" if had else "cards.update.nothing", game=name,
                                         source=source.name())])
        return 0
    print(t("cards.update.fetching", game=name), file=sys.stderr)
    try:
        result = source.update(args.mirror, timeout=args.timeout)
    except SourceError as exc:
        print(t("cards.update.failed", reason=str(exc)), file=sys.stderr)
        return 1
    _refresh_index()
    lines = [t("cards.update.done", game=name, cards=result.cards, added=result.added, changed=result.changed,
               fr=result.translated.get("fr", 0), es=result.translated.get("es", 0))]
    _out(args, result.to_json(), lines)
    return 0


def _refresh_index() -> None:
    """The card index brought up to date after an update, while the new lists are still in
    memory: the game's row is built from them (a second), where the next start would have had
    them read again (seconds more on a Raspberry Pi, at the start the players wait for). With no
    index yet, nothing: the first start builds it whole."""
    from companion.cards import index

    if index.index_path().exists():
        index.load()


def _validate(args) -> int:
    from companion import registry
    from companion.cards import catalog
    from companion.i18n import t

    folder = Path(args.dir) if args.dir else catalog.cardmap_dir()
    if not folder.is_dir():
        print(f"{folder}: not a folder", file=sys.stderr)
        return 2
    overlay = None if args.dir else catalog.overlay_dir()
    # A game's card source (lists read from elsewhere) is not a file of the cardmap: it is checked
    # by the test suite, not here.
    # With no --dir: the shipped games, the user's own games and cards.
    user_games = None if args.dir else registry.user_dir()
    result = catalog.build(folder, overlay if overlay is not None else Path("/nonexistent"), with_sources=False,
                           user_games=user_games)
    errors = [e for msgs in result.errors.values() for e in msgs]
    count = sum(len(c) for c in result.cards.values())
    if args.json:
        print(json.dumps({"folder": str(folder), "games": sorted(result.games), "cards": count,
                          "errors": errors}, ensure_ascii=False, indent=1))
    else:
        for e in errors:
            print(e)
        if not errors:
            print(t("cards.valid", folder=folder, games=len(result.games), cards=count))
    return 1 if errors else 0


def _add(args, library) -> int:
    from companion.cards.catalog import known_ids
    from companion.cards.overlay import add_card, overlay_file
    from companion.cards.yamlload import DataError
    from companion.i18n import t

    problem = _check_game(library, args.game)
    if problem:
        print(problem, file=sys.stderr)
        return 2
    game = library.game(args.game)
    fields: dict = {"id": args.id, "name": args.name, "type": args.card_type, "text": args.text}
    if args.en_name:
        fields["names"] = {"en": args.en_name}
    interactive = sys.stdin.isatty()
    if interactive:
        types = ", ".join(sorted(game.type_ids()))
        for key, label in (("name", "Nom"), ("type", f"Type ({types})"), ("text", "Texte")):
            while not fields.get(key):
                fields[key] = input(t("cards.prompt", field=label)).strip()
        if args.cost is None:
            args.cost = input(t("cards.prompt", field="Coût (vide si aucun)")).strip() or None
    missing = [k for k in ("name", "type", "text") if not fields.get(k)]
    if missing:
        print(t("cards.missing_fields", fields=", ".join(missing), first=missing[0]), file=sys.stderr)
        return 2
    if args.cost:
        fields["cost"] = _parse_cost(args.cost, game.effects.get("cost_key", "any"))
    if args.keywords:
        fields["keywords"] = [k.strip() for k in args.keywords.split(",") if k.strip()]
    if args.stat:
        fields["stats"] = {k.strip(): _number(v.strip()) for k, _, v in (s.partition("=") for s in args.stat)}
    try:
        card = add_card(game, fields, known_ids(library.load(game.id)))
    except DataError as exc:
        print(str(exc), file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(card.to_json(), ensure_ascii=False))
    else:
        print(t("cards.added", ref=card.ref, path=overlay_file(game.id)))
    return 0


def _number(text: str) -> int | str:
    return int(text) if text.lstrip("-").isdigit() else text


def _parse_cost(text: str, default_key: str) -> dict[str, int] | str:
    """``3`` (in the game's usual resource, its effects.cost_key), ``or=2, vie=1``, or free text."""
    if text.isdigit():
        return {default_key: int(text)}
    parts = {}
    for chunk in text.replace("+", ",").split(","):
        key, sep, value = chunk.strip().partition("=")
        if not sep or not value.strip().isdigit():
            return text  # free text cost, shown as typed
        parts[key.strip()] = int(value)
    return parts
