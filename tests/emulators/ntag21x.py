"""An NTAG213/215/216 card on nfcpy's unmodified ``udp`` radio.

nfcpy's udp driver (nfc/clf/udp.py) is a real reader whose field is UDP on loopback: one datagram
per frame, ASCII ``"<brty> <hex>"`` (``b"106A 26"``), no CRC, and ``b"RFOFF"`` when the reader
drops its field. Every sense closes the reader's socket and opens a new one, so the answer goes
to the sender's address of each datagram. This module plays the card at the other end:

- ISO 14443-3 A: REQA/WUPA → ATQA ``44 00``; cascade level 1 and 2 anticollision and select for
  a 7-byte UID (nfcpy skips the ``x 20`` steps when it re-selects a UID it knows); HLTA.
- NTAG21x commands: GET_VERSION, READ (16 bytes, rolls over past the last page, NAK ``00`` for a
  page that does not exist), FAST_READ, WRITE (ACK ``0A``; NAK for a page locked by the static or
  dynamic lock bits or by CFGLCK), READ_SIG, READ_CNT. AUTHENTICATE ``1A 00`` (Ultralight C) and
  anything else unknown: silence and back to IDLE, as the chip does.
- Memory as on the chip: UID/BCC/lock bytes in pages 0-2, the capability container of each type in
  page 3, the NDEF TLV from page 4, the dynamic lock bytes, CFG0, CFG1, PWD and PACK at the end.

A card is laid with ``lay()`` and removed with ``lift()``: a lifted card is silent. While no card
is there, a REQA is remembered for a moment and answered if a card is laid in time: a real
reader repeats REQA through its polling window, whereas nfcpy's udp driver sends one and waits a
second, which would otherwise add up to a second to every test that lays a card.

    emu = Ntag21x(kind="NTAG213"); emu.start()
    clf = nfc.ContactlessFrontend(f"udp:127.0.0.1:{emu.port}")
    emu.lay(uid, ndef_message_bytes=...)   # or raw_tlv_area=..., locked=True, formatted=False
    emu.lift(); emu.lift_after_reads(2); emu.memory; emu.stop()
"""

from __future__ import annotations

import binascii
import os
import select
import socket
import threading
import time
from dataclasses import dataclass

import ndef

ATQA = bytes.fromhex("4400")
SAK_INCOMPLETE = b"\x04"  # cascade bit: the UID goes on at the next level
SAK_NTAG = b"\x00"  # Type 2 tag, no ISO-DEP
ACK = b"\x0A"
NAK = b"\x00"  # "invalid argument": the page does not exist or cannot be written
PENDING_POLL = 0.8  # seconds a REQA sent to an empty field stays answerable (nfcpy waits 1.0)


@dataclass(frozen=True)
class Kind:
    name: str
    version: bytes
    pages: int  # total pages, 4 bytes each
    cc_size: int  # data area size / 8, byte 2 of the capability container
    dynamic_lock_page: int
    pages_per_lock_bit: int  # dynamic lock granularity

    @property
    def cfg0(self) -> int:
        return self.dynamic_lock_page + 1

    @property
    def pwd(self) -> int:
        return self.dynamic_lock_page + 3

    @property
    def user_pages(self) -> range:
        return range(4, self.dynamic_lock_page)


KINDS = {
    "NTAG213": Kind("NTAG213", bytes.fromhex("0004040201000F03"), 45, 0x12, 40, 2),
    "NTAG215": Kind("NTAG215", bytes.fromhex("0004040201001103"), 135, 0x3E, 130, 16),
    "NTAG216": Kind("NTAG216", bytes.fromhex("0004040201001303"), 231, 0x6D, 226, 16),
}


def ndef_tlv(message: bytes) -> bytes:
    """The NDEF message TLV (short or long length form) followed by the terminator TLV."""
    if len(message) < 255:
        return bytes((0x03, len(message))) + message + b"\xFE"
    return b"\x03\xFF" + len(message).to_bytes(2, "big") + message + b"\xFE"


def text_message(text: str, lang: str = "en") -> bytes:
    """An NDEF message holding one Text record, as phone apps such as NFC Tools write it."""
    return b"".join(ndef.message_encoder([ndef.TextRecord(text, lang)]))


def random_uid() -> bytes:
    return b"\x04" + os.urandom(6)  # 04: NXP, which nfcpy needs to probe for an NTAG


