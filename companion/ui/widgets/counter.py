"""A counter with big minus and plus buttons and its value between them.

A press does not change the game at once: it builds a pending change that the value shows as
``27 → 24`` (the new total in bold, and a check mark). A tap on the value applies it; so does a
short pause (``PENDING_SECONDS``), so that a table can just tap and go on. With nothing pending,
a tap on the value opens the number pad to type the new value.
"""

from __future__ import annotations

from kivy.properties import BooleanProperty, NumericProperty, ObjectProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout

from companion.i18n import t
from companion.ui.widgets import GLYPH_FONT, load_widgets_kv
from companion.ui.widgets.buttons import compose

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


class CounterBox(BoxLayout):
    seat = ObjectProperty(None, allownone=True)  # 0-based, None for a shared counter
    counter = StringProperty("")
    name = StringProperty("")
    glyph = StringProperty("")
    value = ObjectProperty(None, allownone=True)
    pending = NumericProperty(0)
    note = StringProperty("")  # a short word after the name: "/ 7", "ce tour"
    locked = BooleanProperty(False)  # a seat out of the game: shown, not changed

    __events__ = ("on_step", "on_value_press")

    def __init__(self, **kwargs) -> None:
        load_widgets_kv()
        super().__init__(**kwargs)

    def on_step(self, delta: int) -> None:
        pass

    def on_value_press(self) -> None:
        pass
