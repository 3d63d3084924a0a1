"""The reader hub's line protocol, read by companion.readers.hub.HubReader through pyserial.

The hub on the other end is the real firmware logic (hardware/firmware/hubcore.py) running under
CPython on the master side of a pseudo-terminal, reached through a symlink as a udev
/dev/serial/by-id/ link would be; or lines written straight into a ``loop://`` port.
"""

from __future__ import annotations

import os
import queue
import select
import sys
import threading
import time
import tty
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.readers import hub as hubmod
from companion.readers.events import TagEvent
from companion.readers.hub import HubReader, LineBuffer, format_line, parse_line
from companion.readers.registry import open_reader

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "hardware" / "firmware"))
import hubcore  # noqa: E402  (the firmware's logic, imported from hardware/firmware)

pytestmark = pytest.mark.timeout(30)

UID_A = "04A1B2C3D4E5F6"
UID_B = "04112233445566"
UID_C = "DEADBEEF"


def now_ms() -> int:
    return int(time.monotonic() * 1000)


class PtyHub:
    """A hub on a pty: firmware logic on the master, the reader opens ``link`` (→ the slave)."""

    def __init__(self, link: Path, seats: int = 4, boot: int = 0x1234) -> None:
        self.link = link
        self.lock = threading.Lock()
        self.chunked = False
        self.master, self.slave = os.openpty()
        tty.setraw(self.master)
        tty.setraw(self.slave)
        if link.is_symlink():
            link.unlink()
        link.symlink_to(os.ttyname(self.slave))
        self.hub = hubcore.Hub(seats, self._write, now_ms(), boot)
        self.received = bytearray()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _write(self, text: str) -> None:
        data = text.encode()
        if not self.chunked:
            self.raw(data)
            return
        for piece in (data[:4], data[4:11], data[11:]):  # as a USB-serial bridge may deliver it
            self.raw(piece)
            time.sleep(0.03)

    def raw(self, data: bytes) -> None:
        os.write(self.master, data)

    def _serve(self) -> None:
        while not self._stop.is_set():
            ready, _, _ = select.select([self.master], [], [], 0.02)
            with self.lock:
                if ready:
                    try:
                        data = os.read(self.master, 256)
                    except OSError:
                        data = b""
                    self.received += data
                    self.hub.received(data, now_ms())
                self.hub.tick(now_ms())

    def lay(self, seat: int, uid: str) -> None:
        with self.lock:
            self.hub.reading(seat - 1, uid)

    def lift(self, seat: int) -> None:
        with self.lock:
            for _ in range(hubcore.MISSES_TO_LIFT):
                self.hub.reading(seat - 1, None)

    def reboot(self, boot: int, cards: dict[int, str]) -> None:
        """The microcontroller restarts with ``cards`` on its readers; the serial port stays (a UART
        bridge, a watchdog reset). Its first poll round sees the cards before it says HELLO."""
        with self.lock:
            self.hub = hubcore.Hub(len(self.hub.seats), self._write, now_ms(), boot)
            for seat, uid in cards.items():
                self.hub.reading(seat - 1, uid)

    def unplug(self) -> None:
        self._stop.set()
        self._thread.join(2)
        os.close(self.master)
        os.close(self.slave)
        self.link.unlink()


class Events:
    def __init__(self) -> None:
        self.queue: queue.Queue[TagEvent] = queue.Queue()
        self.all: list[TagEvent] = []

    def __call__(self, event: TagEvent) -> None:
        self.all.append(event)
        self.queue.put(event)

    def next(self, kind: str, timeout: float = 3.0) -> TagEvent:
        """The next event of ``kind``; fails on timeout. Events of other kinds are skipped."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"no {kind} event within {timeout} s; got {self.all}")
            try:
                event = self.queue.get(timeout=left)
            except queue.Empty:
                continue
            if event.kind == kind:
                return event

    def quiet(self, seconds: float) -> list[TagEvent]:
        """Everything that arrives during ``seconds``."""
        time.sleep(seconds)
        got = []
        while not self.queue.empty():
            got.append(self.queue.get_nowait())
        return got


def until(condition, what: str, timeout: float = 5.0) -> None:
    """Wait for ``condition`` (something the reader thread does and tells no one) rather than for
    a fixed time that a loaded machine may not honour."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not within {timeout} s")
        time.sleep(0.005)


