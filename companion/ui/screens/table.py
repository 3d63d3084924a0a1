"""The table screen: one panel per seat with its counters, the players on the far side facing
them, the turn and the phase in the middle, and the buttons of the game.

What is shown is worked out from the engine's state by ``table_view`` (no widgets), and the
widgets only copy it. Every press becomes an intent sent to the session; the screen redraws
when the session says the game changed, so what is on the screen is always what is in the
journal.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

import yaml
from kivy.clock import Clock
from kivy.factory import Factory
from kivy.properties import BooleanProperty, ListProperty, NumericProperty, ObjectProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.screenmanager import Screen

from companion.i18n import language, t
from companion.table.engine import Intent, Result, render
from companion.ui.screens import load_kv
from companion.ui.theme import theme
from companion.ui.widgets import GLYPH_FONT, load_widgets_kv, sizes
from companion.ui.widgets.buttons import GlyphButton, compose
from companion.ui.widgets.counter import PENDING_SECONDS, CounterBox
from companion.ui.widgets.numpad import NumPad


@functools.cache
def icons() -> dict[str, Any]:
    text = resources.files("companion.ui.widgets").joinpath("icons.yaml").read_text(encoding="utf-8")
    return yaml.safe_load(text) or {}


def mark(name: str) -> str:
    return str(icons().get("marks", {}).get(name, ""))


def counter_glyph(game: str, cid: str) -> str:
    return str(icons().get(game, {}).get(cid, ""))


# --- what is shown, worked out from the state ---------------------------------------------
@dataclass(frozen=True)
class CounterView:
    seat: int | None
    cid: str
    glyph: str
    name: str
    value: int | None
    note: str = ""
    locked: bool = False


@dataclass(frozen=True)
class ButtonView:
    """A button that sends a command line (the words of docs/commands.md)."""

    id: str
    glyph: str
    word: str
    command: str
    primary: bool = False


@dataclass(frozen=True)
class SeatView:
    index: int
    name: str
    header: str  # "À toi, Ann" for the active player
    active: bool
    out: bool
    winner: bool
    marks: tuple[tuple[str, str], ...]  # (glyph, words)
    counters: tuple[CounterView, ...]
    buttons: tuple[ButtonView, ...] = ()


@dataclass(frozen=True)
class TableView:
    game: str
    title: str
    turn: str  # "Tour de Ann — manche 2", or the end of the game
    phase: str  # "Phase 2/5 : Maître"
    reminder: str
    over: bool
    seats: tuple[SeatView, ...]
    shared: tuple[CounterView, ...] = ()
    info: tuple[tuple[str, str], ...] = ()  # (glyph, words): the ring, the last coin toss...
    actions: tuple[ButtonView, ...] = field(default_factory=tuple)


# Which counters a panel shows (the others stay reachable by keys and commands).
PANEL_COUNTERS = {"vtes": ("pool", "vp")}


def _counter_note(game: str, cid: str, seat: dict[str, Any], lang: str) -> str:
    if game == "ascension" and cid in ("runes", "power", "energy"):
        return t("ui.this_turn", lang)
    if game == "astral" and cid == "energy":
        return t("ui.of_max", lang, max=seat["c"]["max_energy"])
    if game == "astral" and cid == "stars":
        return t("ui.of_max", lang, max=12)
    return ""


def table_view(game: Any, lang: str | None = None) -> TableView:
    """Everything the table screen shows, as words and numbers, from the game's state."""
    lang = lang or language()
    data, rules, s = game.data, game.rules, game.state
    gid = data.id
    over = bool(s.get("over"))
    active = s.get("active")
    names = [seat["name"] for seat in s["seats"]]

    if over:
        winners = [names[w] for w in s.get("winner", [])]
        turn = compose(mark("winner"), t("ui.over", lang, winners=t("table.and", lang).join(winners) or "—"))
        phase = reminder = ""
    elif active is not None and s.get("phase") is not None:
        ph = data.phases[s["phase"]]
        turn = compose(mark("active"), t("ui.turn_of", lang, name=names[active], round=s["round"]))
        phase = t("ui.phase", lang, n=s["phase"] + 1, count=len(data.phases), name=ph.name(lang))
        reminder = ph.remind(lang)
    else:
        turn, phase, reminder = t("ui.drawing", lang), "", ""

    shown = PANEL_COUNTERS.get(gid) or tuple(cid for cid, c in data.counters.items() if not c.hidden)
    seats = []
    for i, seat in enumerate(s["seats"]):
        is_active = i == active and not over
        marks: list[tuple[str, str]] = []
        if seat["out"]:
            marks.append((mark("out"), t("table.mark.out", lang)))
        winner = over and i in s.get("winner", [])
        if winner:
            marks.append((mark("winner"), t("ui.mark.winner", lang)))
        marks.extend(_seat_marks(gid, rules, s, i, lang))
        counters = tuple(CounterView(i, cid, counter_glyph(gid, cid), data.counters[cid].name(lang),
                                     seat["c"][cid], _counter_note(gid, cid, seat, lang), locked=seat["out"])
                         for cid in shown)
        header = t("ui.your_turn", lang, name=seat["name"]) if is_active else seat["name"]
        seats.append(SeatView(i, seat["name"], header, is_active, seat["out"], winner, tuple(marks), counters,
                              _seat_buttons(gid, s, i, lang)))
    shared = tuple(CounterView(None, cid, counter_glyph(gid, cid), c.name(lang), s["shared"][cid], locked=True)
                   for cid, c in data.shared.items()
                   if not c.hidden and (cid != "extra" or s["shared"][cid]))
    return TableView(gid, data.name(lang), turn, phase, reminder, over, tuple(seats), shared,
                     _info(gid, rules, s, lang), _actions(gid, game, lang))


