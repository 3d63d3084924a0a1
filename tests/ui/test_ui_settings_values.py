"""The window started as a user starts it (``python -m companion run``) over a settings file that
reads well but holds bad values (issue 22, item 3): a rate of "fast", a language "xx", a palette
that does not exist, a misspelt key. The window comes up in the default language, each bad value is
named on the Home screen and said (key, fault, value used instead); the bad keys take their
defaults and the good ones (text size, volume) are applied. Before, "xx" and "fast" were dropped
without a word, and a rate of -5 was clamped silently."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.timeout(240)

ROOT = Path(__file__).resolve().parents[2]

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

DRIVER = r"""
import json, sys
from pathlib import Path
from companion.ui.app import configure_window
configure_window()
from kivy.app import App
from kivy.clock import Clock
from companion import i18n
from companion.cli import main
from companion.ui.theme import theme

out = Path(sys.argv[1])
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

Clock.schedule_interval(probe, 0.1)
sys.exit(main(["run", "--reader", "sim"]))
"""


def test_the_window_names_and_says_each_bad_setting_and_keeps_the_good_ones(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / "config").mkdir(parents=True)
    settings = home / "config" / "companion.ini"
    settings.write_text(SETTINGS)
    report_path = tmp_path / "report.json"
    env = {**os.environ, "COMPANION_HOME": str(home), "PYTHONPATH": str(ROOT), "COMPANION_WINDOW": "800x480",
           "COMPANION_SPEECH": "silent", "SDL_VIDEODRIVER": "offscreen", "KIVY_NO_ARGS": "1"}
    env.pop("COMPANION_LANG", None)
    proc = subprocess.Popen([sys.executable, "-c", DRIVER, str(report_path)], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        end = time.monotonic() + 180  # a deadline only against a hang
        while not report_path.exists() and proc.poll() is None and time.monotonic() < end:
            time.sleep(0.2)
        assert proc.poll() is None, proc.communicate()[1]
        assert report_path.exists(), "no window, or the settings were not named"
        time.sleep(0.3)
        proc.send_signal(signal.SIGTERM)
        _out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    report = json.loads(report_path.read_text())
    assert proc.returncode == 0 and "Traceback" not in err, err
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
