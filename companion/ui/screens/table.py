"""The table screen is the table: every seat at once, each panel on its player's side of the
screen and turned to face them, the big number first, and a strip in the middle with whose
turn it is, the phase, next / end / undo / redo and a small menu. Nothing scrolls.

What is shown comes from ``companion.table.present.table_view`` (words and numbers worked out
by the game's rules and game.yaml); this module never names a game. Where things go comes from
``companion.ui.table_layout`` (plain numbers). Every press becomes a command or an intent sent
to the session; the screen redraws when the session says the game changed, so what is on the
screen is always what is in the journal.

Its parts live beside it: the seats' panels and counters in ``companion.ui.widgets``
(seat_panel.py, counter.py, placed.py, icons.py), what opens over the table in table_popups.py
and card_overlay.py, the layout report in ``companion.ui.table_report``.
"""

from __future__ import annotations

import dataclasses
import json
import time
from typing import Any

from kivy.clock import Clock
from kivy.metrics import dp  # noqa: F401 - kv rules of this screen may use it
from kivy.properties import BooleanProperty, ListProperty, ObjectProperty, StringProperty
from kivy.uix.screenmanager import Screen
from kivy.uix.widget import Widget
from kivy.utils import escape_markup

from companion.i18n import t
from companion.play.seat_policy import VENUE_ACTIONS
from companion.table.engine import Intent, Result, render
from companion.table.model import duration_text
from companion.table.present import ActionView, CounterView, SeatView, TableView, table_view
from companion.ui.screens import load_kv
from companion.ui.screens.card_overlay import CardOverlay
from companion.ui.screens.table_popups import ActionAsk, CounterPad, ResultPanel, SeatMenu, TableMenu
from companion.ui.table_layout import (
    Box,
    panel_fonts,
    panel_thickness,
    plan_panel,
    plan_strip,
    plan_table,
    valid_sides,
)
from companion.ui.table_report import layout_report
from companion.ui.theme import theme
from companion.ui.widgets import load_widgets_kv, sizes
from companion.ui.widgets.buttons import compose
from companion.ui.widgets.counter import PENDING_SECONDS, SeatCounter
from companion.ui.widgets.icons import counter_glyph, mark, marks_text, markup
from companion.ui.widgets.placed import PanelButton, place
from companion.ui.widgets.seat_panel import SeatPanel

__all__ = ["TableScreen", "table_view", "result_text", "TableView", "SeatView", "CounterView"]

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