@pytest.fixture
def link(tmp_path: Path) -> Path:
    return tmp_path / "usb-tablecompanion-hub-if00"


@pytest.fixture
def started():
    readers = []

    def start(reader: HubReader) -> Events:
        events = Events()
        reader.start(events)
        readers.append(reader)
        return events

    yield start
    for reader in readers:
        reader.stop()


# --- the protocol as pure functions --------------------------------------------------------------------
def test_lines_round_trip_and_checksums_are_checked() -> None:
    assert parse_line(format_line("HELLO tchub 1 1.0.0 4 3F9A").rstrip(b"\r\n")) == hubmod.Hello(1, "1.0.0", 4, "3F9A")
    assert parse_line(format_line(f"LAID 2 {UID_A}")[:-1]) == hubmod.Laid(2, UID_A)  # a bare CR is tolerated
    assert parse_line(format_line("LIFTED 3")[:-2]) == hubmod.Lifted(3)
    assert parse_line(format_line("ERR 1 noreader antenna off")[:-2]) == hubmod.Error(1, "noreader", "antenna off")
    assert parse_line(format_line("BEAT 12345")[:-2]) == hubmod.Beat(12345)
    # Later minor versions may append HELLO fields; they are ignored.
    newer = format_line("HELLO tchub 1 1.2.0 2 0001 id=E6614C").rstrip()
    assert parse_line(newer) == hubmod.Hello(1, "1.2.0", 2, "0001")
    good = format_line(f"LAID 2 {UID_A}").rstrip()
    assert parse_line(good.replace(b"LAID 2", b"LAID 3")) is None  # one flipped character
    for bad in ("LAID 0 " + UID_A, "LAID 2 04A1B2", "LAID 2 04a1b2c3d4e5f6", "LIFTED", "HELLO other 1 1.0 4 1",
                "BEAT -1", "ERR 1 NoReader", "LAID 2  " + UID_A, "LAID 99 " + UID_A):
        assert parse_line(format_line(bad).rstrip()) is None, bad
    assert parse_line(b"") is None and parse_line(b"\xff\xfe*00") is None


def test_firmware_and_host_agree_on_the_wire_format() -> None:
    assert hubcore.line("LIFTED 1").encode() == format_line("LIFTED 1")
    assert hubcore.checksum("HELLO tchub 1 1.0.0 4 3F9A") == hubmod.checksum(b"HELLO tchub 1 1.0.0 4 3F9A")


def test_line_buffer_keeps_partial_lines_and_drops_runaway_ones() -> None:
    buffer = LineBuffer()
    assert buffer.feed(b"LAI") == []
    assert buffer.feed(b"D 1 X\nLIF") == [b"LAID 1 X"]
    assert buffer.feed(b"TED 1\r\n") == [b"LIFTED 1\r"]
    assert buffer.feed(b"x" * 500) == [] and buffer.feed(b"y" * 10 + b"\nBEAT 1\n") == [b"BEAT 1"]
    assert buffer.overflows == 1


# --- over a pseudo-terminal ---------------------------------------------------------------------------------
def test_cards_per_seat_through_garbage_and_partial_lines(link: Path, started) -> None:
    hub = PtyHub(link)
    try:
        reader = open_reader(f"hub:{link}")
        assert isinstance(reader, HubReader)
        events = started(reader)
        ready = events.next("reader-ready")
        assert "1.0.0" in ready.detail and "4 seats" in ready.detail
        assert b"?\n" in hub.received  # the reader asked for the state rather than waiting 2 s

        hub.raw(b"\x00\xff garbage from a noisy line\r\n")
        hub.raw(b"LAID 1 04A1B2C3D4E5F6*00\r\n")  # a wrong checksum: never a card
        hub.lay(2, UID_A)
        laid = events.next("laid")
        assert (laid.seat, laid.uid, laid.reader) == (2, UID_A, f"hub:{link}")

        hub.chunked = True  # one line in three pieces
        hub.lay(3, UID_B)
        laid = events.next("laid")
        assert (laid.seat, laid.uid) == (3, UID_B)

        hub.lift(2)
        lifted = events.next("lifted")
        assert (lifted.seat, lifted.uid) == (2, UID_A)
        # The periodic HELLO repeats every seat's state: nothing is announced twice.
        assert [e for e in events.quiet(2.3) if e.kind in ("laid", "lifted")] == []
        assert reader.stats.malformed >= 2 and reader.cards() == {3: UID_B}
        assert not any(e.kind == "reader-lost" for e in events.all)
    finally:
        hub.unplug()


