"""``python -m companion tag read|write|bind``: what is on a tag, put a card reference on it,
or bind its UID to a card in the collection without writing."""

from __future__ import annotations

import argparse
import json
import sys

from companion import registry
from companion.commands.args import whole_number


def configure(p: argparse.ArgumentParser) -> None:
    sub = p.add_subparsers(dest="action", metavar="ACTION", required=True)

    def reader_options(sp: argparse.ArgumentParser) -> None:
        sp.add_argument("--reader", default="usb", help="nfcpy reader path: usb, tty:S0:pn532, udp:HOST:PORT")
        sp.add_argument("--timeout", type=float, default=None, metavar="SECONDS",
                        help="give up when no card is laid within SECONDS (default: wait)")

    r = sub.add_parser("read", help="print the UID, type, capacity, records and card of a tag")
    reader_options(r)
    r.add_argument("--json", action="store_true", help="one JSON object")

    w = sub.add_parser("write", help="write a card reference on a tag, then read it back")
    w.add_argument("ref", help=f"card reference, e.g. {registry.example_ref()}")
    reader_options(w)
    w.add_argument("--kind", choices=("text", "uri", "external"), default="text",
                   help="NDEF record to write (default: text, what every phone can read)")
    w.add_argument("--force", action="store_true", help="write a reference the library does not know")

    b = sub.add_parser("bind", help="add the tag's UID to the collection, without writing on it")
    b.add_argument("ref", help=f"card reference, e.g. {registry.example_ref()}")
    reader_options(b)
    b.add_argument("--force", action="store_true", help="bind a reference the library does not know")

    e = sub.add_parser("enroll", help="walk through a deck list: lay each card in turn to tag it")
    e.add_argument("--deck", required=True, help="deck list file (see `deck check`)")
    e.add_argument("--game", default=registry.ids()[0],
                   help=f"the deck's game: {registry.help_list()} (default: the first)")
    reader_options(e)
    e.add_argument("--bind", action="store_true", help="bind each UID in the collection instead of writing")
    e.add_argument("--kind", choices=("text", "uri", "external"), default="text")
    e.add_argument("--start", type=whole_number(1), default=1, metavar="N",
                   help="go on from the Nth card (after a stop)")


def _say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def _label(key: str) -> str:
    from companion.i18n import language, t

    return t(key) + (" : " if language() == "fr" else ": ")


def _card_for(library, ref: str, force: bool):
    """The card named by ``ref``, or an exit status when the reference cannot be used."""
    from companion.cards.model import parse_ref
    from companion.i18n import t

    parts = parse_ref(ref)
    if parts is None:
        _say(t("tag.bad_ref", ref=ref, example=registry.example_ref()))
        return 2
    card = library.get(ref)
    if card is None and not force:
        _say(t("tag.unknown_ref", ref=ref))
        return 2
    return card


def run(args: argparse.Namespace) -> int:
    from companion.cards.library import CardLibrary
    from companion.i18n import t
    from companion.tags import writer

    library = CardLibrary()
    if args.action == "enroll":
        from companion.tags.enroll import enroll_deck

        return enroll_deck(args, library)
    card = None
    if args.action in ("write", "bind"):
        card = _card_for(library, args.ref, args.force)
        if isinstance(card, int):
            return card
        args.ref = args.ref.strip()
    _say(t("tag.wait", path=args.reader))
    try:
        if args.action == "read":
            return _read(args, library)
        if args.action == "write":
            info = writer.on_reader(args.reader, lambda tag: writer.write_ref(tag, args.ref, args.kind),
                                    timeout=args.timeout)
            print(t("tag.written", ref=args.ref, name=card.name if card else "?", uid=info.uid), flush=True)
            return 0
        return _bind(args, card)
    except writer.TagError as exc:
        _say(str(exc))
        return 1


def _read(args: argparse.Namespace, library) -> int:
    from companion.i18n import t
    from companion.readers.events import TagEvent
    from companion.tags import writer
    from companion.tags.collection import load_uid_map
    from companion.tags.resolve import Resolver, scan_line

    info = writer.on_reader(args.reader, writer.inspect, timeout=args.timeout)
    event = TagEvent(kind="laid", reader=args.reader, uid=info.uid, ndef=info.ndef)
    scan = Resolver(library, load_uid_map()).resolve(event)
    if args.json:
        print(json.dumps({**info.to_json(), "card": scan.to_json()}, ensure_ascii=False), flush=True)
        return 0
    lines = [f"{_label('tag.label.uid')}{info.uid}", f"{_label('tag.label.type')}{info.product} ({info.type})"]
    if info.formatted:
        access = t("tag.writeable") if info.writeable else t("tag.read_only")
        lines.append(_label("tag.label.capacity")
                     + t("tag.capacity", capacity=info.capacity, length=info.length, access=access))
    if info.ndef is None:
        lines.append(_label("tag.label.records") + t("tag.no_ndef"))
    elif not info.ndef:
        lines.append(_label("tag.label.records") + t("tag.empty"))
    else:
        lines.append(_label("tag.label.records").rstrip())
        lines += [f"  - {r}" for r in info.decoded.records]
        if info.decoded.error:
            lines.append(f"  ! {info.decoded.error}")
    lines.append(_label("tag.label.card") + scan_line(scan))
    print("\n".join(lines), flush=True)
    return 0


def _bind(args: argparse.Namespace, card) -> int:
    from companion.i18n import t
    from companion.tags import collection, writer

    info = writer.on_reader(args.reader, writer.inspect, timeout=args.timeout)
    try:
        path = collection.bind_uid(info.uid, args.ref, note=card.name if card else "")
    except collection.CollectionError as exc:
        _say(t("tag.collection_broken", path=collection.collection_path(), detail=exc))
        return 1
    print(t("tag.bound", uid=info.uid, ref=args.ref, name=card.name if card else "?", path=path), flush=True)
    others = [r for r in info.decoded.refs if r != args.ref]
    if others:
        _say(t("tag.ndef_wins", other=others[0]))
    return 0
