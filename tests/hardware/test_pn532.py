"""A PN532 on a serial port, driven by nfcpy's unmodified ``pn532`` driver, against the fake chip of
tests/emulators/pn532.py on a pseudo-terminal: the same card read end to end as on real hardware."""

from __future__ import annotations

import os
import queue
import threading
import time

import ndef
import nfc
import nfc.clf.pn532
import nfc.clf.transport
import pytest
import serial

from companion.cards.library import CardLibrary
from companion.readers.events import TagEvent
from companion.readers.nfcpy_reader import RETRY_DELAYS
from companion.readers.pn532_tty import Pn532TtyReader
from companion.tags.resolve import Resolver
from tests.emulators.pn532 import ACK, ERROR_FRAME, FakePn532, Ntag21x, crc_a, text_message

pytestmark = pytest.mark.timeout(40)

UID = bytes.fromhex("04A224B2C35E80")


@pytest.fixture
def chip():
    with FakePn532() as emulator:
        yield emulator


def frontend(path: str) -> nfc.ContactlessFrontend:
    clf = nfc.ContactlessFrontend()
    clf.device = _init(path)
    clf.device._path = path  # nfcpy's device.connect() sets it; str(device) reads it
    return clf


def _init(path: str, tries: int = 3) -> nfc.clf.pn532.Device:
    """nfcpy's own start-up of the chip. nfcpy gives a chip 100 ms for its first ACK: a real chip
    answers in microseconds, the emulator's thread on a loaded 2-core test machine sometimes
    not. A missed start-up is started again on a quiet line (what was late is thrown away), as
    the reader's own reconnection would; what each test checks comes after it."""
    for attempt in range(tries):
        transport = nfc.clf.transport.TTY(path)
        try:
            return nfc.clf.pn532.init(transport)
        except OSError:
            if attempt == tries - 1:
                raise
            time.sleep(0.3)
            transport.tty.reset_input_buffer()
            transport.close()
    raise AssertionError("unreachable")


def test_crc_a_matches_nfcpy() -> None:
    from nfc.clf.device import Device

    for data in (b"\x30\x00", bytes(range(16)), b"\x93\x70\x88\x04\xa2\x24\x0e"):
        assert Device.add_crc_a(bytearray(data))[-2:] == crc_a(data)


def test_nfcpy_driver_accepts_the_chip_and_reads_and_writes_a_tag(chip: FakePn532) -> None:
    chip.lay(Ntag21x(UID, text_message("vtes:100845")))
    clf = frontend(chip.path)
    try:
        assert str(clf.device) == f"PN532v1.6 at {chip.path}"
        # The start-up line test is a 263-byte echo: an extended frame each way.
        assert chip.commands[:3] == [0x02, 0x14, 0x10] and 0x00 in chip.commands
        tag = clf.connect(rdwr={"targets": ["106A"], "on-connect": lambda tag: False})
        assert tag is not None and tag.product == "NXP NTAG213"
        assert bytes(tag.identifier) == UID
        assert [r.text for r in tag.ndef.records] == ["vtes:100845"]
        assert tag.ndef.capacity == 142 and tag.ndef.is_writeable

        tag.ndef.records = [ndef.TextRecord("vtes:101050", "en")]  # write, through InCommunicateThru
        assert chip.card.message() == text_message("vtes:101050")
        again = clf.connect(rdwr={"targets": ["106A"], "on-connect": lambda tag: False})
        assert [r.text for r in again.ndef.records] == ["vtes:101050"]
    finally:
        clf.close()
    assert chip.commands[-1] == 0x16  # PowerDown on close, as the driver leaves a real chip


def test_no_card_and_a_card_without_ndef(chip: FakePn532) -> None:
    clf = frontend(chip.path)
    try:
        started = time.monotonic()
        assert clf.connect(rdwr={"targets": ["106A"]}, terminate=lambda: time.monotonic() - started > 0.3) is None
        chip.lay(Ntag21x(UID, None, model=215))
        tag = clf.connect(rdwr={"targets": ["106A"], "on-connect": lambda tag: False})
        assert tag.product == "NXP NTAG215" and tag.ndef is None  # no NDEF TLV at all
        chip.lay(Ntag21x(UID, b"", model=216))  # an empty NDEF message: formatted, nothing written
        tag = clf.connect(rdwr={"targets": ["106A"], "on-connect": lambda tag: False})
        assert tag.product == "NXP NTAG216" and tag.ndef.length == 0 and tag.ndef.capacity > 800
    finally:
        clf.close()


