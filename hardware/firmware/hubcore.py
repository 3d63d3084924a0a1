"""The hub's logic, free of hardware: seat debounce, protocol lines, heartbeat, host requests.

Runs unchanged on MicroPython (the Pico) and on CPython (the host's tests, and the hub emulator the
companion's tests talk to); make test runs it under real MicroPython too (its WebAssembly port, see
tests/hardware/test_hub_firmware_micropython.py), so that only what both languages have is used. Everything
that touches pins lives in the drivers and main.py; this module only sees "seat n reads UID u (or
nothing, or an error)" and a clock in milliseconds. The protocol is hardware/protocol.md.
"""

PROTOCOL = 1
FIRMWARE = "1.0.0"
BEAT_MS = 1000  # heartbeat period: the host declares the hub gone after 3.5 s of silence
HELLO_MS = 2000  # HELLO + every seat's state, so that a late host or a lost line heals quickly
MISSES_TO_LIFT = 3  # polls without the card before it counts as lifted: readers flicker
ERRORS_TO_REPORT = 5  # consecutive driver failures before a seat's reader is reported broken
MAX_SEATS = 4


def checksum(body):
    value = 0
    for byte in body.encode():
        value ^= byte
    return f"{value:02X}"


def line(body):
    return body + "*" + checksum(body) + "\r\n"


class Seat:
    """One reader's debounce: a card is laid at the first good read, lifted after several misses."""

    def __init__(self, number):
        self.number = number
        self.uid = None  # the card reported to the host
        self.misses = 0
        self.failures = 0
        self.broken = None  # the error code while the reader is failing

    def update(self, uid):
        """Feed one poll (a hex UID or None); returns the event line body to send, or None."""
        self.failures = 0
        if uid is not None:
            self.misses = 0
            if uid == self.uid:
                return None
            self.uid = uid  # a different card replaces the previous one at once
            return f"LAID {self.number} {uid}"
        if self.uid is None:
            return None
        self.misses += 1
        if self.misses < MISSES_TO_LIFT:
            return None
        self.uid = None
        self.misses = 0
        return f"LIFTED {self.number}"

    def failed(self, code):
        """A driver error on this seat; reported once when it persists, as ERR."""
        self.failures += 1
        if self.failures == ERRORS_TO_REPORT and not self.broken:
            self.broken = code
            return f"ERR {self.number} {code}"
        return None

    def state(self):
        return f"LAID {self.number} {self.uid}" if self.uid else f"LIFTED {self.number}"


class Hub:
    """Turns polls into protocol lines written with ``write(str)``.

    ``boot`` identifies this power-up (random per boot) so that the host sees a restart.
    """

    def __init__(self, seats, write, now_ms, boot, firmware=FIRMWARE):
        if not 1 <= seats <= MAX_SEATS:
            raise ValueError(f"1 to {MAX_SEATS} seats")
        self.seats = [Seat(n + 1) for n in range(seats)]
        self.write = write
        self.firmware = firmware
        self.boot = f"{boot & 0xFFFF:04X}"
        self.started = now_ms
        self.next_beat = now_ms + BEAT_MS
        self.next_hello = now_ms + HELLO_MS
        self._input = b""
        self.greeted = False  # HELLO waits for the first poll round, so that it comes with the truth

    def _send(self, body):
        self.write(line(body))

    def hello(self, now_ms):
        self.greeted = True
        self._send(f"HELLO tchub {PROTOCOL} {self.firmware} {len(self.seats)} {self.boot}")
        for seat in self.seats:
            self._send(seat.state())
            if seat.broken:
                self._send(f"ERR {seat.number} {seat.broken}")
        self.next_hello = now_ms + HELLO_MS

    def reading(self, seat_index, uid):
        body = self.seats[seat_index].update(uid)
        if body and self.greeted:  # before HELLO, the state it is followed by says it all
            self._send(body)

    def failure(self, seat_index, code):
        body = self.seats[seat_index].failed(code)
        if body and self.greeted:
            self._send(body)

    def recovered(self, seat_index):
        self.seats[seat_index].broken = None

    def tick(self, now_ms):
        """Call once per poll round: sends the heartbeat and the periodic HELLO when due."""
        if not self.greeted or _due(now_ms, self.next_hello):
            self.hello(now_ms)
        if _due(now_ms, self.next_beat):
            self._send(f"BEAT {_elapsed(now_ms, self.started)}")
            self.next_beat = now_ms + BEAT_MS

    def received(self, data, now_ms):
        """Bytes from the host. ``?`` asks for HELLO and every seat's state; the rest is ignored."""
        self._input = (self._input + data)[-64:]
        while b"\n" in self._input:
            request, self._input = self._input.split(b"\n", 1)
            if request.strip() == b"?":
                self.hello(now_ms)


def _due(now_ms, deadline_ms):
    # ticks_ms wraps around on the Pico; comparing the difference keeps working across the wrap.
    return _elapsed(now_ms, deadline_ms) >= 0 and _elapsed(now_ms, deadline_ms) < (1 << 29)


def _elapsed(now_ms, since_ms):
    return (now_ms - since_ms) & ((1 << 30) - 1)


POLL_MS = 40  # one round over every seat; MFRC522 reads take ~5 ms each, four seats fit


def serve(hub, readers, read_input, now_ms, sleep_ms, rounds=None):
    """The firmware's main loop. ``readers[i].read_uid()`` returns a hex UID or None and raises
    OSError when the reader itself fails; ``read_input()`` returns the bytes the host sent (or b"").
    ``rounds`` bounds the loop for tests; the Pico runs forever."""
    done = 0
    while rounds is None or done < rounds:
        started = now_ms()
        for index, reader in enumerate(readers):
            try:
                uid = reader.read_uid()
            except OSError as exc:
                hub.failure(index, _code(exc))
                continue
            if hub.seats[index].broken:
                hub.recovered(index)
            hub.reading(index, uid)
        data = read_input()
        if data:
            hub.received(data, now_ms())
        hub.tick(now_ms())
        spent = _elapsed(now_ms(), started)
        if spent < POLL_MS:
            sleep_ms(POLL_MS - spent)
        done += 1


_WORD = "abcdefghijklmnopqrstuvwxyz0123456789_-."


def _code(exc):
    # A protocol error code is one lower-case ASCII word; driver errors carry it as their first
    # argument. (MicroPython's str has no isalnum(), and CPython's would let "é" onto the wire.)
    text = str(exc.args[0]) if exc.args else "io"
    word = "".join(c for c in text.lower() if c in _WORD)[:24]
    return word or "io"
