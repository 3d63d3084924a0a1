"""The console companion: the program for a terminal, a screen reader, a braille display, and
scripted games. A thin front end over the core runtime (companion/play/).

Prints one line per card laid (or one JSON object per line). When a game is running (``--game``
or ``--resume``), each line typed is one of:

- a table command word (docs/commands.md: ``pool 2 -3``, ``next``, ``undo``...);
- ``+N``, ``-N`` or ``=N`` for the selected counter (the keypad's cursor);
- a line of keypad keys (``*``, ``/2``, ``7``), played as the app's keypad plays them;
- with a simulated reader, a card's name or reference, laid on it;
- a word to the companion itself (companion/play/talk.py): ``aide`` and ``plus``, ``règle edge``,
  ``verbosité court``, ``place``, ``table``, ``précédent``, ``carte``;
- ``quitter`` (or Ctrl-D): the game stays saved, and its number is said.

Every answer is printed and, with ``--speak``, said by the same announcer as in the app.
Everything happens on the main thread: the reader threads and the stdin thread only queue what
they saw. A keypad sequence never carries over from one line to the next.
"""

from __future__ import annotations

import argparse
import json
import queue
import sys
import threading
import time
from collections import deque
from typing import Any, TextIO

from companion import registry
from companion.i18n import language, t
from companion.play.announcer import ear
from companion.play.key_hosts import TableOnly
from companion.play.keynames import keypad_keys
from companion.play.runtime import Runtime
from companion.play.talk import Talk, alias_of, suggestion, talk_words
from companion.readers.events import TagEvent
from companion.speech.speaker import Priority
from companion.tags.resolve import Scan, scan_line


def card_line(scan: Scan, library: Any, lang: str) -> str:
    """A card laid, in one line for a terminal, a braille display or a screen reader: its name,
    type, cost, clan and disciplines (or keywords) as the speech has them, then its text with
    icons as words and numbers as digits; in the listener's language where the card has it."""
    if scan.card is None:
        return scan_line(scan)
    from companion.speech.phrases import written_card

    name, rows, text = written_card(scan.card, library.game, lang)
    colon = " : " if lang == "fr" else ": "
    shown = "; ".join(f"{label}{colon}{value}" for label, value in rows)
    return "  ".join(x for x in (f"{scan.card.ref}  {name}", f"({shown})" if shown else "", text) if x)


_EOF = object()
QUIT_WORDS = frozenset({"quit", "quitter", "exit", "sortir"})
# A card laid during a game proposes an action: these words apply it (choices may follow) or leave it.
CONFIRM_WORDS = frozenset({"ok", "oui", "yes", "o", "y"})
DISMISS_WORDS = frozenset({"non", "no", "n"})