class Card:
    """The memory of one NTAG21x and the rules of its READ and WRITE commands."""

    def __init__(self, kind: str, uid: bytes, ndef_message_bytes: bytes | None = None,
                 raw_tlv_area: bytes | None = None, locked: bool | str = False,
                 formatted: bool = True, answers_version: bool = True) -> None:
        if kind not in KINDS:
            raise ValueError(f"unknown kind {kind!r}; expected one of {sorted(KINDS)}")
        if len(uid) != 7:
            raise ValueError("an NTAG21x has a 7-byte UID")
        self.kind = KINDS[kind]
        self.uid = bytes(uid)
        # False: silent to GET_VERSION, as a Mifare Ultralight or Ultralight C (same memory map
        # up to the NDEF area) is; a reader then has to find out what it is some other way.
        self.answers_version = answers_version
        k = self.kind
        mem = bytearray(4 * k.pages)
        bcc0 = 0x88 ^ uid[0] ^ uid[1] ^ uid[2]
        bcc1 = uid[3] ^ uid[4] ^ uid[5] ^ uid[6]
        mem[0:12] = uid[0:3] + bytes((bcc0,)) + uid[3:7] + bytes((bcc1, 0x48, 0x00, 0x00))
        if formatted:
            mem[12:16] = bytes((0xE1, 0x10, k.cc_size, 0x00))
        area = raw_tlv_area if raw_tlv_area is not None else (
            ndef_tlv(ndef_message_bytes if ndef_message_bytes is not None else b"") if formatted else b"")
        capacity = 4 * len(k.user_pages)
        if len(area) > capacity:
            raise ValueError(f"{len(area)} bytes do not fit in the {capacity}-byte user area of an {k.name}")
        mem[16:16 + len(area)] = area
        d = 4 * k.dynamic_lock_page
        mem[d:d + 4] = bytes.fromhex("000000BD")
        mem[d + 4:d + 8] = bytes.fromhex("040000FF")  # CFG0: MIRROR, RFUI, MIRROR_PAGE, AUTH0 (no password)
        mem[d + 8:d + 12] = bytes.fromhex("00050000")  # CFG1: ACCESS, RFUI, RFUI, RFUI
        mem[d + 12:d + 16] = b"\xFF" * 4  # PWD (reads as zeros)
        mem[d + 16:d + 20] = b"\x00" * 4  # PACK, RFUI
        self.memory = mem
        if locked:
            # "bits": the lock bits are set but the capability container still claims the tag is
            # writeable, so a writer only finds out from the NAK.
            if locked != "bits":
                mem[15] = 0x0F
            mem[10:12] = b"\xFF\xFF"
            mem[d:d + 3] = b"\xFF\xFF\xFF"

    # --- lock rules --------------------------------------------------------------------------------
    def page_locked(self, page: int) -> bool:
        mem, k = self.memory, self.kind
        lock0, lock1 = mem[10], mem[11]
        if page == 3:
            return bool(lock0 & 0x08)  # L-CC
        if 4 <= page <= 7:
            return bool(lock0 & (1 << page))  # L4..L7 are bits 4..7
        if 8 <= page <= 15:
            return bool(lock1 & (1 << (page - 8)))
        if page in k.user_pages:
            bit = (page - 16) // k.pages_per_lock_bit
            d = 4 * k.dynamic_lock_page
            dyn = mem[d] | mem[d + 1] << 8
            return bool(dyn & (1 << bit))
        if page in (k.cfg0, k.cfg0 + 1):
            return bool(mem[4 * (k.cfg0 + 1)] & 0x40)  # CFGLCK in ACCESS
        return False

    def read(self, page: int) -> bytes | None:
        k = self.kind
        if page >= k.pages:
            return None
        out = bytearray()
        for i in range(4):
            p = (page + i) % k.pages  # the chip rolls over to page 0
            out += b"\x00" * 4 if p >= k.pwd else self.memory[4 * p:4 * p + 4]
        return bytes(out)

    def write(self, page: int, data: bytes) -> bool:
        k = self.kind
        if page < 2 or page >= k.pages or len(data) != 4 or self.page_locked(page):
            return False
        at = 4 * page
        if page == 2:  # only the lock bytes; lock bits are never cleared
            self.memory[at + 2] |= data[2]
            self.memory[at + 3] |= data[3]
        elif page == 3:  # the capability container is one-time programmable
            for i in range(4):
                self.memory[at + i] |= data[i]
        elif page == k.dynamic_lock_page:
            for i in range(3):
                self.memory[at + i] |= data[i]
        else:
            self.memory[at:at + 4] = data
        return True

    def message(self) -> bytes | None:
        """The NDEF message of the first NDEF TLV (what a writer left there), or None."""
        area = bytes(self.memory[16:4 * self.kind.dynamic_lock_page])
        i = 0
        while i < len(area):
            t = area[i]
            if t == 0x00:
                i += 1
                continue
            if t == 0xFE or i + 1 >= len(area):
                return None
            length, start = area[i + 1], i + 2
            if length == 0xFF:
                length, start = int.from_bytes(area[i + 2:i + 4], "big"), i + 4
            if t == 0x03:
                return area[start:start + length]
            i = start + length
        return None


