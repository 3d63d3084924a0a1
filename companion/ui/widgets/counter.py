"""One counter of a seat on the Table screen: its name, its value, and big minus and plus
buttons when there is room.

A press does not change the game at once: it builds a pending change that the value shows as
``27 → 24`` (the new total in bold, and a check mark). A tap on the value applies it; so does a
short pause (``PENDING_SECONDS``), so that a table can just tap and go on. With nothing pending,
a tap on the value opens the number pad to type the new value.
"""

from __future__ import annotations

from kivy.properties import BooleanProperty, NumericProperty, ObjectProperty, StringProperty
from kivy.uix.widget import Widget

from companion.i18n import t
from companion.ui.theme import theme
from companion.ui.widgets import GLYPH_FONT, sizes
from companion.ui.widgets.buttons import compose
from companion.ui.widgets.placed import Box, FitLabel, PanelButton, place

PENDING_SECONDS = 3.0


def value_markup(value: int | None, pending: int, small: float) -> str:
    """The value, or ``old → new`` and a check mark while a change waits to be applied."""
    shown = "?" if value is None else str(value)
    if not pending or value is None:
        return shown
    new = value + pending
    check = compose("\u2713", t("ui.apply", value=new))
    arrow = f"[font={GLYPH_FONT}]\u2192[/font]"  # not in Atkinson Hyperlegible
    return f"{shown} {arrow} [b]{new}[/b]\n[size={int(small)}]{check}[/size]"


def _sized(text: str, size: float) -> str:
    return f"[size={int(size)}]{text}[/size]"


class SeatCounter(Widget):
    """One counter of a seat: a main one (its name, big value, and - and + when there is room)
    or a small one (name and value; a tap opens the pad). The value shows a pending change as
    ``27 → 24`` before it is applied."""

    seat = ObjectProperty(None, allownone=True)
    counter = StringProperty("")
    name = StringProperty("")
    glyph = StringProperty("")
    value = ObjectProperty(None, allownone=True)
    pending = NumericProperty(0)
    note = StringProperty("")
    locked = BooleanProperty(False)
    main = BooleanProperty(False)
    width_wanted = NumericProperty(0)
    font_px = NumericProperty(20)
    small_px = NumericProperty(16)
    steppers = BooleanProperty(False)

    __events__ = ("on_step", "on_value_press")

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.title = FitLabel(halign="center", bold=True)
        self.minus = PanelButton(glyph="\u2212", stacked=False)
        self.plus = PanelButton(glyph="+", stacked=False)
        self.value_button = PanelButton(kind="quiet")
        for w in (self.title, self.minus, self.value_button, self.plus):
            self.add_widget(w)
        self.ids = {"title": self.title, "minus": self.minus, "plus": self.plus, "value_button": self.value_button}
        self.minus.bind(on_release=lambda *_: self.dispatch("on_step", -1))
        self.plus.bind(on_release=lambda *_: self.dispatch("on_step", 1))
        self.value_button.bind(on_release=lambda *_: self.dispatch("on_value_press"))
        self.bind(value=self._show, pending=self._show, note=self._show, locked=self._show, name=self._show,
                  font_px=self._show, small_px=self._show, glyph=self._show, main=self._show)
        self._show()

    def _show(self, *_args) -> None:
        caption = compose(self.glyph, self.name) + (f" {self.note}" if self.note else "")
        self.title.text = caption
        if not self.main and len(self.note) > 8:  # a small counter keeps its room for its name
            caption = compose(self.glyph, self.name)
        self.title.font_size = self.small_px
        self.title.color = theme.muted
        for b in (self.minus, self.plus, self.value_button):
            # The table's own numbers are shown plainly. A stepper ``arrange`` hid stays disabled:
            # enabling it here and disabling it there again drew its label anew at every change.
            hidden = b is not self.value_button and b.opacity == 0
            b.disabled = hidden or (self.locked and self.seat is not None)
        self.minus.font_size = self.plus.font_size = max(self.small_px, min(self.font_px * 0.6, sizes.touch * 0.6))
        if self.main:
            # Never wrapped: a number split over two lines would show a wrong number.
            self.value_button.free = not self.pending
            self.value_button.text = value_markup(self.value, self.pending, self.small_px)
            self.value_button.font_size = self.font_px if not self.pending else self.font_px * 0.55
            self.value_button.bold = True
        else:
            shown = "?" if self.value is None else str(self.value)
            if self.pending and self.value is not None:
                shown = f"{shown}\u2192{self.value + self.pending}"
            self.value_button.text = f"[b]{shown}[/b]\n{_sized(caption, self.small_px * 0.72)}"
            self.value_button.font_size = self.font_px
        self.value_button.kind = "primary" if self.pending else ("quiet" if self.main else "normal")

    def arrange(self, boxes: dict[str, Box], steppers: bool) -> None:
        """Put the parts where the panel's plan says (in the panel's frame)."""
        self.steppers = steppers
        value = boxes["value"]
        place(self.value_button, value)
        for name, widget in (("minus", self.minus), ("plus", self.plus)):
            if steppers and name in boxes:
                place(widget, boxes[name])
                widget.opacity, widget.disabled = 1, self.locked
            else:
                place(widget, (value[0], value[1], 0, 0))
                widget.opacity, widget.disabled = 0, True
        caption = boxes.get("caption")
        if caption is not None:
            place(self.title, caption)
            self.title.opacity = 1
        else:
            place(self.title, (value[0], value[1] + value[3], 0, 0))
            self.title.opacity = 0
        parts = [w for w in (self.value_button, self.title, self.minus, self.plus) if w.opacity > 0 and w.width > 0]
        x0 = min(w.x for w in parts)
        y0 = min(w.y for w in parts)
        x1 = max(w.right for w in parts)
        y1 = max(w.top for w in parts)
        self.pos, self.size = (x0, y0), (x1 - x0, y1 - y0)

    def on_step(self, delta: int) -> None:
        pass

    def on_value_press(self) -> None:
        pass
