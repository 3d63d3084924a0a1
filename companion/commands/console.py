from __future__ import annotations

import argparse


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("--reader", action="extend", nargs="+", metavar="PATH[@SEAT]",
                   help="reader path: sim, usb, tty:S0:pn532, udp:HOST:PORT, pn532:DEV, hub:DEV, wedge:DEV; "
                        "repeat it for several readers, @SEAT binds one to a seat (default: sim)")
    p.add_argument("--json", action="store_true", help="one JSON object per line")
    p.add_argument("--count", type=int, default=None, help="exit after N scans")
    p.add_argument("--speak", action="store_true", help="also speak each card")
    p.add_argument("--game", help="run a game too: vtes, ascension, res-arcana, rise or astral")
    p.add_argument("--players", help='player names in table order, e.g. "Ann,Bob,Cy"')
    p.add_argument("--seed", type=int, help="seed of the random draws")
    p.add_argument("--journal", help="SQLite journal (default: the user data directory's games.sqlite3)")
    p.add_argument("--resume", type=int, metavar="ID", help="go on with a saved game")


def run(args: argparse.Namespace) -> int:
    from companion import console, i18n

    return console.main(args.reader or ["sim"], as_json=args.json, count=args.count, speak=args.speak,
                        lang=i18n.language(), game=args.game, players=args.players, seed=args.seed,
                        journal=args.journal, resume=args.resume)
