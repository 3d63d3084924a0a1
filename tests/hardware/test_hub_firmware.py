"""The hub firmware (hardware/firmware/) under CPython: its logic (debounce, lines, heartbeat,
requests) and its MFRC522 driver, with a fake ``machine`` module whose SPI bus reaches fake
MFRC522 chips, each with an ISO 14443-3 card model in its field. The lines the firmware prints are
read back with the companion's own parser."""

from __future__ import annotations

import importlib
import sys
import time
import types
from pathlib import Path

import pytest

from companion.readers.hub import Error, Hello, Laid, Lifted, parse_line

FIRMWARE = Path(__file__).resolve().parents[2] / "hardware" / "firmware"
sys.path.insert(0, str(FIRMWARE))
import hubcore  # noqa: E402
import mfrc522  # noqa: E402

pytestmark = pytest.mark.timeout(30)

UID7 = bytes.fromhex("04A224B2C35E80")
UID4 = bytes.fromhex("DEADBEEF")


def parsed(lines: list[str]):
    out = []
    for text in lines:
        assert text.endswith("\r\n")
        message = parse_line(text[:-2].encode())
        assert message is not None, text  # everything the firmware says, the host understands
        out.append(message)
    return out


# --- the logic ------------------------------------------------------------------------------------
class Clock:
    def __init__(self, start: int = 0) -> None:
        self.now = start


def make_hub(seats: int = 2, start: int = 0):
    lines: list[str] = []
    hub = hubcore.Hub(seats, lines.append, start, boot=0xC0FFEE)
    return hub, lines


def test_hello_waits_for_the_first_round_then_carries_every_seat() -> None:
    hub, lines = make_hub()
    hub.reading(0, "04A224B2C35E80")
    hub.reading(1, None)
    assert lines == []
    hub.tick(40)
    assert parsed(lines) == [Hello(1, hubcore.FIRMWARE, 2, "FFEE"), Laid(1, "04A224B2C35E80"), Lifted(2)]


def test_debounce_lays_at_once_and_lifts_after_several_misses() -> None:
    hub, lines = make_hub()
    hub.tick(0)
    lines.clear()
    hub.reading(0, "DEADBEEF")
    hub.reading(0, "DEADBEEF")
    for _ in range(hubcore.MISSES_TO_LIFT - 1):  # a reader that misses a poll or two: still there
        hub.reading(0, None)
    hub.reading(0, "DEADBEEF")
    assert parsed(lines) == [Laid(1, "DEADBEEF")]
    for _ in range(hubcore.MISSES_TO_LIFT):
        hub.reading(0, None)
    hub.reading(0, "04A224B2C35E80")  # another card
    hub.reading(0, "0411223344556F")  # swapped without a gap: the host lifts the first itself
    assert parsed(lines)[1:] == [Lifted(1), Laid(1, "04A224B2C35E80"), Laid(1, "0411223344556F")]


def test_heartbeat_periodic_hello_and_the_hosts_request() -> None:
    hub, lines = make_hub(start=1000)
    for now in range(1000, 5001, 40):
        hub.tick(now)
    kinds = [type(m).__name__ for m in parsed(lines)]
    assert kinds.count("Beat") == 4 and kinds.count("Hello") == 3  # at boot, +2 s, +4 s
    lines.clear()
    hub.received(b"garbage\n?", 5040)
    assert lines == []
    hub.received(b"\r\n", 5050)
    assert isinstance(parsed(lines)[0], Hello)


def test_ticks_wrapping_around_do_not_stop_the_heartbeat() -> None:
    wrap = 1 << 30  # MicroPython's ticks_ms on the RP2040 wraps here
    hub, lines = make_hub(start=wrap - 500)
    for step in range(0, 3000, 40):
        hub.tick((wrap - 500 + step) % wrap)
    assert [type(m).__name__ for m in parsed(lines)].count("Beat") == 2


def test_a_failing_reader_is_reported_once_and_in_each_hello() -> None:
    hub, lines = make_hub()
    hub.tick(0)
    lines.clear()
    for _ in range(hubcore.ERRORS_TO_REPORT * 3):
        hub.failure(1, "noreader")
    assert parsed(lines) == [Error(2, "noreader")]
    hub.hello(100)
    assert Error(2, "noreader") in parsed(lines)