def _seat_marks(gid: str, rules: Any, s: dict[str, Any], i: int, lang: str) -> list[tuple[str, str]]:
    seat = s["seats"][i]
    out: list[tuple[str, str]] = []
    if gid == "vtes":
        if s.get("edge") == i:
            out.append((mark("edge"), t("ui.vtes.edge", lang)))
        if not seat["out"]:
            prey, predator = rules.prey(s, i), rules.predator(s, i)
            if prey is not None:
                out.append((mark("prey"), t("ui.vtes.prey", lang, name=s["seats"][prey]["name"])))
            if predator is not None:
                out.append((mark("predator"), t("ui.vtes.predator", lang, name=s["seats"][predator]["name"])))
        if seat.get("withdrawing"):
            out.append((mark("withdrawing"), t("table.vtes.mark.withdrawing", lang)))
        if i == s.get("active") and rules.phase_id(s) == "influence":
            out.append((counter_glyph(gid, "transfers"), t("ui.vtes.transfers", lang, n=seat["c"]["transfers"])))
        for name, v in seat.get("vampires", {}).items():
            out.append(("", f"{name} {v['blood']}/{v['capacity']}"))
    elif gid == "res-arcana":
        if s.get("tile") == i:
            out.append((mark("tile"), t("table.res.mark.tile", lang)))
        out.append((mark("passed"), t("table.res.mark.passed", lang)) if seat["passed"]
                   else ("", t("ui.res.not_passed", lang)))
        for comp, pile in seat.get("on", {}).items():
            what = ", ".join(f"{k} {rules.data.counter(e).name(lang)}" for e, k in pile.items())
            out.append(("", f"{comp} : {what}"))
    elif gid == "rise":
        if s.get("first") == i:
            out.append((mark("first"), t("table.mark.first", lang)))
    elif gid == "astral":
        states = seat.get("states", [])
        for st in states:
            out.append((mark("state"), t(f"table.astral.mark.{st}", lang)))
        if not states:
            out.append(("", t("ui.astral.hidden", lang)))
        if seat.get("deck_empty"):
            out.append((mark("out"), t("table.astral.mark.sudden_death", lang)))
        if i == s.get("active") and not s.get("over"):
            limit = 3 if "astral" in states else 2
            out.append(("", t("table.astral.mark.actions", lang, done=sum(seat["actions"].values()), limit=limit)))
    elif gid == "ascension":
        if seat.get("cult"):
            out.append(("", t("ui.ascension.cult", lang)))
        for n, team in enumerate(s.get("teams", [])):
            if i in team:
                out.append(("", t("table.ascension.mark.team", lang, team=n + 1)))
        if s.get("over") and s.get("totals"):
            out.append((mark("winner"), t("table.ascension.mark.total", lang, total=s["totals"][i])))
    return out


