"""The terminal that started the window shows only the companion's own sentences, in the user's
language: on a first start (a fresh Kivy home), Kivy said "Config: Older configuration version
detected…" and "Upgrading configuration in progress." in English on it. Kivy's chatter shows
only with --verbose."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.window_child import driver, run_window, window_env

pytestmark = pytest.mark.timeout(240)

ROOT = Path(__file__).resolve().parents[2]

# Inside the child: a probe that says when the first frame is on screen, then the program's own
# entry point, as typed (``python -m companion --lang fr run``).
DRIVER = driver("""
def probe(_dt):
    app = App.get_running_app()
    if app is None or app.root is None or app.first_frame_after is None:
        return
    out.write_text("up")
    return False
""", "sys.argv[2:]")


def start(tmp_path: Path, *args: str) -> tuple[str, str]:
    home, kivy_home = tmp_path / "home", tmp_path / "kivy"
    home.mkdir()
    kivy_home.mkdir()  # empty: the first start on a new machine
    up = tmp_path / "up"
    env = {k: v for k, v in window_env(home, KIVY_HOME=str(kivy_home)).items()
           if k not in ("KIVY_NO_CONSOLELOG", "KIVY_NO_FILELOG", "KIVY_LOG_MODE")}
    ended = run_window(DRIVER, [str(up), *args], env, up, stop=signal.SIGINT, turn=0)
    assert ended.returncode == 0, ended.err
    assert (kivy_home / "config.ini").exists()  # Kivy did write its first configuration
    return ended.out, ended.err


def test_a_first_start_shows_only_the_companions_own_lines(tmp_path: Path) -> None:
    out, err = start(tmp_path, "--lang", "fr", "run", "--reader", "sim")
    lines = [line for line in (out + err).splitlines() if line.strip()]
    for line in lines:
        assert not line.startswith(("[INFO", "[WARNING", "INFO", "WARNING", "[DEBUG", "DEBUG")), lines
        assert "Config:" not in line and "kivy" not in line.lower(), lines
    assert "Au revoir." in lines, lines  # the companion's own goodbye, in French


def test_kivy_speaks_on_the_terminal_with_verbose(tmp_path: Path) -> None:
    """``python -m companion --verbose run`` itself, stopped once it logs its first frame."""
    kivy_home = tmp_path / "kivy"
    kivy_home.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("KIVY_NO_CONSOLELOG", "KIVY_NO_FILELOG", "KIVY_LOG_MODE")}
    env.update(COMPANION_HOME=str(tmp_path / "home"), KIVY_HOME=str(kivy_home), PYTHONPATH=str(ROOT),
               COMPANION_WINDOW="800x480", COMPANION_SPEECH="silent", SDL_VIDEODRIVER="offscreen")
    proc = subprocess.Popen([sys.executable, "-m", "companion", "--verbose", "--lang", "fr", "run", "--reader", "sim"],
                            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    seen = []
    try:
        assert proc.stderr is not None
        for line in proc.stderr:  # read to the end (the goodbye), against a hang the test's timeout
            seen.append(line)
            if "first frame" in line:
                proc.send_signal(signal.SIGINT)
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    err = "".join(seen)
    assert "first frame" in err, err
    assert "Config: Older configuration version detected" in err
