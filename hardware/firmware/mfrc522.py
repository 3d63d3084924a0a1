"""A compact MFRC522 driver for MicroPython: enough to read the UID of an ISO 14443-A card
(NTAG21x: 7-byte UID; 4-byte UIDs too). The companion identifies cards by UID through the user's
collection, or the hub's host reads NDEF itself, so the hub never needs more than the UID.

Each poll wakes every card (WUPA), selects one, and halts it again (HLTA), so that a card left on
the reader answers every poll; with REQA alone an already selected card answers every other one.
CRC_A is computed here rather than by the chip: fewer SPI transfers, and the tests' fake chip
stays small.
"""

COMMAND, COM_IRQ, ERROR, FIFO_DATA, FIFO_LEVEL = 0x01, 0x04, 0x06, 0x09, 0x0A
CONTROL, BIT_FRAMING, COLL, MODE, TX_CONTROL, TX_ASK = 0x0C, 0x0D, 0x0E, 0x11, 0x14, 0x15
T_MODE, T_PRESCALER, T_RELOAD_H, T_RELOAD_L, VERSION = 0x2A, 0x2B, 0x2C, 0x2D, 0x37

IDLE, TRANSCEIVE, SOFT_RESET = 0x00, 0x0C, 0x0F
WUPA, HLTA = 0x52, 0x50
CASCADE = (0x93, 0x95, 0x97)
KNOWN_VERSIONS = (0x88, 0x90, 0x91, 0x92, 0xB2, 0x12)  # genuine chips and the common clones


def crc_a(data):
    crc = 0x6363
    for byte in data:
        byte ^= crc & 0xFF
        byte = (byte ^ (byte << 4)) & 0xFF
        crc = (crc >> 8) ^ (byte << 8) ^ (byte << 3) ^ (byte >> 4)
    return bytes((crc & 0xFF, crc >> 8))


class MFRC522:
    def __init__(self, spi, cs):
        self.spi = spi
        self.cs = cs
        self.cs.value(1)
        self._buf = bytearray(2)
        self.version = None  # set by init(); None until a chip has answered

    def _write(self, reg, value):
        self.cs.value(0)
        try:
            self.spi.write(bytes(((reg << 1) & 0x7E, value)))
        finally:
            self.cs.value(1)

    def _read(self, reg):
        self.cs.value(0)
        try:
            self.spi.write_readinto(bytes((((reg << 1) & 0x7E) | 0x80, 0)), self._buf)
        finally:
            self.cs.value(1)
        return self._buf[1]

    def init(self):
        self._write(COMMAND, SOFT_RESET)
        for _ in range(50):
            if not self._read(COMMAND) & 0x10:  # PowerDown bit cleared: reset done
                break
        version = self._read(VERSION)
        if version not in KNOWN_VERSIONS:
            # 0x00 or 0xFF: nothing on this chip-select (unplugged, miswired, no power)
            raise OSError("noreader")
        self._write(T_MODE, 0x80)  # timer starts after each transmission...
        self._write(T_PRESCALER, 0xA9)
        self._write(T_RELOAD_H, 0x00)
        self._write(T_RELOAD_L, 0xC8)  # ...and gives a card 5 ms to answer
        self._write(TX_ASK, 0x40)  # 100 % ASK modulation
        self._write(MODE, 0x3D)
        self._write(TX_CONTROL, self._read(TX_CONTROL) | 0x03)  # antenna on
        self.version = version

    def _transceive(self, data, last_bits=0):
        """Send a frame; return the card's answer, or None when no card answered cleanly."""
        self._write(COMMAND, IDLE)
        self._write(COM_IRQ, 0x7F)
        self._write(FIFO_LEVEL, 0x80)  # flush the FIFO
        for byte in data:
            self._write(FIFO_DATA, byte)
        self._write(BIT_FRAMING, last_bits)
        self._write(COMMAND, TRANSCEIVE)
        self._write(BIT_FRAMING, 0x80 | last_bits)  # StartSend
        for _ in range(100):
            irq = self._read(COM_IRQ)
            if irq & 0x30:  # RxIRq or IdleIRq: an answer
                break
            if irq & 0x01:  # the timer ran out: no card
                return None
        else:
            raise OSError("stuck")  # the chip never finished: report the seat as broken
        self._write(BIT_FRAMING, 0)
        if self._read(ERROR) & 0x1B:  # buffer overflow, collision, parity or protocol error
            return None
        count = self._read(FIFO_LEVEL)
        return bytes(self._read(FIFO_DATA) for _ in range(count))

    def read_uid(self):
        """The UID of the card on the reader as upper-case hex, or None. Raises OSError when
        the reader itself does not answer (then retries its set-up at each poll: hot-plug)."""
        if self.version is None:
            self.init()
        self._write(COLL, 0x80)  # keep received bits after a collision
        atqa = self._transceive(bytes((WUPA,)), last_bits=7)
        if atqa is None or len(atqa) != 2:
            return None
        uid = b""
        for level in CASCADE:
            answer = self._transceive(bytes((level, 0x20)))
            if answer is None or len(answer) != 5:
                return None
            if answer[0] ^ answer[1] ^ answer[2] ^ answer[3] != answer[4]:
                return None  # BCC wrong: a garbled read, try again next poll
            select = bytes((level, 0x70)) + answer
            sak = self._transceive(select + crc_a(select))
            if sak is None or len(sak) != 3 or crc_a(sak[:1]) != sak[1:]:
                return None
            if sak[0] & 0x04:  # UID not complete: the first byte was the cascade tag 0x88
                uid += answer[1:4]
                continue
            uid += answer[:4]
            halt = bytes((HLTA, 0x00))
            self._transceive(halt + crc_a(halt))  # a halted card answers no frame, by design
            return "".join(f"{b:02X}" for b in uid)
        return None