def test_hub_reboot_mid_game_announces_only_what_changed(link: Path, started) -> None:
    hub = PtyHub(link, boot=0x1111)
    try:
        reader = open_reader(f"hub:{link}")
        events = started(reader)
        events.next("reader-ready")
        hub.lay(1, UID_A)
        hub.lay(2, UID_B)
        assert {events.next("laid").seat, events.next("laid").seat} == {1, 2}
        # The hub restarts; meanwhile the card on seat 2 was taken and one was laid on seat 4.
        hub.reboot(boot=0x2222, cards={1: UID_A, 4: UID_C})
        lifted = events.next("lifted")
        assert (lifted.seat, lifted.uid) == (2, UID_B)
        laid = events.next("laid")
        assert (laid.seat, laid.uid) == (4, UID_C)
        later = [e for e in events.quiet(0.5) if e.kind in ("laid", "lifted", "reader-lost")]
        assert later == []  # the card that stayed on seat 1 is not announced again
        assert reader.stats.reboots == 1 and reader.cards() == {1: UID_A, 4: UID_C}
    finally:
        hub.unplug()


def test_port_gone_is_reported_and_back_within_one_back_off_step(link: Path, started) -> None:
    hub = PtyHub(link)
    reader = open_reader(f"hub:{link}")
    assert isinstance(reader, HubReader)
    events = started(reader)
    events.next("reader-ready")
    hub.lay(1, UID_A)
    events.next("laid")
    hub.unplug()
    lost = events.next("reader-lost", timeout=2.0)
    assert lost.seat is None and lost.detail
    # The port stays away until the reader, retrying quietly, waits its longest step.
    longest_step = max(hubmod.RETRY_DELAYS)
    until(lambda: reader.backoff.longest >= longest_step, "the back-off at its longest step")
    waits_before = reader.backoff.waits
    hub = PtyHub(link, boot=0x4242)
    try:
        hub.lay(1, UID_A)  # the card is still on the reader when the hub comes back
        events.next("reader-ready", timeout=5.0)
        laid = events.next("laid", timeout=5.0)
        assert (laid.seat, laid.uid) == (1, UID_A)
        # Back quickly: no wait was ever longer than the longest step (itself short of the 2 s
        # the module promises), and the port was opened at the attempt after the wait under way
        # when it came back (or the one after, if that attempt was already failing meanwhile).
        assert reader.backoff.longest == longest_step < 2.0
        assert reader.backoff.waits - waits_before <= 1
        assert [e.kind for e in events.all].count("reader-lost") == 1  # retries are not re-reported
        assert reader.stats.reconnects >= 1
    finally:
        hub.unplug()


def test_a_silent_port_is_not_taken_for_a_hub(tmp_path: Path, started, monkeypatch) -> None:
    monkeypatch.setattr(hubmod, "SILENCE_LIMIT", 0.5)
    master, slave = os.openpty()
    tty.setraw(master)
    try:
        events = started(HubReader(f"hub:{os.ttyname(slave)}"))
        lost = events.next("reader-lost", timeout=3)
        assert "HELLO" in lost.detail
        assert not any(e.kind == "reader-ready" for e in events.all)
    finally:
        os.close(master)
        os.close(slave)


def test_a_hub_speaking_a_newer_protocol_is_refused_with_a_reason(started, monkeypatch) -> None:
    monkeypatch.setattr(hubmod, "SILENCE_LIMIT", 0.5)
    reader = HubReader("hub:loop://")
    events = started(reader)
    deadline = time.monotonic() + 2
    while reader.port is None and time.monotonic() < deadline:
        time.sleep(0.01)
    reader.port.write(format_line("HELLO tchub 2 2.0.0 4 0001"))
    reader.port.write(format_line(f"LAID 1 {UID_A}"))
    lost = events.next("reader-lost", timeout=3)
    assert "protocole 2" in lost.detail or "protocol 2" in lost.detail
    assert not any(e.kind in ("laid", "reader-ready") for e in events.all)


