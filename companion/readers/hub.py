"""The per-seat reader hub: a microcontroller with one NFC reader per seat, speaking the ASCII line
protocol of hardware/protocol.md over a serial port (USB CDC on a Pico). One Reader, one thread,
events carrying the seat of each line.

Paths: ``hub:/dev/ttyACM0``, ``hub:/dev/serial/by-id/…`` (survives re-plugging in another port),
and any pyserial URL such as ``hub:loop://`` for tests.

What the real world does to a serial line, and what this module does about it:
- lines arrive in pieces: bytes are buffered until the newline;
- noise, a half line at start-up, a foreign device: every line is checked (grammar and checksum);
  a bad one is counted in ``stats`` and ignored;
- the hub reboots mid-game: a HELLO with a new boot id; the hub then replays the state of every seat,
  and the per-seat debounce turns that replay into exactly the changes that happened meanwhile;
- a lost LIFTED line: the hub repeats HELLO and the seat states every 2 s, which heals it;
- the cable is pulled or the hub hangs: ``reader-lost``, then the port is reopened with a short
  back-off; a hub that comes back is in service again well within 2 s.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from companion.readers.base import Reader
from companion.readers.events import TagEvent

log = logging.getLogger(__name__)

PROTOCOL = 1  # the major version this host speaks; see hardware/protocol.md
BAUDRATE = 115200
MAX_LINE = 96  # bytes before the newline; longer means noise or a foreign device
SILENCE_LIMIT = 3.5  # s without a valid line: the hub is gone (it sends BEAT every second)
RETRY_DELAYS = (0.2, 0.5, 1.0, 1.0)  # reopening a lost port; the longest keeps us under 2 s
MAX_SEATS = 16

_UID = re.compile(r"(?:[0-9A-F]{8}|[0-9A-F]{14}|[0-9A-F]{20})")
_WORD = re.compile(r"[a-z0-9_.-]{1,24}")
_FW = re.compile(r"[0-9A-Za-z.+_-]{1,16}")
_BOOT = re.compile(r"[0-9A-F]{1,8}")


# --- the line protocol, pure functions -----------------------------------------------------------
@dataclass(frozen=True)
class Hello:
    proto: int
    firmware: str
    seats: int
    boot: str


@dataclass(frozen=True)
class Laid:
    seat: int
    uid: str


@dataclass(frozen=True)
class Lifted:
    seat: int


@dataclass(frozen=True)
class Error:
    seat: int  # 0: the hub itself
    code: str
    text: str = ""


@dataclass(frozen=True)
class Beat:
    uptime_ms: int


Message = Hello | Laid | Lifted | Error | Beat


def checksum(body: bytes) -> str:
    """XOR of the body's bytes as two upper-case hex digits (as in NMEA sentences)."""
    value = 0
    for byte in body:
        value ^= byte
    return f"{value:02X}"


def format_line(body: str) -> bytes:
    """A complete protocol line for ``body`` (the hub's side; used by tests and emulators)."""
    raw = body.encode("ascii")
    return raw + b"*" + checksum(raw).encode("ascii") + b"\r\n"


def _seat(token: str) -> int | None:
    if not token.isdigit() or len(token) > 2:
        return None
    value = int(token)
    return value if 0 <= value <= MAX_SEATS else None


def parse_line(line: bytes) -> Message | None:
    """One received line (without its newline) → a message, or None when it is not a valid line.

    Never raises: the bytes come from a wire and may be anything.
    """
    line = line.rstrip(b"\r")
    if len(line) > MAX_LINE or len(line) < 4 or line[-3:-2] != b"*":
        return None
    body, given = line[:-3], line[-2:]
    try:
        text = body.decode("ascii")
        given_text = given.decode("ascii")
    except UnicodeDecodeError:
        return None
    if given_text.upper() != checksum(body) or not text.isprintable():
        return None
    parts = text.split(" ")
    kind, args = parts[0], parts[1:]
    if kind == "HELLO" and len(args) >= 5 and args[0] == "tchub":
        # Fields after the fifth are for later minor versions: accepted and ignored.
        proto, firmware, seats, boot = args[1], args[2], _seat(args[3]), args[4]
        if not proto.isdigit() or len(proto) > 3 or not _FW.fullmatch(firmware) or not seats:
            return None
        if not _BOOT.fullmatch(boot):
            return None
        return Hello(int(proto), firmware, seats, boot)
    if kind == "LAID" and len(args) == 2:
        seat = _seat(args[0])
        if seat and _UID.fullmatch(args[1]):
            return Laid(seat, args[1])
        return None
    if kind == "LIFTED" and len(args) == 1:
        seat = _seat(args[0])
        return Lifted(seat) if seat else None
    if kind == "ERR" and len(args) >= 2:
        seat = _seat(args[0])
        if seat is None or not _WORD.fullmatch(args[1]):
            return None
        return Error(seat, args[1], " ".join(args[2:]))
    if kind == "BEAT" and len(args) == 1 and args[0].isdigit() and len(args[0]) <= 12:
        return Beat(int(args[0]))
    return None


