"""What the window imports before a table asks for more: every screen's module, and not the
libraries of what the table may never do (join a venue's hub, read a deck with krcg, fetch card
lists). Each of those costs the window megabytes of memory (issue 25: the start-up budget is
resident memory), so they are imported where they are used."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# Imported only by what uses them: the venue link (aiomqtt and paho), the card lists' update
# (requests), a deck's parsing and the card source's first build (krcg).
NOT_AT_START = ("aiomqtt", "paho", "requests", "urllib3", "krcg")

CHILD = f"""
import json, sys
from companion.ui.app import SCREENS, screen_class
for spec in SCREENS:
    screen_class(spec)  # what the window's idle time builds after the first frame
print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in {NOT_AT_START!r})))
"""


def test_every_screen_imports_without_the_libraries_of_what_a_table_may_never_do() -> None:
    env = dict(os.environ, PYTHONPATH=str(ROOT), SDL_VIDEODRIVER="offscreen", KIVY_NO_ARGS="1",
               KIVY_NO_CONSOLELOG="1", COMPANION_SPEECH="silent")
    proc = subprocess.run([sys.executable, "-c", CHILD], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert json.loads(proc.stdout.strip().splitlines()[-1]) == []
