"""``tag enroll --deck FILE``: tag a whole deck, one card after another.

Each copy of each card of the list is asked for in turn ("Posez Blood Doll (3 / 40)"); the
card laid gets the reference written on it (or its UID bound in the collection). A card still
on the reader from the previous step is not taken again: the next one must be a different tag.
Progress is printed so that a stopped session can go on with ``--start N``.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from companion.cards.decks import check
from companion.cards.library import CardLibrary
from companion.i18n import t
from companion.tags import collection, writer

# A card that left mid-write or did not answer: laying it again is all it takes, the deck goes on.
AGAIN = frozenset({"tag.lifted", "tag.unreadable"})


def enroll_deck(args: argparse.Namespace, library: CardLibrary) -> int:
    try:
        with open(args.deck, encoding="utf-8-sig") as f:
            text = f.read()
    except (OSError, UnicodeDecodeError) as exc:
        print(f"{args.deck}: {getattr(exc, 'strerror', None) or exc}", file=sys.stderr)
        return 2
    if library.game(args.game) is None:
        print(t("cards.unknown_game", game=args.game, games=", ".join(library.games)), file=sys.stderr)
        return 2
    report = check(args.game, text, library)
    for line, content, reason in report.unreadable:
        print(f"{args.deck}:{line}: {reason}: {content}", file=sys.stderr)
    if report.unreadable:
        return 2
    copies = [card for card, n in report.cards for _ in range(n)]
    total = len(copies)
    last_uid = ""
    for number, card in enumerate(copies, 1):
        if number < args.start:
            continue
        print(t("tag.enroll.lay", name=card.name, n=number, total=total), flush=True)
        while True:
            try:
                info = writer.on_reader(args.reader, lambda tag, ref=card.ref, prev=last_uid: _one(
                    tag, ref, args, prev), timeout=args.timeout)
                break
            except writer.TagError as exc:
                if exc.key == "tag.same":  # the card just done is still there: wait for the next
                    time.sleep(0.2)
                    continue
                if exc.key in AGAIN:  # nothing to fix but the card's place: say so, wait for it again
                    print(str(exc), file=sys.stderr, flush=True)
                    print(t("tag.enroll.lay", name=card.name, n=number, total=total), flush=True)
                    continue
                print(str(exc), file=sys.stderr, flush=True)
                print(t("tag.enroll.resume", n=number), file=sys.stderr, flush=True)
                return 1
            except KeyboardInterrupt:
                print(t("tag.enroll.resume", n=number), file=sys.stderr, flush=True)
                return 130
        last_uid = info.uid
        print(t("tag.enroll.done_one", name=card.name, uid=info.uid, n=number, total=total), flush=True)
    print(t("tag.enroll.finished", total=total), flush=True)
    return 0


def _one(tag: Any, ref: str, args: argparse.Namespace, last_uid: str) -> writer.TagInfo:
    uid = bytes(tag.identifier).hex().upper()
    if uid == last_uid:
        raise writer.TagError("tag.same")
    if args.bind:
        info = writer.inspect(tag)
        collection.bind_uid(info.uid, ref)
        return info
    return writer.write_ref(tag, ref, args.kind)