class LineBuffer:
    """Bytes in, complete lines out. Keeps a partial line for the next read; drops (and counts)
    a line that grows past MAX_LINE, up to its newline."""

    def __init__(self) -> None:
        self._partial = bytearray()
        self._overflowing = False
        self.overflows = 0

    def feed(self, data: bytes) -> list[bytes]:
        out: list[bytes] = []
        *complete, rest = data.split(b"\n")
        for chunk in complete:
            if self._overflowing:  # the newline ending an over-long line: drop what came before
                self._overflowing = False
                self.overflows += 1
                continue
            whole = bytes(self._partial) + chunk
            self._partial.clear()
            if len(whole) > MAX_LINE + 1:
                self.overflows += 1
            else:
                out.append(whole)
        if not self._overflowing:
            self._partial += rest
            if len(self._partial) > MAX_LINE + 1:
                self._partial.clear()
                self._overflowing = True
        return out

    def reset(self) -> None:
        self._partial.clear()
        self._overflowing = False


# --- the reader -------------------------------------------------------------------------------------
@dataclass
class HubStats:
    lines: int = 0
    malformed: int = 0
    errors: int = 0
    reboots: int = 0
    reconnects: int = 0
    hello: Hello | None = None
    last_error: dict[int, str] = field(default_factory=dict)  # seat → last ERR code


def _open_serial(url: str) -> Any:
    import serial

    # exclusive: a second program (nfcpy's --search-tty, a serial console) must not share the hub.
    if "://" in url:
        return serial.serial_for_url(url, baudrate=BAUDRATE, timeout=0.1, write_timeout=0.5)
    return serial.Serial(url, baudrate=BAUDRATE, timeout=0.1, write_timeout=0.5, exclusive=True)


