"""The app by ear, driven by key events through the real key path (the window's on_key_down),
with what is said recorded by the silent backend: Settings reached by a key and changed with
Enter (the verbosity then shortens the readings), a text field named and typed into without an
Enter first, history back and forth, keypad help a key at a time."""

from __future__ import annotations

import time

import pytest

from tests.test_a11y_app import App, frames

pytestmark = pytest.mark.timeout(120)


class Ear(App):
    def press(self, *keys: str) -> list[str]:
        start = len(self.spoken)
        for key in keys:
            super().press(key)
            # Enter and hex digits wait a moment in case a keyboard-wedge reader is typing a
            # UID; a person's key is then handed on: wait for it, boundedly.
            deadline = time.monotonic() + 5
            while self.a11y._held and time.monotonic() < deadline:
                time.sleep(0.02)
                frames(1)
            assert self.voice.wait_idle(5)
        return [u.text for u in self.spoken[start:]]


@pytest.fixture
def ear(window, tmp_path):
    a = Ear(window, tmp_path)
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
    assert ear.press("enter") == ["Quantité de paroles, full."]
    assert ear.voice.verbosity == "full"
    assert ear.press("enter") == ["Quantité de paroles, short."]
    assert ear.voice.verbosity == "short"
    said = ear.press("f3", "t")
    assert said[0].startswith("Écran Table.")
    assert not any("zéro" in x.split(".")[0] for x in said[2:]), said  # counters at zero left out
    # settings is in the screen order too: Page Up from Home goes round to it
    ear.press("f2")
    assert ear.press("pageup")[0].startswith("Écran Réglages.")


def test_a_text_field_is_named_and_takes_letters_without_enter(ear):
    ear.session.new_game("vtes", ["Ann", "Bob", "Cy"], seed=1)
    ear.press("f6")
    said = ear.press("tab")
    assert said == ["Chercher une règle, un mot-clé…."], said  # its hint, not "."
    field = ear.root.get_screen("rules").ids.search
    assert field.focus
    before = ear.session.game.state["seats"][1]["c"]["pool"]
    ear.press("p", "o", "o", "l", "-")
    assert field.text == "pool-"
    assert ear.session.game.state["seats"][1]["c"]["pool"] == before  # no letter or sign played


def test_history_and_keypad_help_in_the_window(ear):
    ear.session.new_game("vtes", ["Ann", "Bob", "Cy"], seed=1)
    ear.press("f3")
    ear.press("numpaddivide", "numpad2", "-")
    ear.press("numpaddivide", "numpad3", "-")
    said = ear.press("j")  # the message before the last: Cy's seat, read when chosen
    assert said == ["Cy : pool trente, points de victoire zéro, transferts zéro. C'est son tour; proie : Ann."], said
    assert ear.press("k") == ["Cy, pool, moins un, reste vingt-neuf."]
    assert ear.press("k") == ["Dernier message."]
    said = ear.press("numpaddivide", "numpaddivide")
    assert said[-1] == "pavé barre oblique puis pavé 1 à 6 : choisir la place 1 à 6.", said
    assert ear.press("numpad2") == ["pavé 6 : place suivante."]
