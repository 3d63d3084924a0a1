"""The console companion: the program for a terminal, a screen reader, and scripted games.

Reads tags from one reader and prints one line per card laid (or one JSON object per line).
When a game is running (``--game`` or ``--resume``), each line typed on standard input is a
table command word (docs/commands.md: ``pool 2 -3``, ``next``, ``undo``...) applied to the
game's durable journal; with a simulated reader, a line that is not a command lays the card it
names. Everything happens on the main thread: the reader thread and the stdin thread only
queue what they saw.
"""

from __future__ import annotations

import json
import queue
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TextIO

from companion.cards.library import CardLibrary
from companion.i18n import language, t
from companion.readers.base import Reader, open_readers
from companion.readers.events import TagEvent
from companion.readers.simulator import SimulatedReader
from companion.tags.collection import load_uid_map
from companion.tags.resolve import Resolver, Scan

_EOF = object()


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


@dataclass
class TableSession:
    """A running game for the console: the engine, its parser, and where its journal is."""

    game: Any  # companion.table.engine.Game
    parser: Any  # companion.table.commands.Parser
    journal: Any

    @classmethod
    def start(cls, game_id: str | None, players: str | None, seed: int | None, journal_path: str | None,
              resume: int | None) -> TableSession:
        from companion import paths
        from companion.table.commands import Parser
        from companion.table.engine import Game
        from companion.table.journal import Journal

        journal = Journal(journal_path or str(paths.data_dir() / "games.sqlite3"))
        if resume is not None:
            game = Game.open(journal, resume)
        else:
            names = [n.strip() for n in (players or "").split(",") if n.strip()]
            game = Game.new(journal, game_id or "", names, seed=seed, source="key")
        parser = Parser(game.data, [s["name"] for s in game.state["seats"]], source="key")
        return cls(game, parser, journal)


class Console:
    def __init__(self, reader: Reader | list[Reader], library: CardLibrary, out: TextIO = sys.stdout,
                 as_json: bool = False, on_scan: Callable[[Scan], None] | None = None,
                 table: TableSession | None = None, on_text: Callable[[str], None] | None = None) -> None:
        self.readers = reader if isinstance(reader, list) else [reader]
        # Typed card names are laid on the first simulated reader, if there is one.
        self.sim = next((r for r in self.readers if isinstance(r, SimulatedReader)), None)
        self.library = library
        self.resolver = Resolver(library, load_uid_map())
        self.out = out
        self.as_json = as_json
        self.on_scan = on_scan
        self.on_text = on_text  # speaks table results and refusals when speech is on
        self.table = table
        self.events: queue.Queue[Any] = queue.Queue()
        self.speaker: Any = None  # companion.speech Speaker when speech is on: keypad repeat, stop, spell
        self._keys: Any = None  # companion.ui.keys.Keys, made at the first keypad line

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

    def command(self, line: str) -> None:
        """A line typed by the user: a table command when a game runs, else a card to lay."""
        text = line.strip()
        if not text:
            return
        if self.table is not None:
            from companion.table.commands import ParseError

            if self.keypad(text):
                return
            try:
                intent = self.table.parser.parse(text)
            except ParseError as exc:
                if self.lay_typed(text):
                    return
                self._say_result([t("table.refused", reason=exc.text(language()))])
                return
            if intent is None:
                return
            result = self.table.game.apply(intent)  # durable in the journal before it is shown
            self._say_result(result.lines(language()))
            if self._keys is not None:
                self._keys.announcer.watch(self.table.game)  # so that a keypad undo says what it undid
            return
        if not self.lay_typed(text):
            self._status(t("console.not_a_card", text=text))

    def keypad(self, text: str) -> bool:
        """A line typed on a numeric keypad (``*``, ``/2``, ``-``, ``7``) plays as the app's keypad
        does (docs/keys.md), each result said briefly; False for any other line."""
        from companion.ui.keys import keypad_keys

        keys = keypad_keys(text)
        if keys is None:
            return False
        if self._keys is None:
            from companion.ui.announce import Announcer
            from companion.ui.keys import Keys, TableHost

            game = self.table.game
            announcer = Announcer(lambda said, _priority, _interrupt: self._say_result([u.text for u in said]),
                                  language())
            announcer.watch(game)
            host = TableHost(game, self.table.parser, lambda result: announcer.result(result, game))
            self._keys = Keys(host, announcer, self.speaker, lang=language())
        for key in keys:
            self._keys.press(key)
        return True

    def _say_result(self, lines: list[str]) -> None:
        for line in lines:
            if self.as_json:
                self._print(json.dumps({"table": line}, ensure_ascii=False))
            else:
                self._print(line)
        if self.on_text is not None and lines:
            self.on_text(" ".join(lines))

    def lay_typed(self, line: str) -> bool:
        """Lay the card a user typed (reference or name) on a simulated reader."""
        if self.sim is None:
            return False
        text = line.strip()
        card = self.library.get(text)
        if card is None:
            for game in self.library.games:
                card = self.library.find_by_name(game, text)
                if card:
                    break
        if card is None and ":" not in text:
            return False
        self.sim.lay(card.ref if card else text)
        return True

    def run(self, count: int | None = None, stdin: TextIO | None = None, stop_at_eof: bool = False) -> int:
        for reader in self.readers:
            reader.start(self.events.put)
        if stdin is not None:
            threading.Thread(target=self._read_stdin, args=(stdin,), daemon=True).start()
        scans = 0
        ending_at: float | None = None
        try:
            while count is None or scans < count:
                try:
                    item = self.events.get(timeout=0.1)
                except queue.Empty:
                    if ending_at is not None and time.monotonic() > ending_at:
                        break
                    continue
                if item is _EOF:
                    if stop_at_eof:
                        # The script has ended; cards it laid may still be on their way from the reader.
                        ending_at = time.monotonic() + 0.5
                    continue
                if isinstance(item, str):
                    self.command(item)
                elif self.handle(item) is not None:
                    scans += 1
        except KeyboardInterrupt:
            self._status(t("console.bye"))
        finally:
            for reader in self.readers:
                reader.stop()
        if self.table is not None and not self.as_json:
            for line in self.table.game.status(language()):
                self._print(line)
        return 0

    def _read_stdin(self, stdin: TextIO) -> None:
        got = False
        for line in stdin:
            got = True
            self.events.put(line)
        if got or self.table is not None:  # an empty stdin (/dev/null under systemd) ends nothing
            self.events.put(_EOF)


