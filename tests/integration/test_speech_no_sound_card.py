"""The real espeak-ng on a machine with no sound card (a headless Pi, this CI machine): it says so
on stderr in English ALSA lines and goes on (exit 0). That is kept out of the user's terminal and
written to the log (seen with --verbose); a real failure of the voice (a voice that does not
exist) is still said on the terminal, once, in the user's language (issue 21). Before, every start
printed "WARNING companion.speech: espeak-ng could not play sound: ALSA lib confmisc.c:855...".
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.timeout(180),
              pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng is not installed")]

ROOT = Path(__file__).resolve().parents[2]


def console(tmp_path: Path, lang: str, *extra: str, verbose: bool = False) -> subprocess.CompletedProcess:
    # No sound card whatever this machine has: ALSA is pointed at a card that does not exist and
    # PulseAudio at no server, as on a headless board.
    env = {**os.environ, "COMPANION_HOME": str(tmp_path / "home"), "PYTHONPATH": str(ROOT),
           "COMPANION_SPEECH": "espeak", "ALSA_CARD": "companion-no-such-card", "PULSE_SERVER": "unix:/nonexistent"}
    options = ["--lang", lang, *(["--verbose"] if verbose else [])]
    return subprocess.run([sys.executable, "-m", "companion", *options, "console", "--game", "vtes", "--players",
                           "Ann,Bob", "--journal", str(tmp_path / "games.sqlite3"), "--speak", *extra], cwd=ROOT,
                          input="pool 1 -2\n", capture_output=True, text=True, timeout=150, env=env)


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_no_sound_card_is_logged_not_shown(tmp_path: Path, lang: str) -> None:
    done = console(tmp_path, lang)
    assert done.returncode == 0, done.stderr
    assert "28" in done.stdout  # the game went on, printed
    assert "ALSA" not in done.stderr and "WARNING" not in done.stderr, done.stderr
    verbose = console(tmp_path, lang, verbose=True)
    assert "no sound card" in verbose.stderr and "ALSA lib" in verbose.stderr, verbose.stderr[-3000:]


@pytest.mark.parametrize("lang,said", [
    ("fr", "La voix « xx-nowhere » n'existe pas pour espeak-ng : le companion continue sans elle."),
    ("en", "The voice “xx-nowhere” does not exist for espeak-ng: the companion goes on without it.")])
def test_a_real_voice_failure_is_said_once_in_the_users_language(tmp_path: Path, lang: str, said: str) -> None:
    done = console(tmp_path, lang, "--voice", "xx-nowhere")
    assert done.returncode == 0, done.stderr
    assert done.stderr.count(said) == 1, done.stderr
    assert "ALSA" not in done.stderr and "Error: The specified" not in done.stderr, done.stderr
