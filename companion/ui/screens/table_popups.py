"""What opens over the table for a moment, turned to the player who asked: the counter pad (a
new value or a change, shown before it is applied), a seat's menu of actions, the questions of
an action (whom, how much, which essences...), and the table's menu (the other screens). The
card laid over the table is card_overlay.py's."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from kivy.core.window import Window
from kivy.properties import NumericProperty, ObjectProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.gridlayout import GridLayout
from kivy.uix.label import Label
from kivy.uix.modalview import ModalView
from kivy.uix.textinput import TextInput

from companion.i18n import t
from companion.table.present import ActionView, SeatView
from companion.ui.theme import theme
from companion.ui.widgets import GLYPH_FONT, load_widgets_kv, sizes
from companion.ui.widgets.buttons import GlyphButton
from companion.ui.widgets.icons import mark
from companion.ui.widgets.turned import Turned

MAX_DIGITS = 4


class TurnedModal(ModalView):
    """A modal view whose content faces the seat at ``angle`` (0: the bottom side)."""

    def __init__(self, angle: int = 0, **kwargs) -> None:
        load_widgets_kv()
        kwargs.setdefault("auto_dismiss", True)
        kwargs.setdefault("background_color", (0, 0, 0, 0.75))
        super().__init__(**kwargs)
        self.size_hint = (None, None)
        w, h = Window.width, Window.height
        along, across = (w, h) if angle in (0, 180) else (h, w)
        frame_w, frame_h = min(along * 0.96, max(sizes.touch * 6, 620)), across * 0.96
        self.size = (frame_w, frame_h) if angle in (0, 180) else (frame_h, frame_w)
        self.turned = Turned(angle=angle)
        self.add_widget(self.turned)
        self.content = BoxLayout(orientation="vertical", padding=theme.gap / 2, spacing=4, size_hint=(None, None))
        self.turned.add_widget(self.content)
        self.turned.bind(frame_w=self._fit, frame_h=self._fit)
        with self.content.canvas.before:
            from kivy.graphics import Color, Rectangle

            Color(*theme.surface)
            self._bg = Rectangle(pos=(0, 0), size=(0, 0))
        self.frame = (frame_w, frame_h)

    def _fit(self, *_args) -> None:
        self.content.pos = (0, 0)
        self.content.size = (self.turned.frame_w, self.turned.frame_h)
        self._bg.size = self.content.size

    @property
    def room(self) -> float:
        """Height left for buttons under a title line and above a bottom row."""
        return self.frame[1] - theme.gap - 2 * (sizes.touch + 4) - theme.small * 2.5

    def title_label(self, text: str) -> Label:
        label = Label(text=text, markup=True, font_name=theme.font_name, font_size=min(theme.body, 28), bold=True,
                      color=theme.text, halign="center", valign="middle", size_hint_y=None,
                      height=min(theme.body, 28) * 2.6, shorten=False)
        label.bind(width=lambda lab, w: setattr(lab, "text_size", (w, lab.height)))
        return label

    def grid(self, count: int) -> GridLayout:
        rows = max(1, int(self.room // (sizes.touch + 4)))
        cols = max(1, math.ceil(count / rows))
        return GridLayout(cols=cols, spacing=4, size_hint_y=1)

    def button(self, word: str, glyph: str = "", kind: str = "normal", on: Callable[[], Any] | None = None,
               **kwargs: Any) -> GlyphButton:
        b = GlyphButton(word=word, glyph=glyph, wrap=True, kind=kind, **kwargs)
        b.font_size = min(theme.body, 26)
        if on is not None:
            b.bind(on_release=lambda *_: on())
        return b


class CounterPad(TurnedModal):
    """A counter's new value typed, or a change by - and +, shown as ``27 → 24`` before ✓."""

    title = StringProperty("")
    current = ObjectProperty(None, allownone=True)
    typed = StringProperty("")
    delta = NumericProperty(0)

    def __init__(self, on_submit: Callable[[int, str], None] | None = None, angle: int = 0, **kwargs) -> None:
        super().__init__(angle=angle, **{k: v for k, v in kwargs.items() if k not in ("title", "current")})
        self.title = kwargs.get("title", "")
        self.current = kwargs.get("current")
        self.on_submit = on_submit
        self.display = Label(markup=True, font_name=theme.font_name, font_size=min(theme.title, sizes.touch * 0.8),
                             bold=True, color=theme.accent, size_hint_y=None, height=sizes.touch)
        self.content.add_widget(self.title_label(self.title))
        self.content.add_widget(self.display)
        steps = GridLayout(cols=2, spacing=4, size_hint_y=None, height=sizes.touch)
        steps.add_widget(self.button(t("ui.table.minus_one"), "\u2212", on=lambda: self.step(-1)))
        steps.add_widget(self.button(t("ui.table.plus_one"), "+", on=lambda: self.step(1)))
        self.content.add_widget(steps)
        keys = GridLayout(cols=6 if self.frame[1] < sizes.touch * 7.5 else 3, spacing=4)
        for key in ("7", "8", "9", "4", "5", "6", "1", "2", "3", "0"):
            keys.add_widget(self.button(key, on=lambda k=key: self.press(k)))
        keys.add_widget(self.button(t("ui.erase"), "\u232b", on=lambda: self.press("back")))
        keys.add_widget(self.button(t("ui.cancel"), "\u2717", on=lambda: self.dismiss(animation=False)))
        self.content.add_widget(keys)
        self.ok = self.button("", "\u2713", kind="primary", on=self.submit, size_hint_y=None)
        self.ids = {"ok": self.ok}
        self.content.add_widget(self.ok)
        self.bind(typed=self._show, delta=self._show, current=self._show)
        self._show()

    def _show(self, *_args) -> None:
        now = "?" if self.current is None else str(self.current)
        arrow = f"[font={GLYPH_FONT}]\u2192[/font]"
        if self.typed:
            new: Any = int(self.typed)
        elif self.delta and self.current is not None:
            new = self.current + self.delta
        else:
            new = None
        self.display.text = f"{now} {arrow} {'…' if new is None else new}"
        self.ok.word = t("ui.apply", value=new) if new is not None else t("ui.type_value")
        self.ok.disabled = new is None

    def press(self, key: str) -> None:
        self.delta = 0
        if key == "back":
            self.typed = self.typed[:-1]
        elif key.isdigit() and len(self.typed) < MAX_DIGITS:
            self.typed = (self.typed + key).lstrip("0") or "0"

    def step(self, amount: int) -> None:
        self.typed = ""
        self.delta += amount

    def submit(self) -> None:
        if not self.typed and not self.delta:
            return
        value, mode = (int(self.typed), "=") if self.typed else (self.delta, "+")
        self.dismiss(animation=False)  # a fading pad would take the next tap
        if self.on_submit is not None:
            self.on_submit(value, mode)


