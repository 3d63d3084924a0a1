"""Colours and text sizes of the app, shared by every screen (kv: ``#:import theme companion.ui.theme.theme``).

The default palette is high contrast: every text colour is at least 7:1 against the colour it
is drawn on (WCAG AAA). Text sizes follow the window so that the 800x480 Raspberry Pi screen and
a 1280x800 tablet both get large text, and a text scale from 1.0 to 2.0 multiplies them.
"""

from __future__ import annotations

from kivy.event import EventDispatcher
from kivy.properties import (
    AliasProperty,
    BoundedNumericProperty,
    ColorProperty,
    NumericProperty,
    StringProperty,
)

from companion.usersettings import TEXT_SCALE_MAX, TEXT_SCALE_MIN

MIN_CONTRAST = 7.0

# Which text colour is drawn on which background; the contrast test walks these pairs.
TEXT_ON = {
    "text": "bg",
    "accent": "bg",
    "muted": "bg",
    "calm": "bg",
    "header_text": "surface",
}

PALETTES: dict[str, dict[str, str]] = {
    "contrast-dark": {
        "bg": "#000000",
        "surface": "#1F1F1F",
        "rule": "#6E6E6E",
        "text": "#FFFFFF",
        "accent": "#FFD54A",
        "muted": "#D6D6D6",
        "calm": "#9AD8FF",
        "header_text": "#F2F2F2",
    },
    "contrast-light": {
        "bg": "#FFFFFF",
        "surface": "#E8E8E8",
        "rule": "#7A7A7A",
        "text": "#000000",
        "accent": "#5B3A00",
        "muted": "#2E2E2E",
        "calm": "#003B70",
        "header_text": "#111111",
    },
}
DEFAULT_PALETTE = "contrast-dark"


def hex_to_rgb(color: str) -> tuple[float, float, float]:
    value = color.lstrip("#")
    return tuple(int(value[i:i + 2], 16) / 255 for i in (0, 2, 4))  # type: ignore[return-value]


def relative_luminance(rgb: tuple[float, float, float]) -> float:
    """WCAG 2 relative luminance of an sRGB colour with channels in 0..1."""
    def linear(c: float) -> float:
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (linear(c) for c in rgb[:3])
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast_ratio(a: tuple[float, float, float], b: tuple[float, float, float]) -> float:
    la, lb = sorted((relative_luminance(a), relative_luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def base_size_for(width: float, height: float) -> float:
    """Body text size in pixels at scale 1.0 for a window: 24 px at 800x480, 40 px at 1280x800."""
    return max(18.0, min(44.0, min(width, height * 1.6) / 32))


def _clamp_scale(value: float) -> float:
    return max(TEXT_SCALE_MIN, min(TEXT_SCALE_MAX, value))


class Theme(EventDispatcher):
    palette = StringProperty(DEFAULT_PALETTE)
    # The language of the words on screen: kv rules write t("key", theme.lang), so that a change
    # in Settings rewrites every label at once, those of screens already built included.
    lang = StringProperty("")
    font_name = StringProperty("Roboto")
    base = NumericProperty(24.0)
    text_scale = BoundedNumericProperty(1.0, min=TEXT_SCALE_MIN, max=TEXT_SCALE_MAX, errorhandler=_clamp_scale)

    bg = ColorProperty("#000000")
    surface = ColorProperty("#1F1F1F")
    rule = ColorProperty("#6E6E6E")
    text = ColorProperty("#FFFFFF")
    accent = ColorProperty("#FFD54A")
    muted = ColorProperty("#D6D6D6")
    calm = ColorProperty("#9AD8FF")
    header_text = ColorProperty("#F2F2F2")

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.use_palette(self.palette)
        from companion import i18n

        self.lang = i18n.language()
        i18n.on_language(lambda lang: setattr(self, "lang", lang))

    def use_palette(self, name: str) -> None:
        colours = PALETTES.get(name) or PALETTES[DEFAULT_PALETTE]
        self.palette = name if name in PALETTES else DEFAULT_PALETTE
        for key, value in colours.items():
            setattr(self, key, value)

    def fit(self, width: float, height: float) -> None:
        self.base = base_size_for(width, height)

    def _scaled(factor: float, floor: float = 0.0):  # noqa: N805 - a property factory, not a method
        def get(self: Theme) -> float:
            return max(floor, self.base * self.text_scale * factor)

        return AliasProperty(get, None, bind=("base", "text_scale"), cache=True)

    body = _scaled(1.0)
    title = _scaled(1.9)
    heading = _scaled(1.1)
    small = _scaled(0.8, floor=16.0)
    # Spacing follows the window only: more text wraps onto more lines rather than pushing
    # margins around.
    gap = AliasProperty(lambda self: self.base * 0.6, None, bind=("base",), cache=True)
    del _scaled


theme = Theme()