class TableScreen(Screen):
    session = ObjectProperty(None, allownone=True)
    title = StringProperty("")
    turn = StringProperty("")  # markup
    phase = StringProperty("")
    reminder = StringProperty("")
    phase_line = StringProperty("")  # markup: the phase and its reminder
    message = StringProperty("")  # markup: the last answer
    refused = BooleanProperty(False)
    info = StringProperty("")  # markup
    clock = StringProperty("")
    over = BooleanProperty(False)
    empty = BooleanProperty(True)  # no game yet
    pending = ListProperty([])  # [seat, counter, delta] while a change waits to be applied
    view = ObjectProperty(None, allownone=True)
    strip_box = ListProperty([0, 0, 0, 0])
    immersive = True  # the app hides its navigation bar here: the table takes the whole window

    def __init__(self, **kwargs) -> None:
        load_widgets_kv()
        load_kv("table")
        kwargs.setdefault("name", "table")
        super().__init__(**kwargs)
        self._layout_key: tuple = ()
        self._panels: list[SeatPanel] = []
        self._boxes: dict[tuple[int | None, str], SeatCounter] = {}
        self._strip_buttons: list[PanelButton] = []
        self._shared: list[SeatCounter] = []
        self._commit_event = None
        self.numpad: Any = None
        self.menu: Any = None
        self.card_overlay: Any = None
        # A bound method, held weakly by the clock: the theme's and the sizes' bindings keep the
        # trigger, and through a lambda they kept this screen (and its app root) forever.
        self._relayout = Clock.create_trigger(self._arrange_later)
        self.bind(size=self._relayout)
        theme.bind(body=self._relayout)
        sizes.bind(touch=self._relayout)
        self._ticker = None
        self.runtime: Any = None  # the app's runtime (set by a test that has no running app)
        self._joined = False  # the table has joined a venue: the judge button and the round clock
        self.result_panel: Any = None  # the venue's result waiting for the players' word, shown
        self._result_shown: str | None = None  # which result it was (Later: not shown again unasked)
        self._news_off: list[Any] = []

    def _arrange_later(self, _dt: float) -> None:
        self.arrange()

    def _runtime(self) -> Any:
        if self.runtime is not None:
            return self.runtime
        from kivy.app import App

        return getattr(App.get_running_app(), "runtime", None)

    def venue(self) -> Any:
        """The venue's link of this table (companion.venue.link.TableLink), or None."""
        return getattr(self._runtime(), "venue", None)

    def call_judge(self) -> bool:
        """The judge button: the same call as the key A and the console's word "juge"."""
        runtime = self._runtime()
        return bool(runtime is not None and runtime.call_judge())

    # -- the venue's result ------------------------------------------------------------------

    def _watch_venue(self) -> None:
        """Follow the venue's news (a result pending or settled, a venue joined or left) on Kivy's
        thread: the result is shown as it comes, over the table."""
        news = getattr(self._runtime(), "venue_news", None)
        if self._news_off or news is None:
            return

        def hop(*_args: Any) -> None:
            Clock.schedule_once(lambda _dt: self.show_result(asked=True))

        self._news_off = [news.subscribe("result", hop), news.subscribe("joined", hop)]

    def show_result(self, asked: bool = False) -> Any:
        """Show the venue's pending result (or close it once settled); ``asked``: it came now (the
        game's end, the players asked), so shown again even if Later had closed it."""
        link = self.venue()
        view = link.result_view() if callable(getattr(link, "result_view", None)) else None
        key = None if view is None else json.dumps(view["body"], sort_keys=True, default=str)
        panel = self.result_panel
        if view is None:
            self._result_shown = None
            if panel is not None:
                panel.dismiss(animation=False)
            return None
        if panel is not None and key == self._result_shown:
            return panel
        if panel is not None:
            panel.dismiss(animation=False)
        elif not asked and key == self._result_shown:
            return None  # left for later: the key V, a seat's menu or a phone bring it back
        if self.manager is None or self.manager.current != self.name:
            return None  # shown when the table is (on_enter)
        panel = ResultPanel(self, view, self._runtime())
        self.result_panel = panel
        self._result_shown = key

        def closed(*_args: Any) -> None:
            if self.result_panel is panel:
                self.result_panel = None

        panel.bind(on_dismiss=closed)
        panel.open(animation=False)
        return panel

    def close_overlay(self) -> bool:
        """Escape: what is open over the table closes (the result as "Plus tard" does, a menu unused)."""
        if self.result_panel is not None:
            self.result_panel.not_now()
            return True
        if self.menu is not None:
            self.menu.dismiss(animation=False)
            return True
        return False

    def bind_session(self, session: Any) -> None:
        self.session = session
        session.bind(on_state=lambda *_: self.refresh(), on_result=self._on_result, on_scan=self._on_scan,
                     on_proposal=self._on_proposal)
        # A screen built on first use (after the first frame) comes after the game's first answer
        # (who starts, "reprise"): it shows the last one, as if it had been there.
        last = getattr(session, "last_result", None)
        if last is not None:
            self._on_result(session, last)
        self.refresh()

    @property
    def takes_scans(self) -> bool:
        """A card laid while the table is shown stays on the table (over it, see show_card);
        an unknown tag still goes to enrollment."""
        scan = getattr(self.session, "last_scan", None)
        return getattr(scan, "status", "") == "card"

    def _on_scan(self, _session: Any, scan: Any) -> None:
        if self.manager is not None and self.manager.current == self.name and getattr(scan, "status", "") == "card":
            self.show_card(scan)

    def _on_proposal(self, _session: Any, proposal: Any) -> None:
        overlay = self.card_overlay
        if proposal is not None:
            if overlay is None and self.manager is not None and self.manager.current == self.name \
                    and self.session.last_scan is not None:
                overlay = self.show_card(self.session.last_scan)
            if overlay is not None:
                overlay.show_proposal(proposal)
        elif overlay is not None and overlay.proposal is not None:
            overlay.close()  # applied, left, or the table moved on: the question is answered

    def show_card(self, scan: Any) -> Any:
        """The card over the middle of the table, turned to the seat that laid it (its reader's
        seat, else the player whose turn it is)."""
        if self.card_overlay is not None:
            self.card_overlay.close()
        seat = scan.seat - 1 if isinstance(getattr(scan, "seat", None), int) and scan.seat > 0 else None
        game = self.session.game if self.session is not None else None
        if seat is None and game is not None:
            seat = game.state.get("active")
        overlay = CardOverlay(self, scan, angle=self.angle_of(seat))
        place(overlay, tuple(self.strip_box))
        overlay._turn()
        self.add_widget(overlay)
        self.card_overlay = overlay
        return overlay

    # -- from the session -------------------------------------------------------------------

    def _on_result(self, _session: Any, result: Result) -> None:
        self.message, self.refused = result_text(result)

    def relabel(self) -> None:
        """The language changed: the seats, the strip and its buttons are written again."""
        for b in self._strip_buttons:
            self.ids.actions.remove_widget(b)
        self._strip_buttons = []
        self.refresh(force=True)

    def refresh(self, force: bool = False) -> None:
        game = self.session.game if self.session is not None else None
        self.empty = game is None
        if game is None:
            self.view = None
            self.title, self.turn, self.phase, self.reminder, self.info = t("ui.table.empty"), "", "", "", ""
            self.phase_line = ""
            self._build(None, force)
            return
        view = table_view(game)
        self.view = view
        self.title = view.title
        self.turn = markup(mark(view.turn_mark), view.turn)
        self.phase, self.reminder, self.over = view.phase, view.reminder, view.over
        self.info = "   ".join(markup(mark(m), w) for m, w in view.info)
        self.phase_line = "   ".join(x for x in (
            f"[b]{escape_markup(view.phase)}[/b]" if view.phase else "", escape_markup(view.reminder), self.info) if x)
        self._build(view, force)
        self._fill(view)
        self._tick()

    def sides(self) -> list[str]:
        game = self.session.game if self.session is not None else None
        if game is None:
            return []
        return valid_sides(game.state.get("options", {}).get("sides"), len(game.state["seats"]))

    def _build(self, view: TableView | None, force: bool) -> None:
        """Panels are made once per table; changes only update them."""
        shape = None if view is None else (view.game, tuple(s.name for s in view.seats),
                                           tuple(c.cid for c in view.shared))
        key = (shape, id(self.session.game) if self.session and self.session.game else 0)
        if key == self._layout_key and not force:
            return
        self._layout_key = key
        seats = self.ids.seats
        seats.clear_widgets()
        for box in self._shared:
            self.ids.actions.remove_widget(box)
        self._panels, self._boxes, self._shared = [], {}, []
        self.cancel_pending()
        if view is None:
            self.arrange()
            return
        for seat in view.seats:
            panel = SeatPanel(index=seat.index)
            panel.menu_button.bind(on_release=lambda _b, i=seat.index: self.open_seat_menu(i))
            panel.urgent_button.bind(on_release=self._on_urgent)
            for c in seat.counters:
                box = SeatCounter(seat=c.seat, counter=c.cid, name=c.name, main=c.main,
                                  glyph=counter_glyph(view.game, c.cid))
                box.bind(on_step=self._on_step, on_value_press=self._on_value_press)
                panel.add_widget(box)
                panel.counters.append(box)
                self._boxes[(c.seat, c.cid)] = box
            seats.add_widget(panel)
            self._panels.append(panel)
        for c in view.shared:  # the table's own numbers (a shared pool), in the strip
            box = SeatCounter(seat=None, counter=c.cid, name=c.name, main=False, locked=True,
                              glyph=counter_glyph(view.game, c.cid))
            self.ids.actions.add_widget(box)
            self._shared.append(box)
            self._boxes[(None, c.cid)] = box
        self.arrange()

    def _fill(self, view: TableView) -> None:
        for seat, panel in zip(view.seats, self._panels, strict=True):
            panel.header = seat.header
            panel.active, panel.out, panel.winner = seat.active, seat.out, seat.winner
            panel.marks = marks_text(seat.marks)
            for c in seat.counters:
                box = self._boxes[(c.seat, c.cid)]
                box.value, box.note, box.locked = c.value, c.note, c.locked
            urgent = next((a for a in seat.actions if a.urgent), None)
            panel.urgent_button.action = urgent.id if urgent else ""
            panel.urgent_button.word = urgent.words if urgent else ""
            panel.urgent_button.glyph = mark(urgent.mark) if urgent else ""
        for c in view.shared:
            box = self._boxes[(None, c.cid)]
            box.value, box.locked = c.value, True
        self._strip_actions(view)
        self._show_pending()
        self.arrange()

    # -- where everything goes --------------------------------------------------------------

    def arrange(self) -> None:
        """Place the panels and the strip for the window as it is now (nothing scrolls); the
        numbers come from ``companion.ui.table_layout``."""
        width, height = self.width, self.height
        if width <= 1 or height <= 1:
            return
        touch, mm = sizes.touch, sizes.mm
        head, small = theme.heading, theme.small
        gap = max(3.0, mm)
        view = self.view
        # The strip's words keep the window's size at any text scale: a larger one would take the
        # seats' room, and the numbers come first (the other screens follow the text scale).
        line = min(max(small, theme.body), theme.base) * 1.3
        sides = self.sides()
        if view is None or not self._panels or len(sides) != len(self._panels):
            self.strip_box = [0, 0, width, height]
            self._arrange_strip((0, 0, width, height), line)
            return
        mains = max(1, sum(1 for c in view.seats[0].counters if c.main))
        chips = sum(1 for c in view.seats[0].counters if not c.main)
        digits = max([len(str(abs(c.value))) if isinstance(c.value, int) else 1
                      for s in view.seats for c in s.counters if c.main] + [1])
        urgent = self._has_urgent()

        def plan_for(frame: Any) -> Any:
            head_f, small_f = panel_fonts(head, small, frame.h)
            return plan_panel(frame.w, frame.h, mains=mains, chips=chips, digits=digits, touch=touch, mm=mm,
                              head=head_f, small=small_f, urgent=urgent)

        table = plan_table(width, height, sides, self._strip_widths(), 3 * line + gap, touch=touch, gap=gap,
                           wanted=panel_thickness(touch, mm, min(head, 30.0), min(small, 22.0), mains, big=True),
                           plan_for=plan_for)
        self.strip_box = list(table.strip)
        for f, plan, panel in zip(table.frames, table.plans, self._panels, strict=True):
            head_f, small_f = panel_fonts(head, small, f.h)
            place(panel, f.box)
            panel.angle = f.angle
            panel.side = f.side
            panel._turn()
            panel.arrange(plan, head_f, small_f)
            k = 0
            for box in panel.counters:
                if box.main:
                    box.small_px = small_f
                    box.font_px = plan.main_font
                    box.arrange(plan.mains[k], plan.steppers)
                    k += 1
                else:
                    j = panel.counters.index(box) - mains
                    chip = plan.chips[j] if j < len(plan.chips) else (0, 0, 0, 0)
                    # Three lines (the value, a name on two lines) always fit the chip.
                    box.font_px = min(small_f * 1.2, chip[3] * 0.3)
                    box.small_px = min(small_f * 0.9, chip[3] * 0.26)
                    box.arrange({"value": chip}, False)
        self._arrange_strip(table.strip, line)
        if self.card_overlay is not None:
            place(self.card_overlay, tuple(table.strip))

    def _has_urgent(self) -> bool:
        """Whether the game has actions its rules wait for, that a seat shows on itself."""
        game = self.session.game if self.session is not None else None
        return game is not None and any(a.get("urgent") for a in game.data.present.get("actions", []))

    def _strip_actions(self, view: TableView) -> None:
        s = self.session.game.state if self.session and self.session.game else {}
        wanted = [("menu", "\u2630", t("ui.table.menu"), "", False)]
        if self._joined:  # a venue's table: a judge is one press away
            wanted += [("judge", "\u2691", t("venue.judge.button"), "", False)]
        wanted += [("undo", "\u21b6", t("ui.undo"), "undo", False),
                  ("redo", "\u21b7", t("ui.redo"), "redo", False)]
        if not view.over:
            wanted += [("next", "\u279c", t("ui.next"), "next", True), ("end", "\u21e5", t("ui.end"), "end", False)]
        wanted += [(a.id, mark(a.mark), a.words, a.commands[0] if a.commands else "", False) for a in view.actions]
        if [b.action for b in self._strip_buttons] == [w[0] for w in wanted] and s:
            return
        bar = self.ids.actions
        for b in self._strip_buttons:
            bar.remove_widget(b)
        self._strip_buttons = []
        for action_id, glyph, word, command, primary in wanted:
            b = PanelButton(glyph=glyph, word=word, command=command, action=action_id,
                            kind="primary" if primary else "normal")
            b.bind(on_release=self._on_action)
            bar.add_widget(b)
            self._strip_buttons.append(b)
        self._size_strip_buttons()

    def _size_strip_buttons(self) -> None:
        small = max(12.0, min(theme.small, 20.0))
        for b in self._strip_buttons:
            b.font_size = small
            longest = max(len(b.word), 2)
            b.width_wanted = max(sizes.touch, min(longest * small * 0.56 + 12, sizes.touch * 2.2))

    def _strip_items(self) -> list[Any]:
        """What sits in rows at the bottom of the strip: its buttons, then the shared counters."""
        for box in self._shared:
            box.width_wanted = sizes.touch * 1.7
        return [*self._strip_buttons, *self._shared]

    def _strip_widths(self) -> list[float]:
        return [item.width_wanted for item in self._strip_items()]

    def _arrange_strip(self, box: Box, line: float) -> None:
        x, y, w, h = box
        ids = self.ids
        if self.empty:
            gap = max(3.0, sizes.mm)
            for lab in (ids.phase_label, ids.message_label, ids.clock_label):
                place(lab, (x, y, 0, 0))
            place(ids.turn_label, (x + gap, y + h / 2, w - 2 * gap, line * 1.2))
            ids.turn_label.font_size = theme.heading
            place(ids.go_home, (x + w / 2 - sizes.touch, y + h / 2 - sizes.touch * 1.2, sizes.touch * 2, sizes.touch))
            ids.go_home.font_size = theme.small
            return
        place(ids.go_home, (x, y, 0, 0))
        self._size_strip_buttons()
        touch = sizes.touch
        items = self._strip_items()
        strip = plan_strip(box, [item.width_wanted for item in items], line, touch, max(3.0, sizes.mm),
                           clock_chars=11 if self._joined else 5)
        for item, item_box in zip(items, strip.items, strict=True):
            if isinstance(item, SeatCounter):
                item.font_px, item.small_px = min(theme.small * 1.2, touch * 0.3), min(theme.small * 0.9, touch * 0.26)
                item.arrange({"value": item_box}, False)
            else:
                place(item, item_box)
        for lab, lab_box in ((ids.turn_label, strip.turn), (ids.clock_label, strip.clock),
                             (ids.phase_label, strip.phase), (ids.message_label, strip.message)):
            place(lab, lab_box)
        each = strip.lines
        for lab in (ids.turn_label, ids.phase_label, ids.message_label):
            lab.max_lines = each
            lab.shorten = each == 1
            lab.valign = "top" if each > 1 else "middle"
        ids.turn_label.font_size = min(theme.heading, strip.font * (1.1 if each == 1 else 0.95))
        for lab in (ids.phase_label, ids.message_label, ids.clock_label):
            lab.font_size = strip.font * 0.9

    # -- the turn clock ---------------------------------------------------------------------

    def on_enter(self, *_args) -> None:
        if self._ticker is None:
            # A bound method: the clock holds it weakly, so a screen dropped with its window's
            # root (the app closed) is freed instead of ticking on unseen every second.
            self._ticker = Clock.schedule_interval(self._on_ticker, 1.0)
        self._tick()
        self.show_result()

    def _on_ticker(self, _dt: float) -> bool:
        if self.get_root_window() is None:  # taken out of the window: its clock stops
            self._ticker = None
            return False
        self._tick()
        return True

    def on_leave(self, *_args) -> None:
        self.commit_pending()
        if self._ticker is not None:
            self._ticker.cancel()
            self._ticker = None

    def _tick(self) -> None:
        self._watch_venue()
        link = self.venue()
        if (link is not None) != self._joined:  # joined (or left) a venue: the judge button
            self._joined = link is not None
            if self.view is not None:
                self._strip_actions(self.view)
                self.arrange()
        game = self.session.game if self.session is not None else None
        parts = []
        if game is not None and not game.state.get("over") and game.state.get("active") is not None:
            # duration_text: a clock moved by a system clock jump shows "--:--", not 525600:00.
            parts.append(compose("\u25f7", duration_text(int(time.time() - float(game.state["clock"]["turn"])))))
        left = link.seconds_left() if link is not None else None
        if left is not None:  # the organiser's round clock, counted down here even with the hub gone
            parts.append(escape_markup(t("venue.clock.label", round=link.round_clock.get("round"),
                                         left=duration_text(int(left)))))
        self.clock = "   ".join(parts)

    # -- intents ---------------------------------------------------------------------------

    def invite_phones(self) -> None:
        from kivy.app import App

        from companion.ui.screens.phones import invite

        # A seat whose panel faces the far side reads its QR code turned to it, as it reads its numbers.
        far = {seat + 1 for seat in range(len(self._panels)) if self.angle_of(seat) == 180}
        invite(App.get_running_app().runtime, far=far)

    def send(self, command: str | Intent) -> Result | None:
        if self.session is None:
            return None
        return self.session.apply(command, source="touch")

    def _on_action(self, button: PanelButton) -> None:
        self.commit_pending()
        if button.action == "menu":
            self.open_menu()
        elif button.action == "judge":
            self.call_judge()
        elif button.command == "undo":
            self.session.undo()
        elif button.command == "redo":
            self.session.redo()
        else:
            self.send(button.command)

    def _on_urgent(self, button: PanelButton) -> None:
        panel = button.parent
        seat = self.view.seats[panel.index] if self.view else None
        action = next((a for a in seat.actions if a.id == button.action), None) if seat else None
        if action is not None:
            self.run_action(action, panel.angle)

    def _on_step(self, box: SeatCounter, delta: int) -> None:
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

    def _on_value_press(self, box: SeatCounter) -> None:
        if box.seat is None:  # the table's own numbers follow the seats' changes
            return
        if self.pending and (self.pending[0], self.pending[1]) == (box.seat, box.counter):
            self.commit_pending()
            return
        self.commit_pending()
        self.open_numpad(box)

    def angle_of(self, seat: int | None) -> int:
        if seat is None or not 0 <= seat < len(self._panels):
            return 0
        return int(self._panels[seat].angle)

    def open_numpad(self, box: SeatCounter) -> Any:
        who = self.session.seat_names[box.seat] if box.seat is not None else t("table.shared")

        def submit(value: int, mode: str) -> None:
            self.send(Intent("counter", box.seat, {"counter": box.counter, "amount": value, "mode": mode}))

        pad = CounterPad(on_submit=submit, title=t("ui.type_for", name=who, counter=box.name), current=box.value,
                         angle=self.angle_of(box.seat))
        self.numpad = pad
        pad.bind(on_dismiss=lambda *_: setattr(self, "numpad", None))
        pad.open()
        return pad

    def open_seat_menu(self, seat: int) -> Any:
        self.commit_pending()
        view = self.view.seats[seat] if self.view else None
        if view is None:
            return None
        runtime = self._runtime()
        if callable(getattr(runtime, "venue_actions", None)):  # a venue's: the result's word, a judge
            view = dataclasses.replace(view, actions=view.actions + tuple(runtime.venue_actions(seat)))
        menu = SeatMenu(screen=self, seat=view, angle=self.angle_of(seat))
        self.menu = menu
        menu.bind(on_dismiss=lambda *_: setattr(self, "menu", None))
        menu.open()
        return menu

    def open_menu(self) -> Any:
        menu = TableMenu(screen=self)
        self.menu = menu
        menu.bind(on_dismiss=lambda *_: setattr(self, "menu", None))
        menu.open()
        return menu

    def run_action(self, action: ActionView, angle: int = 0, answers: dict[str, Any] | None = None) -> Any:
        """An action of a seat: ask its questions (turned to that seat), then send its lines."""
        if action.id in VENUE_ACTIONS and not action.commands:
            runtime = self._runtime()
            seat = action.seat + 1 if action.seat is not None else None
            return runtime.venue_action(seat, action.id, source="touch") if runtime is not None else None
        if action.ask:
            ask = ActionAsk(screen=self, action=action, angle=angle)
            self.menu = ask
            ask.bind(on_dismiss=lambda *_: setattr(self, "menu", None))
            ask.open()
            return ask
        return self.send_lines(action.command_lines(answers))

    def send_lines(self, lines: list[str]) -> Result | None:
        result = None
        for line in lines:
            result = self.send(line)
            if result is None or not result.ok:
                break
        return result

    def show_screen(self, name: str) -> None:
        if self.manager is not None and self.manager.has_screen(name):
            self.manager.current = name

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

    # -- reading, for tests, keys and the layout report ----------------------------------------

    def panel(self, seat: int) -> SeatPanel:
        return self._panels[seat]

    def counter_box(self, seat: int | None, cid: str) -> SeatCounter:
        return self._boxes[(seat, cid)]

    def action(self, action_id: str) -> PanelButton | None:
        for b in self._strip_buttons:
            if b.action == action_id:
                return b
        return None

    def seat_action(self, seat: int, action_id: str) -> PanelButton | None:
        b = self._panels[seat].urgent_button
        return b if b.action == action_id and b.opacity > 0 else None

    def focus_order(self) -> list[Widget]:
        if self.result_panel is not None:  # over the table: Tab goes through its buttons
            return self.result_panel.focus_order()
        out: list[Widget] = []
        for panel in self._panels:
            for box in panel.counters:
                out += [w for w in (box.minus, box.value_button, box.plus) if w.opacity > 0]
            out += [panel.urgent_button, panel.menu_button]
        return out + list(self._strip_buttons)

    def layout_report(self) -> dict[str, Any]:
        """Every counter and button of the table with its box in window pixels (see
        ``python -m companion screenshots --layout``)."""
        return layout_report(self)
