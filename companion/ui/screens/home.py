"""The home screen: choose the game and the players (names, how many, in table order), start it
(the engine draws the first player fairly and the table screen shows who), or resume a game
from the journal."""

from __future__ import annotations

import time
from typing import Any

from kivy.properties import ListProperty, NumericProperty, ObjectProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.screenmanager import Screen

from companion import registry
from companion.i18n import language, t
from companion.table.data import TableDataError, header
from companion.table.engine import Result
from companion.table.journal import GameRow
from companion.ui.screens import load_kv
from companion.ui.table_layout import SIDES, default_sides, valid_sides
from companion.ui.widgets import load_widgets_kv
from companion.ui.widgets.buttons import GlyphButton, compose

RESUME_SHOWN = 8


def game_name(game: str, lang: str | None = None) -> str:
    # The header, not the whole game file: the menu names every game before the first frame.
    try:
        return header(game).name(lang or language())
    except TableDataError:
        return game


def seat_bounds(game: str) -> tuple[int, int]:
    try:
        data = header(game)
    except TableDataError:
        return 2, 2
    return data.seats_min, data.seats_max


def resume_label(row: GameRow, lang: str | None = None) -> str:
    """One saved game in words: the game, the players, where it stands, when it was played."""
    when = time.strftime("%d/%m %H:%M", time.localtime(row.updated))
    state = t("ui.home.over", lang) if row.status == "over" else t("ui.home.playing", lang)
    return t("ui.home.saved", lang, game=game_name(row.game, lang), players=", ".join(row.players),
             state=state, when=when, id=row.id)


def around_the_table(names: list[str], sides: list[str]) -> tuple[list[str], list[str]]:
    """Players in the order they sit around the table (bottom, right, top, left; in the order
    given on each side): the turn order follows the seats."""
    order = sorted(range(len(names)), key=lambda i: (SIDES.index(sides[i]), i))
    return [names[i] for i in order], [sides[i] for i in order]


class SeatRow(BoxLayout):
    home = ObjectProperty(None)
    index = NumericProperty(0)
    count = NumericProperty(1)
    name = StringProperty("")
    side = StringProperty("")


class ResumeButton(GlyphButton):
    game_id = NumericProperty(0)