class Console:
    def __init__(self, runtime: Runtime, out: TextIO | None = None, as_json: bool = False) -> None:
        self.runtime = runtime
        runtime.confirm_hint, runtime.choose_hint = "play.hint.console", "play.hint.choose_console"
        runtime.result_hint = "venue.result.hint.console"  # a venue's result: "résultat ok" / "résultat non"
        self.session = runtime.session
        # The standard output of the moment the console starts, not of the moment this module was
        # imported (a caller that redirected it, as the tests running the command in their process do).
        self.out = out if out is not None else sys.stdout
        self.as_json = as_json
        self.events: queue.Queue[Any] = queue.Queue()
        self.quitting = False
        self.waiting_scan = False  # a card typed is on its way from the simulated reader
        self.suggested: str | None = None  # the line a typo was close to, applied by Enter
        # A script read aloud waits for each answer to be said before the next line, as a
        # listening player does; otherwise each answer would cut the one before short.
        self.paced = False
        runtime.scans.deliver = self.events.put
        runtime.scans.news = self.events.put
        self.keys = runtime.keys(TableOnly(on_quit=self.quit))
        self.talk = Talk(self.session, runtime.announcer, runtime.voice, runtime.library)
        self.talk.start_game = lambda game, names: open_game(runtime, lambda: self.session.new_game(
            game, names, source="key"))
        self.talk.resume_game = lambda number: open_game(runtime, lambda: self.session.resume(number, source="key"))
        # Prompts, readings and help said by the keys are written too (a braille display, a
        # screen reader); the table's results are written from the results themselves.
        runtime.announcer.echo = self._write_lines
        self.session.subscribe("result", self._on_result)

    # -- output ---------------------------------------------------------------------------

    def _print(self, line: str) -> None:
        print(line, file=self.out, flush=True)

    def _status(self, line: str) -> None:
        # Status goes to stderr so that --json output stays one object per line.
        print(line, file=sys.stderr, flush=True)

    def _write_lines(self, lines: list[str]) -> None:
        for line in lines:
            self._print(json.dumps({"table": line}, ensure_ascii=False) if self.as_json else line)

    def _on_result(self, result: Any) -> None:
        self._write_lines(result.lines(language()))

    # -- input ----------------------------------------------------------------------------

    def handle(self, event: TagEvent | Scan) -> Scan | None:
        """A reader's news, or a card laid (already resolved by the core's scans)."""
        if isinstance(event, Scan):
            self._print(json.dumps(event.to_json(), ensure_ascii=False) if self.as_json
                        else card_line(event, self.runtime.library, self.runtime.lang))
            self.runtime.lay(event)
            return event
        if event.kind == "reader-lost":
            self._status(t("reader.lost", path=event.reader, detail=event.detail))
        elif event.kind == "reader-ready":
            self._status(t("reader.started", path=event.reader))
        return None

    def command(self, line: str) -> None:
        """A line typed by the user: see the module's docstring."""
        text = line.strip()
        if text.startswith("#"):
            return  # a script's note, not something to play
        suggested, self.suggested = self.suggested, None
        if suggested is not None and (not text or text.lower() in CONFIRM_WORDS):
            text = suggested  # Enter (or ok) on "vouliez-vous dire suivant ?" applies it
        if not text:
            return
        if text.lower() in QUIT_WORDS:
            self.quit()
            return
        if self.session.game is None:
            if self.talk.handle(text) or self._lay(text) or self._suggest(text) or self._lay(text, forgiving=True):
                return
            self._status(t("console.not_a_card", self.runtime.lang, text=text))
            self.runtime.announcer.say(t("console.not_a_card", self.runtime.lang, text=text), Priority.ERROR, True,
                                       echo=False)
            return
        try:
            words = text.split()
            if words[0].lower() in CONFIRM_WORDS:  # with nothing proposed: says what to do first
                self.session.confirm(words[1:] or None, source="key")  # its result is said and written
                return
            if self.session.proposal is not None and text.lower() in DISMISS_WORDS:
                self.session.dismiss()
                self.runtime.announcer.say(t("play.dismissed", self.runtime.lang))
                return
            if self.talk.handle(text):
                return
            if any(handle(text) for handle in self.runtime.words):  # the venue's words, when joined
                return
            if self.keys.amount(text) is not None:
                return
            keys = keypad_keys(text)
            if keys is not None:
                for key in keys:
                    self.keys.press(key)
                return
            if not self._is_command(text):
                alias = alias_of(text)  # the player's own words: "fin de tour", "pile ou face"
                if alias is not None and self._is_command(alias):
                    text = alias
                elif self._lay(text) or self._suggest(text) or (not self._starts_as_command(text)
                                                                 and self._lay(text, forgiving=True)):
                    return
            self.session.apply(text, source="key")  # durable in the journal before it is said
        finally:
            self.keys.reset()  # a keypad slash or an amount asked never waits for the next line

    def _lay(self, text: str, forgiving: bool = False) -> bool:
        """Lay a typed card on the simulated reader; the lines after it wait for its scan, so a
        script's ``ok`` answers the proposal of the card laid just before it. ``forgiving``: a
        name with typos, as ``play`` takes it."""
        game = self.session.game.data.id if self.session.game is not None else None
        laid = self.runtime.scans.lay_typed(text, game=game, forgiving=forgiving)
        self.waiting_scan = self.waiting_scan or laid
        return laid

    def _command_words(self) -> set[str]:
        """Every word a line may start with: the game's verbs and counters, the words to the
        companion, the player's own words, quitting."""
        from companion.table.data import fold

        known = {fold(w) for w in (*QUIT_WORDS, *talk_words())}
        game = self.session.game
        if game is not None:
            try:
                known |= set(self.session.parser("key").verbs)
            except Exception:
                pass
            for cid, counter in {**game.data.counters, **game.data.shared}.items():
                known |= {fold(cid), *(fold(x) for x in (counter.group, counter.key) if x)}
        return {w for w in known if w.isalpha()}

    def _suggest(self, text: str) -> bool:
        """A first word close to a command word: say which, and let Enter apply it."""
        hit = suggestion(text, self._command_words())
        if hit is None:
            return False
        word, fixed = hit
        self.suggested = " ".join([fixed, *text.split()[1:]])
        self.runtime.announcer.say(t("talk.did_you_mean", self.runtime.lang, word=word, fixed=fixed),
                                   Priority.ERROR, True)
        return True

    def _starts_as_command(self, text: str) -> bool:
        """A line whose first word is a command word is that command, even when the rest is wrong
        ("oust ²"): its refusal says what is wrong, where a forgiving card search would lay a
        card that merely looks like it."""
        from companion.table.data import fold

        return fold(text.split()[0]) in self._command_words()

    def _is_command(self, text: str) -> bool:
        try:
            return self.session.parser("key").parse(text) is not None
        except Exception:
            return False

    def quit(self) -> None:
        self.quitting = True

    def run(self, count: int | None = None, stdin: TextIO | None = None, stop_at_eof: bool = False) -> int:
        if stdin is not None:
            threading.Thread(target=self._read_stdin, args=(stdin,), daemon=True).start()
        scans = 0
        ending_at: float | None = None
        held: deque[Any] = deque()  # lines typed after a card, kept until its scan is handled
        waiting_until: float | None = None
        try:
            while (count is None or scans < count) and not self.quitting:
                if held and waiting_until is None:
                    item = held.popleft()
                else:
                    try:
                        item = self.events.get(timeout=0.1)
                    except queue.Empty:
                        if waiting_until is not None and time.monotonic() > waiting_until:
                            waiting_until = None  # the simulated reader said nothing: go on
                        elif ending_at is not None and time.monotonic() > ending_at and not held:
                            break
                        continue
                if waiting_until is not None and (isinstance(item, str) or item is _EOF):
                    held.append(item)
                    continue
                if item is _EOF:
                    if stdin is not None and stdin.isatty():
                        break  # Ctrl-D at the prompt: the player is done
                    if stop_at_eof:
                        # The script has ended; cards it laid may still be on their way from the reader.
                        ending_at = time.monotonic() + 0.5
                    continue
                if isinstance(item, str):
                    self.command(item)
                    if self.waiting_scan:
                        self.waiting_scan = False
                        waiting_until = time.monotonic() + 3.0
                    if self.paced:
                        self.runtime.voice.wait_idle(timeout=30)
                elif self.handle(item) is not None:
                    scans += 1
                    waiting_until = None
                    if self.paced:  # the card and its question are heard before the next line
                        self.runtime.voice.wait_idle(timeout=30)
        except KeyboardInterrupt:
            pass
        finally:
            self.runtime.scans.stop()
        game = self.session.game
        if game is not None:
            # Said and written: the player hears that nothing is lost, and how to go on.
            lang = self.runtime.lang
            self.runtime.announcer.say(ear(t("talk.bye_game_said", lang, id=game.id), lang),
                                       written=[t("talk.bye_game", lang, id=game.id)])
        else:
            self._status(t("console.bye"))
        if game is not None and not self.as_json:
            for line in game.status(language()):
                self._print(line)
        return 0

    def _read_stdin(self, stdin: TextIO) -> None:
        got = False
        for line in stdin:
            got = True
            self.events.put(line)
        if got or self.session.game is not None:  # an empty stdin (/dev/null under systemd) ends nothing
            self.events.put(_EOF)


