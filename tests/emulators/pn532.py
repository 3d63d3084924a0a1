"""A fake PN532 on a pseudo-terminal, faithful enough for nfcpy's unmodified ``pn532`` driver,
with an NTAG21x card that can be laid on it and lifted.

The host side is the real driver: ``nfc.clf.pn532.init(nfc.clf.transport.TTY(emulator.path))``.
What the driver needs (../../shared/TESTING.md): normal and extended frames, ACK, the chip
commands it sends at start-up and close, InListPassiveTarget (the chip does the anticollision)
and InCommunicateThru with CRC_A appended to the card's answer, since nfcpy turns the chip's CRC
check off for Type 2 tags and checks CRC itself.

The card is any object with ``uid: bytes`` and ``exchange(frame: bytes) -> bytes | None`` (None:
the card stays silent); ``Ntag21x`` below is a small memory model of NTAG213/215/216.
"""

from __future__ import annotations

import os
import select
import threading
import time
import tty
from collections.abc import Iterable

import ndef

ACK = bytes.fromhex("0000FF00FF00")
ERROR_FRAME = bytes.fromhex("0000FF01FF7F8100")  # "syntax error": the chip's answer to a bad frame
FIRMWARE = bytes((0x32, 0x01, 0x06, 0x07))  # PN532 v1.6, supports ISO A, ISO B and ISO 18092
CIU_FIFO_DATA = 0x6339
TIMEOUT = 0x01  # status byte of a card that did not answer

VERSIONS = {
    213: (bytes.fromhex("0004040201000F03"), 45, 0x12),
    215: (bytes.fromhex("0004040201001103"), 135, 0x3E),
    216: (bytes.fromhex("0004040201001303"), 231, 0x6D),
}


def crc_a(data: bytes) -> bytes:
    crc = 0x6363
    for byte in data:
        byte ^= crc & 0xFF
        byte = (byte ^ (byte << 4)) & 0xFF
        crc = (crc >> 8) ^ (byte << 8) ^ (byte << 3) ^ (byte >> 4)
    return bytes((crc & 0xFF, crc >> 8))


def ndef_tlv(message: bytes) -> bytes:
    if len(message) < 255:
        return bytes((0x03, len(message))) + message + b"\xFE"
    return bytes((0x03, 0xFF)) + len(message).to_bytes(2, "big") + message + b"\xFE"


def text_message(text: str) -> bytes:
    return b"".join(ndef.message_encoder([ndef.TextRecord(text, "en")]))


class Ntag21x:
    """NTAG213/215/216 memory and the commands nfcpy sends to it: GET_VERSION, READ, WRITE."""

    def __init__(self, uid: bytes, message: bytes | None = None, model: int = 213) -> None:
        if len(uid) != 7:
            raise ValueError("an NTAG21x has a 7-byte UID")
        self.uid = bytes(uid)
        self.version, self.pages, cc_size = VERSIONS[model]
        memory = bytearray(4 * self.pages)
        bcc0 = 0x88 ^ uid[0] ^ uid[1] ^ uid[2]
        bcc1 = uid[3] ^ uid[4] ^ uid[5] ^ uid[6]
        memory[0:12] = uid[0:3] + bytes((bcc0,)) + uid[3:7] + bytes((bcc1, 0x48, 0x00, 0x00))
        memory[12:16] = bytes((0xE1, 0x10, cc_size, 0x00))
        user = ndef_tlv(message) if message is not None else b""
        memory[16:16 + len(user)] = user
        self.memory = memory
        self.reads = 0

    def exchange(self, frame: bytes) -> bytes | None:
        if not frame:
            return None
        command = frame[0]
        if command == 0x60 and len(frame) == 1:
            return self.version
        if command == 0x30 and len(frame) == 2:
            page = frame[1]
            if page >= self.pages:
                return b"\x00"  # NAK
            self.reads += 1
            # Reads past the last page roll over to page 0, as on the chip.
            return bytes(self.memory[((page + i) % self.pages) * 4 + j] for i in range(4) for j in range(4))
        if command == 0xA2 and len(frame) == 6:
            page = frame[1]
            if page < 2 or page >= self.pages - 5:  # UID pages and configuration: refused here
                return b"\x00"
            self.memory[page * 4:page * 4 + 4] = frame[2:6]
            return b"\x0A"  # ACK
        return None  # AUTHENTICATE (1A), READ_SIG and the rest: an NTAG21x stays silent

    def message(self) -> bytes | None:
        """The NDEF message in the TLV area (what a write left there)."""
        user = bytes(self.memory[16:])
        if user[:1] != b"\x03":
            return None
        if user[1] == 0xFF:
            length = int.from_bytes(user[2:4], "big")
            return user[4:4 + length]
        return user[2:2 + user[1]]


