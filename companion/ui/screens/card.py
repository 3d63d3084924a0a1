"""The card screen: the last card laid on a reader, large, with everything printed on it, its
keywords explained from the game's glossary, and the cards laid before it (tap one to see it again).

The widgets shared by the Card, Rules, Deck, Enroll and Settings screens (buttons, a search
field, a game picker) are kv rules in card.kv; each of those screens loads it first."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from kivy.factory import Factory
from kivy.properties import ListProperty, ObjectProperty, OptionProperty, StringProperty
from kivy.uix.screenmanager import Screen
from kivy.utils import escape_markup

from companion import i18n, registry
from companion.cards.explain import card_rows, keyword_entries
from companion.cards.gamedata import GameInfo
from companion.cards.model import Card, localized
from companion.i18n import t
from companion.tags.resolve import Scan
from companion.ui.fonts import for_display
from companion.ui.screens import load_kv

MODES = ("loading", "empty", "card", "unknown", "unreadable")
HISTORY_MAX = 60  # a long game's cards, newest first; older ones drop off


@dataclass(frozen=True)
class CardView:
    """What the screen shows, as text, worked out away from the widgets."""

    mode: str
    title: str
    fields: tuple[tuple[str, str], ...] = ()
    text: str = ""
    rulings: str = ""  # markup
    keywords: str = ""  # markup: each keyword with its glossary definition
    detail: str = ""
    where: str = ""  # reader and seat


def reader_label(path: str) -> str:
    if not path:
        return t("ui.reader.none")
    if path == "sim" or path.startswith("sim:"):
        return t("ui.reader", path=t("ui.reader.sim"))
    return t("ui.reader", path=path)


def card_fields(card: Card, game: GameInfo | None = None, lang: str | None = None) -> list[tuple[str, str]]:
    """(label, value) rows under the name: type, cost, capacity, clan, disciplines or keywords."""
    rows = card_rows(card, game, lang or i18n.language())
    return [(label, for_display(value)) for label, value in rows]


def keywords_markup(card: Card, game: GameInfo | None, lang: str | None = None) -> str:
    """The card's keywords explained: a player who does not know "dom" reads what it means."""
    lang = lang or i18n.language()
    entries = keyword_entries(card, game)
    if not entries:
        return ""
    items = []
    for entry in entries:
        text = entry.text.get(lang) or entry.text.get("fr", "")
        items.append("•  " + t("text.label_value", lang).format(
            label=f"[b]{escape_markup(for_display(entry.name(lang)))}[/b]", value=escape_markup(for_display(text))))
    return f"[b]{escape_markup(t('card.explained'))}[/b]\n" + "\n".join(items)


def scan_view(scan: Scan, game: GameInfo | None = None) -> CardView:
    where = reader_label(scan.event.reader)
    if scan.seat is not None:
        where += " · " + t("ui.seat", seat=scan.seat)
    tag = t("card.tag", uid=scan.uid) if scan.uid else ""
    if scan.card is not None:
        card = localized(scan.card, i18n.language())  # the official translation when there is one
        rulings = ""
        if card.rulings:
            items = "\n".join(f"•  {escape_markup(for_display(r))}" for r in card.rulings)
            rulings = f"[b]{escape_markup(t('card.rulings'))}[/b]\n{items}"
        return CardView("card", title=for_display(card.name), fields=tuple(card_fields(card, game)),
                        text=for_display(card.text), rulings=rulings, keywords=keywords_markup(card, game),
                        detail=card.ref, where=where)
    if scan.status == "unreadable":
        return CardView("unreadable", title=t("card.unreadable.title"),
                        text=t("card.unreadable", detail=scan.detail), detail=tag, where=where)
    detail = " — ".join(x for x in (tag, scan.detail_text()) if x)
    return CardView("unknown", title=t("card.unknown.title"), text=t("card.unknown.hint"), detail=detail, where=where)


