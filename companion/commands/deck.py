"""``python -m companion deck check --game GAME FILE``."""

from __future__ import annotations

import argparse
import json
import sys


def configure(p: argparse.ArgumentParser) -> None:
    sub = p.add_subparsers(dest="action", required=True, metavar="ACTION")
    c = sub.add_parser("check", help="counts, groups and legality of a deck list")
    c.add_argument("--game", required=True)
    c.add_argument("file")
    c.add_argument("--json", action="store_true")


def run(args: argparse.Namespace) -> int:
    from companion.cards.decks import check
    from companion.cards.library import CardLibrary
    from companion.i18n import t

    try:
        with open(args.file, encoding="utf-8-sig") as f:
            text = f.read()
    except UnicodeDecodeError as exc:
        print(f"{args.file}: not UTF-8 text ({exc.reason})", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"{args.file}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    library = CardLibrary()
    if library.game(args.game) is None:
        print(f"unknown game {args.game!r} (games: {', '.join(library.games)})", file=sys.stderr)
        return 2
    report = check(args.game, text, library)
    if args.json:
        print(json.dumps(report.to_json(), ensure_ascii=False, indent=1))
    else:
        for key, value in report.counts.items():
            print(f"{key}: {', '.join(map(str, value)) if isinstance(value, list) else value}")
        for line, content, reason in report.unreadable:
            print(f"{args.file}:{line}: {reason}: {content}", file=sys.stderr)
        for problem in report.problems:
            print(f"! {problem}")
        print(t("deck.legal") if report.legal else t("deck.illegal"))
    if report.unreadable:
        return 2
    return 0 if report.legal else 1
