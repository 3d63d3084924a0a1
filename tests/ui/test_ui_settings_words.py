"""The Settings panel shows and offers each choice in words, as the listener hears it: "français",
"contraste sombre", "125 %", "complet", "automatique". Kivy's own panel showed the values that
companion.ini holds ("fr", "contrast-dark", "1.25", "full", "auto"); the file keeps them."""

from __future__ import annotations

import pytest

from tests.ui_helpers import frames

pytestmark = pytest.mark.ui


@pytest.fixture
def panel(window):
    from kivy.config import ConfigParser

    from companion import i18n
    from companion.ui.screens.settings import SettingsScreen
    from companion.ui.theme import DEFAULT_PALETTE, theme

    screen = SettingsScreen(name="settings")
    screen.config = ConfigParser()
    window.add_widget(screen)
    screen.build()
    frames(2, draw=False)
    yield screen
    window.remove_widget(screen)
    i18n.set_language("fr")
    theme.text_scale = 1.0
    theme.use_palette(DEFAULT_PALETTE)


def _rows(screen) -> dict:
    from kivy.uix.settings import SettingOptions

    return {w.key: w for w in screen.walk(restrict=True) if isinstance(w, SettingOptions)}


def _shown(row) -> str:
    from kivy.uix.label import Label

    return next(w.text for w in row.content.children if isinstance(w, Label))


def test_each_choice_is_shown_in_words_and_the_file_keeps_its_value(panel) -> None:
    from companion.ui.a11y import describe_widget

    rows = _rows(panel)
    assert {key: _shown(row) for key, row in rows.items()} == {
        "text_scale": "100 %", "palette": "contraste sombre", "language": "français",
        "verbosity": "normal", "backend": "automatique"}
    assert describe_widget(rows["text_scale"]) == ("Taille du texte", "100 pour cent")  # what the listener hears
    assert describe_widget(rows["palette"]) == ("Contraste", "contraste sombre")

    # Chosen as a player chooses: the row opens its list, a choice in words is tapped.
    rows["text_scale"].dispatch("on_release")
    offered = {b.text: b for b in rows["text_scale"].popup.content.children if hasattr(b, "option")}
    assert set(offered) == {"100 %", "125 %", "150 %", "175 %", "200 %"}
    offered["150 %"].dispatch("on_release")
    frames(2, draw=False)
    assert panel.config.get("display", "text_scale") == "1.5" and _shown(rows["text_scale"]) == "150 %"

    rows["language"].dispatch("on_release")
    offered = {b.text: b for b in rows["language"].popup.content.children if hasattr(b, "option")}
    assert set(offered) == {"français", "anglais"}
    offered["anglais"].dispatch("on_release")
    frames(2, draw=False)
    assert panel.config.get("display", "language") == "en"
    assert _shown(rows["language"]) == "English"
    panel.relabel()  # what the app's root does when the language changes: the panel made again in it
    frames(2, draw=False)
    rows = _rows(panel)
    assert _shown(rows["language"]) == "English" and _shown(rows["backend"]) == "automatic"
