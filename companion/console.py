"""The console companion: the program for a terminal and a screen reader.

Reads tags from one reader, prints one line per card laid (or one JSON object per line), and
with a simulated reader lets the user lay a card by typing its reference or name.
"""

from __future__ import annotations

import json
import queue
import sys
import threading
from collections.abc import Callable
from typing import TextIO

from companion.cards.library import CardLibrary
from companion.i18n import t
from companion.readers.base import Reader, open_reader
from companion.readers.events import TagEvent
from companion.readers.simulator import SimulatedReader
from companion.tags.collection import load_uid_map
from companion.tags.resolve import Resolver, Scan


def format_scan(scan: Scan) -> str:
    if scan.card is not None:
        card = scan.card
        head = f"{card.ref}  {card.name}"
        details = "; ".join(x for x in (", ".join(card.types), card.cost) if x)
        text = " / ".join(line.strip() for line in card.text.splitlines() if line.strip())
        return f"{head}  ({details})  {text}" if details else f"{head}  {text}"
    if scan.status == "unreadable":
        return t("card.unreadable", detail=scan.detail) + f"  [uid {scan.uid}]"
    return t("card.unknown", detail=scan.detail) + f"  [uid {scan.uid}]"


class Console:
    def __init__(self, reader: Reader, library: CardLibrary, out: TextIO = sys.stdout,
                 as_json: bool = False, on_scan: Callable[[Scan], None] | None = None) -> None:
        self.reader = reader
        self.library = library
        self.resolver = Resolver(library, load_uid_map())
        self.out = out
        self.as_json = as_json
        self.on_scan = on_scan
        self.events: queue.Queue[TagEvent] = queue.Queue()

    def _print(self, line: str) -> None:
        print(line, file=self.out, flush=True)

    def _status(self, line: str) -> None:
        # Status goes to stderr so that --json output stays one object per line.
        print(line, file=sys.stderr, flush=True)

    def handle(self, event: TagEvent) -> Scan | None:
        if event.kind in ("laid", "unreadable"):
            scan = self.resolver.resolve(event)
            self._print(json.dumps(scan.to_json(), ensure_ascii=False) if self.as_json else format_scan(scan))
            if self.on_scan is not None:
                self.on_scan(scan)
            return scan
        if event.kind == "reader-lost":
            self._status(t("reader.lost", path=event.reader, detail=event.detail))
        elif event.kind == "reader-ready":
            self._status(t("reader.started", path=event.reader))
        return None

    def lay_typed(self, line: str) -> bool:
        """Lay the card a user typed (reference or name) on a simulated reader."""
        if not isinstance(self.reader, SimulatedReader):
            return False
        text = line.strip()
        if not text:
            return False
        card = self.library.get(text)
        if card is None:
            for game in self.library.games:
                card = self.library.find_by_name(game, text)
                if card:
                    break
        self.reader.lay(card.ref if card else text)
        return True

    def run(self, count: int | None = None, stdin: TextIO | None = None) -> int:
        self.reader.start(self.events.put)
        if stdin is not None:
            threading.Thread(target=self._read_stdin, args=(stdin,), daemon=True).start()
        scans = 0
        try:
            while count is None or scans < count:
                try:
                    event = self.events.get(timeout=0.5)
                except queue.Empty:
                    continue
                if self.handle(event) is not None:
                    scans += 1
        except KeyboardInterrupt:
            self._status(t("console.bye"))
        finally:
            self.reader.stop()
        return 0

    def _read_stdin(self, stdin: TextIO) -> None:
        for line in stdin:
            self.lay_typed(line)


def main(reader_path: str, as_json: bool = False, count: int | None = None,
         speak: bool = False, lang: str = "fr") -> int:
    try:
        reader = open_reader(reader_path)
    except ValueError:
        print(t("error.bad_reader", path=reader_path), file=sys.stderr)
        return 2
    library = CardLibrary()
    for game in library.games:  # load before the first card, so the first scan is fast
        library.load(game)
    on_scan = speaker = None
    if speak:
        from companion.speech import make_speaker, speak_scan_callback

        speaker = make_speaker("auto", lang=lang)
        on_scan = speak_scan_callback(lang, speaker=speaker, games=library.game)
    console = Console(reader, library, as_json=as_json, on_scan=on_scan)
    stdin = sys.stdin if isinstance(reader, SimulatedReader) and sys.stdin and sys.stdin.isatty() else None
    if stdin is not None:
        print(t("console.help"), file=sys.stderr)
    try:
        return console.run(count=count, stdin=stdin)
    finally:
        if speaker is not None:
            if count is not None:  # a scripted run ends after its last card has been said
                speaker.wait_idle(timeout=60)
            speaker.close()
