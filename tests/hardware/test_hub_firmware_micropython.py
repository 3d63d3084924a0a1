"""The hub firmware under real MicroPython (issue 22, item 6): its logic, its MFRC522 driver and
main.py run by MicroPython's WebAssembly port (npm, under Node), with the inputs of
tests/hardware/test_hub_firmware.py (tests/hardware/hub_firmware_scenarios.py, a file both interpreters read).
What MicroPython makes the firmware write must be what CPython makes it write, and the host's
own parser must understand every line. A language or library feature only CPython has (such as
``str.isalnum``, once used by the firmware) fails here."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from companion.readers.hub import Beat, Error, Hello, Laid, Lifted, parse_line

pytestmark = pytest.mark.timeout(300)

ROOT = Path(__file__).resolve().parents[2]
FIRMWARE = ROOT / "hardware" / "firmware"
RUNNER = FIRMWARE / "micropython"
SCENARIOS = Path(__file__).with_name("hub_firmware_scenarios.py")


def micropython_installed() -> None:
    """The WebAssembly port, as package-lock.json pins it (make test installs it; so does this)."""
    assert shutil.which("node"), "Node is missing: deploy/system-packages.sh installs nodejs"
    if not (RUNNER / "node_modules" / ".package-lock.json").exists():
        done = subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=RUNNER, capture_output=True, text=True,
                              timeout=240)
        assert done.returncode == 0, done.stderr


@pytest.fixture(scope="module")
def runs() -> dict[str, list[str]]:
    micropython_installed()
    mp = subprocess.run(["node", "run.mjs", str(FIRMWARE), str(SCENARIOS)], cwd=RUNNER, capture_output=True,
                        text=True, timeout=240)
    assert mp.returncode == 0, mp.stderr
    cp = subprocess.run([sys.executable, str(SCENARIOS)], capture_output=True, text=True, timeout=120,
                        env={**os.environ, "PYTHONPATH": str(FIRMWARE)})
    assert cp.returncode == 0, cp.stderr
    return {"micropython": mp.stdout.splitlines(), "cpython": cp.stdout.splitlines()}


def lines(out: list[str], scenario: str):
    got = []
    for text in out:
        name, sep, body = text.partition("|")
        if sep and name == scenario:
            message = parse_line(body.encode())
            assert message is not None, body  # everything the firmware says, the host understands
            got.append(message)
    return got


def test_it_is_micropython_that_ran_and_it_said_what_cpython_says(runs) -> None:
    mp, cp = runs["micropython"], runs["cpython"]
    assert mp[0] == "implementation=micropython" and cp[0] == "implementation=cpython"
    assert mp[-1] == "done" and not [t for t in mp if "!" in t.split("|")[0]]
    assert mp[1:] == cp[1:]


def test_the_logic_under_micropython(runs) -> None:
    out = runs["micropython"]
    assert "hello=0" in out
    assert lines(out, "hello") == [Hello(1, "1.0.0", 2, "FFEE"), Laid(1, "04A224B2C35E80"), Lifted(2)]
    assert lines(out, "debounce") == [Laid(1, "DEADBEEF"), Lifted(1), Laid(1, "04A224B2C35E80"),
                                      Laid(1, "0411223344556F")]
    beat = [type(m) for m in lines(out, "heartbeat")]
    assert beat.count(Beat) == 4 and beat.count(Hello) == 3
    assert "request=0" in out and isinstance(lines(out, "request")[0], Hello)
    assert [type(m) for m in lines(out, "wrap")].count(Beat) == 2  # ticks_ms wrapping at 2**30
    assert lines(out, "failing") == [Error(2, "noreader")] and Error(2, "noreader") in lines(out, "failing-hello")
    assert [t for t in out if t.startswith("code=")] == ["code=noreader", "code=timeout", "code=io", "code=5",
                                                         "code=spibus"]


def test_the_driver_and_main_under_micropython(runs) -> None:
    out = runs["micropython"]
    assert "driver=" + " ".join(["04A224B2C35E80"] * 4) in out and "driver=DEADBEEF DEADBEEF DEADBEEF" in out
    assert "driver-frames=52 9320" in out and "driver=None" in out
    main = lines(out, "main")
    assert main[:5] == [Hello(1, "1.0.0", 3, "1234"), Laid(1, "04A224B2C35E80"), Lifted(2), Lifted(3),
                        Hello(1, "1.0.0", 3, "1234")]
    assert Error(2, "noreader") in main
    assert {Lifted(1), Laid(3, "DEADBEEF")} <= set(lines(out, "main-after"))
