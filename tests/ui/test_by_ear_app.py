"""The app by ear, driven by key events through the real key path (the window's on_key_down),
with what is said recorded by the silent backend: Settings reached by a key and changed with
Enter (the verbosity then shortens the readings), a text field named and typed into without an
Enter first, history back and forth, keypad help a key at a time."""

from __future__ import annotations

import time

import pytest

from tests.ui.test_a11y_app import App, frames, ticks

pytestmark = pytest.mark.timeout(120)


class Ear(App):
    pump = staticmethod(ticks)

    def press(self, *keys: str) -> list[str]:
        start = len(self.spoken)
        for key in keys:
            super().press(key)
            # Enter and hex digits wait a moment in case a keyboard-wedge reader is typing a
            # UID; a person's key is then handed on: wait for it, boundedly.
            deadline = time.monotonic() + 30  # ends when handed on; long only on a loaded machine
            while self.a11y._held and time.monotonic() < deadline:
                time.sleep(0.02)
                ticks(1)
            assert self.voice.wait_idle(5)
        return [u.text for u in self.spoken[start:]]


@pytest.fixture
def ear(window, app_root, tmp_path):
    from kivy.app import App as KivyApp

    # An app stopped by an earlier test stays Kivy's "running app"; the Settings screen would
    # take that app's config and leave the change to it, not to this window's voice.
    KivyApp._running_app = None
    a = Ear(window, tmp_path, roots=app_root)
    yield a
    a.close()


def test_settings_by_keys_and_the_verbosity_shortens_readings(ear):
    ear.session.new_game("vtes", ["Ann", "Bob", "Cy"], seed=1)
    full = ear.press("f3", "t")
    assert any("points de victoire zéro" in x for x in full), full
    said = ear.press("f9")
    assert said == ["Écran Réglages. Lecteurs, voix, vitesse, verbosité, langue, thème et taille du texte."]
    tabs = [ear.press("tab")[-1] for _ in range(4)]
    assert tabs[-1] == "Quantité de paroles, normal.", tabs
    # Enter goes to the next option, said at once, and applied to the voice
    assert ear.press("enter") == ["Quantité de paroles, complet."]
    assert ear.voice.verbosity == "full"
    assert ear.press("enter") == ["Quantité de paroles, court."]
    assert ear.voice.verbosity == "short"
    said = ear.press("f3", "t")
    assert said[0].startswith("Écran Table.")
    assert not any("zéro" in x.split(".")[0] for x in said[2:]), said  # counters at zero left out
    # settings is in the screen order too: Page Up from Home goes round to it
    ear.press("f2")
    assert ear.press("pageup")[0].startswith("Écran Réglages.")


def test_a_text_field_is_named_and_takes_letters_without_enter(ear):
    ear.runtime.load_cards()  # as the app does in a worker at its start
    ear.session.new_game("vtes", ["Ann", "Bob", "Cy"], seed=1)
    ear.press("f6")
    said = ear.press("tab")
    assert said == ["Chercher une règle, un mot-clé…."], said  # its hint, not "."
    field = ear.root.get_screen("rules").ids.search
    assert field.focus
    before = ear.session.game.state["seats"][1]["counters"]["pool"]
    ear.press("p", "o", "o", "l", "-")
    assert field.text == "pool-"
    assert ear.session.game.state["seats"][1]["counters"]["pool"] == before  # no letter or sign played
    # once the fingers rest, how many entries were found is said (item 2)
    start = len(ear.spoken)
    field.text = "edge"
    deadline = time.monotonic() + 30
    while not any("résultats pour « edge »" in u.text for u in ear.spoken[start:]) and time.monotonic() < deadline:
        ticks(1)
        time.sleep(0.02)
    said = [u.text for u in ear.spoken[start:]]
    assert any(x.endswith("résultats pour « edge »") for x in said), said


def test_history_and_keypad_help_in_the_window(ear):
    ear.session.new_game("vtes", ["Ann", "Bob", "Cy"], seed=1)
    ear.press("f3")
    ear.press("numpaddivide", "numpad2", "-")
    ear.press("numpaddivide", "numpad3", "-")
    said = ear.press("j")  # the message before the last: Cy's seat, read when chosen
    assert said == ["Cy : réserve trente, points de victoire zéro, transferts zéro. C'est son tour; proie : Ann."], said
    assert ear.press("k") == ["Cy, vingt-neuf."]
    assert ear.press("k") == ["Dernier message."]
    said = ear.press("numpaddivide", "numpaddivide")
    assert said[-1] == "pavé barre oblique puis pavé 1 à 6 : choisir la place 1 à 6.", said
    assert ear.press("numpad2") == ["pavé 6 : place suivante."]


# game: (its place among Home's game buttons, a word to look up in its rules)
GAMES = {"vtes": (1, "edge"), "ascension": (2, "honneur"), "res-arcana": (3, "essence"), "rise": (4, "pieces"),
         "astral": (5, "etoiles")}


def tab_to(ear: Ear, wanted: str, limit: int = 20) -> list[str]:
    """Tab until the focus says ``wanted`` (bounded), as a player listens through a screen; a
    field is said with its name and what it holds ("ann, Joueur 1, ann.")."""
    heard: list[str] = []
    for _ in range(limit):
        heard += ear.press("tab")
        if heard and (heard[-1] == wanted or f", {wanted.rstrip('.')}, " in heard[-1]):
            return heard
    raise AssertionError((wanted, heard))


