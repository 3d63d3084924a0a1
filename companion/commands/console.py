from __future__ import annotations

import argparse


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("--reader", default="sim", help="reader path: sim, usb, tty:S0:pn532, udp:HOST:PORT")
    p.add_argument("--json", action="store_true", help="one JSON object per line")
    p.add_argument("--count", type=int, default=None, help="exit after N scans")
    p.add_argument("--speak", action="store_true", help="also speak each card")


def run(args: argparse.Namespace) -> int:
    from companion import console, i18n

    return console.main(args.reader, as_json=args.json, count=args.count, speak=args.speak,
                        lang=i18n.language())