class HubReader(Reader):
    """Reads a reader hub. ``seat`` (optional) is the table seat of the hub's seat 1, so that two
    four-seat hubs can serve an eight-seat table; by default hub seat n is table seat n."""

    def __init__(self, path: str, seat: int | None = None,
                 opener: Callable[[str], Any] | None = None) -> None:
        super().__init__(path, seat)
        self.url = path.split(":", 1)[1] if path.startswith("hub:") else path
        self._opener = opener or _open_serial
        self.stats = HubStats()
        self._seats: dict[int, str] = {}  # hub seat → uid of the card on it
        self._boot: str | None = None
        self.port: Any = None  # the open serial port, for tests and diagnostics

    # --- thread -------------------------------------------------------------------------------
    def _interrupt(self) -> None:
        port = self.port
        if port is not None:
            try:
                port.cancel_read()
            except Exception:
                log.debug("cancel_read on %s failed", self.url, exc_info=True)

    def _run(self) -> None:
        attempt = 0
        announced_lost = False
        while not self.stopping:
            try:
                port = self._opener(self.url)
            except Exception as exc:  # SerialException, OSError, ValueError on a bad URL...
                if not announced_lost:
                    self._lost(f"{type(exc).__name__}: {exc}")
                    announced_lost = True
                self._back_off(RETRY_DELAYS[min(attempt, len(RETRY_DELAYS) - 1)])
                attempt += 1
                continue
            self.port = port
            try:
                if self.stats.hello is not None or announced_lost:
                    self.stats.reconnects += 1
                reason = self._session(port)
            except Exception as exc:  # the port vanished mid-read, or anything else: never fatal
                reason = f"{type(exc).__name__}: {exc}"
            finally:
                self.port = None
                try:
                    port.close()
                except Exception:
                    log.debug("closing %s failed", self.url, exc_info=True)
            if self.stopping:
                break
            self._lost(reason)
            announced_lost = True
            attempt = 0
            self._back_off(RETRY_DELAYS[0])

    def _session(self, port: Any) -> str:
        """Read one open port until it fails or falls silent; returns why it ended."""
        buffer = LineBuffer()
        self._boot = None
        try:
            # Ask for HELLO and the state of every seat now rather than at the next periodic one.
            port.write(b"?\n")
        except Exception as exc:
            return f"{type(exc).__name__}: {exc}"
        last_valid = time.monotonic()
        lines_before = self.stats.lines
        while not self.stopping:
            data = port.read(max(1, getattr(port, "in_waiting", 0) or 0))
            now = time.monotonic()
            if data:
                before = buffer.overflows
                for line in buffer.feed(data):
                    if self._handle(line):
                        last_valid = now
                self.stats.malformed += buffer.overflows - before
            if now - last_valid > SILENCE_LIMIT:
                hello = self.stats.hello
                from companion.i18n import t

                if hello is not None and hello.proto != PROTOCOL:
                    return t("hub.other_protocol", theirs=hello.proto, ours=PROTOCOL)
                if self._boot:
                    return t("hub.silent")
                if self.stats.lines > lines_before:
                    return t("hub.no_hello_lines", ours=PROTOCOL)
                return t("hub.no_hello")
        return "stopped"

    def _handle(self, line: bytes) -> bool:
        if not line.strip():
            return False  # blank lines (a lone CR, keep-alives) are neither valid nor malformed
        message = parse_line(line)
        if message is None:
            self.stats.malformed += 1
            log.debug("hub %s: malformed line %r", self.url, line[:40])
            return False
        self.stats.lines += 1
        if isinstance(message, Hello):
            return self._hello(message)
        if self._boot is None:
            # Events before a HELLO we accept come from an unknown state: wait for it. They do not
            # count as signs of life either, or a hub of another protocol that only sends BEAT
            # would never be reported.
            return False
        if isinstance(message, Laid):
            if message.seat <= self._seat_count():
                self._laid(message.seat, message.uid)
        elif isinstance(message, Lifted):
            self._lifted(message.seat)
        elif isinstance(message, Error):
            if message.seat > self._seat_count():
                log.debug("hub %s: ERR for seat %d, which it does not have", self.url, message.seat)
                return True
            self.stats.errors += 1
            self.stats.last_error[message.seat] = message.code
            log.warning("hub %s seat %d: %s %s", self.url, message.seat, message.code, message.text)
            if message.code == "read" and message.seat:
                self._emit_seat("unreadable", message.seat, detail=message.text or "read error")
        return True

    def _hello(self, hello: Hello) -> bool:
        if hello.proto != PROTOCOL:
            self.stats.malformed += 1
            self.stats.hello = hello
            self._boot = None  # its other lines may mean something else: ignore them
            for seat in list(self._seats):
                self._lifted(seat)
            log.warning("hub %s speaks protocol %d; this companion speaks %d", self.url, hello.proto, PROTOCOL)
            return False  # not valid for us: the silence timer will report it
        first = self._boot is None
        if not first and hello.boot != self._boot:
            self.stats.reboots += 1
            log.info("hub %s restarted (boot %s → %s)", self.url, self._boot, hello.boot)
        self._boot = hello.boot
        self.stats.hello = hello
        for seat in [s for s in self._seats if s > hello.seats]:
            self._lifted(seat)
        if first:
            self._emit_seat("reader-ready", None, detail=f"hub fw {hello.firmware}, {hello.seats} seats")
        return True

    def _seat_count(self) -> int:
        hello = self.stats.hello
        return hello.seats if hello and hello.proto == PROTOCOL else 0

    # --- events ---------------------------------------------------------------------------------
    def _laid(self, seat: int, uid: str) -> None:
        current = self._seats.get(seat)
        if current == uid:
            return  # the same card, still there (a replayed state or a rebooted hub)
        if current is not None:
            self._lifted(seat)
        self._seats[seat] = uid
        self._emit_seat("laid", seat, uid=uid)

    def _lifted(self, seat: int) -> None:
        uid = self._seats.pop(seat, None)
        if uid is not None:
            self._emit_seat("lifted", seat, uid=uid)

    def _lost(self, detail: str) -> None:
        self._seats.clear()  # as for any reader: a lost reader has no card on it
        self._boot = None
        self._emit_seat("reader-lost", None, detail=detail)

    def _table_seat(self, seat: int | None) -> int | None:
        if seat is None:
            return self.seat
        return seat if self.seat is None else self.seat + seat - 1

    def _emit_seat(self, kind: str, seat: int | None, uid: str = "", detail: str = "") -> None:
        # ``Reader._emit`` debounces one card per reader; a hub has one card per seat, debounced
        # above, so events are built here.
        event = TagEvent(kind=kind, reader=self.path, seat=self._table_seat(seat), uid=uid,  # type: ignore[arg-type]
                         ndef=None, detail=detail)
        sink = self._sink
        if sink is None:
            return
        try:
            sink(event)
        except Exception:
            log.exception("reader %s: event consumer failed", self.path)

    # --- for the UI and doctor -----------------------------------------------------------------
    def cards(self) -> dict[int, str]:
        """Table seat → UID of the card on it, as the hub last reported."""
        return {self._table_seat(s) or s: uid for s, uid in sorted(self._seats.items())}