class SeatMenu(TurnedModal):
    """A seat's less frequent actions, turned to that seat."""

    def __init__(self, screen: Any, seat: SeatView, angle: int = 0, **kwargs) -> None:
        super().__init__(angle=angle, **kwargs)
        self.screen, self.seat, self.angle = screen, seat, angle
        self.content.add_widget(self.title_label(t("ui.table.seat_actions", name=seat.name)))
        actions = list(seat.actions)
        body = self.grid(len(actions) or 1)
        self.buttons: dict[str, GlyphButton] = {}
        for a in actions:
            b = self.button(a.words, mark(a.mark), kind="primary" if a.urgent else "normal",
                            on=lambda a=a: self.choose(a))
            body.add_widget(b)
            self.buttons[a.id] = b
        if not actions:
            body.add_widget(Label(text=t("ui.table.no_action"), font_name=theme.font_name, color=theme.muted,
                                  font_size=min(theme.body, 26)))
        self.content.add_widget(body)
        self.content.add_widget(self.button(t("ui.table.close"), "\u2717", on=lambda: self.dismiss(animation=False),
                                            size_hint_y=None))

    def choose(self, action: ActionView) -> None:
        self.dismiss(animation=False)
        self.screen.run_action(action, self.angle)


class ActionAsk(TurnedModal):
    """The questions of one action, one after the other, then its command lines are sent."""

    def __init__(self, screen: Any, action: ActionView, angle: int = 0, **kwargs) -> None:
        super().__init__(angle=angle, **kwargs)
        self.screen, self.action, self.angle = screen, action, angle
        self.answers: dict[str, Any] = {}
        self.step = 0
        self.typed = ""
        self.picked: list[str] = []
        self.buttons: dict[str, GlyphButton] = {}
        self.text_input: TextInput | None = None
        self.show_step()

    @property
    def ask(self) -> str:
        return self.action.ask[self.step]

    def choices(self) -> list[tuple[str, str]]:
        game = self.screen.session.game
        from companion.i18n import language

        return game.rules.choices(game.state, self.action.seat, self.ask, language())

    def show_step(self) -> None:
        self.content.clear_widgets()
        self.buttons = {}
        self.text_input = None
        ask = self.ask
        self.content.add_widget(self.title_label(f"{self.action.words} — {t(f'ui.table.ask.{ask}')}"))
        if ask == "amount":
            self.typed = ""
            self.display = Label(text="…", font_name=theme.font_name, font_size=min(theme.title, sizes.touch * 0.8),
                                 bold=True, color=theme.accent, size_hint_y=None, height=sizes.touch)
            self.content.add_widget(self.display)
            keys = GridLayout(cols=6 if self.frame[1] < sizes.touch * 6.5 else 3, spacing=4)
            for key in ("1", "2", "3", "4", "5", "6", "7", "8", "9", "0"):
                b = self.button(key, on=lambda k=key: self.press(k))
                keys.add_widget(b)
                self.buttons[key] = b
            keys.add_widget(self.button(t("ui.erase"), "\u232b", on=lambda: self.press("back")))
            self.content.add_widget(keys)
            self._bottom(ok=True)
        elif ask in ("target", "vampire", "component", "essence"):
            options = self.choices()
            body = self.grid(len(options) + (1 if ask == "component" else 0))
            for value, words in options:
                b = self.button(words, on=lambda v=value: self.answer(v))
                body.add_widget(b)
                self.buttons[value] = b
            if ask == "component":  # a component nothing is on yet: its name, typed
                self.text_input = self._text_field(body)
            self.content.add_widget(body)
            self._bottom(ok=ask == "component")
        elif ask == "essences":
            options = self.choices()
            self.display = Label(text=t("ui.table.none_chosen"), font_name=theme.font_name,
                                 font_size=min(theme.body, 26), color=theme.accent, size_hint_y=None,
                                 height=sizes.touch * 0.8)
            self.content.add_widget(self.display)
            body = self.grid(len(options) + 1)
            self.picked = []
            for value, words in options:
                b = self.button(words, "+", on=lambda v=value: self.pick(v))
                body.add_widget(b)
                self.buttons[value] = b
            body.add_widget(self.button(t("ui.erase"), "\u232b", on=lambda: self.pick("")))
            self.content.add_widget(body)
            self._bottom(ok=True)
        elif ask == "text":
            body = BoxLayout(orientation="vertical")
            self.text_input = self._text_field(body)
            self.content.add_widget(body)
            self._bottom(ok=True)
        else:  # confirm
            self.content.add_widget(Label(text=t("ui.table.confirm", action=self.action.words),
                                          font_name=theme.font_name, font_size=min(theme.body, 26), color=theme.text))
            self._bottom(ok=True)

    def _text_field(self, parent: Any) -> TextInput:
        field = TextInput(multiline=False, font_name=theme.font_name, font_size=min(theme.body, 26),
                          size_hint_y=None, height=sizes.touch, hint_text=t(f"ui.table.ask.{self.ask}"))
        field.bind(on_text_validate=lambda *_: self.confirm())
        parent.add_widget(field)
        return field

    def _bottom(self, ok: bool) -> None:
        row = GridLayout(cols=2 if ok else 1, spacing=4, size_hint_y=None, height=sizes.touch)
        row.add_widget(self.button(t("ui.cancel"), "\u2717", on=lambda: self.dismiss(animation=False)))
        if ok:
            self.ok = self.button(t("ui.table.ok"), "\u2713", kind="primary", on=self.confirm)
            self.buttons["ok"] = self.ok
            row.add_widget(self.ok)
        self.content.add_widget(row)

    def press(self, key: str) -> None:
        if key == "back":
            self.typed = self.typed[:-1]
        elif len(self.typed) < MAX_DIGITS:
            self.typed = (self.typed + key).lstrip("0") or "0"
        self.display.text = self.typed or "…"

    def pick(self, value: str) -> None:
        if value:
            self.picked.append(value)
        elif self.picked:
            self.picked.pop()
        names = dict(self.choices())
        self.display.text = ", ".join(names.get(v, v) for v in self.picked) or t("ui.table.none_chosen")

    def confirm(self) -> None:
        ask = self.ask
        if ask == "amount":
            if not self.typed:
                return
            self.answer(self.typed)
        elif ask == "essences":
            self.answer(list(self.picked))
        elif ask in ("text", "component"):
            text = " ".join((self.text_input.text if self.text_input else "").split())
            if not text:
                return
            self.answer(text)
        else:
            self.answer(True)

    def answer(self, value: Any) -> None:
        self.answers[self.ask] = value
        self.step += 1
        if self.step < len(self.action.ask):
            self.show_step()
            return
        self.dismiss(animation=False)
        self.screen.send_lines(self.action.command_lines(self.answers))


