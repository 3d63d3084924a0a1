"""Several readers at once, each bound to a seat: two emulated NTAG cards on two nfcpy udp
readers, one console; each card is reported with its reader's seat."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from companion.readers.registry import open_readers, parse_reader_spec
from tests.emulators.ntag21x import Ntag21x, text_message

pytestmark = pytest.mark.timeout(60)
ROOT = Path(__file__).resolve().parents[2]


def test_reader_specs() -> None:
    assert parse_reader_spec("udp:127.0.0.1:5000@2") == ("udp:127.0.0.1:5000", 2)
    assert parse_reader_spec("usb:054c:06c3") == ("usb:054c:06c3", None)
    assert parse_reader_spec("sim:vtes:100845") == ("sim:vtes:100845", None)
    readers = open_readers(["usb@1", "tty:S0:pn532@2"])
    assert [(r.path, r.seat) for r in readers] == [("usb", 1), ("tty:S0:pn532", 2)]
    assert [(r.path, r.seat) for r in open_readers("hub:/dev/ttyACM0 sim@3")] == [("hub:/dev/ttyACM0", None),
                                                                                   ("sim", 3)]
    with pytest.raises(ValueError):
        open_readers(["usb@1", "bluetooth@2"])


def test_two_readers_two_seats_one_console() -> None:
    with Ntag21x() as left, Ntag21x() as right:
        proc = subprocess.Popen(
            [sys.executable, "-m", "companion", "console", "--json", "--count", "2",
             "--reader", f"{left.path}@1", "--reader", f"{right.path}@2"],
            cwd=ROOT, env=dict(os.environ), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            # A card laid before its reader polls waits there to be read. The left card is laid only
            # once the right one's line is out, so the order is the test's, never the scheduler's.
            right.lay("04000000000022", ndef_message_bytes=text_message("vtes:100518"))
            first = proc.stdout.readline()
            left.lay("04000000000011", ndef_message_bytes=text_message("vtes:100845"))
            out, err = proc.communicate(timeout=30)
        finally:
            proc.kill()
    scans = [json.loads(line) for line in (first + out).splitlines()]
    assert [(s["name"], s["seat"]) for s in scans] == [("Deflection", 2), ("Govern the Unaligned", 1)], err