class HomeScreen(Screen):
    session = ObjectProperty(None, allownone=True)
    game = StringProperty(registry.ids()[0])
    names = ListProperty([])
    sides = ListProperty([])  # where each player sits around the screen (bottom, right, top, left)
    seats_min = NumericProperty(2)
    seats_max = NumericProperty(6)
    message = StringProperty("")
    status = StringProperty("")  # long work going on (the card index on a first start)
    seed = ObjectProperty(None, allownone=True)  # tests fix the draw; players never see it
    first = NumericProperty(-1)  # the player chosen to start (index in the list), -1: drawn at random
    first_label = StringProperty("")

    def __init__(self, **kwargs) -> None:
        load_widgets_kv()
        load_kv("home")
        kwargs.setdefault("name", "home")
        super().__init__(**kwargs)
        self.names = [t("ui.home.player", n=i + 1) for i in range(2)]
        self._game_buttons: dict[str, GlyphButton] = {}
        for game in registry.ids():
            button = GlyphButton(word=game_name(game), wrap=True)
            button.bind(on_release=lambda b, g=game: self.choose(g))
            self.ids.games.add_widget(button)
            self._game_buttons[game] = button
        self.choose(self.game)

    def bind_session(self, session: Any) -> None:
        self.session = session
        # A bound method, held weakly by the session's dispatcher: a lambda kept this screen (and
        # its app root) alive as long as the session (as the table's clock once did).
        session.bind(on_state=self._changed)
        self.refresh_saved()

    def new_session(self, session: Any) -> None:
        """A fresh start over another session (Root.new_session): the choices this screen shows
        when it is made (the first game, two players named by default, who starts drawn), none
        of the last session's typing, and the new session's saved games."""
        if self.session is not None:
            self.session.unbind(on_state=self._changed)
        for row in self.ids.seats.children:
            row.ids.name_input.focus = False
        self.seed, self.message, self.status, self.first = None, "", "", -1
        self.names = [t("ui.home.player", n=i + 1) for i in range(2)]
        self.sides = []
        self.choose(registry.ids()[0])
        self.ids.scroll.scroll_y = 1
        self.bind_session(session)

    def _changed(self, *_args: object) -> None:
        # Written when seen (as the log): at every change of the game, the saved games were read
        # from the journal again and up to eight buttons drawn anew on a screen nobody was looking
        # at; showing this screen writes them (on_pre_enter).
        if self.manager is not None and self.manager.current == self.name:
            self.refresh_saved()

    def on_pre_enter(self, *_args) -> None:
        self.refresh_saved()

    def relabel(self) -> None:
        """The language changed: the games' names, the players still named by default, who
        starts and the saved games are written again (the kv rules follow by themselves)."""
        from companion import i18n

        for game, button in self._game_buttons.items():
            button.word = game_name(game)
        defaults = {t("ui.home.player", lang, n=i + 1): i for lang in i18n.LANGUAGES for i in range(len(self.names))}
        self.names = [t("ui.home.player", n=i + 1) if defaults.get(name) == i else name
                      for i, name in enumerate(self.names)]
        self._first_label()
        self.message = ""
        self.refresh_saved()

    # -- choices -----------------------------------------------------------------------------

    def choose(self, game: str) -> None:
        self.game = game
        self.seats_min, self.seats_max = seat_bounds(game)
        for g, button in self._game_buttons.items():
            button.kind = "selected" if g == game else "normal"
            button.glyph = "\u2713" if g == game else ""
        self.set_count(min(max(len(self.names), self.seats_min), self.seats_max))

    def set_count(self, count: int) -> None:
        count = max(self.seats_min, min(self.seats_max, count))
        names = list(self.names[:count])
        while len(names) < count:
            names.append(t("ui.home.player", n=len(names) + 1))
        if len(self.sides) != count:
            self.sides = default_sides(count)
        self.names = names

    def turn_side(self, index: int) -> None:
        """The next side for this player: bottom, right, top, left."""
        if 0 <= index < len(self.sides):
            sides = list(self.sides)
            sides[index] = SIDES[(SIDES.index(sides[index]) + 1) % len(SIDES)]
            self.sides = sides

    def on_sides(self, _screen: HomeScreen, sides: list[str]) -> None:
        self.on_names(self, self.names)

    def add_seat(self) -> None:
        self.set_count(len(self.names) + 1)

    def remove_seat(self) -> None:
        self.set_count(len(self.names) - 1)

    def rename(self, index: int, name: str) -> None:
        if 0 <= index < len(self.names) and self.names[index] != name:
            names = list(self.names)
            names[index] = name
            self.names = names

    def move(self, index: int, step: int) -> None:
        """Table order: swap a seat with its neighbour."""
        j = index + step
        if 0 <= index < len(self.names) and 0 <= j < len(self.names):
            names = list(self.names)
            names[index], names[j] = names[j], names[index]
            if self.first in (index, j):  # the chosen first player moves with their name
                self.first = j if self.first == index else index
            self.names = names

    def next_first(self) -> None:
        """Who starts, in turn: drawn at random, then each player of the list."""
        self.first = self.first + 1 if self.first + 1 < len(self.names) else -1

    def on_first(self, *_args) -> None:
        self._first_label()

    def _first_label(self) -> None:
        if 0 <= self.first < len(self.names):
            self.first_label = t("ui.home.first.name", name=self.names[self.first])
        else:
            self.first_label = t("ui.home.first.draw")

    def on_names(self, _screen: HomeScreen, names: list[str]) -> None:
        if self.first >= len(names):
            self.first = -1
        self._first_label()
        rows = self.ids.seats
        while len(rows.children) < len(names):
            rows.add_widget(SeatRow(home=self))
        while len(rows.children) > len(names):
            rows.remove_widget(rows.children[0])
        for i, row in enumerate(reversed(rows.children)):
            row.index, row.count = i, len(names)
            row.side = self.sides[i] if i < len(self.sides) else ""
            if row.name != names[i]:
                row.name = names[i]
            if row.ids.name_input.text != names[i]:
                row.ids.name_input.text = names[i]

    # -- intents -----------------------------------------------------------------------------

    def start(self) -> Result | None:
        """Start the game: the engine draws the first player; the table screen shows the draw."""
        if self.session is None:
            return None
        names = [self._typed(i) for i in range(len(self.names))]
        first = names[self.first] if 0 <= self.first < len(names) else None
        names, sides = around_the_table(names, valid_sides(list(self.sides), len(names)))
        return self._to_table(self.session.new_game(self.game, names, seed=self.seed, options={"sides": sides},
                                                    source="touch", first=first))

    def resume(self, game_id: int) -> Result | None:
        if self.session is None:
            return None
        return self._to_table(self.session.resume(game_id, source="touch"))

    def _to_table(self, result: Result) -> Result:
        """A game opened goes to the Table; a refusal stays here, said on the screen."""
        if result.ok:
            self.message = ""
            if self.manager is not None:
                self.manager.current = "table"
        else:
            self.message = compose("\u2717", " ".join(result.lines()))
        return result

    def _typed(self, index: int) -> str:
        rows = list(reversed(self.ids.seats.children))
        text = rows[index].ids.name_input.text if index < len(rows) else self.names[index]
        return text.strip()

    # -- saved games ---------------------------------------------------------------------------

    def refresh_saved(self) -> None:
        box = self.ids.saved
        box.clear_widgets()
        rows = self.session.saved_games()[:RESUME_SHOWN] if self.session is not None else []
        self.ids.saved_title.opacity = 1 if rows else 0
        for row in rows:
            button = ResumeButton(game_id=row.id, glyph="\u21bb", word=resume_label(row), wrap=True)
            button.bind(on_release=lambda b: self.resume(b.game_id))
            box.add_widget(button)

    def resume_button(self, game_id: int) -> ResumeButton | None:
        return next((b for b in self.ids.saved.children if b.game_id == game_id), None)
