"""Keyboard-wedge USB readers: they type the card's UID and Enter, as a keyboard would.

A scan is told from a person typing by speed and format: a reader types every key within a few
milliseconds of the previous one, Enter included, and what it types is a UID (8, 14 or 20 hex
digits, or the 10 decimal digits many readers are set to by default). Nobody types 14 keys 30 ms
apart, so a person's typing is never taken for a card, and keys that were held back while the
recogniser could not yet tell are given back, in order, as typed keys.

``WedgeRecogniser`` is pure (no Kivy, no threads): the UI feeds it its key events; ``WedgeReader``
runs it in a reader thread over a Linux input device (``wedge:/dev/input/by-id/…-event-kbd``,
using the kernel's own key timestamps; ``wedge:evdev:PATH`` for one elsewhere), over stdin
(``wedge:stdin``), or over any file of plain characters (``wedge:text:PATH``).
"""

from __future__ import annotations

import logging
import os
import select
import struct
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from companion.readers.base import Reader

log = logging.getLogger(__name__)

RETRY_DELAYS = (0.2, 0.5, 1.0, 1.0)
MAX_GAP = 0.030  # s between two keys of one scan; readers type every 1–20 ms, people ≥ 60 ms
HEX_LENGTHS = (8, 14, 20)  # 4-, 7- and 10-byte UIDs
DECIMAL_LENGTH = 10  # a 4-byte UID as a zero-padded decimal number
ENTER = "\n"


@dataclass(frozen=True)
class Typed:
    key: str  # a key a person typed, given back to whoever wanted the keyboard


@dataclass(frozen=True)
class Scanned:
    uid: str  # upper-case hex
    typed: str  # what the reader typed, as typed


def uid_from_typed(text: str) -> str | None:
    """The UID in what a wedge reader typed, or None when it is not one."""
    if len(text) == DECIMAL_LENGTH and text.isdigit():
        value = int(text)
        return f"{value:08X}" if value < 1 << 32 else None
    if len(text) in HEX_LENGTHS and all(c in "0123456789abcdefABCDEF" for c in text):
        return text.upper()
    return None


class WedgeRecogniser:
    """Feed (key, time in seconds) events; get back ``Typed`` keys and ``Scanned`` UIDs.

    Keys are single characters; Enter is ``"\\n"`` (``"enter"`` and ``"\\r"`` are accepted).
    A digit or hex letter is held back until the recogniser knows whether it belongs to a scan;
    call ``flush(now)`` from a timer (every ~50 ms) so that a person's last key is not held.
    """

    def __init__(self, max_gap: float = MAX_GAP) -> None:
        self.max_gap = max_gap
        self._held: list[str] = []
        self._last = 0.0

    def feed(self, key: str, at: float) -> list[Typed | Scanned]:
        out: list[Typed | Scanned] = []
        if self._held and at - self._last > self.max_gap:
            out += self._release()
        if key in ("enter", "\r", ENTER):
            typed = "".join(self._held)
            uid = uid_from_typed(typed) if self._held else None
            if uid is not None:
                self._held.clear()
                out.append(Scanned(uid, typed))
            else:
                out += self._release()
                out.append(Typed(ENTER))
        elif len(key) == 1 and key in "0123456789abcdefABCDEF":
            self._held.append(key)
            if len(self._held) > max(HEX_LENGTHS):  # a fast burst, but longer than any UID
                out += self._release()
        else:
            out += self._release()
            out.append(Typed(key))
        self._last = at
        return out

    def flush(self, now: float) -> list[Typed | Scanned]:
        """Give back held keys once too much time has passed for them to be a scan."""
        if self._held and now - self._last > self.max_gap:
            return self._release()
        return []

    def _release(self) -> list[Typed | Scanned]:
        keys = [Typed(k) for k in self._held]
        self._held.clear()
        return keys


# --- key sources --------------------------------------------------------------------------------------
KeySource = Callable[[Callable[[], bool]], Iterator[tuple[str, float]]]

# struct input_event on 64-bit Linux: struct timeval (two longs), __u16 type, __u16 code, __s32 value
_EVENT = struct.Struct("llHHi")
_EV_KEY = 0x01
_KEYS = {2: "1", 3: "2", 4: "3", 5: "4", 6: "5", 7: "6", 8: "7", 9: "8", 10: "9", 11: "0",
         30: "A", 48: "B", 46: "C", 32: "D", 18: "E", 33: "F", 28: ENTER, 96: ENTER,
         79: "1", 80: "2", 81: "3", 75: "4", 76: "5", 77: "6", 71: "7", 72: "8", 73: "9", 82: "0"}


