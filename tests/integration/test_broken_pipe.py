"""``python -m companion rules ... | head -1``: whoever reads the output may go before the end.
The command then stopped on a BrokenPipeError traceback (and Python printed another at exit when
it flushed stdout); now it stops quietly with the status a shell gives a tool a closed pipe
stopped (141), as cat or grep do."""

from __future__ import annotations

import os
import subprocess
import sys

from tests.conftest import ROOT


def test_a_reader_gone_stops_the_command_without_a_traceback() -> None:
    read, write = os.pipe()
    os.close(read)  # the reader is gone before the first line: every write finds the pipe closed
    try:
        done = subprocess.run([sys.executable, "-m", "companion", "rules", "--game", "vtes", "sang", "--limit", "3"],
                              cwd=ROOT, stdout=write, stderr=subprocess.PIPE, text=True, timeout=120)
    finally:
        os.close(write)
    assert done.returncode == 141
    assert done.stderr == ""
