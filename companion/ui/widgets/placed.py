"""Widgets whose box the layout gives (the Table screen's): a button and a label whose words fit
that box, and ``place`` to put a widget on it."""

from __future__ import annotations

from kivy.properties import BooleanProperty, NumericProperty, OptionProperty, StringProperty
from kivy.uix.behaviors import ButtonBehavior
from kivy.uix.label import Label
from kivy.uix.widget import Widget

from companion.ui.widgets.buttons import compose

Box = tuple[float, float, float, float]  # x, y, w, h


class PanelButton(ButtonBehavior, Label):
    """A button whose box the layout gives; its words shrink to an ellipsis, never out of it."""

    glyph = StringProperty("")
    word = StringProperty("")
    kind = OptionProperty("normal", options=("normal", "primary", "selected", "quiet"))
    command = StringProperty("")
    action = StringProperty("")
    stacked = BooleanProperty(True)
    width_wanted = NumericProperty(0)
    free = BooleanProperty(False)  # one line as long as it is, never wrapped (a number)

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.bind(glyph=self._words, word=self._words, stacked=self._words)
        self._words()

    def _words(self, *_args) -> None:
        if self.glyph or self.word:
            self.text = compose(self.glyph, self.word, self.stacked)


class FitLabel(Label):
    """One line (or a few) of words that never run out of their box: cut with "…" instead."""


def place(widget: Widget, box: Box) -> None:
    """Put a widget on whole pixels: lines and rings drawn around it stay sharp, turned or not."""
    x0, y0 = round(box[0]), round(box[1])
    x1, y1 = round(box[0] + max(0.0, box[2])), round(box[1] + max(0.0, box[3]))
    widget.size_hint = (None, None)
    widget.pos = (x0, y0)
    widget.size = (x1 - x0, y1 - y0)
