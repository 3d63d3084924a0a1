"""The Card, Rules, Deck, Enroll and Settings screens in a real offscreen Kivy window, inside the
app's own root (every registered screen, one shared Session), fed by the real card library,
resolver and collection file (COMPANION_HOME is a private folder for the test session)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from companion.games.vtes import cards as _vtes
from companion.ui.screenshots import save_window_png
from tests.ui_helpers import Pixels, read_png
from tests.ui_helpers import frames as ui_frames

# krcg 5 (Python 3.12+) ships Govern the Unaligned's official French text: a French screen shows it.
OFFICIAL_FRENCH = _vtes.krcg_major() >= 5
GOVERN_SHOWN = "Diriger les indécis" if OFFICIAL_FRENCH else "Govern the Unaligned"

pytestmark = [pytest.mark.ui, pytest.mark.timeout(120)]

MINE = ("card", "rules", "deck", "enroll", "settings")
ARTIFACTS = ["anneau-de-midas", "calice-de-vie", "dague-sacrificielle", "fouet-ardent", "pierre-philosophale",
             "sirene", "dragon-de-feu", "dragon-des-vents"]


@pytest.fixture(scope="module")
def demo(window, tmp_path_factory, card_library):
    from companion.ui.screenshots import Demo

    demo = Demo(tmp_path_factory.mktemp("demo"), card_library)  # the session's, as the scans below read
    window.add_widget(demo.root)
    yield demo
    window.remove_widget(demo.root)
    demo.session.close()


def frames(count: int = 4) -> None:
    """``count`` frames, the window drawn on the last one only (see tests.ui_helpers.frames): a
    screenshot reads that one; the frames before it are not looked at."""
    ui_frames(count)


def settle(count: int = 4) -> None:
    """A frame's work without drawing it (see tests.ui_helpers.frames): for a test that reads only
    labels' lines and sizes, whose pixels are not read."""
    ui_frames(count, draw=False)