class TableMenu(TurnedModal):
    """The other screens (they come back to the table) and the phase's whole reminder."""

    SCREENS = ("card", "rules", "log", "deck", "enroll", "settings", "home", "venue")

    def __init__(self, screen: Any, **kwargs) -> None:
        super().__init__(angle=0, **kwargs)
        self.screen = screen
        self.content.add_widget(self.title_label(screen.phase or t("ui.table.menu")))
        if screen.reminder:
            reminder = Label(text=screen.reminder, font_name=theme.font_name, font_size=min(theme.small, 22),
                             color=theme.text, halign="left", valign="top", size_hint_y=None,
                             height=min(theme.small, 22) * 3.6)
            reminder.bind(width=lambda lab, w: setattr(lab, "text_size", (w, lab.height)))
            self.content.add_widget(reminder)
        names = [s for s in self.SCREENS if screen.manager is not None and screen.manager.has_screen(s)]
        # The app's manager knows each screen's glyph without making the screen (see
        # LazyScreenManager.glyph); a plain one (a screen tested alone) is asked its screens.
        glyph_of = getattr(screen.manager, "glyph", None)
        glyphs = {n: glyph_of(n) if callable(glyph_of) else getattr(screen.manager.get_screen(n), "nav_glyph", "")
                  for n in names}
        body = self.grid(len(names))
        self.buttons: dict[str, GlyphButton] = {}
        for name in names:
            b = self.button(t(f"nav.{name}"), glyphs.get(name, ""), on=lambda n=name: self.go(n))
            body.add_widget(b)
            self.buttons[name] = b
        self.content.add_widget(body)
        if not screen.empty:
            # The phones' invitation lives here since the table has no column of buttons any more.
            self.invite = self.button(t("phones.title"), on=self.invite_phones, size_hint_y=None)
            self.content.add_widget(self.invite)
        self.content.add_widget(self.button(t("ui.table.close"), "\u2717", on=lambda: self.dismiss(animation=False),
                                            size_hint_y=None))

    def go(self, name: str) -> None:
        self.dismiss(animation=False)
        self.screen.show_screen(name)

    def invite_phones(self) -> None:
        self.dismiss(animation=False)
        self.screen.invite_phones()