def open_game(runtime: Runtime, start: Any) -> Any:
    """Start or resume a game (``start()`` returns the session's result) with the console's
    opening said first, then what the game's start says (the draw, the turn, the phase)."""
    lang = runtime.lang
    with runtime.announcer.held() as say_now:
        result = start()
        if result.ok:
            table = runtime.session.game
            name = table.data.name(lang)
            say_now(ear(t("talk.opening_said", lang, id=table.id, game=name), lang),
                    written=[t("talk.opening", lang, id=table.id, game=name)])
    return result


def main(reader_path: str | list[str], as_json: bool = False, count: int | None = None, speak: bool = False,
         lang: str = "fr", game: str | None = None, players: str | None = None, seed: int | None = None,
         journal: str | None = None, resume: int | None = None, verbosity: str | None = None,
         rate: int | None = None, voice: str | None = None, first: str | None = None) -> int:
    runtime = Runtime(journal_path=journal, lang=lang, speak=speak)
    runtime.voice.configure(rate=rate, voice_name=voice, verbosity=verbosity)
    console = Console(runtime, as_json=as_json)
    console.paced = speak and not (sys.stdin and sys.stdin.isatty())
    try:
        runtime.scans.open(reader_path)
    except ValueError as exc:
        print(t("error.bad_reader", path=str(exc)), file=sys.stderr)
        runtime.close()
        return 2
    if not runtime.scans.readers:
        print(t("error.bad_reader", path=""), file=sys.stderr)
        runtime.close()
        return 2
    interactive = bool(sys.stdin and sys.stdin.isatty())
    # The cards before the first card, so that the first scan is fast. The search's index (a
    # typed card name, a vampire named) is built in a worker while a person reads the start; a
    # script's first line that names a card builds it, one that names none never pays for it.
    runtime.load_cards(search=False)
    if interactive:
        runtime.workers.submit(runtime.prepare_search)
    # A game that did not load is said at start, never silent.
    for problem in [*runtime.library.load_problems(lang), *runtime.file_problems(lang)]:
        print(problem, file=sys.stderr)
        runtime.say(problem, Priority.ERROR)
    try:
        if game or resume is not None:
            session = runtime.session
            if resume is not None:
                result = open_game(runtime, lambda: session.resume(resume, source="key"))
            else:
                names = [n.strip() for n in (players or "").split(",") if n.strip()]
                result = open_game(runtime, lambda: session.new_game(game or "", names, seed=seed, source="key",
                                                                     first=first))
            if not result.ok:
                print(t("console.table_error", error=result.reason_text(lang)), file=sys.stderr)
                return 2
        playing = runtime.session.game is not None
        # Typed lines matter with a simulated reader (cards) or a game (commands); a piped script ends the run.
        wants_stdin = runtime.scans.simulator is not None or playing
        # A piped line lays its card too (`echo GAME:ID | console --reader sim --count 1`).
        stdin = sys.stdin if wants_stdin and sys.stdin else None
        if playing:
            if console.paced:
                runtime.voice.wait_idle(timeout=30)  # the first line typed must not cut the opening short
        elif stdin is not None and count is None:
            # No game (what `make run` starts without a display): how to lay a card, start a
            # game and get help, said and written before anything else.
            welcome = t("console.welcome", lang, game=registry.example_game())
            print(welcome, file=sys.stderr)
            runtime.announcer.say(welcome, echo=False)
            if console.paced:
                runtime.voice.wait_idle(timeout=30)  # the first line typed must not cut the welcome short
        return console.run(count=count, stdin=stdin, stop_at_eof=not interactive)
    finally:
        if speak and (count is not None or runtime.session.game is not None):
            runtime.voice.wait_idle(timeout=60)  # a scripted run ends after its last words
        runtime.close()


