"""The card screen in a real Kivy window: SDL offscreen, Mesa's software GL, real pixels.

Scans come from the real resolver (NDEF Text records decoded by ndeflib, cards from the real
library); screenshots are read back and checked for content, contrast and clipping. The whole
app (run_app, its reader thread, its keys, its voice) runs once in a child process.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from companion.games.vtes import cards as _vtes
from tests.ui_helpers import Pixels, measured_contrast, read_png, run_app_process, widget_box, window_pixels

# krcg 5 (Python 3.12+) ships Govern the Unaligned's official French text: a French screen shows it.
OFFICIAL_FRENCH = _vtes.krcg_major() >= 5
GOVERN_SHOWN = "Diriger les indécis" if OFFICIAL_FRENCH else "Govern the Unaligned"

pytestmark = [pytest.mark.ui, pytest.mark.timeout(90)]

GOVERN = "vtes:100845"
ANSON = "vtes:200107"  # a crypt card: clan, capacity and four disciplines
ROOT = Path(__file__).resolve().parents[2]


# --- fixtures --------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def resolver(card_library):
    from companion.tags.resolve import Resolver

    library = card_library  # the session's (conftest.py)
    assert library.get(GOVERN) is not None, library.errors()
    return Resolver(library)


class Stage:
    """The app's root widget alone in the window, at a chosen size and text scale."""

    def __init__(self, window, root) -> None:
        self.window = window
        self.root = root

    @property
    def screen(self):
        return self.root.get_screen("card")

    def frames(self, count: int = 4, draw: bool = False) -> None:
        """``count`` frames, drawn only when asked and then on the last one (tests.ui_helpers.frames):
        only a screenshot reads the window's pixels, and drawing is most of a frame's CPU."""
        from tests.ui_helpers import frames

        frames(count, draw=draw)

    def size(self, width: int, height: int, scale: float = 1.0) -> None:
        from companion.ui.theme import theme

        self.window.size = (width, height)
        theme.text_scale = scale
        self.frames()
        assert tuple(self.window.size) == (width, height)

    def shot(self) -> Pixels:
        """The window's pixels once drawn, as its screenshot reads them (no PNG file in between)."""
        self.frames(3, draw=True)
        return window_pixels(self.window)

    def box(self, widget) -> tuple[int, int, int, int]:
        return widget_box(widget, int(self.window.height))


@pytest.fixture
def stage(window):
    from companion.ui.app import build_root
    from companion.ui.theme import DEFAULT_PALETTE, theme

    root = build_root()
    window.add_widget(root)
    yield Stage(window, root)
    window.remove_widget(root)
    theme.text_scale = 1.0
    theme.use_palette(DEFAULT_PALETTE)


def laid(resolver, ref: str | None = None, uid: str = "04A1B2C3D4E5F6", ndef: bytes | None = None):
    from companion.readers.events import TagEvent
    from companion.readers.simulator import fake_uid, text_ndef

    if ref is not None:
        uid, ndef = fake_uid(ref), text_ndef(ref)
    return resolver.resolve(TagEvent("laid", reader="sim", seat=2, uid=uid, ndef=ndef))


def assert_not_blank(pixels: Pixels) -> None:
    colours = pixels.colours(step=2)
    total = sum(colours.values())
    assert len(colours) >= 12, f"only {len(colours)} colours: a blank or flat screenshot"
    assert colours.most_common(1)[0][1] / total < 0.95, "one colour covers the whole window"


def assert_nothing_clipped(stage: Stage) -> None:
    """Every text fits its label: wrapped lines no wider than the label, textures no taller."""
    from kivy.uix.label import Label

    for widget in stage.screen.walk():
        if not isinstance(widget, Label) or not widget.text:
            continue
        width = widget.text_size[0] if widget.text_size[0] else widget.width
        for line in widget._label._cached_lines:
            assert line.w <= width + 1, f"{widget.text[:30]!r}: a line {line.w}px wide in {width}px"
        assert widget.texture_size[1] <= widget.height + 1, f"{widget.text[:30]!r} is cut at the bottom"
        assert widget.texture_size[0] <= widget.width + 1, f"{widget.text[:30]!r} is cut on the right"


