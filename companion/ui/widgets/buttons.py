"""Buttons with a glyph and a word, at least one touch target (12 mm) on each side."""

from __future__ import annotations

from kivy.properties import BooleanProperty, OptionProperty, StringProperty
from kivy.uix.behaviors import ButtonBehavior
from kivy.uix.label import Label
from kivy.utils import escape_markup

from companion.ui.widgets import GLYPH_FONT, load_widgets_kv


def compose(glyph: str, word: str, stacked: bool = False, font: str = GLYPH_FONT) -> str:
    """Markup for a glyph (drawn with the symbol font) next to or above a word."""
    parts = []
    if glyph:
        parts.append(f"[font={font}]{escape_markup(glyph)}[/font]")
    if word:
        parts.append(escape_markup(word))
    return ("\n" if stacked else " ").join(parts)


class GlyphButton(ButtonBehavior, Label):
    glyph = StringProperty("")
    word = StringProperty("")
    stacked = BooleanProperty(False)  # the glyph above the word: a narrower button
    wrap = BooleanProperty(False)  # the layout gives the width; the words wrap inside it
    kind = OptionProperty("normal", options=("normal", "primary", "selected", "quiet"))

    def __init__(self, **kwargs) -> None:
        load_widgets_kv()
        super().__init__(**kwargs)