class CardScreen(Screen):
    mode = OptionProperty("loading", options=MODES)
    title = StringProperty("")
    fields = ListProperty([])  # [(label, value)]
    text = StringProperty("")
    rulings = StringProperty("")
    detail = StringProperty("")
    where = StringProperty("")
    keywords = StringProperty("")
    notice = StringProperty("")  # reader news: lifted card, lost reader, cards that failed to load
    hint = StringProperty("")
    history = ListProperty([])  # [Scan], newest first: the cards laid this game
    # Where a game's data comes from (CardLibrary.game); without it types stay as their ids.
    games = ObjectProperty(None, allownone=True)

    def __init__(self, **kwargs) -> None:
        load_kv("card")
        kwargs.setdefault("name", "card")
        super().__init__(**kwargs)
        self.hint = t("ui.keys")
        self.show_waiting(loading=True)

    def on_fields(self, _screen: CardScreen, fields: list[tuple[str, str]]) -> None:
        # A two-column grid rather than one line of text: a label never wraps away from its value.
        grid = self.ids.fields
        grid.clear_widgets()
        for label, value in fields:
            name = Factory.CardFieldLabel(text=t("ui.field.label", label=label))
            content = Factory.CardFieldValue(text=value)
            content.bind(height=name.setter("height"))
            grid.add_widget(name)
            grid.add_widget(content)

    def show_waiting(self, loading: bool, text: str = "") -> None:
        """The empty state: cards still loading (``text``: how far), or waiting for the first card."""
        if self.mode not in ("loading", "empty"):
            return
        title = (text or t("ui.loading")) if loading else t("card.none")
        self._apply(CardView("loading" if loading else "empty", title=title))

    def bind_session(self, session: object) -> None:
        library = getattr(session, "library", None)
        if library is not None:
            self.games = lambda game: library.game(game) if getattr(library, "ready", True) else None
        # A new game starts a new history; the cards of the last one are not this game's.
        session.bind(game=lambda *_args: self.clear_history())

    def on_history(self, _screen: CardScreen, history: list[Scan]) -> None:
        row = self.ids.history_row
        row.clear_widgets()
        for index, scan in enumerate(history):
            button = Factory.HistoryButton(text=for_display(scan.card.name) if scan.card else scan.uid)
            button.bind(on_release=lambda _b, i=index: self.show_again(i))
            row.add_widget(button)

    def game_info(self, game: str) -> GameInfo | None:
        games: Callable[[str], GameInfo | None] | None = self.games
        if games is None:
            return None
        try:
            return games(game)
        except Exception:  # a broken game folder: the card still shows, types as ids
            return None

    def show_scan(self, scan: Scan, remember: bool = True) -> None:
        game = self.game_info(scan.card.game) if scan.card is not None else None
        self._apply(scan_view(scan, game))
        if remember and scan.card is not None:
            # The same card laid twice in a row is one entry; a card seen earlier moves to the front.
            kept = [s for s in self.history if s.card is None or s.card.ref != scan.card.ref]
            self.history = [scan, *kept][:HISTORY_MAX]
        scroll = self.ids.get("scroll")
        if scroll is not None:
            scroll.scroll_y = 1  # a new card is read from its name down

    def relabel(self) -> None:
        """The language changed: the card shown is written again in the new one."""
        if self.history:
            self.show_scan(self.history[0], remember=False)

    def show_again(self, index: int) -> Scan | None:
        """Show a card from the history (tapped) without reordering the history."""
        if not 0 <= index < len(self.history):
            return None
        scan = self.history[index]
        self.show_scan(scan, remember=False)
        return scan

    def clear_history(self) -> None:
        self.history = []

    def _apply(self, view: CardView) -> None:
        self.mode = view.mode
        self.title = view.title
        self.fields = list(view.fields)
        self.text = view.text
        self.rulings = view.rulings
        self.keywords = view.keywords
        self.detail = view.detail
        if view.where:
            self.where = view.where


