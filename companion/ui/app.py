"""The Kivy app: a window that shows (and, through companion.speech, says) each card laid.

The app is a thin front end over the core runtime (companion/play/): the card library, the
Session, the scans, the announcer and the voice, the keys. Readers report TagEvents in their own
threads; the core resolves them to Scans there (waiting for the card library if needed) and the
app hands each Scan to the Kivy main thread with ``Clock.schedule_once``, where the core keeps
it and speaks it and the screens show it. The card library is loaded by a background worker
started after the first frame, so the window appears at once with "Chargement des cartes…".

Screens share one Kivy mirror of the core Session (companion/ui/session_mirror.py): they show its
state and send it intents; it tells them (``on_state``, ``on_result``, ``on_scan``) once the
engine has written each change to the journal. Keys reach the core's key controller through
one path, the window's ``on_key_down`` (companion/ui/a11y.py).

Adding a screen: write ``companion/ui/screens/<name>.py`` (a ``Screen`` subclass that loads
``kv/<name>.kv``; if it defines ``bind_session(session)``, that is called once with the shared
Session) and add one ``ScreenSpec`` line to ``SCREENS`` below, plus a ``nav.<name>`` message in
companion/i18n/messages.yaml for its word in the navigation bar.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING

from kivy.app import App
from kivy.clock import Clock
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.screenmanager import NoTransition, Screen, ScreenManager
from kivy.uix.widget import Widget

from companion import i18n, paths, usersettings
from companion.cards.library import CardLibrary
from companion.i18n import t
from companion.play.runtime import Runtime
from companion.play.voice import Voice
from companion.readers.base import Reader
from companion.readers.events import TagEvent
from companion.tags.resolve import Scan
from companion.ui import fonts
from companion.ui.session_mirror import SessionMirror
from companion.ui.theme import TEXT_SCALE_MAX, TEXT_SCALE_MIN, theme
from companion.ui.widgets import sizes

if TYPE_CHECKING:
    from companion.ui.screens.card import CardScreen

log = logging.getLogger(__name__)

WINDOW_ENV = "COMPANION_WINDOW"  # "800x480" (default: the Raspberry Pi 7" screen), "1280x800", "fullscreen"
DEFAULT_WINDOW = (800, 480)
TEXT_SCALES = ("1.0", "1.25", "1.5", "1.75", "2.0")


@dataclass(frozen=True)
class ScreenSpec:
    """One screen of the app: its name, where its class is, and its sign in the navigation bar
    (a glyph drawn with the word ``nav.<name>``, never a colour alone)."""

    name: str
    module: str
    cls: str
    glyph: str
    nav: bool = True  # False: reached from another screen only


# In the order of the navigation bar.
SCREENS: list[ScreenSpec] = [
    ScreenSpec("home", "companion.ui.screens.home", "HomeScreen", "\u2302"),  # ⌂
    ScreenSpec("table", "companion.ui.screens.table", "TableScreen", "\u25a6"),  # ▦
    ScreenSpec("card", "companion.ui.screens.card", "CardScreen", "\U0001f0a0"),  # 🂠
    ScreenSpec("log", "companion.ui.screens.log", "LogScreen", "\u2630"),  # ☰
    ScreenSpec("rules", "companion.ui.screens.rules", "RulesScreen", "\u00a7"),  # §
    ScreenSpec("deck", "companion.ui.screens.deck", "DeckScreen", "\u25a4"),  # ▤
    ScreenSpec("enroll", "companion.ui.screens.enroll", "EnrollScreen", "\u270e"),  # ✎
    ScreenSpec("settings", "companion.ui.screens.settings", "SettingsScreen", "\u2699"),  # ⚙
    # Reached from the table's menu (and by the keys): a table joining the organiser's hub.
    ScreenSpec("venue", "companion.ui.screens.venue", "VenueScreen", "\u2691", nav=False),  # ⚑
]


def screen_class(spec: ScreenSpec) -> type[Screen]:
    import importlib

    return getattr(importlib.import_module(spec.module), spec.cls)


class LazyScreenManager(ScreenManager):
    """A ScreenManager whose screens may be made on first use: a screen registered with
    ``register`` is not built until it is asked for (shown, read by ``get_screen``) or until
    ``build_next`` makes it in idle time, so the first frame waits for the first screen only.
    Asking for a registered screen answers as if it were built: every caller keeps working."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self._pending: dict[str, Callable[[], Screen]] = {}
        self._glyphs: dict[str, str] = {}

    def register(self, name: str, make: Callable[[], Screen], glyph: str = "") -> None:
        self._pending[name] = make
        self._glyphs[name] = glyph

    def glyph(self, name: str) -> str:
        """A screen's sign in the navigation bar, made or not: the table's menu names every
        screen by it, and asking a screen for it made them all (about 2 s of CPU here at the
        menu's first opening, more on a Raspberry Pi)."""
        if name in self._glyphs:
            return self._glyphs[name]
        return getattr(super().get_screen(name), "nav_glyph", "") if super().has_screen(name) else ""

    @property
    def pending(self) -> list[str]:
        return list(self._pending)

    def build(self, name: str) -> None:
        make = self._pending.pop(name, None)  # popped first: a screen asking for itself in its build
        if make is not None:
            self.add_widget(make())

    def build_next(self) -> bool:
        """Make one screen still pending; False when none is left."""
        if not self._pending:
            return False
        self.build(next(iter(self._pending)))
        return True

    def remake(self, name: str, make: Callable[[], Screen]) -> None:
        """Drop a screen made (not the one shown): it is made again, fresh, on first use."""
        if name != self.current and super().has_screen(name):
            self.remove_widget(super().get_screen(name))
            self._pending[name] = make

    def has_screen(self, name: str) -> bool:
        return name in self._pending or super().has_screen(name)

    def get_screen(self, name: str) -> Screen:
        self.build(name)
        return super().get_screen(name)


