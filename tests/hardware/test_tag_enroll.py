"""``tag enroll --deck FILE`` walks through a deck, one card after another, on the udp emulator."""

from __future__ import annotations

import os
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from companion.tags import records
from tests.cli_run import run_cli
from tests.emulators.ntag21x import Ntag21x

pytestmark = pytest.mark.timeout(90)
ROOT = Path(__file__).resolve().parents[2]


def _lines(proc: subprocess.Popen) -> queue.Queue:
    out: queue.Queue = queue.Queue()

    def pump() -> None:
        for line in proc.stdout:
            out.put(line.rstrip("\n"))
        out.put(None)
        # What the program said on its way out (once seen in a loaded run: it ended after
        # "Posez … (2 / 3)" with nothing on stdout), so that a failure names its reason.
        proc.wait()
        out.put(f"[exit {proc.returncode}] {proc.stderr.read().strip()}")

    threading.Thread(target=pump, daemon=True).start()
    return out


def _wait_for(lines: queue.Queue, text: str, seen: list[str], timeout: float = 20) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            line = lines.get(timeout=0.5)
        except queue.Empty:
            continue
        if line is None:
            raise AssertionError(f"ended before {text!r}: {seen} {lines.get(timeout=5)}")
        seen.append(line)
        if text in line:
            return line
    raise AssertionError(f"no {text!r} in {seen}")


def test_enroll_a_deck_card_after_card(tmp_path: Path) -> None:
    deck = tmp_path / "deck.txt"
    deck.write_text("2x Govern the Unaligned\n1x Deflection\n", encoding="utf-8")
    with Ntag21x() as emu:
        proc = subprocess.Popen([sys.executable, "-m", "companion", "tag", "enroll", "--deck", str(deck),
                                 "--reader", emu.path, "--timeout", "20"], cwd=ROOT, env=dict(os.environ),
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        lines, seen = _lines(proc), []
        try:
            _wait_for(lines, "Posez Govern the Unaligned (1 / 3)", seen)
            first = emu.lay("04000000000001")
            _wait_for(lines, "(1 / 3)", seen)
            _wait_for(lines, "Posez Govern the Unaligned (2 / 3)", seen)
            time.sleep(0.5)  # the first card is still on the reader: it must not be taken again
            # The second card slips off mid-read: the deck does not stop, the card is asked again.
            emu.lay("04000000000002", lift_after_reads=2)
            _wait_for(lines, "Posez Govern the Unaligned (2 / 3)", seen)
            second = emu.lay("04000000000002")
            _wait_for(lines, "04000000000002", seen)
            _wait_for(lines, "Posez Deflection (3 / 3)", seen)
            third = emu.lay("04000000000003")
            _wait_for(lines, "Paquet étiqueté : 3 cartes.", seen)
            assert proc.wait(timeout=20) == 0
        finally:
            proc.kill()
        assert first.message() == records.encode_ref("vtes:100845")
        assert second.message() == records.encode_ref("vtes:100845")
        assert third.message() == records.encode_ref("vtes:100518")
        assert not any("04000000000001" in line and "(2 / 3)" in line for line in seen)
        said_last = ""
        while not said_last.startswith("[exit"):  # the pump's last item: the exit and the stderr
            said_last = lines.get(timeout=10) or ""
        assert "La carte a quitté le lecteur" in said_last


def test_enroll_refuses_an_unreadable_deck(tmp_path: Path) -> None:
    deck = tmp_path / "deck.txt"
    deck.write_text("2x Govern the Unaligned\n1x Nonexistent Card Of Doom\n", encoding="utf-8")
    run = run_cli("tag", "enroll", "--deck", str(deck), "--reader", "udp:127.0.0.1:9", cwd=ROOT)  # in this process
    assert run.returncode == 2
    assert "deck.txt:2:" in run.stderr