# --- over loop://, and fuzzing ------------------------------------------------------------------------------
def _loop_reader(started) -> tuple[HubReader, Events]:
    reader = open_reader("hub:loop://")
    assert isinstance(reader, HubReader)
    events = started(reader)
    deadline = time.monotonic() + 2
    while reader.port is None and time.monotonic() < deadline:
        time.sleep(0.01)
    reader.port.write(format_line("HELLO tchub 1 1.0.0 2 00AB"))
    events.next("reader-ready")
    return reader, events


def test_loop_port_events_and_reader_errors(started) -> None:
    reader, events = _loop_reader(started)
    reader.port.write(format_line(f"LAID 1 {UID_C}") + format_line("LAID 3 " + UID_A))  # seat 3 of 2
    assert events.next("laid").uid == UID_C
    reader.port.write(format_line("ERR 2 read crc error") + format_line("ERR 0 overheat"))
    unreadable = events.next("unreadable")
    assert (unreadable.seat, unreadable.detail) == (2, "crc error")
    until(lambda: 0 in reader.stats.last_error, "ERR 0 read")  # it makes no event to wait for
    lines = reader.stats.lines
    reader.port.write(format_line("BEAT 1"))
    until(lambda: reader.stats.lines > lines, "BEAT read")
    assert reader.stats.errors == 2 and reader.stats.last_error == {2: "read", 0: "overheat"}
    assert reader.cards() == {1: UID_C}


def test_two_hubs_share_a_table_by_seat_offset(started) -> None:
    reader = HubReader("hub:loop://", seat=5)
    events = started(reader)
    while reader.port is None:
        time.sleep(0.01)
    reader.port.write(format_line("HELLO tchub 1 1.0.0 4 0001") + format_line(f"LAID 2 {UID_A}"))
    assert events.next("laid").seat == 6


@given(st.binary(max_size=200))
@settings(max_examples=400, deadline=None)
def test_fuzz_no_line_makes_the_parser_raise(data: bytes) -> None:
    buffer = LineBuffer()
    for line in buffer.feed(data):
        parse_line(line)
    parse_line(data)


_TOKENS = st.sampled_from(["HELLO", "LAID", "LIFTED", "ERR", "BEAT", "tchub", "1", "2", "0", "17", "-1",
                           UID_A, UID_C, "1.0.0", "FFFF", "read", "x" * 30, "", " ", "\t", "é"])


@given(st.lists(_TOKENS, max_size=8))
@settings(max_examples=400, deadline=None)
def test_fuzz_well_checksummed_nonsense_is_parsed_or_refused(tokens: list[str]) -> None:
    body = " ".join(tokens)
    raw = body.encode("utf-8")
    line = raw + b"*" + hubmod.checksum(raw).encode()
    message = parse_line(line)
    assert message is None or type(message).__name__ in ("Hello", "Laid", "Lifted", "Error", "Beat")


def test_fuzz_nothing_escapes_the_reader_thread(started) -> None:
    reader, events = _loop_reader(started)
    counter = iter(range(10**6))

    @given(st.lists(st.one_of(st.binary(max_size=120),
                              st.lists(_TOKENS, max_size=6).map(lambda t: format_line(" ".join(t).encode(
                                  "ascii", "replace").decode("ascii")))), max_size=5))
    @settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
    def feed(chunks: list[bytes]) -> None:
        for chunk in chunks:
            reader.port.write(chunk)
        # A sync point: a fresh card behind the garbage proves the thread read all of it and lives.
        uid = f"{next(counter):08X}"
        reader.port.write(b"\n" + format_line("HELLO tchub 1 1.0.0 2 00AB") + format_line(f"LAID 2 {uid}"))
        deadline = time.monotonic() + 3
        while not any(e.kind == "laid" and e.uid == uid for e in events.all):
            assert time.monotonic() < deadline, "the reader thread stopped reading"
            time.sleep(0.005)

    feed()
    assert reader._thread is not None and reader._thread.is_alive()
    assert not any(e.kind == "reader-lost" for e in events.all)
    assert reader.stats.malformed > 0
