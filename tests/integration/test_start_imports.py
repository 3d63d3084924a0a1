"""What ``python -m companion console`` imports before it answers: not the NFC message library
(ndef, with uuid and platform) while no card is laid; the simulated reader encodes a card's
message at the first card laid. Each module a start does not need is CPU at every start of the
console, several times more on a Raspberry Pi."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

CHILD = """
import json, runpy, sys
sys.argv = ["companion", "--lang", "en", "console", "--reader", "sim", "--count", "0"]
try:
    runpy.run_module("companion", run_name="__main__", alter_sys=True)
except SystemExit as exit:
    code = exit.code
print(json.dumps({"code": code, "ndef": "ndef" in sys.modules}))
"""


def test_the_console_imports_no_nfc_message_library_before_a_card_is_laid() -> None:
    env = dict(os.environ, PYTHONPATH=str(ROOT), COMPANION_SPEECH="silent")
    proc = subprocess.run([sys.executable, "-c", CHILD], cwd=ROOT, env=env, stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert json.loads(proc.stdout.strip().splitlines()[-1]) == {"code": 0, "ndef": False}