# --- the card, large and legible --------------------------------------------------------------
def test_card_screen_shows_the_scanned_card(stage, resolver):
    from companion.ui.theme import theme

    stage.size(800, 480)
    stage.screen.games = resolver.library.game  # as the app's session gives it
    stage.screen.show_scan(laid(resolver, GOVERN))
    pixels = stage.shot()

    ids = stage.screen.ids
    assert ids.title_label.text == GOVERN_SHOWN
    assert ids.title_label.texture_size[0] > 300  # drawn, and large
    assert ids.title_label.font_size >= 2 * ids.text_label.font_size * 0.9
    assert ids.title_label.font_name == "AtkinsonHyperlegible" == theme.font_name
    assert ("Type", "Action") in stage.screen.fields
    assert ("Coût", "1 sang") in stage.screen.fields  # VTES costs in the UI language
    assert ("Disciplines", "Domination") in stage.screen.fields  # by name, not "dom"
    assert ("Mordre à +2 en morsure" if OFFICIAL_FRENCH else "Bleed with +2 bleed") in ids.text_label.text
    assert "(D)" in ids.text_label.text and "Ⓓ" not in ids.text_label.text  # no glyph in the font
    assert "You do not reveal the target vampire" in ids.rulings_label.text
    assert stage.screen.where == "Lecteur : simulateur · Place 2"

    assert (pixels.width, pixels.height) == (800, 480)
    assert_not_blank(pixels)
    # The name's box holds the theme's white ink on its black background.
    name_colours = pixels.colours(stage.box(ids.title_label), step=1)
    assert (255, 255, 255) in name_colours and (0, 0, 0) in name_colours
    assert measured_contrast(pixels, stage.box(ids.title_label)) >= 7
    assert measured_contrast(pixels, stage.box(ids.text_label)) >= 7
    assert measured_contrast(pixels, stage.box(ids.where_label)) >= 7
    assert_nothing_clipped(stage)


def test_empty_state_then_card(stage, resolver):
    screen = stage.screen
    stage.size(800, 480)
    assert screen.mode == "loading" and screen.ids.title_label.text == "Chargement des cartes…"
    screen.show_waiting(loading=False)
    stage.frames()
    assert screen.ids.title_label.text == "Posez une carte sur le lecteur."
    screen.show_scan(laid(resolver, GOVERN))
    screen.show_waiting(loading=False)  # cards finishing to load must not hide a card laid
    assert screen.mode == "card"


@pytest.mark.parametrize("size", [(800, 480), (1280, 800), (480, 800)])
def test_text_at_200_percent_wraps_and_scrolls_never_clips(stage, resolver, size):
    from companion.ui.theme import theme

    stage.size(*size, scale=1.0)
    stage.screen.show_scan(laid(resolver, ANSON))
    stage.frames()
    title_at_100 = stage.screen.ids.title_label.font_size
    stage.size(*size, scale=2.0)
    pixels = stage.shot()
    ids = stage.screen.ids

    assert ids.title_label.font_size == pytest.approx(2 * title_at_100)
    assert theme.body >= 36  # large text at 200 % even on the smallest screen
    assert_not_blank(pixels)
    assert_nothing_clipped(stage)
    grid = ids.fields
    assert all(child.right <= grid.right + 1 for child in grid.children), "a field runs off the screen"
    # Everything stays reachable: the content is taller than the view, and scrolling to the
    # end brings the last line into the view.
    scroll = ids.scroll
    assert ids.content.height > scroll.height
    scroll.scroll_y = 0
    stage.frames()
    bottom = ids.detail_label.to_window(ids.detail_label.x, ids.detail_label.y)[1]
    assert bottom >= scroll.to_window(scroll.x, scroll.y)[1] - 1
    assert ids.detail_label.text == ANSON


def test_light_palette_keeps_seven_to_one(stage, resolver):
    from companion.ui.theme import theme

    theme.use_palette("contrast-light")
    stage.size(800, 480)
    stage.screen.show_scan(laid(resolver, GOVERN))
    pixels = stage.shot()
    ids = stage.screen.ids
    assert pixels.colours(stage.box(ids.title_label), step=1).most_common(1)[0][0] == (255, 255, 255)
    for label in (ids.title_label, ids.text_label, ids.rulings_label, ids.where_label):
        assert measured_contrast(pixels, stage.box(label)) >= 7, label.text[:30]


def test_every_palette_pair_is_seven_to_one():
    from companion.ui.theme import PALETTES, TEXT_ON, contrast_ratio, hex_to_rgb

    for name, colours in PALETTES.items():
        for ink, ground in TEXT_ON.items():
            ratio = contrast_ratio(hex_to_rgb(colours[ink]), hex_to_rgb(colours[ground]))
            assert ratio >= 7, f"{name}: {ink} on {ground} is {ratio:.1f}:1"


