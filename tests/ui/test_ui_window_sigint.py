"""Ctrl-C (SIGINT) in the terminal that started the window (issue 22, item 5): the real window on
the virtual screen, playing a game, closes as Ctrl-Q does: every change made before it is in the
journal, the goodbye names the game and how to resume it, the exit code is 0, no traceback.
SIGTERM and SIGHUP are tested in tests/integration/test_lesser_defects.py."""

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

# Runs inside the child: a probe on Kivy's clock that resumes game 1 and plays on it as the
# window's keys would, then the program's own entry point, as typed.
DRIVER = r"""
import json, sys
from pathlib import Path
from companion.ui.app import configure_window
configure_window()
from kivy.app import App
from kivy.clock import Clock
from companion.cli import main

out = Path(sys.argv[1])
done = []
def probe(_dt):
    app = App.get_running_app()
    if app is None or app.root is None or not app.root.has_screen("home") or app.first_frame_after is None:
        return
    if not done:
        assert app.session.resume(1, source="key").ok
        for _ in range(5):  # the last acknowledged just before the signal
            result = app.session.apply("pool 2 -1", source="key")
            done.append(result.ok)
        out.write_text(json.dumps(dict(ok=done, state=app.session.state)))
        return False

Clock.schedule_interval(probe, 0.1)
sys.exit(main(["--lang", sys.argv[2], "run", "--reader", "sim"]))
"""


def run(*args: str, home: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "COMPANION_HOME": str(home), "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "companion", "--lang", "en", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120, input="pool 1 -2\n")


@pytest.mark.parametrize("lang,bye", [("en", "Goodbye. Game number 1 is saved"),
                                      ("fr", "Au revoir. La partie n° 1 est enregistrée")])
def test_ctrl_c_closes_the_window_cleanly_and_keeps_every_change(tmp_path: Path, lang: str, bye: str) -> None:
    home = tmp_path / "home"
    home.mkdir()
    made = run("table", "--game", "vtes", "--players", "Ann,Bob", home=home)  # the window's own journal
    assert made.returncode == 0, made.stderr
    report = tmp_path / "report.json"
    env = {**os.environ, "COMPANION_HOME": str(home), "PYTHONPATH": str(ROOT), "COMPANION_WINDOW": "800x480",
           "COMPANION_SPEECH": "silent", "SDL_VIDEODRIVER": "offscreen", "KIVY_NO_ARGS": "1"}
    proc = subprocess.Popen([sys.executable, "-c", DRIVER, str(report), lang], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        end = time.monotonic() + 180  # a deadline only against a hang
        while not report.exists() and proc.poll() is None and time.monotonic() < end:
            time.sleep(0.1)
        assert proc.poll() is None, proc.communicate()[1]
        assert report.exists(), "no window"
        time.sleep(0.3)  # the report is written whole before the file is seen; let Kivy's loop turn
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    played = json.loads(report.read_text())
    assert played["ok"] == [True] * 5
    assert proc.returncode == 0, (proc.returncode, err)
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    assert bye in err, err
    # Nothing lost: the game read back from the journal by another program is where the window left it.
    again = run("table", "--resume", "1", "--export", "json", home=home)
    assert again.returncode == 0, again.stderr
    state = json.loads(again.stdout)
    assert [s["counters"]["pool"] for s in state["state"]["seats"]] == [28, 25]
