"""The navigation bar: one button per screen, a glyph and a word on each, the current screen
drawn inverted and marked with a bar, so that it never depends on colour alone."""

from __future__ import annotations

from kivy.clock import Clock
from kivy.properties import BooleanProperty, OptionProperty, StringProperty
from kivy.uix.behaviors import ButtonBehavior
from kivy.uix.label import Label
from kivy.uix.scrollview import ScrollView

from companion.ui.widgets import load_widgets_kv


class NavButton(ButtonBehavior, Label):
    screen = StringProperty("")
    glyph = StringProperty("")
    word = StringProperty("")
    selected = BooleanProperty(False)
    horizontal = BooleanProperty(False)  # in a bar at the bottom (portrait), not a rail


class NavBar(ScrollView):
    """Scrolls when the words do not all fit (large text, narrow portrait screens)."""

    orientation = OptionProperty("vertical", options=("vertical", "horizontal"))
    current = StringProperty("")
    picked = StringProperty("")  # the screen last asked for; the root shows it

    def __init__(self, **kwargs) -> None:
        load_widgets_kv()
        super().__init__(**kwargs)
        # After the next layout: the bar turned, resized or filled moves its buttons.
        self._reveal = Clock.create_trigger(self._scroll_to_current, 0)
        self.bind(size=self._reveal, orientation=self._reveal)
        self.ids.nav_items.bind(size=self._reveal)

    def add_item(self, screen: str, glyph: str, word: str) -> NavButton:
        button = NavButton(screen=screen, glyph=glyph, word=word, selected=screen == self.current,
                           horizontal=self.orientation == "horizontal")
        button.bind(on_release=self._pick)
        self.ids.nav_items.add_widget(button)
        return button

    def buttons(self) -> list[NavButton]:
        return list(reversed(self.ids.nav_items.children))

    def button(self, screen: str) -> NavButton | None:
        return next((b for b in self.buttons() if b.screen == screen), None)

    def on_orientation(self, _bar: NavBar, orientation: str) -> None:
        for b in self.buttons():
            b.horizontal = orientation == "horizontal"

    def on_current(self, _bar: NavBar, name: str) -> None:
        for b in self.buttons():
            b.selected = b.screen == name
        self._reveal()

    def _scroll_to_current(self, *_args: object) -> None:
        """The current screen's button scrolled into view, whole: a bar that scrolls (portrait,
        large text) otherwise hid where one is (Réglages below the 800x480 rail's edge)."""
        button = self.button(self.current)
        if button is None or button.parent is None:
            return
        self.scroll_to(button, padding=0, animate=False)

    def _pick(self, button: NavButton) -> None:
        self.picked = ""  # a second tap on the same screen still counts
        self.picked = button.screen
