"""The console companion plays from a numeric keypad too: a line of keypad keys, then Enter,
does what those keys do in the app (docs/keys.md), and each result is said (printed) briefly."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.timeout(90)


def test_keypad_lines_drive_the_game(tmp_path: Path) -> None:
    script = "*\n*\n/73\n7\n/2\n-\n1\npool 1 -2\n7\n3\n"
    run = subprocess.run([sys.executable, "-m", "companion", "console", "--game", "vtes", "--players", "Ann,Bob,Cy",
                          "--seed", "1", "--journal", str(tmp_path / "games.sqlite3")], input=script,
                         capture_output=True, text=True, timeout=80, env=dict(os.environ))
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    start = lines.index("Phase : Maître.")  # the first keypad star: next phase, said briefly
    said = lines[start:]
    for expected in ("Phase : Séides.", "Cy saigne Ann de trois.", "Ann, pool, moins trois, reste vingt-sept.",
                     "Annulé. Ann, pool, plus trois, total trente.",
                     "Bob : pool trente, points de victoire zéro, transferts zéro. Proie : Cy.",
                     "Bob, pool, moins un, reste vingt-neuf.",
                     "Bob : pool vingt-neuf, points de victoire zéro, transferts zéro. Proie : Cy.",
                     "Annulé. Ann, pool, plus deux, total trente.",  # a typed command, undone from the keypad
                     "Manche un, au tour de Cy, phase Séides."):
        assert expected in said, (expected, said)
    assert said.index("Phase : Séides.") < said.index("Cy saigne Ann de trois.") < said.index(
        "Annulé. Ann, pool, plus trois, total trente.")
    # the final state printed at the end of input agrees with what was said
    assert "1. Ann : pool 30" in run.stdout and "2. Bob : pool 29" in run.stdout
    assert "Traceback" not in run.stderr