class Root(BoxLayout):
    """The window's content: one screen at a time and the navigation bar (a rail on the left in
    landscape, a bar at the bottom in portrait); text and touch sizes follow the window."""

    def __init__(self, session: SessionMirror, **kwargs) -> None:
        from companion.ui.widgets.nav import NavBar

        super().__init__(**kwargs)
        self.session = session
        self.manager = LazyScreenManager(transition=NoTransition())
        self.nav = NavBar()
        self.nav.bind(picked=lambda _bar, name: self.show(name))
        self.manager.bind(current=self._on_current)
        theme.bind(lang=self._on_lang)  # a bound method: Kivy holds it weakly, a closed root goes
        self._history: list[str] = []  # screens left, most recent last, for Escape (back)
        self._going_back = False
        self._last = ""
        self.on_screen_built: Callable[[Screen], None] | None = None  # the app's setup of a late screen
        self._makers: dict[str, Callable[[], Screen]] = {}
        self._arrange("landscape")

    # ScreenManager's reading API, so that callers need not know about the bar.
    def get_screen(self, name: str) -> Screen:
        return self.manager.get_screen(name)

    def has_screen(self, name: str) -> bool:
        return self.manager.has_screen(name)

    @property
    def current(self) -> str:
        return self.manager.current

    @property
    def current_screen(self) -> Screen:
        return self.manager.current_screen

    def show(self, name: str) -> None:
        if self.manager.has_screen(name) and self.manager.current != name:
            self.manager.current = name

    def _on_current(self, _manager: ScreenManager, name: str) -> None:
        # Screens also switch by themselves (Home starts the Table): remember every switch here.
        self.nav.current = name
        # An immersive screen (the Table) takes the whole window; its own menu leads elsewhere.
        hide = bool(getattr(self.manager.get_screen(name), "immersive", False))
        if hide == (self.nav.parent is self):
            self._arrange(sizes.orientation, force=True)
        if self._last and self._last != name and not self._going_back:
            self._history = [n for n in self._history if n != self._last][-15:]
            self._history.append(self._last)
        self._last = name

    def back(self) -> bool:
        """Return to the screen shown before this one; False when there is none."""
        while self._history:
            name = self._history.pop()
            if name != self.manager.current and self.manager.has_screen(name):
                self._going_back = True
                try:
                    self.show(name)
                finally:
                    self._going_back = False
                return True
        return False

    def _on_lang(self, *_args: object) -> None:
        self.relabel()

    def relabel(self) -> None:
        """The language changed: the words made in Python follow the kv rules' (which follow
        theme.lang by themselves): the bar's, then each screen's own."""
        for button in self.nav.buttons():
            button.word = t(f"nav.{button.screen}")
        for screen in self.manager.screens:
            relabel = getattr(screen, "relabel", None)
            if callable(relabel):
                relabel()

    def add_screen(self, spec: ScreenSpec, screen: Screen) -> None:
        # Screens name each other by their glyph (the table's menu) without importing this module.
        screen.nav_glyph = spec.glyph
        self.manager.add_widget(screen)
        if spec.nav:
            self.nav.add_item(spec.name, spec.glyph, t(f"nav.{spec.name}"))

    def register_screen(self, spec: ScreenSpec, make: Callable[[SessionMirror], Screen]) -> None:
        """A screen made on first use (see LazyScreenManager) over the root's session of then;
        its button is in the bar now."""
        def build() -> Screen:
            screen = make(self.session)
            screen.nav_glyph = spec.glyph
            built = self.on_screen_built
            if built is not None:
                built(screen)
            return screen

        self._makers[spec.name] = build
        self.manager.register(spec.name, build, spec.glyph)
        if spec.nav:
            self.nav.add_item(spec.name, spec.glyph, t(f"nav.{spec.name}"))

    def new_session(self, session: SessionMirror, start: str = "home") -> None:
        """Start afresh over another session (another journal: a new evening), ``start`` shown,
        without making the window's widgets again: what a fresh start shows. A screen that can
        start afresh by itself (``new_session(session)``: Home, the costliest to make) is kept;
        the others are dropped and made again, over the new session, when first asked for."""
        self.session = session
        manager = self.manager
        for screen in list(manager.screens):
            renew = getattr(screen, "new_session", None)
            if callable(renew):
                renew(session)
        shown = manager.current
        for name in list(self._makers):
            if name != shown and name != start:
                self._remake(name)
        self._remake(start)
        self.show(start)
        self._remake(shown)
        self._history, self._last = [], manager.current

    def _remake(self, name: str) -> None:
        manager = self.manager
        if name in manager.screen_names and not callable(getattr(manager.get_screen(name), "new_session", None)):
            manager.remake(name, self._makers[name])

    def build_next(self) -> bool:
        """Make one screen not yet made (idle time after the first frame); False when all are."""
        return self.manager.build_next()

    def on_size(self, _widget: Root, size: tuple[float, float]) -> None:
        theme.fit(*size)
        sizes.fit(*size)
        self._arrange(sizes.orientation)

    def _arrange(self, orientation: str, force: bool = False) -> None:
        portrait = orientation == "portrait"
        if self.children and self.nav.orientation == ("horizontal" if portrait else "vertical") and not force:
            return
        self.clear_widgets()
        self.orientation = "vertical" if portrait else "horizontal"
        self.nav.orientation = "horizontal" if portrait else "vertical"
        if self.manager.current and getattr(self.manager.current_screen, "immersive", False):
            self.add_widget(self.manager)
        elif portrait:
            self.add_widget(self.manager)
            self.add_widget(self.nav)
        else:
            self.add_widget(self.nav)
            self.add_widget(self.manager)


