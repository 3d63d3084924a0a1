"""The navigation bar: one button per screen, a glyph and a word on each, the current screen
drawn inverted and marked with a bar, so that it never depends on colour alone."""

from __future__ import annotations

from kivy.clock import Clock
from kivy.core.text import Label as CoreLabel
from kivy.properties import BooleanProperty, NumericProperty, OptionProperty, StringProperty
from kivy.uix.behaviors import ButtonBehavior
from kivy.uix.label import Label
from kivy.uix.scrollview import ScrollView

from companion.ui.theme import theme
from companion.ui.widgets import load_widgets_kv, sizes

# Each side of a rail button keeps its frame (2 px in, 1.5 px line) and the 6 px mark of the
# current screen clear of the word, which is centred: twice that in all.
RAIL_WORD_MARGIN = 2 * 8


def widest_word(words: list[str], glyphs: list[str], font_size: float) -> float:
    """The widest of the words and glyphs as a button draws them when selected: bold, the words in
    the app's font and the glyphs in the glyph font, at ``font_size``. A word is never cut:
    a rail narrower than its widest word broke "Réglages" into "Réglage / s" at 800x480."""
    widest = 0.0
    for font_name, texts in ((theme.font_name, words), (sizes.glyph_font, glyphs)):
        for text in texts:
            for piece in text.split():
                widest = max(widest, _width(font_name, font_size, piece))
    return widest


_widths: dict[tuple[str, float, str], float] = {}


def _width(font_name: str, font_size: float, piece: str) -> float:
    """One piece's width drawn bold, measured once per font, size and text: the bar measures
    again each word at each button added, each word or size changed (a thousand measures for
    thirty pieces, a twentieth of the window's work before its first frame)."""
    key = (font_name, font_size, piece)
    width = _widths.get(key)
    if width is None:
        if len(_widths) > 4096:  # sizes come and go with the window: never more than this kept
            _widths.clear()
        width = _widths[key] = CoreLabel(font_name=font_name, font_size=font_size, bold=True).get_extents(piece)[0]
    return width


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
    # The widest word of the bar drawn bold at the current text size: the rail is sized from it.
    word_width = NumericProperty(0.0)

    def __init__(self, **kwargs) -> None:
        load_widgets_kv()
        super().__init__(**kwargs)
        # Measured again when the words, their size (window, text scale) or their font change;
        # bound methods are held weakly by the theme, so a closed bar goes.
        theme.bind(small=self._measure_words, font_name=self._measure_words)
        # After the next layout: the bar turned, resized or filled moves its buttons.
        self._reveal = Clock.create_trigger(self._scroll_to_current, 0)
        self.bind(size=self._reveal, orientation=self._reveal)
        self.ids.nav_items.bind(size=self._reveal)

    def add_item(self, screen: str, glyph: str, word: str) -> NavButton:
        button = NavButton(screen=screen, glyph=glyph, word=word, selected=screen == self.current,
                           horizontal=self.orientation == "horizontal")
        button.bind(on_release=self._pick, word=self._measure_words, glyph=self._measure_words)
        self.ids.nav_items.add_widget(button)
        self._measure_words()
        return button

    def buttons(self) -> list[NavButton]:
        return list(reversed(self.ids.nav_items.children))

    def button(self, screen: str) -> NavButton | None:
        return next((b for b in self.buttons() if b.screen == screen), None)

    def _measure_words(self, *_args: object) -> None:
        buttons = self.buttons()
        self.word_width = widest_word([b.word for b in buttons], [b.glyph for b in buttons], theme.small)

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
        items = self.ids.nav_items
        if (items.height <= self.height) if self.do_scroll_y else (items.width <= self.width):
            # Every button in sight: nothing to scroll. Kivy's scroll_to would set scroll_y to 0
            # here (its convert_distance_to_scroll answers 1 when the content fits), which put the
            # rail's buttons at its bottom, a gap above them.
            self.scroll_x, self.scroll_y = 0.0, 1.0
            return
        self.scroll_to(button, padding=0, animate=False)

    def _pick(self, button: NavButton) -> None:
        self.picked = ""  # a second tap on the same screen still counts
        self.picked = button.screen
