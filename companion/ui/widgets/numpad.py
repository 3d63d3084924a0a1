"""A number pad to type a counter's new value, turned to face the player who opened it."""

from __future__ import annotations

from collections.abc import Callable

from kivy.properties import BooleanProperty, ObjectProperty, StringProperty
from kivy.uix.modalview import ModalView

from companion.ui.widgets import load_widgets_kv

MAX_DIGITS = 4


class NumPad(ModalView):
    title = StringProperty("")
    current = ObjectProperty(None, allownone=True)  # the value now, shown as "27 → ..."
    typed = StringProperty("")
    flipped = BooleanProperty(False)

    def __init__(self, on_submit: Callable[[int], None] | None = None, **kwargs) -> None:
        load_widgets_kv()
        super().__init__(**kwargs)
        self.on_submit = on_submit

    def press(self, key: str) -> None:
        if key == "back":
            self.typed = self.typed[:-1]
        elif key.isdigit() and len(self.typed) < MAX_DIGITS:
            self.typed = (self.typed + key).lstrip("0") or "0"

    def submit(self) -> None:
        if not self.typed:
            return
        value = int(self.typed)
        self.dismiss(animation=False)  # a fading pad would take the next tap
        if self.on_submit is not None:
            self.on_submit(value)
