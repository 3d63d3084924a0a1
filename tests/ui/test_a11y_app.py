"""A whole VTES turn and a whole Res Arcana round played through the app with key presses only:
a real Kivy window (SDL offscreen), the app's screens over one Session and a real journal, key
events dispatched to the Window as a keyboard sends them, and what was said checked at each step
through the silent speech backend. Also: focus order on the Home screen, and the focus ring's
contrast on screenshots at 100% and 200% text size.

The game itself is set up by the session as the Home screen does it (names are typed text);
everything after that is keys.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.ui_helpers import frames, home_root, relative_luminance, window_pixels

pytestmark = [pytest.mark.ui, pytest.mark.timeout(90)]


def ticks(count: int = 1) -> None:
    """A frame of the window but its drawing (EventLoop.idle without on_draw and on_flip): the
    clock's events, input, kv rules, layouts and the labels' textures all run. For tests that
    listen and read widgets but never look at pixels: offscreen, the software renderer's drawing
    of each frame was about 60% of their CPU (llvmpipe's threads: 17.8 of 30 CPU-s in
    test_by_ear_app's five-games test)."""
    frames(count, draw=False)


# A keyboard sends a keycode, the character of the unshifted key and the modifiers held.
SPECIAL = {"+": (61, "=", ["shift"]), "AZERTY1": (38, "&", ["shift"])}


class App:
    """The app's root (every screen) over the core runtime (Session, announcer, voice, keys), and
    the keys installed on the Window, as the app wires them."""

    pump = staticmethod(frames)  # what runs the window as the app is set up (its last frame drawn)

    def __init__(self, window, tmp_path: Path, lang: str = "fr", on_wedge_scan=None, made: bool = True,
                 roots: list | None = None) -> None:
        """``roots``: the module's root, kept between its tests (see ``app_root``): started afresh
        over this test's runtime as a new evening starts it (Root.new_session), not made again."""
        from companion.play.runtime import Runtime
        from companion.ui.a11y import install
        from companion.ui.session_mirror import SessionMirror

        self.window = window
        self.runtime = Runtime(journal_path=tmp_path / "games.sqlite3", lang=lang)
        self.voice = self.runtime.voice
        self.session = SessionMirror(self.runtime.session, self.voice)
        self.root = home_root(self.session, roots)
        window.add_widget(self.root)
        self.pump(3)
        while made and self.root.build_next():  # the other screens, made in idle time as the app does
            frames(1, draw=False)
        self.a11y = install(self.root, self.runtime, window=window, on_wedge_scan=on_wedge_scan)
        assert self.voice.wait_idle(5)
        self.mark = 0

    @property
    def spoken(self) -> list:
        speaker = self.voice.speaker()
        return speaker.backend.spoken if speaker is not None else []

    def press(self, *keys: str) -> list[str]:
        """Press keys one after the other, as a keyboard sends them to the window; what was said."""
        from companion.play.keynames import KEYCODES
        from tests.ui_helpers import send_key

        start = len(self.spoken)
        for key in keys:
            if key in SPECIAL:
                code, char, mods = SPECIAL[key]
            else:
                *mods, name = key.split("+") if len(key) > 1 else [key]
                code = KEYCODES.get(name) or ord(name)
                char = name if len(name) == 1 else ""
            send_key(self.window, code, char, list(mods))
            frames(1, draw=False)
            assert self.voice.wait_idle(5)
        return [u.text for u in self.spoken[start:]]

    def said(self) -> list[str]:
        return [u.text for u in self.spoken]

    @property
    def state(self) -> dict:
        return self.session.game.state  # the engine replaces its state at each event

    @property
    def table(self):
        return self.root.get_screen("table")

    def close(self) -> None:
        frames(1)  # the test's last state, drawn in the window (the keys drew none)
        self.a11y.detach(self.window)
        self.window.remove_widget(self.root)
        self.session.close()
        self.runtime.close()


@pytest.fixture
def app(window, app_root, tmp_path):
    a = App(window, tmp_path, roots=app_root)
    yield a
    a.close()


def test_a_whole_vtes_turn_with_keys_only(app):
    assert app.said() == ["Écran Accueil. Choisir le jeu et les joueurs, ou reprendre une partie."]
    app.session.new_game("vtes", ["Ann", "Bob", "Cy"], seed=1)  # Cy is drawn to start
    # Its draw said first: the voice's thread may take the words before or after F3 is read.
    assert app.voice.wait_idle(5)
    assert app.press("f3") == ["Écran Table. Manche un, au tour de Cy, phase Redressement."]
    assert app.root.current == "table"
    # untap → master → minion: each phase by its name, its reminder after it the first time
    said = app.press("numpadmul")
    assert said[0] == "Maître." and said[1].startswith("Une action de maître")
    assert app.press("numpadmul")[0] == "Séides."
    # a bleed of two from the keypad: slash, 7, then the amount
    assert app.press("numpaddivide") == ["Choix : un chiffre pour une place, barre oblique pour l'aide."]
    assert app.press("numpad7") == ["Combien ? Un chiffre."]
    # the bleed says the change: then only where Ann's pool stands
    assert app.press("numpad2") == ["Cy saigne Ann de deux.", "Cy prend l'Avantage.", "Ann, vingt-huit."]
    assert app.state["seats"][0]["counters"]["pool"] == 28 and app.state["edge"] == 2
    frames(2, draw=False)
    assert app.table.counter_box(0, "pool").value == 28  # the screen shows what was said
    # undo and redo, said with what they moved
    # (what it undid, named: the bleed, then the numbers it moves back)
    assert app.press("numpad7") == ["Annulé. Cy saigne Ann de deux. Ann, réserve, plus deux, total trente."]
    assert app.session.game.state["seats"][0]["counters"]["pool"] == 30
    assert app.press("ctrl+y") == [
        "Rétabli. Cy saigne Ann de deux. Ann, réserve, moins deux, reste vingt-huit. Cy prend l'Avantage."]
    # influence: Cy's transfers; the cursor walks Cy's counters and spends them
    said = app.press("numpadmul")
    assert said[:2] == ["Influence.", "Transferts de Cy : un."]
    assert app.press("numpad2", "numpad2") == ["Cy, points de victoire, zéro.", "Cy, transferts, un."]
    assert app.press("numpadsubstract") == ["Cy, zéro."]  # the counter under the cursor: its value
    assert app.press("up", "up") == ["Cy, points de victoire, zéro.", "Cy, réserve, trente."]
    assert app.press("-") == ["Cy, vingt-neuf."]
    # discard, then the turn passes to Ann, who untaps
    assert app.press("n")[0] == "Défausse."
    said = app.press("numpadmul")
    # the turn once, with its player's pool (the round was said on its first turn); the untap
    # is the phase a turn opens in, its name left to the turn's sentence (game.yaml said:
    # with_turn), its reminder said on Cy's untap, and not again
    assert said == ["Au tour d'Ann : réserve vingt-huit."]
    # read one's seat, the whole table, the focused counter
    assert app.press("numpad1") == [
        "Ann : réserve vingt-huit, points de victoire zéro, transferts zéro. C'est son tour; proie : Bob."]
    said = app.press("t")
    assert said == ["Manche un, au tour d'Ann, phase Redressement.",
                    "Ann : réserve vingt-huit, points de victoire zéro, transferts zéro. C'est son tour; proie : Bob.",
                    "Bob : réserve trente, points de victoire zéro, transferts zéro. Proie : Cy.",
                    "Cy : réserve vingt-neuf, points de victoire zéro, transferts zéro. Avantage; proie : Ann."]
    assert app.press("numpad5") == ["Ann, réserve, vingt-huit."]
    # the edge to Ann, then again: the refusal is said as an error and changes nothing
    assert app.press("g") == ["Ann prend l'Avantage."]
    said = app.press("numpaddivide", "numpad8")
    assert said[-1].startswith("Refusé :") and "Ann" in said[-1]
    assert app.session.game.state["edge"] == 0
    # a typed value on an AZERTY keyboard (Shift and & is 1): seat 1, value entry, 2 then 5
    said = app.press("AZERTY1", "enter", "2", "5", "enter")
    assert said[-1] == "Ann, vingt-cinq."
    # help speaks the keys of this screen; Page Down moves to the next screen, which says itself
    said = app.press("h")
    assert said[0] == "Écran Table. Touches :" and "B : saigner la proie du joueur actif : puis un chiffre." in said
    said = app.press("pagedown")
    assert said == ["Écran Carte. La dernière carte posée, en grand, avec ses précisions de règles."]
    assert app.root.current == "card"
    # the numbers keys still work away from the table
    assert app.press("numpad7") == ["Annulé. Ann, réserve, plus trois, total vingt-huit."]


def test_a_whole_res_arcana_round_with_keys_only(app):
    app.session.new_game("res-arcana", ["Ann", "Bob"], seed=3)  # Ann has the first-player tile
    # Its draw said first: the voice's thread may take the words before or after F3 is read.
    assert app.voice.wait_idle(5)
    assert app.press("f3") == ["Écran Table. Manche un, au tour d'Ann, phase Collecte."]
    # collect: Ann's first essence, then Bob's gold, from the keypad
    assert app.press("numpad5") == ["Ann, Mort, une."]
    assert app.press("numpadadd") == ["Ann, deux."]
    said = app.press("numpaddivide", "numpad2")
    assert said[-1].startswith("Bob : Mort une, Sérénité une, Vie une, Vigueur une, Or un, points de victoire zéro.")
    assert app.press("numpad8") == ["Bob, points de victoire, zéro."]
    assert app.press("numpad8") == ["Bob, Or, un."]
    assert app.press("numpadadd", "numpadadd")[-1] == "Bob, trois."
    # actions: one each in turn
    said = app.press("numpadmul")
    assert said[0] == "Actions." and "À Ann d'agir." in said
    assert app.press("numpaddivide", "numpad1")[-1].startswith("Ann : Mort deux")
    said = app.press("numpadenter", "numpadsubstract", "numpad1", "numpadenter")
    assert said[-1] == "Ann, zéro."
    assert app.state["seats"][0]["counters"]["or"] == 0
    assert app.press("numpadmul") == ["À Bob d'agir."]
    # spending gold Bob does not have is refused, said, and changes nothing
    said = app.press("numpaddivide", "numpad2", "enter", "-", "9", "enter")
    assert said[-1].startswith("Refusé :")
    assert app.state["seats"][1]["counters"]["or"] == 3
    # passes: Bob first (he takes the first-player tile), then Ann from the keypad
    said = app.press("p")
    assert said[0] == "Bob passe en premier et prend la tuile premier joueur." and "Bob passe." not in said
    said = app.press("numpaddivide", "numpad7")
    assert "Ann passe." in said and "Contrôle de victoire." in said
    # victory check: nobody has ten points; a new round starts with Bob's tile
    said = app.press("numpadmul")
    assert said[0] == "Ann zéro point, Bob un point, tuile premier joueur comprise."  # after the phase's name
    assert said[1].startswith("Personne n'a dix points")
    assert "Manche deux : collecte. Bob a la tuile premier joueur." in said
    # a second round where Ann reaches ten points by a typed value, and wins at the check
    app.press("numpaddivide", "numpad1", "numpad2")  # from gold to Ann's victory points
    assert app.press("numpadenter", "numpad1", "numpad0", "numpadenter")[-1] == "Ann, dix."
    app.press("numpadmul")  # to the actions
    app.press("p")  # Bob, who holds the tile, acts first and passes
    app.press("p")  # then Ann
    said = app.press("numpadmul")
    assert said[0].startswith("Ann dix")
    assert any(x.startswith("Partie terminée") and "Ann" in x for x in said)
    assert app.state["over"] and app.state["winner"] == [0]
    said = app.press("numpad3")
    assert said[0] == "Victoire : Ann."  # the end was said once: who won, not "Partie terminée" again


def test_focus_order_is_predictable_and_spoken(app):
    home = app.root.get_screen("home")
    order = app.a11y.focus.widgets()
    assert len(order) >= 4
    # reading order: the kv file's order, top to bottom
    tops = [w.to_window(w.x, w.top)[1] for w in order]
    assert tops[0] >= tops[-1]
    said = [app.press("tab")[0] for _ in order]
    from companion.ui.a11y import describe_widget

    expected = [describe_widget(w) for w in order]
    assert said == [f"{label}, {value}." if value else f"{label}." for label, value in expected]
    assert all(label for label, _ in expected), expected
    # one more Tab wraps to the first; Shift-Tab goes back to the last
    assert app.press("tab") == [said[0]]
    assert app.press("shift+tab") == [said[-1]]
    assert app.a11y.focus.current() is order[-1] and home is app.root.current_screen


@pytest.mark.parametrize("scale", [1.0, 2.0])
def test_focus_ring_contrast(app, scale):
    from companion.ui.theme import theme

    theme.text_scale = scale
    try:
        app.session.new_game("vtes", ["Ann", "Bob", "Cy"], seed=1)
        app.press("f3", "numpad2")  # the cursor on Cy's victory points: a ring around its box
        frames(4)
        box = app.table.counter_box(2, "vp")  # on a panel turned to face the far side
        corners = [box.to_window(*p) for p in ((box.x, box.y), (box.right, box.top))]
        left, right = sorted(c[0] for c in corners)
        bottom, top = sorted(c[1] for c in corners)
        height = int(app.window.height)
        pixels = window_pixels(app.window)  # as its screenshot reads them
        ring = max(3, int(theme.base / 8))
        accent = tuple(int(round(c * 255)) for c in theme.accent[:3])
        # the bands just outside the box, on its four sides, are the ring, in the accent colour
        x, y, w, h = int(left), int(height - top), int(right - left), int(top - bottom)
        for band in ((x - ring, y - ring, w + 2 * ring, ring), (x - ring, y + h, w + 2 * ring, ring),
                     (x - ring, y, ring, h), (x + w, y, ring, h)):
            colours = pixels.colours(band, step=1)
            assert colours[accent] >= 0.5 * sum(colours.values()), (band, colours.most_common(3))
        lum_bg = relative_luminance(tuple(int(round(c * 255)) for c in theme.bg[:3]))
        lum_ring = relative_luminance(accent)
        hi, lo = max(lum_bg, lum_ring), min(lum_bg, lum_ring)
        assert (hi + 0.05) / (lo + 0.05) >= 7.0
    finally:
        theme.text_scale = 1.0


def test_letters_typed_in_a_search_field_are_text_never_commands(window, tmp_path):
    # The whole app as it starts (CompanionApp: its own key handlers, if any, included), a card
    # laid, then "rare" typed in the Rules search through the path a keyboard takes (on_key_down,
    # on_keyboard, on_textinput). R repeats; none of these letters may reach the keys.
    from companion.play.runtime import Runtime
    from companion.readers.events import TagEvent
    from companion.ui.app import CompanionApp
    from tests.ui_helpers import send_key

    runtime = Runtime(journal_path=tmp_path / "games.sqlite3", lang="fr")
    app = CompanionApp(reader_path="sim", runtime=runtime)
    app.load_config()
    app.root = app.build()
    window.add_widget(app.root)
    app.on_start()
    try:
        frames(3)  # drawn: the first picture shown starts the app's background work (on_flip)
        runtime.load_cards()
        app.show_scan(runtime.scans.resolve(TagEvent("laid", reader="sim", uid="04", ndef=None)))
        assert runtime.voice.wait_idle(5)
        app.root.show("rules")
        frames(3, draw=False)
        field = app.root.get_screen("rules").ids.search
        field.focus = True
        frames(2, draw=False)
        rules = app.root.get_screen("rules")
        statuses: list[str] = []  # what the search showed after each pause in the typing
        rules.bind(status=lambda _screen, text: statuses.append(text))
        sent, messages = len(runtime.voice.sent), len(runtime.voice.speaker().history)

        def said_since() -> list[str]:
            return [" ".join(u.text for u in m) for m in list(runtime.voice.speaker().history)[messages:]]

        for ch in "rare":
            send_key(window, ord(ch), ch, [])
            frames(1, draw=False)
        # Once the fingers rest (a Clock trigger after TYPING_PAUSE) the screen says how many
        # entries it found. On a slow machine the fingers seem to rest between letters too, so
        # wait for the count of "rare" however long frames take: everything said is one of
        # these counts, never a key command. The count of "rare" itself: an earlier pause's count
        # ("ra"), said and still shown when the last letter arrives, ended this wait too early.
        deadline = time.monotonic() + 30
        while rules.query != "rare" or "rare" not in rules.status or rules.status not in said_since():
            if time.monotonic() > deadline:
                break
            frames(1, draw=False)
            time.sleep(0.01)
        frames(3, draw=False)
        assert runtime.voice.wait_idle(5)
        assert field.text == "rare"
        said = said_since()
        assert said and said[-1] == rules.status and "rare" in rules.status, said
        assert all(s in statuses for s in said), (said, statuses)
        assert list(runtime.voice.sent)[sent:] == said
    finally:
        app.on_stop()
        window.remove_widget(app.root)
        frames(1)


def test_scan_to_play_by_keys_enter_applies_escape_leaves(app):
    """A card laid on the reader during an Ascension turn: its proposal is said after the card,
    Enter applies it, a card that cannot be paid is refused with its reason, Escape leaves it
    and the table stays on screen."""
    from companion.readers.events import TagEvent
    from companion.tags.resolve import Scan

    app.session.new_game("ascension", ["Ann", "Bob"], seed=1)
    app.press("f3")
    library = app.runtime.library
    me = app.state["active"]

    def lay(ref: str, uid: str) -> list[str]:
        start = len(app.spoken)
        app.runtime.lay(Scan(TagEvent("laid", reader="sim", uid=uid), "card", card=library.get(ref), ref=ref))
        frames(3, draw=False)
        assert app.voice.wait_idle(5)
        return [u.text for u in app.spoken[start:]]

    said = lay("ascension:apprenti", "04B1")
    # The card, then the question for the ear (signs as words), then how to answer it.
    assert said[0].startswith("Apprenti. Carte de départ.")
    assert said[1].endswith(", Apprenti : jouer (plus une rune) ?") and "+" not in said[1]
    assert any("Entrée pour appliquer" in s for s in said)
    assert app.state["seats"][me]["counters"]["runes"] == 0  # nothing before the confirmation
    said = app.press("enter")
    assert app.state["seats"][me]["counters"]["runes"] == 1
    assert any("Apprenti" in s for s in said)
    said = lay("ascension:monk-of-the-lidless-eye", "04B2")
    assert any("ne peut pas payer" in s for s in said)
    app.press("enter")
    assert app.state["seats"][me]["counters"]["runes"] == 1  # refused: nothing moved
    said = app.press("escape")
    assert said == ["Carte laissée, rien n'a changé."]
    assert app.session.proposal is None and app.root.current == "table"
    said = app.press("enter")  # with nothing proposed, Enter is the counter's value entry again
    assert app.session.proposal is None and app.state["seats"][me]["counters"]["runes"] == 1


def test_only_home_is_made_first_and_every_screen_is_reached_by_keys_and_touch(window, tmp_path):
    """The first frame waits for the Home screen alone (issue 25: the others cost about 1 s of
    CPU); each other screen is made when first asked for, by its key or by its button."""
    from kivy.tests.common import UnitTestTouch

    from companion.ui.app import SCREENS

    app = App(window, tmp_path, made=False)
    try:
        _reach_every_screen(app, UnitTestTouch, SCREENS)
    finally:
        app.close()


def _reach_every_screen(app, UnitTestTouch, SCREENS) -> None:  # noqa: N803 - the classes' own names

    assert [s.name for s in app.root.manager.screens] == ["home"]
    assert all(app.root.has_screen(spec.name) for spec in SCREENS)  # answered before they exist
    keys = {"table": "f3", "card": "f4", "log": "f5", "rules": "f6", "settings": "f9"}
    for name, key in keys.items():
        app.press("f2")
        app.press(key)
        assert app.root.current == name, key
        assert app.root.current_screen.nav_glyph  # made as the eager build made it
    for name in ("deck", "enroll"):  # (the rail's last button is below this small window)
        app.press("f2")
        assert name not in [s.name for s in app.root.manager.screens]
        button = app.root.nav.button(name)
        x, y = button.to_window(*button.center)
        touch = UnitTestTouch(x, y)
        touch.touch_down()
        touch.touch_up()
        frames(2, draw=False)
        assert app.root.current == name
    assert {s.name for s in app.root.manager.screens} == {spec.name for spec in SCREENS if spec.nav}
    for spec in SCREENS:
        if not spec.nav:  # reached from another screen (the table's menu shows it by its name)
            app.root.show(spec.name)
            frames(1, draw=False)
            assert app.root.current == spec.name
    assert app.root.build_next() is False  # nothing left for idle time