class FakePn532:
    """The chip at the other end of a pty; ``path`` is the device name nfcpy opens."""

    def __init__(self) -> None:
        self.master, self._slave = os.openpty()
        tty.setraw(self.master)
        tty.setraw(self._slave)  # kept open: the driver closes and reopens its side at start-up
        self.path = os.ttyname(self._slave)
        self.card: object | None = None
        self.commands: list[int] = []  # command codes received, in order
        self.activations: list[float] = []  # when a card was first selected after being laid
        self.registers: dict[int, int] = {}
        self.bad_frames = 0
        self._field = False
        self._active = False
        self._stamped = False  # the laid card's first select is in activations
        self._lock = threading.Lock()
        self._buffer = bytearray()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, name="fake pn532", daemon=True)
        self._thread.start()

    # --- the test's side --------------------------------------------------------------------------
    def lay(self, card) -> None:
        with self._lock:
            self.card = card
            self._active = False
            self._stamped = False

    def lift(self) -> None:
        with self._lock:
            self.card = None
            self._active = False

    def close(self) -> None:
        self._stop.set()
        self._thread.join(2)
        for fd in (self.master, self._slave):
            try:
                os.close(fd)
            except OSError:
                pass

    def __enter__(self) -> FakePn532:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- the wire ------------------------------------------------------------------------------------
    def _serve(self) -> None:
        while not self._stop.is_set():
            ready, _, _ = select.select([self.master], [], [], 0.05)
            if not ready:
                continue
            try:
                data = os.read(self.master, 1024)
            except OSError:
                continue  # no slave open for a moment (the driver reopening the port)
            self._buffer += data
            for frame in self._frames():
                self._write(frame)

    def _write(self, data: bytes) -> None:
        try:
            os.write(self.master, data)
        except OSError:
            pass

    def _frames(self) -> Iterable[bytes]:
        """Complete host frames out of the buffer → the bytes to answer each with."""
        buf = self._buffer
        while True:
            start = buf.find(b"\x00\xFF")
            if start < 0:
                del buf[:max(0, len(buf) - 1)]  # keep a trailing 00 that may start a frame
                return
            del buf[:start]
            if len(buf) < 4:
                return
            length, lcs = buf[2], buf[3]
            if length == 0x00 and lcs == 0xFF:  # ACK from the host: cancels nothing here
                del buf[:4]
                continue
            if length == 0xFF and lcs == 0xFF:  # extended frame
                if len(buf) < 7:
                    return
                length = buf[4] << 8 | buf[5]
                if (buf[4] + buf[5] + buf[6]) & 0xFF:
                    yield self._bad(buf, 7)
                    continue
                head = 7
            else:
                if (length + lcs) & 0xFF:
                    yield self._bad(buf, 2)
                    continue
                head = 4
            if len(buf) < head + length + 1:
                return
            body = bytes(buf[head:head + length])
            dcs = buf[head + length]
            del buf[:head + length + 1]
            if (sum(body) + dcs) & 0xFF or len(body) < 2 or body[0] != 0xD4:
                self.bad_frames += 1
                yield ERROR_FRAME
                continue
            with self._lock:
                reply = self._command(body[1], body[2:])
            yield ACK + _frame(bytes((0xD5, body[1] + 1)) + reply)

    def _bad(self, buf: bytearray, skip: int) -> bytes:
        self.bad_frames += 1
        del buf[:skip]
        return ERROR_FRAME

    # --- the chip ------------------------------------------------------------------------------------
    def _command(self, code: int, data: bytes) -> bytes:
        self.commands.append(code)
        if code == 0x00:  # Diagnose; the communication line test echoes its data
            return data
        if code == 0x02:
            return FIRMWARE
        if code == 0x04:  # GetGeneralStatus: no error, field, no target, SAM
            return bytes((0x00, int(self._field), 0x00, 0x00))
        if code == 0x06:  # ReadRegister: the PN532 answers the values alone, no status byte
            return bytes(self.registers.get(data[i] << 8 | data[i + 1], 0) for i in range(0, len(data) - 1, 2))
        if code == 0x08:
            for i in range(0, len(data) - 2, 3):
                self.registers[data[i] << 8 | data[i + 1]] = data[i + 2]
            return b""
        if code in (0x10, 0x12, 0x14):  # SetSerialBaudrate, SetParameters, SAMConfiguration
            return b""
        if code == 0x16:  # PowerDown
            self._field = False
            self._active = False
            return b"\x00"
        if code == 0x32:  # RFConfiguration; item 1 switches the field
            if data[:1] == b"\x01":
                self._field = bool(data[1] & 0x01) if len(data) > 1 else False
                if not self._field:
                    self._active = False  # no field: the card loses power and its state
            return b""
        if code == 0x4A:
            return self._list_passive_target(data)
        if code == 0x42:
            return self._communicate_thru(data)
        if code in (0x44, 0x52):  # InDeselect, InRelease
            self._active = False
            return b"\x00"
        return bytes((0x27,))  # "command not acceptable in the current context"

    def _list_passive_target(self, data: bytes) -> bytes:
        card = self.card
        self._field = True
        if len(data) < 2 or data[1] != 0x00 or card is None or not self._matches(card.uid, data[2:]):
            self.registers[CIU_FIFO_DATA] = 0x26  # the REQA still in the FIFO: nobody answered
            self._active = False
            return b"\x00"
        self.registers[CIU_FIFO_DATA] = 0x00
        if not self._stamped:
            # The bench's clock starts at the first select only: a re-select after a command the
            # card left unanswered (nfcpy's AUTHENTICATE probe) is inside the sample.
            self._stamped = True
            self.activations.append(time.monotonic())
        self._active = True
        # NbTg, Tg, SENS_RES (ATQA 0044 sent MSB first), SEL_RES, NFCID length, NFCID
        return bytes((0x01, 0x01, 0x00, 0x44, 0x00, len(card.uid))) + card.uid

    @staticmethod
    def _matches(uid: bytes, wanted: bytes) -> bool:
        if not wanted:
            return True
        if len(wanted) == 8 and wanted[0] == 0x88:  # a 7-byte UID with its cascade tag
            wanted = wanted[1:]
        elif len(wanted) == 12 and wanted[0] == 0x88 and wanted[4] == 0x88:
            wanted = wanted[1:4] + wanted[5:]
        return bytes(wanted) == uid

    def _communicate_thru(self, data: bytes) -> bytes:
        card = self.card
        if card is None or not self._active:
            return bytes((TIMEOUT,))
        answer = card.exchange(bytes(data))
        if answer is None:
            self._active = False  # a card that refused a command drops back to IDLE
            return bytes((TIMEOUT,))
        if len(answer) == 1:  # 4-bit ACK/NAK: no CRC on the air
            return b"\x00" + answer
        return b"\x00" + answer + crc_a(answer)


def _frame(data: bytes) -> bytes:
    checksum = (-sum(data)) & 0xFF
    if len(data) < 255:
        return bytes((0x00, 0x00, 0xFF, len(data), (-len(data)) & 0xFF)) + data + bytes((checksum, 0x00))
    high, low = len(data) >> 8, len(data) & 0xFF
    return bytes((0x00, 0x00, 0xFF, 0xFF, 0xFF, high, low, (-(high + low)) & 0xFF)) + data + bytes((checksum, 0x00))