class ResultPanel(TurnedModal):
    """The venue's result waiting for the players' word (the game ended, or they asked): each
    player's VP and the game win as the venue's core words them (``TableLink.result_view``), then
    Confirm, Contest (the organiser is called to the table) and Later. The buttons send what a
    phone's, a key's and the console's words send (``Runtime.venue_action``); Enter, X and Escape
    do the same from the keys, and the proposal was already said when it came."""

    def __init__(self, screen: Any, view: dict[str, Any], runtime: Any, **kwargs: Any) -> None:
        super().__init__(angle=0, **kwargs)
        self.screen, self.runtime, self.view = screen, runtime, view
        self.content.add_widget(self.title_label(view["title"]))
        size = min(theme.body, 26)
        rows = GridLayout(cols=1 if len(view["rows"]) <= 3 else 2, spacing=2)
        self.rows: list[Label] = []
        for text in view["rows"]:
            label = Label(text=text, font_name=theme.font_name, font_size=size, color=theme.text, halign="left",
                          valign="middle", shorten=True)
            label.bind(size=lambda lab, s: setattr(lab, "text_size", s))
            rows.add_widget(label)
            self.rows.append(label)
        self.content.add_widget(rows)
        self.win = Label(text=view["win"], font_name=theme.font_name, font_size=size, bold=True, color=theme.accent,
                         size_hint_y=None, height=size * 1.8)
        self.content.add_widget(self.win)
        bar = GridLayout(cols=3, spacing=4, size_hint_y=None, height=sizes.touch * 1.2)
        bar.bind(minimum_height=bar.setter("height"))  # words wrapped on two lines stay inside
        self.confirm = self.button(t("venue.result.confirm"), mark("ok"), kind="primary",
                                   on=lambda: self.act("confirm_result"))
        self.contest = self.button(t("venue.result.contest"), mark("refused"), on=lambda: self.act("contest_result"))
        self.later = self.button(t("venue.result.later"), on=self.not_now)
        for b in (self.confirm, self.contest, self.later):
            bar.add_widget(b)
        self.content.add_widget(bar)

    def focus_order(self) -> list[Any]:
        return [self.confirm, self.contest, self.later]

    def not_now(self) -> None:
        """Later: closed; a result asked for during the game stops waiting (the core decides)."""
        self.dismiss(animation=False)
        if self.runtime is not None:
            self.runtime.result_later()

    def act(self, action_id: str) -> None:
        self.dismiss(animation=False)
        if self.runtime is not None:
            self.runtime.venue_action(None, action_id, source="touch")