# -- the ``console`` command --------------------------------------------------------------------

def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("--reader", action="extend", nargs="+", metavar="PATH[@SEAT]",
                   help="reader path: sim, usb, tty:S0:pn532, udp:HOST:PORT, pn532:DEV, hub:DEV, wedge:DEV; "
                        "repeat it for several readers, @SEAT binds one to a seat (default: sim)")
    p.add_argument("--json", action="store_true", help="one JSON object per line")
    p.add_argument("--count", type=int, default=None, help="exit after N scans")
    p.add_argument("--speak", action="store_true", help="also speak each card")
    p.add_argument("--game", help=f"run a game too: {registry.help_list()}")
    p.add_argument("--players", help='player names in table order, e.g. "Ann,Bob,Cy"')
    p.add_argument("--seed", type=int, help="seed of the random draws")
    p.add_argument("--first", metavar="NAME", help="the first player the table chose (default: drawn at random)")
    p.add_argument("--journal", help="SQLite journal (default: the user data directory's games.sqlite3)")
    p.add_argument("--resume", type=int, metavar="ID", help="go on with a saved game")
    p.add_argument("--verbosity", choices=("short", "normal", "full"), help="how much of a card is said")
    p.add_argument("--rate", type=int, help="speech rate, words per minute (espeak-ng: 80 to 450)")
    p.add_argument("--voice", help="speech voice name (espeak-ng: fr, en-gb, mb-fr1...)")


def run(args: argparse.Namespace) -> int:
    return main(args.reader or ["sim"], as_json=args.json, count=args.count, speak=args.speak,
                lang=language(), game=args.game, players=args.players, seed=args.seed,
                journal=args.journal, resume=args.resume, verbosity=args.verbosity, rate=args.rate,
                voice=args.voice, first=args.first)