# --- a fake MFRC522 and an ISO 14443-3 card ------------------------------------------------------------
class Card:
    """A Type A card's activation states: WUPA/REQA, cascaded anticollision and select, HLTA."""

    def __init__(self, uid: bytes) -> None:
        self.uid = uid
        self.levels = [uid] if len(uid) == 4 else [b"\x88" + uid[:3], uid[3:]]
        self.state = "IDLE"
        self.level = 0

    def air(self, frame: bytes, bits: int) -> bytes | None:
        if bits == 7 and (frame == b"\x52" or (frame == b"\x26" and self.state == "IDLE")):
            self.state, self.level = "READY", 0
            return b"\x44\x00"
        if self.state == "READY":
            sel = (0x93, 0x95)[self.level]
            part = self.levels[self.level]
            if frame == bytes((sel, 0x20)):
                return part + bytes((part[0] ^ part[1] ^ part[2] ^ part[3],))
            if len(frame) == 9 and frame[:2] == bytes((sel, 0x70)) and frame[2:6] == part:
                assert mfrc522.crc_a(frame[:7]) == frame[7:]
                self.level += 1
                done = self.level == len(self.levels)
                self.state = "ACTIVE" if done else "READY"
                sak = b"\x00" if done else b"\x04"
                return sak + mfrc522.crc_a(sak)
        if self.state == "ACTIVE" and frame == b"\x50\x00" + mfrc522.crc_a(b"\x50\x00"):
            self.state = "HALT"
            return None
        self.state = "HALT" if self.state == "HALT" else "IDLE"  # anything unexpected: back to sleep
        return None


class Chip:
    """The MFRC522 registers the driver uses, the FIFO, and Transceive over the card model."""

    def __init__(self, card: Card | None = None, version: int = 0x92) -> None:
        self.card = card
        self.version = version
        self.regs: dict[int, int] = {}
        self.fifo: list[int] = []
        self.frames: list[bytes] = []

    def transfer(self, out: bytes) -> bytes:
        reg = (out[0] >> 1) & 0x3F
        if out[0] & 0x80:
            return bytes((0,)) + bytes(self._read(reg) for _ in out[1:])
        for value in out[1:]:
            self._write(reg, value)
        return bytes(len(out))

    def _read(self, reg: int) -> int:
        if reg == mfrc522.VERSION:
            return self.version
        if reg == mfrc522.FIFO_DATA:
            return self.fifo.pop(0) if self.fifo else 0
        if reg == mfrc522.FIFO_LEVEL:
            return len(self.fifo)
        return self.regs.get(reg, 0)

    def _write(self, reg: int, value: int) -> None:
        if reg == mfrc522.FIFO_DATA:
            self.fifo.append(value)
        elif reg == mfrc522.FIFO_LEVEL:
            if value & 0x80:
                self.fifo.clear()
        elif reg == mfrc522.COM_IRQ:
            irq = self.regs.get(reg, 0)
            self.regs[reg] = irq | (value & 0x7F) if value & 0x80 else irq & ~value
        elif reg == mfrc522.COMMAND and value == mfrc522.SOFT_RESET:
            self.regs = {}
        elif reg == mfrc522.BIT_FRAMING:
            self.regs[reg] = value
            if value & 0x80 and self.regs.get(mfrc522.COMMAND) == mfrc522.TRANSCEIVE:
                self._transceive(value & 0x07)
        else:
            self.regs[reg] = value

    def _transceive(self, bits: int) -> None:
        frame = bytes(self.fifo)
        self.fifo.clear()
        self.frames.append(frame)
        antenna = self.regs.get(mfrc522.TX_CONTROL, 0) & 0x03 == 0x03
        answer = self.card.air(frame, bits) if self.card and antenna else None
        self.regs[mfrc522.ERROR] = 0
        if answer is None:
            self.regs[mfrc522.COM_IRQ] = self.regs.get(mfrc522.COM_IRQ, 0) | 0x01  # timer: no answer
        else:
            self.fifo = list(answer)
            self.regs[mfrc522.COM_IRQ] = self.regs.get(mfrc522.COM_IRQ, 0) | 0x30


