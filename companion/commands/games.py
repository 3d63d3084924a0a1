"""``python -m companion games [list] | games new ID``: the games the companion knows, and a
starting folder for a game of your own (``<data dir>/games/<id>/``), a game by data alone."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from companion import registry

TEMPLATE = Path(__file__).with_name("game_template")


def configure(p: argparse.ArgumentParser) -> None:
    sub = p.add_subparsers(dest="action", metavar="ACTION")
    sub.add_parser("list", help="every game, shipped or your own, with its folder")
    n = sub.add_parser("new", help="write a commented starting folder for a game of your own")
    n.add_argument("id", help="the game's id: lower-case letters, digits and '-', e.g. my-duel")
    n.add_argument("--name", help="its name as the companion says it (default: the id)")
    p.add_argument("--json", action="store_true", help="print JSON")


def run(args: argparse.Namespace) -> int:
    if getattr(args, "action", None) == "new":
        return _new(args)
    return _list(args)


def _list(args: argparse.Namespace) -> int:
    rows = [{"id": gid, "folder": str(folder), "own": registry.is_user_game(gid)}
            for gid, folder in registry.folders().items()]
    if args.json:
        print(json.dumps(rows, ensure_ascii=False, indent=2))
    else:
        for row in rows:
            print(f"{row['id']}\t{row['folder']}")
    return 0


def _new(args: argparse.Namespace) -> int:
    from companion.i18n import t

    game_id = args.id.strip()
    if not registry.ID.match(game_id):
        print(t("games.bad_id", id=game_id), file=sys.stderr)
        return 2
    if game_id in registry.ids():
        print(t("games.exists", id=game_id, folder=registry.folder(game_id)), file=sys.stderr)
        return 2
    target = registry.user_dir() / game_id
    name = (args.name or game_id).replace('"', "'")
    try:
        target.mkdir(parents=True, exist_ok=False)
        for source in sorted(TEMPLATE.glob("*.yaml")):
            text = source.read_text(encoding="utf-8").replace("__ID__", game_id).replace("__NAME__", name)
            (target / source.name).write_text(text, encoding="utf-8")
    except OSError as exc:
        print(t("games.cannot_write", folder=target, error=exc.strerror or exc), file=sys.stderr)
        return 1
    registry.forget()
    print(t("games.created", id=game_id, folder=target))
    return 0