def test_bad_frames_get_the_chips_error_frame(chip: FakePn532) -> None:
    port = serial.Serial(chip.path, 115200, timeout=0.5)
    try:
        port.write(bytes.fromhex("0000FF02FDD40229 00"))  # length checksum wrong
        assert port.read(len(ERROR_FRAME)) == ERROR_FRAME
        port.write(bytes.fromhex("0000FF02FED40200 00"))  # data checksum wrong
        assert port.read(len(ERROR_FRAME)) == ERROR_FRAME
        port.write(bytes.fromhex("0000FF02FED4022A00"))  # GetFirmwareVersion, correct
        assert port.read(6) == ACK
        assert port.read(13) == bytes.fromhex("0000FF06FAD50332010607 E800")
        assert chip.bad_frames == 2
    finally:
        port.close()


class Sink:
    def __init__(self) -> None:
        self.events: queue.Queue[TagEvent] = queue.Queue()

    def __call__(self, event: TagEvent) -> None:
        self.events.put(event)

    def next(self, kind: str, timeout: float = 5.0) -> TagEvent:
        deadline = time.monotonic() + timeout
        seen = []
        while time.monotonic() < deadline:
            try:
                event = self.events.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                break
            if event.kind == kind:
                return event
            seen.append(event)
        raise AssertionError(f"no {kind} event in {timeout} s; saw {seen}")


def test_card_read_end_to_end_through_the_reader_and_the_resolver(chip: FakePn532) -> None:
    library = CardLibrary()
    resolver = Resolver(library)
    library.get("vtes:100845")  # load the card index before timing anything
    reader = Pn532TtyReader(f"pn532:{chip.path}", seat=2)
    sink = Sink()
    reader.start(sink)
    try:
        sink.next("reader-ready")
        card = Ntag21x(UID, text_message("vtes:100845"))
        chip.lay(card)
        laid = sink.next("laid")
        scan = resolver.resolve(laid)
        assert scan.status == "card" and scan.card.name == "Govern the Unaligned"
        assert (scan.uid, scan.seat, scan.ref) == (UID.hex().upper(), 2, "vtes:100845")

        # Left on the reader: announced once, while nfcpy keeps checking it is there.
        # Waited for by the card's own reads, not a fixed time a loaded machine may not honour:
        # two more presence checks, so the reader has acted on the first one.
        for _ in range(2):
            reads, deadline = card.reads, time.monotonic() + 10
            while card.reads <= reads:
                assert time.monotonic() < deadline, "nfcpy stopped checking the card is there"
                time.sleep(0.01)
        assert sink.events.empty()

        chip.lift()
        assert sink.next("lifted").uid == UID.hex().upper()
        chip.lay(card)
        assert resolver.resolve(sink.next("laid")).card.name == "Govern the Unaligned"
    finally:
        reader.stop()


def test_reader_reports_a_missing_port_and_keeps_trying(tmp_path) -> None:
    link = tmp_path / "ttyPN532"
    reader = Pn532TtyReader(f"pn532:{link}")
    sink = Sink()
    reader.start(sink)
    try:
        assert sink.next("reader-lost", timeout=2).detail
        # The port stays away until the reader's back-off waits its longest step.
        longest_step = max(RETRY_DELAYS)
        deadline = time.monotonic() + 10  # a guard against a hang only
        while reader.backoff.longest < longest_step:
            assert time.monotonic() < deadline, f"the back-off never reached {longest_step} s: {reader.backoff}"
            time.sleep(0.01)
        with FakePn532() as chip:
            os.symlink(chip.path, link)
            chip.lay(Ntag21x(UID, text_message("vtes:100845")))
            sink.next("reader-ready", timeout=10)
            assert sink.next("laid", timeout=5).uid == UID.hex().upper()
            # Back quickly: it kept trying, and no wait between attempts was ever longer than the
            # longest step (itself short of the 2 s the reader promises). How many attempts the
            # chip's start-up took is left out: a loaded machine can make nfcpy miss its 100 ms.
            assert reader.backoff.waits >= len(RETRY_DELAYS)
            assert reader.backoff.longest == longest_step < 2.0
            reader.stop()
    finally:
        reader.stop()
        assert not any(t.name.startswith("reader pn532") and t.is_alive() for t in threading.enumerate())
