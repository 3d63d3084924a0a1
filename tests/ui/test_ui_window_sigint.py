"""Ctrl-C (SIGINT) in the terminal that started the window (issue 22, item 5): the real window on
the virtual screen, playing a game, closes as Ctrl-Q does: every change made before it is in the
journal, the goodbye names the game and how to resume it, the exit code is 0, no traceback.
SIGTERM and SIGHUP are tested in tests/integration/test_lesser_defects.py."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.window_child import driver, run_window, window_env

pytestmark = pytest.mark.timeout(240)

ROOT = Path(__file__).resolve().parents[2]

# A probe on Kivy's clock that resumes game 1 and plays on it as the window's keys would, then the
# program's own entry point, as typed.
DRIVER = driver("""
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
""", '["--lang", sys.argv[2], "run", "--reader", "sim"]')


def run(*args: str, home: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "COMPANION_HOME": str(home), "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "companion", "--lang", "en", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120, input="pool 1 -2\n")


@pytest.fixture(scope="module")
def journal(tmp_path_factory) -> Path:
    """The window's own journal with game 1 started from the console, made once: each test plays
    on a copy of it (the game made is the same for both languages)."""
    home = tmp_path_factory.mktemp("made")
    made = run("table", "--game", "vtes", "--players", "Ann,Bob", home=home)
    assert made.returncode == 0, made.stderr
    return home


@pytest.mark.parametrize("lang,bye", [("en", "Goodbye. Game number 1 is saved"),
                                      ("fr", "Au revoir. La partie n° 1 est enregistrée")])
def test_ctrl_c_closes_the_window_cleanly_and_keeps_every_change(tmp_path: Path, journal: Path, lang: str,
                                                                 bye: str) -> None:
    home = tmp_path / "home"
    shutil.copytree(journal, home)
    report = tmp_path / "report.json"
    ended = run_window(DRIVER, [str(report), lang], window_env(home), report, stop=signal.SIGINT)
    err = ended.err
    played = json.loads(report.read_text())
    assert played["ok"] == [True] * 5
    assert ended.returncode == 0, (ended.returncode, err)
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    assert bye in err, err
    # Nothing lost: the game read back from the journal by another program is where the window left it.
    again = run("table", "--resume", "1", "--export", "json", home=home)
    assert again.returncode == 0, again.stderr
    state = json.loads(again.stdout)
    assert [s["counters"]["pool"] for s in state["state"]["seats"]] == [28, 25]