def test_five_whole_games_by_keys_from_home(ear):
    """One window session: each game chosen on Home by Tab and Enter, players typed, started,
    played a little (a phase, a counter, an undo), a rule looked up (its count heard), the
    verbosity changed in Settings, the table read, left and resumed from Home's saved games;
    no touch, nothing looked at."""
    ear.runtime.load_cards()  # as the app does in a worker at its start
    rules = ear.root.get_screen("rules")
    for game, (place, word) in GAMES.items():
        if ear.root.current != "home":
            assert ear.press("f2")[0].startswith("Écran Accueil.")
        ear.a11y.focus.clear()
        said = ear.press(*["tab"] * place)
        choice = said[-1].rstrip(".").split(",")[0]
        said = ear.press("enter")
        assert said and said[-1].startswith(choice) and said[-1].endswith("activé."), (game, said)
        tab_to(ear, "Joueur 1.")
        ear.press("a", "n", "n")
        tab_to(ear, "Joueur 2.")
        ear.press("b", "o", "b")
        tab_to(ear, "Commencer la partie.")
        said = ear.press("enter")
        assert ear.session.game is not None and ear.session.game.data.id == game, (game, said)
        assert [s["name"] for s in ear.session.game.state["seats"]][:2] == ["ann", "bob"], said
        assert any(x.startswith("Écran Table.") for x in said), said
        # play: the next phase, one more on the counter under the cursor, then undo it
        assert ear.press("numpadmul"), game
        plus = ear.press("numpadadd")
        if plus and plus[-1].startswith("Refusé :"):  # at its maximum (ASTRAL's Energy): one less
            plus = ear.press("numpadsubstract")
        # the counter under the cursor: whose, and its new value ("bob, trente et un.")
        state = ear.session.game.state
        seat_name = state["seats"][state["active"] if ear.session.selected_seat is None
                                   else ear.session.selected_seat]["name"]
        assert plus and plus[0].startswith(f"{seat_name}, "), (game, plus)  # (then what it moved: a pool)
        undo = ear.press("numpad7")
        assert undo and undo[-1].startswith("Annulé."), (game, undo)
        # a rule, typed in the Rules search after one Tab
        ear.press("f6")
        ear.a11y.focus.clear()
        ear.press("tab")
        rules.ids.search.text = ""
        ear.press(*word)
        deadline = time.monotonic() + 30
        while not rules.results and time.monotonic() < deadline:
            time.sleep(0.05)
            ticks(1)
        assert rules.results, (game, word, rules.ids.search.text, rules.query)
        deadline = time.monotonic() + 30  # how many were found is said once the typing pauses
        while not any(f"résultats pour « {word} »" in u.text for u in ear.spoken) and time.monotonic() < deadline:
            time.sleep(0.02)
            ticks(1)
        assert any(f"résultats pour « {word} »" in u.text for u in ear.spoken), game
        # the verbosity, in Settings, by Tab and Enter
        ear.press("f9")
        ear.a11y.focus.clear()
        said = ear.press("tab", "tab", "tab", "tab")
        assert said[-1].startswith("Quantité de paroles"), said
        level = ear.press("enter")[-1]
        words = {"short": "court", "normal": "normal", "full": "complet"}  # said in French, not Kivy's value
        assert level == f"Quantité de paroles, {words[ear.voice.verbosity]}.", level
        said = ear.press("f3", "t")
        assert any(x.startswith("ann") for x in said) and any(x.startswith("bob") for x in said), (game, said)
        # leave it, then resume it from Home's saved games by Tab and Enter
        number = ear.session.game.id
        ear.press("f2")
        ear.a11y.focus.clear()
        for _ in range(40):
            heard = ear.press("tab")
            if heard and f"(n° {number})" in heard[-1]:
                break
        else:
            raise AssertionError((game, "no saved game", number))
        said = ear.press("enter")
        assert ear.session.game.id == number and any(x.startswith("Écran Table.") for x in said), (game, said)


def test_a_language_change_in_settings_applies_everywhere_at_once(ear):
    """Issue 16, item 9: the language chosen in Settings (by keys) rewrites the screens already
    built, their kv labels and their Python-made words alike, and what the table says."""
    from companion import i18n

    try:
        ear.session.new_game("vtes", ["Ann", "Bob", "Cy"], seed=1)
        ear.press("f3")
        table, home = ear.root.get_screen("table"), ear.root.get_screen("home")
        assert home.ids.start.word == "Commencer" or "Commencer" in home.ids.start.word
        french_strip = [b.word for b in table._strip_buttons]
        ear.press("f9")
        heard = tab_to(ear, "Langue, français.")
        said = ear.press("enter")
        assert i18n.language() == "en", said
        frames(3, draw=False)
        assert "Commencer" not in home.ids.start.word and home.ids.start.word  # kv label, built before
        assert [b.word for b in table._strip_buttons] != french_strip  # Python-made, built before
        assert ear.root.nav.buttons()[0].word == "Home"
        said = ear.press("f3")
        assert said[0].startswith("Table screen."), said  # and the table speaks English now
        said = ear.press("-")
        assert "twenty-nine" in " ".join(said), said  # the pool under the cursor, in English
    finally:
        i18n.set_language("fr")
        frames(2, draw=False)
    assert [b.word for b in ear.root.get_screen("table")._strip_buttons] == french_strip
    assert heard
