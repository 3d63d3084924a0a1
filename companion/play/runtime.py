"""The companion as a front end starts it: one card library, one Session, one voice and its
announcer, the readers, the keys and the background workers, wired together once.

A front end makes one ``Runtime``, tells it where scans go (its own thread hop), hands each scan
back to ``lay`` on its own thread, and sends everything else through ``session`` and ``keys``.
Every answer of the table is said by the one announcer, whichever front end asked.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from companion.i18n import language, t
from companion.play.announcer import Announcer, ear
from companion.play.observers import Observers
from companion.play.phones import Phones
from companion.play.scans import Scans
from companion.play.session import Session
from companion.play.voice import Voice
from companion.play.workers import Workers
from companion.speech.speaker import Priority
from companion.tags.resolve import Scan

if TYPE_CHECKING:
    from companion.play.keys import Keys

log = logging.getLogger(__name__)


class Runtime:
    # How this front end confirms a proposal (a card laid during a game): a message key said after
    # the question. The console sets "play.hint.console" (ok); the window and the keys use Enter.
    confirm_hint = "play.hint.key"
    choose_hint = "play.hint.choose"  # what to choose first, and how (the console: "ok mort vie")
    # How a venue's result is confirmed here, said after the proposal (the console: "résultat ok").
    result_hint = "venue.result.hint.key"
    # What a command adds to every Runtime it starts (the venue's link to the organiser's hub):
    # each is called with the new runtime and may return what to call when it closes.
    extensions: list[Callable[[Runtime], Callable[[], None] | None]] = []

    def __init__(self, library: Any = None, journal_path: str | Path | None = None, voice: Voice | None = None,
                 lang: str | None = None, speak: bool = True) -> None:
        if library is None:
            from companion.cards.library import CardLibrary

            library = CardLibrary()  # loads nothing until asked
        self.library = library
        self.lang = lang or language()
        self.voice = voice if voice is not None else Voice(lang=self.lang, enabled=speak)
        if self.voice.games is None:
            self.voice.games = library.game  # game data already in memory, never read twice
        self.session = Session(library, journal_path)
        self.announcer = Announcer(self.voice.say_all, self.lang)
        self.announcer.verbosity = lambda: self.voice.verbosity  # reminders follow the verbosity
        self.scans = Scans(library)
        self.phones = Phones()
        self.phones.games = library.game
        self.workers = Workers()
        self.load_errors: dict[str, str] = {}
        self.session.subscribe("result", self._announce)
        self.session.subscribe("state", self._new_game)
        self._game_id: int | None = None
        from companion import i18n

        i18n.on_language(self.set_language)  # the Settings' language: what the table says follows it
        # Words a front end's text input offers to extensions first (the venue's "résultat", "juge").
        self.words: list[Callable[[str], bool]] = []
        # The venue's news for the front ends: "result" (the result waiting for the players' word,
        # or None), "joined" (the link, or None once left). Called in the thread that changed it.
        self.venue_news = Observers("result", "joined")
        self._venue: Any = None
        self._venue_off: Callable[[], None] | None = None
        self.venue = None
        self._closers = [c for c in (ext(self) for ext in list(Runtime.extensions)) if c is not None]

    def add_closer(self, closer: Callable[[], None]) -> None:
        """Something to stop when the runtime closes (a venue joined from the window's menu)."""
        self._closers.append(closer)

    @property
    def venue(self) -> Any:
        """The venue's link (companion.venue.link.TableLink) once the table joined one: its judge
        call, round clock and pending result, for the front ends that show them."""
        return self._venue

    @venue.setter
    def venue(self, link: Any) -> None:
        if self._venue_off is not None:
            self._venue_off()
            self._venue_off = None
        self._venue = link
        news = getattr(link, "observers", None)
        if news is not None and callable(getattr(news, "subscribe", None)):
            self._venue_off = news.subscribe("result", lambda body: self.venue_news.emit("result", body))
        if link is not None and hasattr(link, "hint"):
            link.hint = lambda: self.result_hint  # the proposal said at the game's end ends with our keys
        self.venue_news.emit("joined", link)

    def venue_actions(self, seat: int, lang: str | None = None) -> tuple[Any, ...]:
        """The venue's actions of seat ``seat`` (0-based), for the table screen's seat menus."""
        from companion.play.seat_policy import venue_actions  # the table's words: after the first frame

        return venue_actions(self.venue, seat, lang or self.lang)

    def venue_action(self, seat: int | None, action_id: str, lang: str | None = None,
                     source: str = "touch") -> dict[str, Any]:
        """One of the venue's seat actions (``seat_policy.VENUE_ACTIONS``), from a seat's menu, a
        phone (``source`` "phone"), a key or a touch on the result shown: checked against the
        list, sent through the link, said to the table; the reply's lines in ``lang``."""
        lang = lang or self.lang
        link = self.venue
        offered = {a.id for a in self.venue_actions(max(0, (seat or 1) - 1), lang)}
        if link is None or action_id not in offered:
            key = "venue.not_joined" if link is None else "phones.action_not_now"
            if source != "phone":  # a phone's refusal is for that phone alone
                self.say(t(key, self.lang))
            return {"ok": False, "lines": [t(key, lang)], "status": 409}
        name = self.seat_name(seat) if seat else ""
        by = f"{source}:{name}" if name else source
        if action_id == "judge":
            why = t("phones.judge_from" if source == "phone" else "venue.judge.from_seat", "fr", name=name) \
                if name else ""
            link.call_judge(seat=seat, why=why)
            key = "venue.judge.called"
        elif action_id == "confirm_result":
            link.confirm_result(by=by)
            key = "venue.result.sent"
        else:
            link.contest_result(seat=seat, by=by)
            key = "venue.result.contested"
        self.say(t(key, self.lang, table=link.table))
        return {"ok": True, "lines": [t(key, lang, table=link.table)], "revision": self.session.revision}

    def result_pending(self) -> Any:
        """The venue's result waiting for the players' word, or None."""
        link = self.venue
        pending = getattr(link, "pending_result", None)
        return pending() if callable(pending) else None

    def result_later(self) -> None:
        """The players leave the result for later (the window's "Plus tard", Escape)."""
        later = getattr(self.venue, "later", None)
        if callable(later):
            later()

    def ask_result(self) -> bool:
        """The players ask for their table's result (key V, a button): said, and it waits for their
        word as at the game's end."""
        link = self.venue
        if link is None:
            self.say(t("venue.not_joined"))
            return False
        if link.ask_result() is None:
            self.say(t("venue.result.no_game"))
            return False
        self.say(link.result_text(self.lang, hint=self.result_hint))
        return True

    def call_judge(self) -> bool:
        """Call a judge to this table (the window's button and key, the console's word "juge"):
        False, and said, when the table has joined no venue."""
        if self.venue is None:
            self.say(t("venue.judge.not_joined"))
            return False
        self.venue.judge()
        return True

    # -- language -------------------------------------------------------------------------

    def set_language(self, lang: str) -> None:
        """The listener's language for everything said from now on."""
        self.lang = lang
        self.voice.lang = lang
        self.announcer.lang = lang

    # -- cards ----------------------------------------------------------------------------

    def load_cards(self, progress: Callable[[int, int, str], None] | None = None,
                   search: bool = True) -> dict[str, str]:
        """Load every game's cards (blocking: call it from a worker); the problems by game, in one
        line each. Scans resolve once this has run, whatever happened. ``search``: the card
        search's index too (a front end that has it built later, ``prepare_search``, says False)."""
        errors: dict[str, str] = {}
        if progress is not None:
            self.library.progress = progress
        try:
            for game in self.library.games:  # the first call reads (or builds) the card index
                self.library.load(game)
            if search:
                # The search index too: never on a player's time, at the first card named.
                self.library.prepare_search()
            # And the words of speech: the first card laid is said without reading them first.
            from companion.speech.phrases import prepare

            prepare()
            _give_back_freed_memory()
            errors = {g: _one_line(e) for g, e in self.library.errors().items()}
        except Exception as exc:  # the companion stays useful: tags are then reported as unknown
            log.exception("loading the cards failed")
            errors = {"*": f"{type(exc).__name__}: {exc}"}
        finally:
            self.load_errors = errors
            detail = t("ui.cards_failed", games=", ".join(errors)) if errors else ""
            self.scans.library_ready(detail)
        for game, why in errors.items():
            log.warning("cards of %s unavailable: %s", game, why)
        return errors

    def prepare_search(self) -> None:
        """Build the card search's index now (a worker's job, while a person reads the start):
        the first card they name is then answered at once. A search asked before it is done
        waits for it (the library's lock), so it answers the same either way."""
        self.library.prepare_search()
        _give_back_freed_memory()  # the stored search state's JSON, decoded and freed

    def file_problems(self, lang: str | None = None) -> list[str]:
        """The user's own files that cannot be read (the collection, the settings), one sentence
        each naming the file and the fix: shown and said at start, never only logged."""
        from companion import userfiles
        from companion.tags import collection

        lang = lang or self.lang
        found = [collection.problem(lang=lang), *userfiles.settings_problems(lang=lang)]
        return [p for p in found if p]

    def lay(self, scan: Scan) -> None:
        """A card laid (on the front end's own thread): kept in the game's history and spoken;
        laid on the reader of a seat that has a phone, it is that seat's secret, and the table
        only hears that the seat read a card."""
        if self.phones.has_phone(scan.seat):
            self.read_privately(scan.seat, scan)
            return
        self.session.add_scan(scan)
        self.voice.scan(scan)
        self.say_proposal()

    def read_privately(self, seat: int, scan: Scan) -> dict:
        """A card only ``seat`` (1-based) may know (its reader, or its phone's own NFC)."""
        card = self.phones.keep(seat, scan)
        self.say(t("phones.read_card", self.lang, name=self.seat_name(seat)))
        # What laying it would propose, asked on that seat's phone alone (the table learns nothing).
        self.phones.propose(seat, self.session.propose_for(getattr(scan, "card", None), seat - 1))
        return card

    def reveal(self, seat: int, number: int) -> bool:
        """Seat ``seat`` shows its private card ``number`` to the table: laid as any public card."""
        item = self.phones.take(seat, number)
        if item is None:
            return False
        card, scan = item
        self.phones.observers.emit("revealed", seat, card)
        self.session.add_scan(scan)
        self.voice.scan(scan)
        self.say_proposal()
        return True

    # -- scan to play -------------------------------------------------------------------------

    def proposal_lines(self, lang: str | None = None) -> list[str]:
        """The proposal waiting for a confirmation, as the table says it: the question, then why it
        cannot be paid, what must be chosen first, or how to confirm; [] when there is none."""
        lang = lang or self.lang
        proposal, game = self.session.proposal, self.session.game
        if proposal is None or game is None:
            return []
        lines = [proposal.text(game, lang)]
        blocked = proposal.blocked(lang)
        if blocked:
            lines.append(blocked)
        elif proposal.choices:
            lines.append(self.choice_hint(lang))
        else:
            lines.append(t(self.confirm_hint, lang))
        return lines

    def choice_hint(self, lang: str | None = None) -> str:
        lang = lang or self.lang
        proposal, game = self.session.proposal, self.session.game
        if proposal is None or game is None or not proposal.choices:
            return ""
        choices = proposal.choices
        what = [t(f"play.choose.{k}", lang, count=choices[k]) for k in ("pay", "gain") if choices.get(k)]
        names = [game.data.counter(e).name(lang) for e in choices["allowed"]]
        example = " ".join(choices["allowed"][:1] * (int(choices.get("pay") or 0) + int(choices.get("gain") or 0)))
        return t(self.choose_hint, lang, what=t("table.and", lang).join(what), allowed=", ".join(names),
                 example=example)

    def say_proposal(self) -> None:
        lines = self.proposal_lines()
        if lines:
            # Said for the ear ("plus 1 runes"), written as it is (a braille display, the console).
            game = self.session.game.data.id if self.session.game is not None else ""
            self.announcer.say([ear(line, self.lang, game) for line in lines], Priority.CHANGE, written=lines)

    def seat_name(self, seat: int) -> str:
        names = self.session.seat_names
        return names[seat - 1] if 1 <= seat <= len(names) else t("ui.seat", self.lang, seat=seat)

    def _new_game(self) -> None:
        game = self.session.game
        gid = None if game is None else game.id
        if gid != self._game_id:
            self._game_id = gid
            self.phones.clear()

    # -- keys -----------------------------------------------------------------------------

    def keys(self, navigator: Any = None, focus: Any = None) -> Keys:
        """The key controller over this session, for a front end's screens (``navigator``)."""
        # Imported when a front end asks for its keys: the window does once its first frame is on
        # screen (companion/ui/app.py), and the keys' map and hosts are not needed before.
        from companion.play.key_hosts import SessionHost
        from companion.play.keys import Keys

        host = SessionHost(self.session, navigator, self.call_judge, venue=self)
        return Keys(host, self.announcer, self.voice, lang=self.lang, focus=focus)

    # -- speech ---------------------------------------------------------------------------

    def _announce(self, result: Any) -> None:
        self.announcer.result(result, self.session.game)

    def say(self, text: str, priority: Priority = Priority.CHANGE, interrupt: bool = False) -> None:
        self.announcer.say(text, priority, interrupt)

    def close(self) -> None:
        for closer in self._closers:
            try:
                closer()
            except Exception:
                log.exception("an extension did not close")
        self._closers = []
        self.scans.stop()
        self.workers.close()
        self.voice.close()
        self.session.close()


def _one_line(errors: object) -> str:
    if isinstance(errors, list | tuple):
        return "; ".join(str(e) for e in errors)
    return str(errors)


def _give_back_freed_memory() -> None:
    """Reading the card index and the search index decodes megabytes of JSON, freed once the
    cards and the search are built; glibc keeps freed pages in the process until asked
    (malloc_trim), and a Raspberry Pi's memory is small: asked once, after loading, on Linux."""
    import sys

    if not sys.platform.startswith("linux"):
        return
    import ctypes

    try:
        trim = getattr(ctypes.CDLL(None), "malloc_trim", None)  # None: not glibc (musl)
    except OSError:
        return
    if trim is not None:
        trim(0)