def _seat_buttons(gid: str, s: dict[str, Any], i: int, lang: str) -> tuple[ButtonView, ...]:
    seat = s["seats"][i]
    if s.get("over") or seat["out"]:
        return ()
    if gid == "vtes" and s.get("edge") != i:
        return (ButtonView("edge", mark("edge"), t("ui.vtes.take_edge", lang), f"edge {i + 1}"),)
    if gid == "astral" and not seat.get("deck_empty"):
        return (ButtonView("empty", mark("out"), t("ui.astral.deck_empty", lang), f"empty {i + 1}"),)
    return ()


def _info(gid: str, rules: Any, s: dict[str, Any], lang: str) -> tuple[tuple[str, str], ...]:
    out: list[tuple[str, str]] = []
    if gid == "vtes":
        ring = [i for i in range(len(s["seats"])) if not s["seats"][i]["out"]]
        if len(ring) > 1:
            names = [s["seats"][i]["name"] for i in ring] + [s["seats"][ring[0]]["name"]]
            out.append(("", t("ui.vtes.ring", lang, ring=" \u2192 ".join(names))))  # glyphs: see _markup
        holder = s.get("edge")
        out.append((mark("edge"), t("ui.vtes.edge_holder", lang, name=s["seats"][holder]["name"])
                    if holder is not None else t("ui.vtes.no_edge", lang)))
    elif gid == "ascension" and s.get("last_round") and not s.get("over"):
        out.append(("", t("table.ascension.last_round", lang)))
    roll = s.get("roll")
    if roll and roll.get("kind") == "toss":
        keys = rules.p.get("toss", ["table.toss.heads", "table.toss.tails"])
        out.append((mark("toss"), t("ui.last_toss", lang, result=t(keys[roll["result"]], lang))))
    return tuple(out)


def _actions(gid: str, game: Any, lang: str) -> tuple[ButtonView, ...]:
    s, rules = game.state, game.rules
    out = [ButtonView("undo", "\u21b6", t("ui.undo", lang), "undo"),
           ButtonView("redo", "\u21b7", t("ui.redo", lang), "redo")]
    if not s.get("over"):
        out.append(ButtonView("next", "\u279c", t("ui.next", lang), "next", primary=True))
        out.append(ButtonView("end", "\u21e5", t("ui.end", lang), "end"))
        if gid == "res-arcana":
            out.append(ButtonView("pass", mark("passed"), t("ui.res.pass", lang), "pass"))
        elif gid == "rise":
            if rules.phase_id(s) == "restoration" and not s["seats"][s["active"]]["restored"]:
                out.append(ButtonView("restore2", "", t("ui.rise.restore2", lang), "restore 2", primary=True))
                out.append(ButtonView("restore1", "", t("ui.rise.restore1", lang), "restore 1", primary=True))
        elif gid == "astral":
            out.append(ButtonView("summon", mark("state"), t("table.astral.kind.sbire", lang), "summon"))
            out.append(ButtonView("power", mark("state"), t("table.astral.kind.pouvoir", lang), "power"))
    if gid == "rise":
        out.append(ButtonView("toss", mark("toss"), t("ui.toss", lang), "toss"))
    return tuple(out)


# Notes the middle of the table already shows (whose turn, which phase and its reminder).
SHOWN_ABOVE = frozenset({"table.turn", "table.phase", "table.phase_bare", "table.res.to_act"})


def result_text(result: Result | None) -> tuple[str, bool]:
    """The last answer of the table, as markup, and whether it was a refusal."""
    if result is None:
        return "", False
    if result.ok:
        lines = [*result.answer, *(render(result.data, k, v) for k, v in result.notes if k not in SHOWN_ABOVE)]
    else:
        lines = result.lines()
    if not lines:
        return "", not result.ok
    glyph = mark("ok") if result.ok else mark("refused")
    return markup(glyph, " ".join(lines)), not result.ok