def evdev_keys(fd: int, stopping: Callable[[], bool]) -> Iterator[tuple[str, float]]:
    """Key presses from a Linux input device, timed by the kernel (exact even when we are late)."""
    pending = b""
    while not stopping():
        ready, _, _ = select.select([fd], [], [], 0.1)
        if not ready:
            yield "", time.time()  # a tick in the kernel's clock, so that held keys get flushed
            continue
        data = os.read(fd, _EVENT.size * 64)  # ENODEV once the device is unplugged
        if not data:
            raise OSError("input device closed")
        pending += data
        while len(pending) >= _EVENT.size:
            sec, usec, kind, code, value = _EVENT.unpack_from(pending)
            pending = pending[_EVENT.size:]
            if kind == _EV_KEY and value == 1:  # key press; 0 is release and 2 auto-repeat
                yield _KEYS.get(code, f"<{code}>"), sec + usec / 1e6


def stream_keys(fd: int, stopping: Callable[[], bool]) -> Iterator[tuple[str, float]]:
    """Characters from a terminal in cbreak mode or a pipe, timed on arrival."""
    while not stopping():
        ready, _, _ = select.select([fd], [], [], 0.1)
        if not ready:
            yield "", time.monotonic()
            continue
        data = os.read(fd, 64)
        if not data:
            raise EOFError
        now = time.monotonic()
        for char in data.decode("utf-8", "replace"):
            yield char, now


class WedgeReader(Reader):
    """A keyboard-wedge reader as a Reader: each scan is a card laid (UID only, no NDEF).

    A wedge reader cannot tell when a card leaves; a new scan first lifts the previous card, so
    that scanning the same card twice announces it twice, as the player meant.
    """

    def __init__(self, path: str, seat: int | None = None, max_gap: float = MAX_GAP) -> None:
        super().__init__(path, seat)
        self.source = path.split(":", 1)[1] if ":" in path else "stdin"
        self.max_gap = max_gap
        self.typed: list[str] = []  # keys a person typed on that keyboard, for the record

    def _open(self) -> tuple[int, KeySource, Callable[[], None]]:
        if self.source in ("stdin", "-"):
            fd = sys.stdin.fileno()
            restore = _cbreak(fd)
            return fd, stream_keys, restore
        kind, _, path = self.source.partition(":")
        if kind not in ("evdev", "text"):  # no explicit format: input devices speak evdev
            kind, path = ("evdev" if self.source.startswith("/dev/input/") else "text"), self.source
        fd = os.open(path, os.O_RDONLY)
        return fd, evdev_keys if kind == "evdev" else stream_keys, lambda: os.close(fd)

    def _run(self) -> None:
        attempt = 0
        announced_lost = False
        while not self.stopping:
            try:
                fd, source, close = self._open()
            except OSError as exc:  # unplugged, or no permission on /dev/input (see doctor)
                if not announced_lost:
                    self._emit("reader-lost", detail=f"{type(exc).__name__}: {exc}")
                    announced_lost = True
                self._back_off(RETRY_DELAYS[min(attempt, len(RETRY_DELAYS) - 1)])
                attempt += 1
                continue
            attempt = 0
            announced_lost = False
            self._emit("reader-ready")
            try:
                self._read(fd, source)
            except EOFError:
                return  # stdin or a pipe ended: nothing more will ever come
            except OSError as exc:
                self._emit("reader-lost", detail=f"{type(exc).__name__}: {exc}")
                announced_lost = True
                self._back_off(RETRY_DELAYS[0])
            finally:
                close()

    def _read(self, fd: int, source: KeySource) -> None:
        recogniser = WedgeRecogniser(self.max_gap)
        for key, at in source(fd, lambda: self.stopping):
            outputs = recogniser.feed(key, at) if key else recogniser.flush(at)
            for output in outputs:
                if isinstance(output, Scanned):
                    if self._present is not None:
                        self._emit("lifted")
                    self._emit("laid", uid=output.uid)
                else:
                    self.typed.append(output.key)


def _cbreak(fd: int) -> Callable[[], None]:
    """Key-by-key input from a terminal (so each key is timed); returns how to undo it."""
    if not os.isatty(fd):
        return lambda: None
    import termios
    import tty

    saved = termios.tcgetattr(fd)
    tty.setcbreak(fd)
    return lambda: termios.tcsetattr(fd, termios.TCSADRAIN, saved)