def _make_screen(spec: ScreenSpec, session: SessionMirror) -> Screen:
    screen = screen_class(spec)(name=spec.name)
    bind = getattr(screen, "bind_session", None)
    if callable(bind):
        bind(session)
    return screen


def build_root(session: SessionMirror | None = None, start: str = "card") -> Root:
    """Every screen of ``SCREENS``, sharing one session (a fresh one when none is given), with
    ``start`` shown first. Only ``start`` is made now (a screen costs about 0.1-0.3 s of CPU, the
    first frame waits for what is made before it); the others are made on first use or by
    ``Root.build_next`` in idle time, and answer ``has_screen``/``get_screen`` meanwhile."""
    theme.font_name = fonts.register()
    session = session if session is not None else SessionMirror()
    root = Root(session)
    for spec in SCREENS:
        root.register_screen(spec, partial(_make_screen, spec))
    # Sized as the window it will fill, before its first screen is made: a root made at Kivy's
    # default 100x100 fitted 18 px text and small touch sizes, so every label of the first screen
    # was laid out and drawn at those sizes, then again at the window's (a tenth of the time to
    # the first frame). A root put in something else is fitted again by on_size.
    from kivy.core.window import Window

    if Window is not None and root.size == [100, 100]:
        root.size = Window.size
    theme.fit(*root.size)
    sizes.fit(*root.size)
    root.show(start)
    settle(root)
    return root


def settle(widget: Widget) -> None:
    """Lay out ``widget``'s tree once, parents before children, now rather than at the next
    frame. Kivy lays out on its clock, after the labels made with the screen have drawn their
    text at their default width (100 px): each label of the first screen was drawn two or three
    times before the first frame. Laid out first, a label draws its text once, at its width."""
    from kivy.uix.layout import Layout
    from kivy.uix.scrollview import ScrollView

    for child in widget.walk(restrict=True):
        if isinstance(child, Layout):
            child.do_layout()
        elif isinstance(child, ScrollView):
            child.update_from_scroll()