def wait_for(condition, timeout: float = 30.0) -> bool:
    """Frames until ``condition()`` holds: at once on an idle machine; the bound is for a machine
    loaded by other work (four test workers on two cores), where a search thread waits its turn."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        settle(1)  # what is waited for is a value, never a pixel
        if condition():
            return True
        time.sleep(0.01)
    return condition()


def resize(window, width: int, height: int) -> None:
    window.size = (width, height)
    settle(6)  # laid out at the new size; the next picture draws it
    assert tuple(window.size) == (width, height)


def assert_not_blank(path: Path, pixels: Pixels | None = None) -> None:
    pixels = pixels if pixels is not None else read_png(path)
    colours = pixels.colours(step=2)
    assert len(colours) >= 12, f"{path.name}: only {len(colours)} colours"
    assert colours.most_common(1)[0][1] / sum(colours.values()) < 0.95, f"{path.name}: one colour covers it"


def assert_drawn_whole(root, shot: Path, window_pixels: Pixels) -> None:
    """The window's picture is, region by region, what the app's widgets draw: drawn again into a
    buffer of their own (``export_to_png``, whatever the window's GL surface) and compared with the
    screenshot in a 4 x 4 grid of regions, the top-right one included. An offscreen window made
    smaller than a size draws only its first corner: the rest of the screenshot is black or
    garbage, and the regions there differ from the widgets' picture."""
    # export_to_png's picture without its PNG file: the same bytes, top row first (its Fbo draws
    # the widgets upside down), never encoded and decoded again.
    image = root.export_as_image()
    drawn = Pixels(image.width, image.height, bytes(image.texture.pixels))
    width, height = window_pixels.width, window_pixels.height
    assert (drawn.width, drawn.height) == (width, height), "the app's root fills the window"
    columns = rows = 4
    stride = width * 4
    for row in range(rows):
        for column in range(columns):
            x0, x1 = column * width // columns, (column + 1) * width // columns
            y0, y1 = row * height // rows, (row + 1) * height // rows
            seen = differ = 0
            for y in range(y0, y1, 3):
                seen += len(range(x0, x1, 3))
                # The row's pixels looked at (one in three) the same in both pictures, byte for
                # byte: all of them match. Most rows are, and a pixel-by-pixel look at all of them
                # was a third of this file's CPU.
                one = window_pixels.data[y * stride + x0 * 4:y * stride + x1 * 4]
                other = drawn.data[y * stride + x0 * 4:y * stride + x1 * 4]
                if all(one[c::12] == other[c::12] for c in range(3)):
                    continue
                for i in range(0, len(one), 12):  # within the tolerance here, or one pixel away
                    if max(abs(one[i] - other[i]), abs(one[i + 1] - other[i + 1]),
                           abs(one[i + 2] - other[i + 2])) > 12:
                        differ += not _matches(window_pixels, drawn, x0 + i // 4, y)
            # a blinking text cursor may differ between the two pictures: a few pixels, not a region
            assert differ <= seen * 0.02, (
                f"{shot.name}: region x {x0}-{x1}, y {y0}-{y1} from the top is not what the widgets draw "
                f"({differ} of {seen} pixels differ): the window drew only part of the screen")


def _matches(one, other, x: int, y: int, tolerance: int = 12) -> bool:
    """The same colour at (x, y) in both pictures, or one pixel away: the window and a buffer place
    a one-pixel line on either side of a half-pixel edge."""
    def same(a: tuple[int, int, int], b: tuple[int, int, int]) -> bool:
        return max(abs(a[0] - b[0]), abs(a[1] - b[1]), abs(a[2] - b[2])) <= tolerance

    here, there = one.at(x, y), other.at(x, y)
    if here == there or same(here, there):
        return True
    near = [(x + dx, y + dy) for dy in (-1, 0, 1) for dx in (-1, 0, 1)
            if 0 <= x + dx < one.width and 0 <= y + dy < one.height]
    return any(same(here, other.at(*p)) for p in near) or any(same(there, one.at(*p)) for p in near)


def assert_current_in_nav_bar(window, root, name: str) -> None:
    """The navigation bar scrolls when its buttons do not all fit (portrait, large text): the
    button of the screen shown is scrolled into view, whole, so the bar always says where one is."""
    button = root.nav.button(name)
    assert button is not None and button.get_root_window() is not None, f"{name}: no button in the bar"
    x0, y0 = button.to_window(button.x, button.y)
    x1, y1 = button.to_window(button.right, button.top)
    assert x0 >= -1 and x1 <= window.width + 1 and y0 >= -1 and y1 <= window.height + 1, (
        f"{name}: its button in the navigation bar is at x {x0:.0f}-{x1:.0f}, y {y0:.0f}-{y1:.0f}, "
        f"outside the {window.width}x{window.height} window")
    nx0, ny0 = root.nav.to_window(root.nav.x, root.nav.y)
    nx1, ny1 = root.nav.to_window(root.nav.right, root.nav.top)
    assert x0 >= nx0 - 1 and x1 <= nx1 + 1 and y0 >= ny0 - 1 and y1 <= ny1 + 1, (
        f"{name}: its button in the navigation bar is scrolled out of the bar's view")


def assert_nothing_clipped(screen) -> None:
    """Every text of the screen shown fits its label: no line wider, no texture taller or wider."""
    from kivy.uix.label import Label

    for widget in screen.walk(restrict=True):
        if not isinstance(widget, Label) or not widget.text or widget.opacity == 0:
            continue
        width = widget.text_size[0] if widget.text_size[0] else widget.width
        for line in widget._label._cached_lines:
            assert line.w <= width + 1, f"{screen.name}: {widget.text[:30]!r} has a line {line.w}px in {width}px"
        assert widget.texture_size[1] <= widget.height + 1, f"{screen.name}: {widget.text[:30]!r} cut at the bottom"
        assert widget.texture_size[0] <= widget.width + 1, f"{screen.name}: {widget.text[:30]!r} cut on the right"
        if _in_scroll_view(widget):
            continue  # a scrolled row (the history) reaches past the edge on purpose
        x, _y = widget.to_window(widget.x, widget.y)
        assert x >= -1 and x + widget.width <= screen.get_root_window().width + 1, f"{widget.text[:30]!r} off screen"


def nav_word_lines(button) -> list[str]:
    """The lines the button draws under its glyph, as laid out by Kivy (markup stripped)."""
    lines = ["".join(word.text for word in line.words) for line in button._label._cached_lines]
    return [line for line in lines[1:] if line.strip()]  # the first line is the glyph


def assert_nav_words_whole(root, where: str) -> None:
    """Each word of each navigation button is drawn whole on one line: a bold selected word wider
    than the rail broke as "Réglage / s", which no line-width check sees (each piece fits)."""
    for button in root.nav.buttons():
        drawn = [piece for line in nav_word_lines(button) for piece in line.split()]
        assert drawn == button.word.split(), (
            f"{where}: {button.word!r} (selected: {button.selected}) drawn as {nav_word_lines(button)!r}"
            f" in a {button.width:.0f}px button")
        assert button.texture_size[0] <= button.width + 1, f"{where}: {button.word!r} wider than its button"


def _in_scroll_view(widget) -> bool:
    from kivy.uix.scrollview import ScrollView

    parent = widget.parent
    while parent is not None and parent is not parent.parent:
        if isinstance(parent, ScrollView):
            return True
        parent = parent.parent
    return False


def laid(ref: str | None = None, uid: str = "", seat: int = 1):
    """A real scan: an NDEF Text record with the reference (or a bare UID) through the resolver."""
    from companion.readers.events import TagEvent
    from companion.readers.simulator import fake_uid, text_ndef
    from companion.tags.collection import load_uid_map
    from companion.tags.resolve import Resolver

    if ref is not None:
        event = TagEvent("laid", reader="sim", seat=seat, uid=fake_uid(ref), ndef=text_ndef(ref))
    else:
        event = TagEvent("laid", reader="sim", seat=seat, uid=uid)
    return Resolver(_library(), load_uid_map()).resolve(event)


_LIBRARY = {}


@pytest.fixture(scope="module", autouse=True)
def _session_library(card_library) -> None:
    _LIBRARY["lib"] = card_library  # the session's (conftest.py)


def _library():
    from companion.cards.library import CardLibrary

    if "lib" not in _LIBRARY:
        _LIBRARY["lib"] = CardLibrary()
    return _LIBRARY["lib"]


# --- every screen of mine, at each size -------------------------------------------------------------
@pytest.mark.parametrize("size", [(800, 480), (1280, 800), (480, 800)])
def test_each_screen_renders_whole_at(size, window, demo, tmp_path):
    resize(window, *size)
    demo.set_game("vtes", screens=MINE)
    for name in MINE:
        demo.root.show(name)
        frames(6)
        screen = demo.root.get_screen(name)
        path = tmp_path / f"{name}.png"
        save_window_png(path)  # the screenshots command's own picture of the window
        assert path.is_file()
        pixels = read_png(path)
        assert (pixels.width, pixels.height) == size
        assert_not_blank(path, pixels)
        assert_drawn_whole(demo.root, path, pixels)
        assert_nothing_clipped(screen)
        assert_current_in_nav_bar(window, demo.root, name)
    deck = demo.root.get_screen("deck")
    assert deck.summary.startswith("Crypte : 3 · Bibliothèque : 7"), deck.summary
    assert not any("Error" in p for p in deck.report.problems), deck.report.problems  # checks never race
    card = demo.root.get_screen("card")
    assert card.title == GOVERN_SHOWN and ("Coût", "1 sang") in card.fields
    assert "Dominate" in card.keywords or "Domination" in card.keywords  # "dom" explained from the glossary
    assert [s.card.name for s in card.history][:2] == ["Govern the Unaligned", "Anson (G1)"]


def test_nav_rail_words_never_break_in_two(window, demo):
    """At 800x480, in both languages and at every text scale Settings offers, with each screen's
    button selected (drawn bold) in turn, no word of the rail is cut across two lines."""
    from companion import i18n
    from companion.ui.screens.settings import TEXT_SCALES
    from companion.ui.theme import theme

    resize(window, 800, 480)
    demo.set_game("vtes", screens=())  # a game on the table; no screen's demo is looked at
    demo.root.show("settings")
    settle(4)
    names = [b.screen for b in demo.root.nav.buttons()]
    try:
        for lang in ("fr", "en"):
            i18n.set_language(lang)
            for scale in TEXT_SCALES:
                theme.text_scale = float(scale)
                for name in names:
                    # The bar's mark alone (the Table would hide the bar): the button drawn bold.
                    demo.root.nav.current = name
                    settle(4)  # laid out and each word's texture made; no picture is read
                    assert_nav_words_whole(demo.root, f"{lang} x{scale} on {name}")
    finally:
        theme.text_scale = 1.0
        i18n.set_language("fr")
        demo.root.nav.current = demo.root.current
        settle(4)


def test_card_history_tap_shows_a_card_again(window, demo):
    resize(window, 800, 480)
    demo.set_game("vtes", screens=("card",))
    card = demo.root.get_screen("card")
    demo.root.show("card")
    settle()
    buttons = list(reversed(card.ids.history_row.children))  # left to right
    assert [b.text for b in buttons][:3] == ["Govern the Unaligned", "Anson (G1)", "Deflection"]
    buttons[2].dispatch("on_release")
    settle()
    assert card.title == "Deflection" and card.mode == "card"
    assert [s.card.name for s in card.history][0] == "Govern the Unaligned"  # tapping does not reorder


def test_types_and_costs_follow_the_language(window, demo):
    from companion import i18n

    card = demo.root.get_screen("card")
    try:
        i18n.set_language("en")
        card.show_scan(laid("vtes:100845"), remember=False)
        assert ("Cost", "1 blood") in card.fields
        card.show_scan(laid("ascension:apprenti"), remember=False)
        assert ("Type", "Starting card") in card.fields
    finally:
        i18n.set_language("fr")
    card.show_scan(laid("ascension:apprenti"), remember=False)
    assert ("Type", "Carte de départ") in card.fields


# --- Rules: search as you type ------------------------------------------------------------------------
def test_rules_search_as_you_type_finds_a_misspelled_glossary_entry(window, demo):
    from companion.cards.gamedata import GlossaryEntry

    resize(window, 800, 480)
    demo.set_game("vtes", screens=("rules",))
    rules = demo.root.get_screen("rules")
    demo.root.show("rules")
    search = rules.ids.search
    search.text = ""
    settle()
    assert rules.results and rules.status.startswith("Sommaire")  # no query: the contents
    search.focus = True
    for ch in "sagnee":  # "saignée" with a letter missing and no accent
        search.insert_text(ch)
        settle(1)
    assert wait_for(lambda: rules.query == "sagnee" and rules.results
                    and isinstance(rules.results[0], GlossaryEntry) and rules.results[0].id == "bleed")
    first = list(reversed(rules.ids.results.children))[0]
    assert "Saign" in first.text
    first.dispatch("on_release")
    settle()
    assert "Saign" in rules.reading_title and len(rules.reading_text) > 40
    assert rules.ids.reading_text_label.text == rules.reading_text
    rules.ids.back_button.dispatch("on_release")
    assert rules.reading_title == ""


# --- Enroll: an unknown tag, picked by search, bound, then known ---------------------------------------
def test_unknown_tag_is_picked_bound_and_then_known(window, demo):
    from companion.tags.collection import collection_path, load_uid_map

    resize(window, 800, 480)
    demo.set_game("vtes", screens=("enroll",))
    uid = "04E1A2B3C4D5%02X" % (int(time.time()) % 256)
    scan = laid(uid=uid)
    assert scan.status == "unknown"
    demo.session.add_scan(scan)  # as the app does; the Enroll screen takes every unknown tag
    demo.root.show("enroll")
    enroll = demo.root.get_screen("enroll")
    settle()
    assert enroll.mode == "pick" and enroll.uid == uid
    enroll.ids.search.text = "govern the unalined"  # typed with a typo
    assert wait_for(lambda: enroll.results and enroll.results[0].ref == "vtes:100845")
    list(reversed(enroll.ids.results.children))[0].dispatch("on_release")
    settle()
    assert enroll.mode == "chosen" and enroll.chosen_name == "Govern the Unaligned"
    assert "ne sait pas écrire" in enroll.notice  # the simulator cannot write: bind is offered
    enroll.ids.bind_button.dispatch("on_release")
    settle()
    assert enroll.mode == "done"
    assert demo.root.current == "card" and demo.root.get_screen("card").title == GOVERN_SHOWN
    assert load_uid_map()[uid] == "vtes:100845"
    assert uid in collection_path().read_text(encoding="utf-8")
    again = laid(uid=uid)  # the same tag laid again: the real resolver over the collection file
    assert again.status == "card" and again.card.name == "Govern the Unaligned"


def test_a_whole_deck_is_tagged_card_after_card(window, demo):
    from companion.tags.collection import load_uid_map

    resize(window, 800, 480)
    library = _library()
    enroll = demo.root.get_screen("enroll")
    cards = [(library.get("res-arcana:sirene"), 2), (library.get("res-arcana:calice-de-vie"), 1)]
    enroll.start_deck("res-arcana", cards)
    demo.root.show("enroll")
    settle()
    assert enroll.takes_scans and enroll.deck_card == "Sirène"
    assert enroll.ids.deck_count_label.text == "1 / 3"
    stamp = int(time.time()) % 256
    uids = [f"04D0{i:02X}{stamp:02X}00AABB" for i in range(3)]
    enroll.take_scan(laid(uid=uids[0]))
    settle()
    assert enroll.ids.deck_count_label.text == "2 / 3" and enroll.deck_card == "Sirène"
    enroll.take_scan(laid(uid=uids[0]))  # the same sticker again is refused
    assert "déjà" in enroll.notice and enroll.deck_done == 1
    enroll.take_scan(laid(uid=uids[1]))
    enroll.take_scan(laid(uid=uids[2]))
    assert enroll.mode == "done" and "3 cartes" in enroll.notice
    mapping = load_uid_map()
    assert [mapping[u] for u in uids] == ["res-arcana:sirene", "res-arcana:sirene", "res-arcana:calice-de-vie"]


# --- Deck: scans update the counts and the verdict ------------------------------------------------------
def test_scanning_a_deck_updates_counts_and_legality(window, demo, tmp_path):
    resize(window, 800, 480)
    demo.set_game("res-arcana", screens=("deck",))
    deck = demo.root.get_screen("deck")
    demo.root.show("deck")
    deck.clear()
    deck.wait_checked()
    assert deck.summary.startswith("Posez")
    for ref in ARTIFACTS[:7]:
        demo.session.add_scan(laid(f"res-arcana:{ref}"))  # the deck screen is shown: the scan is its
        assert deck.wait_checked()
    settle()
    assert deck.summary.startswith("Total : 7") and deck.verdict == "Paquet non valide"
    assert "7 artefacts, il en faut 8" in deck.problems
    assert deck.ids.verdict_label.text == "Paquet non valide"
    demo.session.add_scan(laid(f"res-arcana:{ARTIFACTS[7]}"))
    assert deck.wait_checked()
    settle()
    assert deck.summary.startswith("Total : 8") and deck.verdict == "Paquet valide" and deck.problems == ""
    # Against a list: one card of the list was not laid, one laid is not in it.
    listing = tmp_path / "mon-paquet.txt"
    names = [_library().get(f"res-arcana:{r}").name for r in ARTIFACTS[1:]] + ["Statue Sacrée"]
    listing.write_text("\n".join(f"1 {n}" for n in names) + "\n", encoding="utf-8")
    assert deck.load_list(listing)
    assert deck.wait_checked()
    assert deck.progress == "7 / 8"
    assert "Manquantes" in deck.comparison and "Statue Sacrée" in deck.comparison
    assert "En trop" in deck.comparison and "Anneau de Midas" in deck.comparison
    deck.remove_last()
    assert deck.wait_checked()
    assert deck.summary.startswith("Total : 7")
    # A list that cannot be read is said, and the deck laid so far stays.
    assert not deck.load_list(tmp_path / "absent.txt")
    assert "Impossible de lire absent.txt" in deck.notice and len(deck.scanned) == 7


# --- Settings: the Kivy panel over the config, applied live -----------------------------------------------
def test_settings_panel_applies_text_size_and_palette_live(window, demo):
    from kivy.uix.settings import SettingOptions

    from companion.ui.theme import DEFAULT_PALETTE, theme

    resize(window, 800, 480)
    demo.root.show("settings")
    settle()
    screen = demo.root.get_screen("settings")
    keys = {(w.section, w.key) for w in screen.walk(restrict=True) if hasattr(w, "key") and hasattr(w, "section")}
    assert {("display", "text_scale"), ("display", "palette"), ("display", "language"), ("voice", "rate"),
            ("voice", "verbosity"), ("voice", "backend"), ("voice", "voice"), ("readers", "paths")} <= keys
    options = {w.key: w for w in screen.walk(restrict=True) if isinstance(w, SettingOptions)}
    try:
        options["text_scale"].value = "1.5"
        settle()
        assert theme.text_scale == 1.5 and screen.config.get("display", "text_scale") == "1.5"
        options["palette"].value = "contrast-light"
        settle()
        assert theme.palette == "contrast-light"
    finally:
        theme.text_scale = 1.0
        theme.use_palette(DEFAULT_PALETTE)


# --- the command -----------------------------------------------------------------------------------------
def test_screenshots_command_renders_every_screen_of_every_game(window, tmp_path):
    import subprocess
    import sys

    from companion.registry import ids

    GAMES = ids()
    from companion.ui.app import SCREENS

    root = Path(__file__).resolve().parents[2]
    command = [sys.executable, "-m", "companion", "screenshots", "--out", str(tmp_path), "--size", "800x480"]
    done = subprocess.run(command, cwd=root, capture_output=True, text=True, timeout=110)
    assert done.returncode == 0, done.stderr[-2000:]
    expected = {f"{spec.name}-{game}-800x480.png" for spec in SCREENS for game in GAMES}
    assert {p.name for p in tmp_path.glob("*.png")} == expected
    for name in ("card-rise-800x480.png", "deck-vtes-800x480.png", "table-astral-800x480.png"):
        assert_not_blank(tmp_path / name)