class Ntag21x:
    """The card side of nfcpy's udp radio, in a thread, on an ephemeral (or given) port."""

    IDLE, READY1, READY2, ACTIVE, HALT = range(5)

    def __init__(self, kind: str = "NTAG213", host: str = "127.0.0.1", port: int = 0,
                 answer_pending_poll: bool = True) -> None:
        if kind not in KINDS:
            raise ValueError(f"unknown kind {kind!r}")
        self.kind = kind
        self.host = host
        self.port = port
        self.answer_pending_poll = answer_pending_poll
        self.card: Card | None = None
        self.activations: list[float] = []  # time.monotonic() of each card's first select
        self.commands: list[int] = []  # command codes the laid card received while selected
        self.reads = 0
        self.writes = 0
        self.frames = 0
        self._state = self.IDLE
        self._pending: tuple[tuple[str, int], str, float] | None = None
        self._reads_left: int | None = None
        self._reads_missed = 0
        self._reads_late: tuple[int, float] = (0, 0.0)
        self._late = 0.0
        self._activated = False
        self._lock = threading.RLock()
        self._sock: socket.socket | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    # --- life cycle --------------------------------------------------------------------------------
    def start(self) -> Ntag21x:
        """Listen (again) on ``self.port``; the first start picks a free port when it is 0."""
        sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((self.host, self.port))
        self.port = sock.getsockname()[1]
        self._sock = sock
        self._stop.clear()
        with self._lock:
            self._state = self.IDLE
            self._pending = None
        self._thread = threading.Thread(target=self._serve, name=f"ntag21x udp:{self.port}", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Close the port: the reader's datagrams now meet a closed port. The card stays laid."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(2)
            self._thread = None
        if self._sock is not None:
            self._sock.close()
            self._sock = None

    def __enter__(self) -> Ntag21x:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def path(self) -> str:
        return f"udp:{self.host}:{self.port}"

    # --- the test's hands --------------------------------------------------------------------------
    def lay(self, uid: bytes | str | None = None, ndef_message_bytes: bytes | None = None,
            raw_tlv_area: bytes | None = None, locked: bool | str = False, formatted: bool = True,
            kind: str | None = None, lift_after_reads: int | None = None,
            answers_version: bool = True) -> Card:
        """Lay a card (replacing any card there). With neither message nor raw area, the card is
        factory fresh: formatted, with an empty NDEF message; ``formatted=False`` leaves the
        capability container blank (no NDEF at all). ``lift_after_reads`` is ``lift_after_reads()``
        set in the same breath, before a reader in another process can start reading.
        ``answers_version=False``: a Type 2 tag silent to GET_VERSION (see Card)."""
        if isinstance(uid, str):
            uid = bytes.fromhex(uid)
        card = Card(kind or self.kind, uid or random_uid(), ndef_message_bytes=ndef_message_bytes,
                    raw_tlv_area=raw_tlv_area, locked=locked, formatted=formatted,
                    answers_version=answers_version)
        with self._lock:
            self.card = card
            self.commands = []
            self._state = self.IDLE
            self._reads_left = lift_after_reads
            self._activated = False
            pending, self._pending = self._pending, None
            if (self.answer_pending_poll and pending is not None
                    and time.monotonic() - pending[2] < PENDING_POLL):
                self._state = self.READY1
                self._send(pending[1], ATQA, pending[0])
        return card

    def lift(self) -> None:
        with self._lock:
            self.card = None
            self._state = self.IDLE
            self._reads_left = None

    def lift_after_reads(self, n: int) -> None:
        """Answer ``n`` more READ commands, then go silent as if the card left mid-read."""
        with self._lock:
            self._reads_left = n
            if n <= 0:
                self.lift()

    def miss_reads(self, n: int) -> None:
        """Leave the next ``n`` READ commands unanswered, the card staying selected: a card at the
        edge of the field, or a reader's answer that came too late on a loaded machine."""
        with self._lock:
            self._reads_missed = n

    def answer_reads_late(self, n: int, seconds: float) -> None:
        """Answer the next ``n`` READ commands ``seconds`` late: what a reader sees of an emulated
        card when the machine is so loaded that the card's thread waits for a CPU."""
        with self._lock:
            self._reads_late = (n, seconds)

    @property
    def memory(self) -> bytes | None:
        with self._lock:
            return bytes(self.card.memory) if self.card is not None else None

    # --- the radio ---------------------------------------------------------------------------------
    def _serve(self) -> None:
        sock = self._sock
        assert sock is not None
        while not self._stop.is_set():
            try:
                if not select.select([sock], [], [], 0.1)[0]:
                    continue
                datagram, addr = sock.recvfrom(1024)
            except (OSError, ValueError):
                # A late answer to a reader socket that nfcpy already closed, or our own close.
                continue
            try:
                self._handle(datagram, addr)
            except Exception:  # a malformed frame must not kill the card
                with self._lock:
                    self._state = self.IDLE

    def _send(self, brty: str, data: bytes, addr: tuple[str, int]) -> None:
        sock = self._sock
        if sock is None:
            return
        try:
            sock.sendto(brty.encode("ascii") + b" " + binascii.hexlify(data), addr)
        except OSError:
            pass

    def _handle(self, datagram: bytes, addr: tuple[str, int]) -> None:
        with self._lock:
            self.frames += 1
            self._pending = None
            if datagram.startswith(b"RFOFF"):
                self._state = self.IDLE  # no field, no power: every card resets, a halted one too
                return
            try:
                brty_b, hexdata = datagram.split()
                brty = brty_b.decode("ascii")
                frame = binascii.unhexlify(hexdata)
            except ValueError:
                return
            if brty != "106A" or not frame:
                return
            card = self.card
            if card is None:
                if frame in (b"\x26", b"\x52"):
                    self._pending = (addr, brty, time.monotonic())
                return
            reply = self._process(card, frame)
            late, self._late = self._late, 0.0
        if reply is not None:
            if late:
                time.sleep(late)  # outside the lock: lay() and lift() stay free meanwhile
            self._send(brty, reply, addr)

    def _process(self, card: Card, frame: bytes) -> bytes | None:
        uid, state = card.uid, self._state
        cl1 = bytes((0x88,)) + uid[0:3]
        cl1 += bytes((cl1[0] ^ cl1[1] ^ cl1[2] ^ cl1[3],))
        cl2 = uid[3:7] + bytes((uid[3] ^ uid[4] ^ uid[5] ^ uid[6],))
        if frame == b"\x52" or (frame == b"\x26" and state != self.HALT):
            self._state = self.READY1
            return ATQA
        if state == self.READY1 and frame == b"\x93\x20":
            return cl1
        if state == self.READY1 and frame == b"\x93\x70" + cl1:
            self._state = self.READY2
            return SAK_INCOMPLETE
        if state == self.READY2 and frame == b"\x95\x20":
            return cl2
        if state == self.READY2 and frame == b"\x95\x70" + cl2:
            self._state = self.ACTIVE
            if not self._activated:
                self._activated = True
                self.activations.append(time.monotonic())
            return SAK_NTAG
        if state != self.ACTIVE:
            self._state = self.IDLE if state != self.HALT else self.HALT
            return None
        command = frame[0]
        self.commands.append(command)
        if command == 0x30 and len(frame) == 2:
            if self._reads_missed > 0:
                self._reads_missed -= 1
                return None
            data = card.read(frame[1])
            if data is None:
                self._state = self.IDLE
                return NAK
            self.reads += 1
            late, seconds = self._reads_late
            if late > 0:
                self._reads_late, self._late = (late - 1, seconds), seconds
            if self._reads_left is not None:
                self._reads_left -= 1
                if self._reads_left <= 0:
                    self.card = None  # this answer still goes out; then the card is gone
                    self._reads_left = None
            return data
        if command == 0x3A and len(frame) == 3:  # FAST_READ start..end
            start, end = frame[1], frame[2]
            if start > end or end >= card.kind.pages:
                self._state = self.IDLE
                return NAK
            return b"".join(card.read(p)[:4] for p in range(start, end + 1))  # type: ignore[index]
        if command == 0xA2 and len(frame) == 6:
            if card.write(frame[1], frame[2:6]):
                self.writes += 1
                return ACK
            self._state = self.IDLE
            return NAK
        if command == 0x60 and len(frame) == 1 and card.answers_version:
            return card.kind.version
        if command == 0x3C and len(frame) == 2:  # READ_SIG: no real signature here
            return bytes(32)
        if command == 0x39 and len(frame) == 2:  # READ_CNT
            return self.reads.to_bytes(3, "little")
        if frame == b"\x50\x00":  # HLTA
            self._state = self.HALT
            return None
        self._state = self.IDLE  # AUTHENTICATE (1A 00) and the rest: silence
        return None