class CompanionApp(App):
    use_kivy_settings = False

    def __init__(self, reader_path: str | None, library: CardLibrary | None = None,
                 voice: Voice | None = None, runtime: Runtime | None = None,
                 journal_path: str | None = None, **kwargs) -> None:
        super().__init__(**kwargs)
        self.reader_path = reader_path
        self.runtime = runtime if runtime is not None else Runtime(library, journal_path=journal_path, voice=voice)
        self.library = self.runtime.library
        self.voice = self.runtime.voice
        self.session = SessionMirror(self.runtime.session, self.voice)  # the screens' mirror of the core's
        self.runtime.scans.deliver = lambda scan: Clock.schedule_once(partial(self._show_scan, scan))
        self.runtime.scans.news = lambda event: Clock.schedule_once(partial(self._reader_news, event))
        self.last_scan: Scan | None = None
        self.first_frame_after: float | None = None  # seconds from process start, when known
        self._started = False
        self._load_errors = ""
        self._reader_notice = ""
        self.closed_game: int | None = None  # the game open when the window closed

    # --- Kivy life cycle -------------------------------------------------------------
    def build(self) -> Root:
        if self.config is not None:
            # A bad value falls back to its key's default, the good keys kept; each one is named
            # and said with the other start-up problems (Runtime.file_problems).
            usersettings.repair(self.config)
        self._apply_language()  # before the screens are made: they read their words once
        self.title = t("app.title")
        root = build_root(self.session, start="home")
        root.on_screen_built = self._screen_built
        self.apply_config()
        return root

    def _screen_built(self, screen: Screen) -> None:
        if screen.name == "card":
            from companion.ui.screens.card import reader_label  # made after the first frame, imported then

            screen.where = reader_label(self.reader_path or "")

    def build_config(self, config) -> None:
        from companion.ui.screens.settings import set_defaults

        set_defaults(config)

    def get_application_config(self, defaultpath: str = "") -> str:
        # Kivy's default is next to the code; the user's settings belong with their files.
        return str(paths.config_dir() / "companion.ini")

    def build_settings(self, settings) -> None:
        from companion.ui.screens.settings import add_panel

        add_panel(settings, self.config)

    def on_config_change(self, config, section: str, key: str, value: str) -> None:
        from companion.ui.screens.settings import apply_setting

        if section == "display" and key in ("text_scale", "palette"):
            self.apply_config()
        else:
            apply_setting(section, key, value, self.voice)
            if section == "display" and key == "language" and value in i18n.LANGUAGES:
                self.runtime.set_language(value)  # what the table says, too

    def apply_config(self) -> None:
        if self.config is None:
            return
        try:
            scale = float(self.config.get("display", "text_scale"))
        except (ValueError, TypeError):
            scale = 1.0  # a hand-edited file with a typo must not stop the app
        theme.text_scale = max(TEXT_SCALE_MIN, min(TEXT_SCALE_MAX, scale))
        theme.use_palette(self.config.get("display", "palette"))
        numbers: dict[str, int] = {}
        for key in ("rate", "pitch", "volume"):
            try:
                numbers[key] = int(float(self.config.get("voice", key)))
            except (ValueError, TypeError):
                pass  # a hand-edited typo keeps the voice's own default
        self.voice.configure(backend=self.config.get("voice", "backend"), voice_name=self.config.get("voice", "voice"),
                             verbosity=self.config.get("voice", "verbosity"), **numbers)

    def _apply_language(self) -> None:
        """The settings' language, unless the command line (--lang, COMPANION_LANG) chose one."""
        if self.config is None or i18n.language_chosen():
            return
        value = self.config.get("display", "language")
        if value in i18n.LANGUAGES:
            i18n.set_language(value)
            self.runtime.set_language(value)

    @property
    def readers(self) -> list[Reader]:
        """The readers running (one per seat when readers are bound to seats)."""
        return self.runtime.scans.readers

    def on_start(self) -> None:
        from kivy.core.window import Window

        Window.bind(on_flip=self._on_first_flip)
        # App.run() sets the app's window before on_start; a window the app does not run itself
        # (a test's, which calls on_start) gets the keys at once.
        if getattr(self, "_app_window", None) is None:
            self.install_keys()

    def install_keys(self) -> None:
        """Keys and keypad for every screen through the core's key controller; screens said."""
        if getattr(self, "a11y", None) is not None:
            return
        from kivy.core.window import Window

        from companion.ui.a11y import install

        self.a11y = install(self.root, self.runtime, window=Window, on_wedge_scan=self._wedge_scan)

    def on_stop(self) -> None:
        from kivy.core.window import Window

        if getattr(self, "a11y", None) is not None:
            self.a11y.detach(Window)
            self.a11y = None
        self.shutdown()

    def shutdown(self) -> None:
        game = self.runtime.session.game
        if game is not None:  # for the goodbye, said after the journal is closed
            self.closed_game = game.id
        self.session.close()
        self.runtime.close()

    # --- start-up, after the first frame is on screen -----------------------------------
    def _on_first_flip(self, window) -> None:
        window.unbind(on_flip=self._on_first_flip)
        self.first_frame_after = seconds_since_process_start()
        if self.first_frame_after is not None:
            log.info("first frame %.2f s after process start", self.first_frame_after)
        # The keys, now that the Home screen is on screen: Kivy reads the window's events (a key
        # pressed meanwhile included) only after this frame, so none is missed; installing them,
        # the key map's imports and the voice saying the screen's name had come before the first
        # frame (about 25 ms of CPU here).
        self.install_keys()
        self.start_background()
        # The other screens, one per frame, so that keys and touch still answer between them.
        Clock.schedule_once(self._build_next_screen, 0)

    def _build_next_screen(self, *_args) -> None:
        if self.root is not None and self.root.build_next():
            Clock.schedule_once(self._build_next_screen, 0)

    def start_background(self) -> None:
        """Load the cards and start the reader; both run off the main thread."""
        if self._started:
            return
        self._started = True
        self.runtime.workers.submit(self._load_cards)
        if not self.reader_path and self.config is not None:
            # No --reader: the readers of the settings (each PATH[@SEAT]), else the simulator.
            self.reader_path = self.config.get("readers", "paths").strip() or "sim"
        if not self.reader_path:
            return
        try:
            self.runtime.scans.open(self.reader_path)
        except ValueError as exc:
            self._notice(t("error.bad_reader", path=str(exc) or self.reader_path))

    def _load_cards(self) -> None:
        # The first start builds the card index (seconds on a Raspberry Pi): say how far it is.
        errors = self.runtime.load_cards(progress=lambda done, total, game: Clock.schedule_once(
            partial(self._index_progress, done, total, game)))
        Clock.schedule_once(partial(self._cards_loaded, errors))

    def _index_progress(self, done: int, total: int, game: str, *_args) -> None:
        if self.root is None:
            return
        text = t("ui.index_progress", done=done + 1, total=total, game=game)
        self.card_screen.show_waiting(loading=True, text=text)
        if self.root.has_screen("home"):
            self.root.get_screen("home").status = text

    def _cards_loaded(self, errors: dict[str, str], *_args) -> None:
        if self.root is None:  # the app was stopped while the cards were loading
            return
        if self.root.has_screen("home"):
            self.root.get_screen("home").status = ""
        self.card_screen.show_waiting(loading=False)
        # The full messages (file, line, reason) are in the log; the card screen keeps its room.
        self._load_errors = t("ui.cards_failed", games=", ".join(errors)) if errors else ""
        self._notice(self._reader_notice)
        problems = list(errors.values()) if "*" in errors else self.library.load_problems(i18n.language())
        problems += self.runtime.file_problems(i18n.language())  # a bad collection or settings file
        if problems and self.root.has_screen("home"):  # shown and said at start, never silent
            self.root.get_screen("home").status = " ".join(problems)
            self.voice.say(" ".join(problems), priority="error")

    # --- readers ----------------------------------------------------------------------
    def _wedge_scan(self, uid: str) -> None:
        """A card read by a keyboard-wedge reader typing into the window: a tag with a UID and
        no NDEF, resolved like any other, off the main thread as reader events are."""
        self.runtime.workers.submit(self.runtime.scans.on_event, TagEvent(kind="laid", reader="wedge", uid=uid))

    # --- main thread ----------------------------------------------------------------
    @property
    def card_screen(self) -> CardScreen:
        return self.root.get_screen("card")

    def _show_scan(self, scan: Scan, *_args) -> None:
        self.show_scan(scan)

    def show_scan(self, scan: Scan) -> None:
        if self.runtime.phones.has_phone(scan.seat):  # that seat's phone alone shows it
            self.runtime.lay(scan)
            self._notice(t("phones.read_card", name=self.runtime.seat_name(scan.seat)))
            return
        self.last_scan = scan
        self._notice("")
        self.card_screen.show_scan(scan)
        self.runtime.lay(scan)  # kept in the game's history and spoken by the core
        self.root.show(self._screen_for(scan))

    def _screen_for(self, scan: Scan) -> str:
        """Where a scan is seen: the Deck and Enroll screens keep the cards laid on them; an
        unknown tag opens Enroll; during a game a card shows over the table when the table can
        show it (its keys keep acting on the table either way); else on the Card screen."""
        current = self.root.current_screen
        if getattr(current, "takes_scans", False):
            return current.name
        if scan.status == "unknown" and self.root.has_screen("enroll"):
            return "enroll"
        show_over = getattr(current, "show_card", None)
        if current.name == "table" and callable(show_over):
            show_over(scan)
            return "table"
        return "card"

    def _reader_news(self, event: TagEvent, *_args) -> None:
        if event.kind == "lifted":
            self._notice(t("card.lifted"))
        elif event.kind == "reader-lost":
            self._notice(t("reader.lost", path=event.reader, detail=event.detail))
        elif event.kind == "reader-ready":
            self._notice("")

    def _notice(self, text: str) -> None:
        """Reader news in the header; a failure to load cards stays there until fixed."""
        self._reader_notice = text
        if self.root is not None:
            self.card_screen.notice = " · ".join(x for x in (text, self._load_errors) if x)


