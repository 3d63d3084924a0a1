"""The window started as a user starts it (``python -m companion run``) over a settings file that
reads well but holds bad values (issue 22, item 3): a rate of "fast", a language "xx", a palette
that does not exist, a misspelt key. The window comes up in the default language, each bad value is
named on the Home screen and said (key, fault, value used instead); the bad keys take their
defaults and the good ones (text size, volume) are applied. Before, "xx" and "fast" were dropped
without a word, and a rate of -5 was clamped silently."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.window_child import driver, run_window, window_env

pytestmark = pytest.mark.timeout(240)


SETTINGS = """[display]
language = xx
text_scale = 1.5
palette = rainbow
[voice]
rate = fast
volume = 90
verbosity = loud
speeed = 3
"""

DRIVER = driver("""
from companion import i18n
from companion.ui.theme import theme

def probe(_dt):
    app = App.get_running_app()
    if app is None or app.root is None or not app.root.has_screen("home"):
        return
    home = app.root.get_screen("home")
    speaker = app.voice.speaker()
    spoken = [" ".join(u.text for u in m) for m in (speaker.history if speaker is not None else [])]
    if "companion.ini" not in home.status or not any("companion.ini" in s for s in spoken):
        return
    config = {s: dict(app.config.items(s)) for s in app.config.sections()}
    out.write_text(json.dumps(dict(status=home.status, spoken=spoken, language=i18n.language(),
                                   text_scale=theme.text_scale, palette=theme.palette, config=config,
                                   rate=app.voice.rate, volume=app.voice.volume,
                                   verbosity=app.voice.verbosity), ensure_ascii=False))
    return False
""", '["run", "--reader", "sim"]')


def test_the_window_names_and_says_each_bad_setting_and_keeps_the_good_ones(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / "config").mkdir(parents=True)
    settings = home / "config" / "companion.ini"
    settings.write_text(SETTINGS)
    report_path = tmp_path / "report.json"
    env = window_env(home)
    env.pop("COMPANION_LANG", None)
    ended = run_window(DRIVER, [str(report_path)], env, report_path,
                       missing="no window, or the settings were not named")
    err = ended.err
    report = json.loads(report_path.read_text())
    assert ended.returncode == 0 and "Traceback" not in err, err
    # Named on the Home screen and said, in the language used instead of "xx": French.
    assert report["language"] == "fr"
    said = " ".join(s for s in report["spoken"] if "companion.ini" in s)
    for text in (report["status"], said):
        for part in ("Langue ([display] language) vaut « xx »", "fr (français) est utilisé à la place",
                     "Débit ([voice] rate) vaut « fast », ce n'est pas un nombre ; 165 est utilisé à la place",
                     "Contraste ([display] palette) vaut « rainbow »", "« loud »",
                     "la clé [voice] speeed est inconnue"):
            assert part in text, (part, text)
        assert str(settings) in text
        assert "text_scale" not in text and "volume" not in text
    # The bad keys take their defaults, the good ones are applied.
    assert report["config"]["voice"]["rate"] == "165" and report["rate"] == 165
    assert report["config"]["display"]["language"] == "fr"
    assert report["palette"] == "contrast-dark" and report["verbosity"] == "normal"
    assert report["text_scale"] == 1.5 and report["volume"] == 90
    # The file stays as the user wrote it until they change a setting.
    assert settings.read_text() == SETTINGS


def test_the_settings_file_knows_the_windows_palettes_and_text_sizes() -> None:
    from companion import usersettings
    from companion.ui import theme
    from companion.ui.screens.settings import TEXT_SCALES

    assert set(usersettings.PALETTES) == set(theme.PALETTES)
    assert usersettings.RULES["display"]["palette"].default() == theme.DEFAULT_PALETTE
    assert all(usersettings.RULES["display"]["text_scale"].why(v) is None for v in TEXT_SCALES)