def main(reader_path: str | list[str], as_json: bool = False, count: int | None = None, speak: bool = False,
         lang: str = "fr", game: str | None = None, players: str | None = None, seed: int | None = None,
         journal: str | None = None, resume: int | None = None) -> int:
    try:
        readers = open_readers(reader_path)
    except ValueError as exc:
        print(t("error.bad_reader", path=str(exc)), file=sys.stderr)
        return 2
    if not readers:
        print(t("error.bad_reader", path=""), file=sys.stderr)
        return 2
    library = CardLibrary()
    library.games  # noqa: B018 - load the index before the first card, so the first scan is fast
    table = None
    if game or resume is not None:
        from companion.table.data import TableDataError
        from companion.table.engine import Refusal, render
        from companion.table.journal import JournalError

        try:
            table = TableSession.start(game, players, seed, journal, resume)
        except Refusal as r:
            print(t("table.refused", reason=render(None, r.key, r.values)), file=sys.stderr)
            return 2
        except JournalError as exc:  # cause in words; the game open elsewhere names its holder
            print(t("console.table_error", error=exc.describe()), file=sys.stderr)
            return 2
        except (TableDataError, KeyError, ValueError) as exc:
            print(t("console.table_error", error=exc), file=sys.stderr)
            return 2
        if table.journal.notice is not None:  # a damaged journal was set aside: one sentence
            print(table.journal.notice_text(), file=sys.stderr)
    on_scan = speaker = on_text = None
    if speak:
        from companion.speech import Priority, make_speaker, speak_scan_callback

        speaker = make_speaker("auto", lang=lang)
        on_scan = speak_scan_callback(lang, speaker=speaker, games=library.game)

        def on_text(text: str) -> None:
            speaker.say(text, lang=lang, priority=Priority.CHANGE)

    console = Console(readers, library, as_json=as_json, on_scan=on_scan, table=table, on_text=on_text)
    console.speaker = speaker
    if table is not None and table.game.opening is not None:
        console._say_result(table.game.opening.lines(lang))  # who was drawn to start
    interactive = bool(sys.stdin and sys.stdin.isatty())
    # Typed lines matter with a simulated reader (cards) or a game (commands); a piped script ends the run.
    wants_stdin = console.sim is not None or table is not None
    # A piped line lays its card too (`echo vtes:100845 | console --reader sim --count 1`).
    stdin = sys.stdin if wants_stdin and sys.stdin else None
    if stdin is not None and interactive:
        print(t("console.help.table" if table else "console.help"), file=sys.stderr)
    try:
        return console.run(count=count, stdin=stdin, stop_at_eof=not interactive)
    finally:
        if speaker is not None:
            if count is not None or table is not None:  # a scripted run ends after its last words
                speaker.wait_idle(timeout=60)
            speaker.close()
        if table is not None:
            table.journal.close()
