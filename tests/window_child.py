"""The window as a user starts it (``python -m companion … run``), in a child process of its own,
for the tests about the process: its signals, exit code, terminal and files. One way to write
the driver, start the child, wait for its report and stop it, instead of a copy per test file.

The driver is the program's own entry point with a probe on Kivy's clock: ``driver(PROBE, ARGV)``
where PROBE defines ``probe(_dt)`` (it reads ``app`` and writes ``out``, the report file, then
returns False) and ARGV is the Python expression of ``main``'s arguments.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

_HEAD = """
import json, sys
from pathlib import Path
from companion.ui.app import configure_window
configure_window()
from kivy.app import App
from kivy.clock import Clock
from companion.cli import main

out = Path(sys.argv[1])
"""


def driver(probe: str, argv: str) -> str:
    """The child's program: Kivy configured as ``run`` does it, ``probe`` every 0.1 s on the clock
    (cheap: it only reads the app until what it waits for is there), then ``main(argv)``."""
    return f"{_HEAD}{probe}\nClock.schedule_interval(probe, 0.1)\nsys.exit(main({argv}))\n"


def window_env(home: Path, **extra: str) -> dict[str, str]:
    """The environment of a window started by a user in ``home``, offscreen, silent, at the Pi's
    800x480. The session's card index (COMPANION_CACHE) is inherited unless ``extra`` or the
    caller drops it."""
    env = {**os.environ, "COMPANION_HOME": str(home), "PYTHONPATH": str(ROOT), "COMPANION_WINDOW": "800x480",
           "COMPANION_SPEECH": "silent", "SDL_VIDEODRIVER": "offscreen", "KIVY_NO_ARGS": "1"}
    env.update(extra)
    return env


@dataclass
class Ended:
    returncode: int
    out: str
    err: str


def run_window(program: str, args: list[str], env: dict[str, str], ready: Path, *,
               stop: int = signal.SIGTERM, turn: float = 0.3, missing: str | Path = "no window",
               deadline: float = 180.0, poll: float = 0.1) -> Ended:
    """Start ``python -c program *args``, wait until it writes ``ready`` (asserting that the child
    still runs, else its stderr), let Kivy's loop turn ``turn`` seconds, send ``stop`` and wait for
    the end. ``missing``: the assertion message when ``ready`` never comes, or a file to show
    then (what the probe was still waiting for). ``deadline`` is only against a hang."""
    proc = subprocess.Popen([sys.executable, "-c", program, *args], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        end = time.monotonic() + deadline
        while not ready.exists() and proc.poll() is None and time.monotonic() < end:
            time.sleep(poll)
        assert proc.poll() is None, proc.communicate()[1]
        if isinstance(missing, Path):
            why = missing.read_text() if missing.exists() else "no window"
        else:
            why = missing
        assert ready.exists(), why
        if turn:
            time.sleep(turn)  # the report is written whole before the file is seen; let Kivy's loop turn
        proc.send_signal(stop)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    return Ended(proc.returncode, out, err)