# --- unknown and unreadable tags: calm, never a crash -----------------------------------------
@pytest.mark.parametrize("kind", ["no-ndef", "garbage-ndef", "unknown-ref", "unreadable"])
def test_unknown_and_unreadable_tags_are_shown_calmly(stage, resolver, kind):
    from companion.readers.events import TagEvent
    from companion.readers.simulator import text_ndef
    from companion.ui.theme import theme

    if kind == "unreadable":
        scan = resolver.resolve(TagEvent("unreadable", reader="sim", uid="04DEADBEEF0001", detail="lifted too soon"))
    else:
        ndef = {"no-ndef": None, "garbage-ndef": b"\xd1\x01\xff\x54garbage", "unknown-ref": text_ndef("vtes:9")}[kind]
        scan = laid(resolver, uid="04DEADBEEF0001", ndef=ndef)
    assert scan.card is None

    stage.size(800, 480)
    stage.screen.show_scan(scan)
    pixels = stage.shot()
    ids = stage.screen.ids
    expected = "Étiquette illisible" if kind == "unreadable" else "Carte inconnue"
    assert ids.title_label.text == expected
    assert list(ids.title_label.color) == list(theme.calm)  # calm blue, words carry the meaning
    assert "04DEADBEEF0001" in ids.detail_label.text or "04DEADBEEF0001" in ids.text_label.text
    assert stage.screen.fields == []
    assert_not_blank(pixels)
    assert measured_contrast(pixels, stage.box(ids.title_label)) >= 7
    assert_nothing_clipped(stage)


def test_font_and_its_licence_travel_with_the_app():
    from companion.ui import fonts

    files = fonts.font_files()
    assert files is not None and all(p.suffix == ".ttf" for p in files.values())
    assert fonts.register() == fonts.FONT_NAME
    licence = (ROOT / "assets" / "fonts" / "ATKINSON-HYPERLEGIBLE-LICENSE.txt").read_text(encoding="utf-8")
    assert "SIL OPEN FONT LICENSE Version 1.1" in licence and "Braille Institute" in licence


# --- the whole app, as `python -m companion run` starts it ------------------------------------
def test_whole_app_shows_speaks_repeats_and_quits(window, tmp_path):
    report = run_app_process(tmp_path, f"sim:{GOVERN}")
    assert report["returncode"] == 0, report["stderr"][-2000:]
    assert report["steps"] == ["shown", "repeated"], report
    assert report["run_app_returned"] == 0
    # Escape went back one screen (the app stayed), Ctrl-Q quit.
    assert report["after_escape"] == "home"  # the screen shown before the card
    assert report["window"] == [800, 480]
    assert report["window_title"] == "Compagnon de table"
    assert report["title"] == GOVERN_SHOWN and report["mode"] == "card"
    assert report["where"] == "Lecteur : simulateur"
    # Spoken through companion.speech (silent backend): once when laid, once more for R (the
    # Home screen also said its name when it opened: companion/ui/a11y.py).
    spoken = [s for s in report["spoken"] if not s.startswith("Écran ")]
    assert len(spoken) == 2 and all(GOVERN_SHOWN in s for s in spoken)
    assert report["first_frame_after"] is not None  # a first frame was drawn (its time is `bench startup`'s)
    assert report["made_for_first_frame"] == ["home"]  # the other screens are made after it (issue 25)
    pixels = read_png(report["screenshot"])
    assert (pixels.width, pixels.height) == (800, 480)
    assert_not_blank(pixels)
    assert "Traceback" not in report["stderr"]


def test_whole_app_with_a_bad_reader_path_explains_and_keeps_running(window, tmp_path):
    report = run_app_process(tmp_path, "nope:nothing")
    assert report["returncode"] == 0, report["stderr"][-2000:]
    assert report["steps"] == ["shown", "repeated"], report
    assert "Chemin de lecteur inconnu : nope:nothing" in report["notice"]
    assert report["title"] == "Posez une carte sur le lecteur."
    assert [s for s in report["spoken"] if not s.startswith("Écran ")] == []  # nothing laid, nothing to repeat
    assert "Traceback" not in report["stderr"]


def test_text_scale_and_contrast_settings_are_read_safely(window):
    from companion import paths
    from companion.ui.app import CompanionApp
    from companion.ui.theme import DEFAULT_PALETTE, theme

    app = CompanionApp(reader_path=None)
    app.load_config()
    assert app.get_application_config().startswith(str(paths.config_dir()))
    try:
        for written, scale in (("2.0", 2.0), ("1.5", 1.5), ("5", 2.0), ("0.2", 1.0), ("grand", 1.0)):
            app.config.set("display", "text_scale", written)
            app.on_config_change(app.config, "display", "text_scale", written)
            assert theme.text_scale == scale, written
        app.config.set("display", "palette", "contrast-light")
        app.apply_config()
        assert theme.palette == "contrast-light" and list(theme.bg) == [1, 1, 1, 1]
        app.config.set("display", "palette", "no-such-theme")
        app.apply_config()
        assert theme.palette == DEFAULT_PALETTE
    finally:
        theme.text_scale = 1.0
        theme.use_palette(DEFAULT_PALETTE)
