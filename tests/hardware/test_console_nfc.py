"""Issue 2, end to end: an emulated NTAG21x on nfcpy's unmodified udp driver, read by the real
console companion (``python -m companion console --reader udp:…``) in its own process."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from tests.emulators.ntag21x import Ntag21x, ndef_tlv, text_message

pytestmark = pytest.mark.timeout(60)

ROOT = Path(__file__).resolve().parents[2]
GOVERN = text_message("vtes:100845")
UID_A = "04A1B2C3D4E5F6"
UID_B = "04B0B1B2B3B4B5"


class ConsoleProcess:
    """The console companion as a user starts it, with its output read line by line."""

    def __init__(self, reader: str, *args: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "companion", "console", "--reader", reader, *args],
            cwd=ROOT, env=dict(os.environ), stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, encoding="utf-8")
        self.lines: queue.Queue[str] = queue.Queue()
        self.stderr: list[str] = []
        threading.Thread(target=self._pump, args=(self.proc.stdout, self.lines.put), daemon=True).start()
        threading.Thread(target=self._pump, args=(self.proc.stderr, self.stderr.append), daemon=True).start()

    @staticmethod
    def _pump(stream, put) -> None:
        for line in stream:
            put(line.rstrip("\n"))

    def line(self, timeout: float = 10.0) -> str:
        try:
            return self.lines.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"no output within {timeout} s; stderr: {self.stderr}") from None

    def scan(self, timeout: float = 10.0) -> dict:
        return json.loads(self.line(timeout))

    def finish(self, timeout: float = 15.0) -> int:
        try:
            return self.proc.wait(timeout)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait(5)

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(5)


@pytest.fixture()
def emulator():
    emu = Ntag21x(kind="NTAG213").start()
    yield emu
    emu.stop()


def test_console_json_session(emulator: Ntag21x) -> None:
    """One console, one table: the cards of issue 2 laid one after the other."""
    console = ConsoleProcess(emulator.path, "--json", "--count", "6")
    try:
        emulator.lay(UID_A, ndef_message_bytes=GOVERN)
        first = console.scan(timeout=20)  # includes the console's start-up
        assert first["status"] == "card"
        assert first["name"] == "Govern the Unaligned"
        assert first["ref"] == "vtes:100845"
        assert first["uid"] == UID_A
        assert "bleed" in first["text"].lower()

        # A second card replaces the first; the first, left on meanwhile, was announced once.
        emulator.lift()
        emulator.lay(UID_B, ndef_message_bytes=text_message("vtes:101144"))
        second = console.scan()
        assert (second["name"], second["uid"]) == ("Majesty", UID_B)

        # The first card again: removed and laid again, it is reported again.
        emulator.lift()
        emulator.lay(UID_A, ndef_message_bytes=GOVERN)
        again = console.scan()
        assert (again["name"], again["uid"]) == ("Govern the Unaligned", UID_A)

        emulator.lift()
        emulator.lay("04C0C1C2C3C4C5", formatted=False)  # a blank tag: no NDEF at all
        blank = console.scan()
        assert blank["status"] == "unknown" and blank["name"] == ""
        assert blank["uid"] == "04C0C1C2C3C4C5"

        emulator.lift()
        garbage = ndef_tlv(bytes.fromhex("D1010E5402") + b"\xff" * 9)  # a Text record cut short
        emulator.lay("04D0D1D2D3D4D5", raw_tlv_area=garbage)
        bad = console.scan()
        assert bad["status"] == "unknown" and bad["name"] == ""
        assert "malformed" in bad["detail"].lower()

        emulator.lift()
        emulator.lay("04E0E1E2E3E4E5", ndef_message_bytes=text_message("vtes:100845 " + "x" * 500),
                     kind="NTAG216", lift_after_reads=3)
        lifted = console.scan()
        assert lifted["status"] == "unreadable" and lifted["uid"] == "04E0E1E2E3E4E5"

        assert console.finish() == 0
        assert console.lines.empty()
    finally:
        console.kill()


def test_console_plain_prints_the_name(emulator: Ntag21x) -> None:
    emulator.lay(UID_A, ndef_message_bytes=GOVERN)  # already on the reader when the console starts
    console = ConsoleProcess(emulator.path, "--count", "1")
    try:
        line = console.line(timeout=20)
        assert "Govern the Unaligned" in line
        assert "vtes:100845" in line
        assert console.finish() == 0
        assert not any("Traceback" in e for e in console.stderr)
    finally:
        console.kill()