def fake_machine(chips: dict[int, Chip]) -> types.ModuleType:
    """``machine`` with Pin and SPI: the SPI bus talks to the chip whose chip-select is low."""
    machine = types.ModuleType("machine")
    pins: dict[int, object] = {}

    class Pin:
        OUT, IN = 1, 0

        def __init__(self, number: int, mode: int | None = None) -> None:
            self.number = number
            self.level = 1
            pins[number] = self

        def value(self, level: int | None = None) -> int | None:
            if level is None:
                return self.level
            self.level = level
            return None

    class SPI:
        def __init__(self, bus: int, **settings: object) -> None:
            self.settings = settings

        def _selected(self) -> Chip | None:
            low = [n for n, pin in pins.items() if pin.level == 0]
            assert len(low) <= 1, "two chips selected at once"
            return chips.get(low[0]) if low else None

        def write(self, data: bytes) -> None:
            chip = self._selected()
            if chip is not None:
                chip.transfer(bytes(data))

        def write_readinto(self, data: bytes, into: bytearray) -> None:
            chip = self._selected()
            into[:] = chip.transfer(bytes(data)) if chip is not None else bytes(len(data))  # MISO low

    machine.Pin, machine.SPI = Pin, SPI
    return machine


def test_driver_reads_7_and_4_byte_uids_every_poll() -> None:
    machine = fake_machine(chips := {17: Chip(Card(UID7)), 20: Chip(Card(UID4))})
    spi = machine.SPI(0)
    seven = mfrc522.MFRC522(spi, machine.Pin(17, machine.Pin.OUT))
    four = mfrc522.MFRC522(spi, machine.Pin(20, machine.Pin.OUT))
    # A card left on the reader answers every poll: woken with WUPA, halted after each read.
    assert [seven.read_uid() for _ in range(4)] == [UID7.hex().upper()] * 4
    assert [four.read_uid() for _ in range(3)] == [UID4.hex().upper()] * 3
    assert chips[17].frames[:3] == [b"\x52", b"\x93\x20", b"\x93\x70" + chips[17].frames[2][2:]]
    chips[17].card = None
    assert seven.read_uid() is None


def test_firmware_main_under_cpython(monkeypatch) -> None:
    chips = {17: Chip(Card(UID7)), 21: Chip(None)}  # seat 2 (GP20) has no reader wired
    machine = fake_machine(chips)
    monkeypatch.setitem(sys.modules, "machine", machine)
    clock = Clock()
    monkeypatch.setattr(time, "ticks_ms", lambda: clock.now, raising=False)

    def sleep_ms(ms: int) -> None:
        clock.now += ms

    monkeypatch.setattr(time, "sleep_ms", sleep_ms, raising=False)
    main = importlib.import_module("main")
    out: list[str] = []
    requests = [b"", b"?\n"] + [b""] * 200
    monkeypatch.setattr(main, "write", out.append)
    monkeypatch.setattr(main, "host_input", lambda: lambda: requests.pop(0) if requests else b"")
    monkeypatch.setattr(main, "boot_id", lambda: 0x1234)
    try:
        main.main(seat_cs=(17, 20, 21), rounds=10)
        messages = parsed(out)
        assert messages[:5] == [Hello(1, hubcore.FIRMWARE, 3, "1234"), Laid(1, UID7.hex().upper()),
                                Lifted(2), Lifted(3), Hello(1, hubcore.FIRMWARE, 3, "1234")]
        assert Error(2, "noreader") in messages  # nothing answers on seat 2's chip-select
        out.clear()
        chips[17].card = None  # the card is taken away; seat 3 gets one
        chips[21].card = Card(UID4)
        main.main(seat_cs=(17, 20, 21), rounds=10)
        assert {Lifted(1), Laid(3, UID4.hex().upper())} <= set(parsed(out))
    finally:
        sys.modules.pop("main", None)