def seconds_since_process_start() -> float | None:
    """Age of this process from the kernel's clock (Linux), for the cold-start budget."""
    try:
        with open("/proc/self/stat", encoding="ascii") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        with open("/proc/uptime", encoding="ascii") as f:
            uptime = float(f.read().split()[0])
        return uptime - int(fields[19]) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def configure_window() -> None:
    """Window size and input before Kivy creates the window (it reads Config only then)."""
    from kivy.config import Config

    wanted = os.environ.get(WINDOW_ENV, "").strip().lower()
    if wanted == "fullscreen":
        Config.set("graphics", "fullscreen", "auto")
    else:
        width, height = DEFAULT_WINDOW
        if "x" in wanted:
            w, _, h = wanted.partition("x")
            if w.isdigit() and h.isdigit():
                width, height = int(w), int(h)
        Config.set("graphics", "width", str(width))
        Config.set("graphics", "height", str(height))
    Config.set("kivy", "exit_on_escape", "0")  # Escape goes back a screen (the key map); Ctrl-Q quits
    Config.set("input", "mouse", "mouse,multitouch_on_demand")  # no red dots on right click


def _stop_on_signals(app: App) -> None:
    """SIGINT (Ctrl-C in the terminal), SIGTERM (systemd, kill) and SIGHUP close the window as
    Ctrl-Q does, on Kivy's own thread: the game closed cleanly and the goodbye written. Python's
    own Ctrl-C raised KeyboardInterrupt wherever the main thread was, a journal write included,
    and skipped the app's on_stop; a second Ctrl-C still does, for a window that no longer turns."""
    import signal

    asked: list[int] = []

    def stop(signum: int, _frame: object) -> None:
        if signum == signal.SIGINT and asked:
            raise KeyboardInterrupt
        asked.append(signum)
        Clock.schedule_once(lambda _dt: app.stop())

    for name in ("SIGINT", "SIGTERM", "SIGHUP"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), stop)


def run_app(reader: str | None) -> int | None:
    """The window; ``reader`` is one or more ``PATH[@SEAT]`` (None: the settings' readers).
    None when no window can be opened here (no GL, no SDL): the caller starts another front end."""
    configure_window()
    from kivy.core.window import Window

    if Window is None:
        print(t("ui.no_window"), file=sys.stderr)
        return None
    app = CompanionApp(reader_path=reader)
    _stop_on_signals(app)
    try:
        app.run()
    except KeyboardInterrupt:
        pass
    finally:
        app.shutdown()
    # Ctrl-C, Ctrl-Q, SIGTERM or SIGHUP alike: where the game is and how to go on with it.
    game = app.closed_game
    print(t("talk.bye_game", id=game) if game is not None else t("console.bye"), file=sys.stderr)
    return 0
