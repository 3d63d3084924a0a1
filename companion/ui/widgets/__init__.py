"""Widgets shared by the screens: the navigation bar, big buttons, a widget turned to face a
player, and the Table screen's seat panels and counters.

Touch targets are at least 12 mm on the glass. Kivy's own dpi is a guess offscreen and on many
panels, so the size of a millimetre comes from the display the window is made for: the official
Raspberry Pi 7" display (800x480 on 154 x 86 mm: 5.2 px/mm) and, for any other size, 6 px/mm,
the densest of the 7" to 10" panels a kiosk uses (1024x600 7", 1280x800 10"), which errs on the
side of larger targets. ``COMPANION_PX_PER_MM`` sets it for another screen.
"""

from __future__ import annotations

import os
from importlib import resources

from kivy.event import EventDispatcher
from kivy.properties import NumericProperty, StringProperty

TOUCH_MM = 12.0
PI_DISPLAY = (800, 480)
PI_PX_PER_MM = 800 / 154.08
OTHER_PX_PER_MM = 6.0
# Symbols next to the words (never colour alone) come from DejaVu Sans, which Kivy ships:
# Atkinson Hyperlegible has letters, digits and punctuation only.
GLYPH_FONT = "data/fonts/DejaVuSans.ttf"


def px_per_mm(width: float, height: float) -> float:
    env = os.environ.get("COMPANION_PX_PER_MM", "").strip()
    try:
        if env and float(env) > 0:
            return float(env)
    except ValueError:
        pass
    if sorted((int(width), int(height))) == sorted(PI_DISPLAY):
        return PI_PX_PER_MM
    return OTHER_PX_PER_MM


class Sizes(EventDispatcher):
    """Sizes that follow the window (kv: ``#:import sizes companion.ui.widgets.sizes``)."""

    mm = NumericProperty(PI_PX_PER_MM)
    touch = NumericProperty(TOUCH_MM * PI_PX_PER_MM)  # the smallest button side, in pixels
    orientation = StringProperty("landscape")
    glyph_font = StringProperty(GLYPH_FONT)

    def fit(self, width: float, height: float) -> None:
        if width <= 0 or height <= 0:
            return
        self.mm = px_per_mm(width, height)
        self.touch = round(TOUCH_MM * self.mm + 0.5)
        self.orientation = "portrait" if height > width else "landscape"


sizes = Sizes()
_loaded = False


def load_widgets_kv() -> None:
    """The kv rules of the shared widgets, once per process."""
    global _loaded
    if _loaded:
        return
    from kivy.lang import Builder

    # Importing the modules registers their classes with Kivy's Factory for the kv rules. Those of
    # the first screen only: the table's (counter, placed, seat_panel) come with the table screen,
    # which imports them (their imports and dataclasses were 10 ms before the first frame).
    from companion.ui.widgets import buttons, inputs, nav  # noqa: F401

    Builder.load_file(str(resources.files(__package__).joinpath("widgets.kv")))
    _loaded = True