# --- what the Card, Rules, Deck, Enroll and Settings screens share -------------------------------
def game_choices(library: object) -> list[tuple[str, str]]:
    """(id, name in the UI language) of every game the library knows, or [] while it loads."""
    if library is None or not getattr(library, "ready", True):
        return []
    lang = i18n.language()
    choices = []
    for game_id in library.games:
        info = library.game(game_id)
        choices.append((game_id, info.name(lang) if info is not None else game_id))
    return choices


def advance(count: int = 1, draw: bool = True) -> None:
    """Run the window's loop ``count`` frames (clock, input, kv rules, labels' textures, layout),
    the window drawn on the last one only, and not at all with ``draw=False``. For the screenshots
    and the tests, which drive the loop themselves: with software GL (no display, a Pi's fallback)
    drawing is most of a frame's CPU, and the frames before a picture are never looked at."""
    from kivy.base import EventLoop
    from kivy.clock import Clock
    from kivy.lang import Builder

    for n in range(count):
        if draw and n == count - 1:
            EventLoop.idle()
            continue
        # EventLoop.idle() without its last step (on_draw, on_flip when the canvas changed).
        Clock.tick()
        EventLoop.dispatch_input()
        Builder.sync()
        Clock.tick_draw()
        Builder.sync()


def run_until(done: Callable[[], bool], timeout: float) -> bool:
    """Let the window run until ``done()`` (for tests and the screenshots, which must wait for a
    check or a re-index in flight to be shown); False on timeout. Not drawn while it waits: what
    is waited for is a value, and whoever takes a picture next draws it."""
    import time

    deadline = time.monotonic() + timeout
    while not done() and time.monotonic() < deadline:
        advance(draw=False)
        time.sleep(0.005)
    return done()


class SessionScreen(Screen):
    """A screen about one game that follows the shared Session: the game on the table, the
    library, the voice and the scans. Alone (a test, a screenshot), it is given a library."""

    library = ObjectProperty(None, allownone=True)
    session = ObjectProperty(None, allownone=True)
    game = StringProperty(registry.ids()[0])  # the game this screen is about
    game_name = StringProperty("")
    game_names = ListProperty([])  # for the game picker
    takes_scans = False  # while shown, a scan is this screen's (the Card screen does not jump in)

    def bind_session(self, session: object) -> None:
        self.session = session
        if getattr(session, "library", None) is not None:
            self.library = session.library
        session.bind(game=self._table_game, on_scan=self._session_scan)
        self._table_game(session, session.game)

    def _table_game(self, _session: object, game: object) -> None:
        data = getattr(game, "data", None)
        if data is not None:
            self.game = data.id

    def _session_scan(self, _session: object, scan: Scan) -> None:
        if self.manager is not None and self.manager.current == self.name:
            self.take_scan(scan)

    def take_scan(self, scan: Scan) -> bool:
        """A card laid while this screen is shown; True when the screen used it."""
        return False

    @property
    def library_ready(self) -> bool:
        return self.library is not None and getattr(self.library, "ready", True)

    def game_info(self, game: str | None = None) -> GameInfo | None:
        if not self.library_ready:
            return None
        return self.library.game(game or self.game)

    def on_enter(self, *_args) -> None:
        self.refresh()

    def on_library(self, *_args) -> None:
        self.refresh()

    def refresh(self) -> None:
        """Shown again, or the library came: the game picker follows the library."""
        self.refresh_games()

    def refresh_games(self) -> None:
        choices = game_choices(self.library)
        self._choices = dict(choices)
        self.game_names = [name for _id, name in choices]
        self.game_name = self._choices.get(self.game, self.game)

    def pick_game_named(self, name: str) -> None:
        for game_id, shown in getattr(self, "_choices", {}).items():
            if shown == name:
                self.game = game_id
                return

    def on_game(self, _screen: SessionScreen, game: str) -> None:
        self.game_name = getattr(self, "_choices", {}).get(game, game)

    def say(self, text: str, priority: str = "hint") -> None:
        voice = getattr(self.session, "voice", None)
        say = getattr(voice, "say", None)
        if callable(say) and text:
            try:
                say(text, priority=priority)
            except Exception:  # speech must never take a screen down
                pass