def markup(glyph: str, words: str) -> str:
    """``compose`` that also draws the arrows inside the words with the symbol font."""
    text = compose(glyph, words)
    for arrow in ARROWS:
        text = text.replace(arrow, f"[font={GLYPH_FONT}]{arrow}[/font]")
    return text


ARROWS = ("\u2192", "\u2190")  # Atkinson Hyperlegible has no arrows


# --- widgets -------------------------------------------------------------------------------
class SeatPanel(BoxLayout):
    index = NumericProperty(0)
    header = StringProperty("")
    marks = StringProperty("")  # markup
    active = BooleanProperty(False)
    out = BooleanProperty(False)
    winner = BooleanProperty(False)
    flipped = BooleanProperty(False)  # on the far side (drawn turned by its row)
    counter_cols = NumericProperty(1)
    header_wrap = ObjectProperty(None, allownone=True)  # a width for a long name, None: one line
    stacked = BooleanProperty(False)  # the seat's buttons under its counters (a narrow panel)


class TableButton(GlyphButton):
    command = StringProperty("")
    action = StringProperty("")


class SeatButton(TableButton):
    """A button of one seat's panel (take the edge, deck empty): narrow, its words wrap."""


class TableScreen(Screen):
    session = ObjectProperty(None, allownone=True)
    title = StringProperty("")
    turn = StringProperty("")
    phase = StringProperty("")
    reminder = StringProperty("")
    message = StringProperty("")  # markup: the last answer
    refused = BooleanProperty(False)
    info = StringProperty("")  # markup
    over = BooleanProperty(False)
    empty = BooleanProperty(True)  # no game yet
    pending = ListProperty([])  # [seat, counter, delta] while a change waits to be applied
    view = ObjectProperty(None, allownone=True)
    wide = BooleanProperty(True)  # the buttons beside the words, not under them
    actions_width = NumericProperty(100)

    def __init__(self, **kwargs) -> None:
        load_widgets_kv()
        load_kv("table")
        kwargs.setdefault("name", "table")
        super().__init__(**kwargs)
        self._layout_key: tuple = ()
        self._panels: list[SeatPanel] = []
        self._boxes: dict[tuple[int | None, str], CounterBox] = {}
        self._commit_event = None
        self.numpad: NumPad | None = None
        self._refit = Clock.create_trigger(lambda _dt: self._fit_columns())
        sizes.bind(orientation=lambda *_: self.refresh(force=True))
        self.bind(width=self._refit)
        theme.bind(body=self._refit)

    def bind_session(self, session: Any) -> None:
        self.session = session
        session.bind(on_state=lambda *_: self.refresh(), on_result=self._on_result)
        self.refresh()

    # -- from the session -------------------------------------------------------------------

    def _on_result(self, _session: Any, result: Result) -> None:
        self.message, self.refused = result_text(result)

    def refresh(self, force: bool = False) -> None:
        game = self.session.game if self.session is not None else None
        self.empty = game is None
        if game is None:
            self.view = None
            self.title, self.turn, self.phase, self.reminder, self.info = t("ui.table.empty"), "", "", "", ""
            self._build(None, force)
            return
        view = table_view(game)
        self.view = view
        self.title = view.title
        self.turn, self.phase, self.reminder, self.over = view.turn, view.phase, view.reminder, view.over
        self.info = "   ".join(markup(g, w) for g, w in view.info)
        self._build(view, force)
        self._fill(view)

    def _build(self, view: TableView | None, force: bool) -> None:
        """Panels are made once per table (and orientation); changes only update them."""
        key = (None if view is None else (view.game, tuple(s.name for s in view.seats), len(view.shared)),
               sizes.orientation, id(self.session.game) if self.session and self.session.game else 0)
        if key == self._layout_key and not force:
            return
        self._layout_key = key
        far, near, shared = self.ids.far_row, self.ids.near_row, self.ids.shared_row
        for row in (far, near, shared):
            row.clear_widgets()
        self._panels, self._boxes = [], {}
        self.cancel_pending()
        if view is None:
            return
        n = len(view.seats)
        near_count = (n + 1) // 2 if n > 1 else 1
        # Table order goes round: the near row left to right, then the far row, which is drawn
        # turned round, so its first seat is on the right as seen from the near side.
        for seat in view.seats:
            flipped = seat.index >= near_count
            panel = Factory.SeatPanel(index=seat.index, flipped=flipped)
            for c in seat.counters:
                box = self._counter_box(c, flipped)
                panel.ids.counters.add_widget(box)
            (far if flipped else near).add_widget(panel)
            self._panels.append(panel)
        for c in view.shared:
            shared.add_widget(self._counter_box(c, False))
        self._fit_columns()

    def _counter_box(self, c: CounterView, flipped: bool) -> CounterBox:
        box = CounterBox(seat=c.seat, counter=c.cid, name=c.name, glyph=c.glyph)
        box.bind(on_step=self._on_step, on_value_press=self._on_value_press)
        box.flipped = flipped
        self._boxes[(c.seat, c.cid)] = box
        return box

    def _fill(self, view: TableView) -> None:
        for seat, panel in zip(view.seats, self._panels, strict=True):
            panel.header = seat.header
            panel.active, panel.out, panel.winner = seat.active, seat.out, seat.winner
            panel.marks = "   ".join(markup(g, w) for g, w in seat.marks)
            for c in seat.counters:
                box = self._boxes[(c.seat, c.cid)]
                box.value, box.note, box.locked = c.value, c.note, c.locked
            self._seat_buttons(panel, seat.buttons)
        for c in view.shared:
            box = self._boxes[(None, c.cid)]
            box.value, box.locked = c.value, True
        self._actions(view.actions)
        self._show_pending()
        self._refit()

    def _seat_buttons(self, panel: SeatPanel, buttons: tuple[ButtonView, ...]) -> None:
        row = panel.ids.seat_buttons
        if [b.command for b in row.children[::-1]] == [b.command for b in buttons]:
            return
        row.clear_widgets()
        for b in buttons:
            button = SeatButton(glyph=b.glyph, word=b.word, command=b.command, action=b.id)
            button.bind(on_release=self._on_action)
            row.add_widget(button)

    def _actions(self, actions: tuple[ButtonView, ...]) -> None:
        bar = self.ids.actions
        if [(b.command, b.word) for b in bar.children[::-1]] == [(a.command, a.word) for a in actions]:
            return
        bar.clear_widgets()
        for a in actions:
            button = TableButton(glyph=a.glyph, word=a.word, command=a.command, action=a.id, stacked=True,
                                  kind="primary" if a.primary else "normal")
            button.bind(on_release=self._on_action)
            bar.add_widget(button)

    def _fit_columns(self) -> None:
        """As many panels side by side as the width allows, as many counters in each."""
        width = max(1.0, self.width - theme.gap)
        counter_w = 2 * sizes.touch + theme.heading * 4.6 + 16
        panel_min = counter_w + theme.gap * 2
        for row in (self.ids.far_row, self.ids.near_row):
            count = max(1, len(row.children))
            row.cols = max(1, min(count, int(width // panel_min)))
            panel_w = width / row.cols
            for panel in row.children:
                buttons = panel.ids.seat_buttons.width
                # The seat's own buttons go beside the counters when a counter still fits next
                # to them, under the counters otherwise.
                panel.stacked = panel_w - theme.gap - buttons < counter_w
                fits = int((panel_w - theme.gap - (0 if panel.stacked else buttons)) // counter_w)
                panel.counter_cols = max(1, min(len(panel.ids.counters.children), fits))
                # Glyph widths vary: about 0.62 em a letter for bold Atkinson Hyperlegible.
                long = len(panel.header) * theme.heading * 0.62 > panel_w * 0.6
                panel.header_wrap = panel_w * 0.6 if long else None
        shared = self.ids.shared_row
        shared.cols = max(1, min(len(shared.children) or 1, int(width // counter_w)))
        # The action buttons: two columns beside the words when the words keep 55 % of the width.
        buttons = self.ids.actions.children
        widest = max([b.width for b in buttons] or [sizes.touch])
        two_cols = 2 * widest + theme.gap
        self.wide = two_cols < width * 0.45
        self.actions_width = two_cols + 1 if self.wide else width

    # -- intents ---------------------------------------------------------------------------

    def invite_phones(self) -> None:
        from kivy.app import App

        from companion.ui.screens.phones import invite

        invite(App.get_running_app().runtime)

    def send(self, command: str | Intent) -> Result | None:
        if self.session is None:
            return None
        return self.session.apply(command, source="touch")

    def _on_action(self, button: TableButton) -> None:
        self.commit_pending()
        if button.command == "undo":
            self.session.undo()
        elif button.command == "redo":
            self.session.redo()
        else:
            self.send(button.command)

    def _on_step(self, box: CounterBox, delta: int) -> None:
        if self.pending and (self.pending[0], self.pending[1]) != (box.seat, box.counter):
            self.commit_pending()
        if box.value is None:
            # Nothing to add to (a Summoner's PV not entered yet): the engine says why.
            self.send(Intent("counter", box.seat, {"counter": box.counter, "amount": delta, "mode": "+"}))
            return
        total = (self.pending[2] if self.pending else 0) + delta
        self.pending = [box.seat, box.counter, total] if total else []
        self._show_pending()
        self._arm()

    def _on_value_press(self, box: CounterBox) -> None:
        if self.pending and (self.pending[0], self.pending[1]) == (box.seat, box.counter):
            self.commit_pending()
            return
        self.commit_pending()
        self.open_numpad(box)

    def open_numpad(self, box: CounterBox) -> NumPad:
        who = self.session.seat_names[box.seat] if box.seat is not None else t("table.shared")
        pad = NumPad(on_submit=lambda value: self.send(
            Intent("counter", box.seat, {"counter": box.counter, "amount": value, "mode": "="})),
            title=t("ui.type_for", name=who, counter=box.name), current=box.value,
            flipped=bool(getattr(box, "flipped", False)))
        self.numpad = pad
        pad.bind(on_dismiss=lambda *_: setattr(self, "numpad", None))
        pad.open()
        return pad

    def _arm(self) -> None:
        if self._commit_event is not None:
            self._commit_event.cancel()
        self._commit_event = Clock.schedule_once(lambda _dt: self.commit_pending(), PENDING_SECONDS) \
            if self.pending else None

    def commit_pending(self) -> Result | None:
        """Apply the change waiting on a counter (a tap on its value, a pause, another press)."""
        if self._commit_event is not None:
            self._commit_event.cancel()
            self._commit_event = None
        if not self.pending:
            return None
        seat, cid, delta = self.pending
        self.pending = []
        self._show_pending()
        return self.send(Intent("counter", seat, {"counter": cid, "amount": delta, "mode": "+"}))

    def cancel_pending(self) -> None:
        if self._commit_event is not None:
            self._commit_event.cancel()
            self._commit_event = None
        self.pending = []
        self._show_pending()

    def _show_pending(self) -> None:
        for (seat, cid), box in self._boxes.items():
            box.pending = self.pending[2] if self.pending and (self.pending[0], self.pending[1]) == (seat, cid) else 0

    def on_leave(self, *_args) -> None:
        self.commit_pending()

    # -- reading, for tests and keys --------------------------------------------------------

    def panel(self, seat: int) -> SeatPanel:
        return self._panels[seat]

    def counter_box(self, seat: int | None, cid: str) -> CounterBox:
        return self._boxes[(seat, cid)]

    def action(self, action_id: str) -> TableButton | None:
        for bar in [self.ids.actions, *(p.ids.seat_buttons for p in self._panels)]:
            for b in bar.children:
                if b.action == action_id:
                    return b
        return None

    def seat_action(self, seat: int, action_id: str) -> TableButton | None:
        return next((b for b in self._panels[seat].ids.seat_buttons.children if b.action == action_id), None)


