# The hub firmware's scenarios, written in the language MicroPython and CPython share, run by
# both (tests/hardware/test_hub_firmware_micropython.py): the same inputs as tests/hardware/test_hub_firmware.py
# (debounce, HELLO, heartbeat, the host's request, ticks wrapping, a failing reader, the MFRC522
# driver over a fake chip and card, main.py over a fake ``machine``). Each line printed is
# "scenario|what the firmware wrote" (or "scenario=value"); the test compares the two runs and
# reads every line with the companion's own parser.
# No annotations, dataclasses, typing or CPython-only methods: this file is MicroPython's too.

import sys

import hubcore
import mfrc522


def show(name, lines):
    for text in lines:
        if not text.endswith("\r\n"):
            print(name + "!no CRLF: " + text)
        print(name + "|" + text[:-2])


def make_hub(seats=2, start=0):
    lines = []
    return hubcore.Hub(seats, lines.append, start, 0xC0FFEE), lines


def hello():
    hub, lines = make_hub()
    hub.reading(0, "04A224B2C35E80")
    hub.reading(1, None)
    print("hello=" + str(len(lines)))  # nothing before the first round
    hub.tick(40)
    show("hello", lines)


def debounce():
    hub, lines = make_hub()
    hub.tick(0)
    del lines[:]
    hub.reading(0, "DEADBEEF")
    hub.reading(0, "DEADBEEF")
    for _ in range(hubcore.MISSES_TO_LIFT - 1):
        hub.reading(0, None)
    hub.reading(0, "DEADBEEF")
    for _ in range(hubcore.MISSES_TO_LIFT):
        hub.reading(0, None)
    hub.reading(0, "04A224B2C35E80")
    hub.reading(0, "0411223344556F")
    show("debounce", lines)


def heartbeat():
    hub, lines = make_hub(start=1000)
    for now in range(1000, 5001, 40):
        hub.tick(now)
    show("heartbeat", lines)
    del lines[:]
    hub.received(b"garbage\n?", 5040)
    print("request=" + str(len(lines)))
    hub.received(b"\r\n", 5050)
    show("request", lines)


def wrap():
    top = 1 << 30
    hub, lines = make_hub(start=top - 500)
    for step in range(0, 3000, 40):
        hub.tick((top - 500 + step) % top)
    show("wrap", lines)


def failing():
    hub, lines = make_hub()
    hub.tick(0)
    del lines[:]
    for _ in range(hubcore.ERRORS_TO_REPORT * 3):
        hub.failure(1, "noreader")
    show("failing", lines)
    del lines[:]
    hub.hello(100)
    show("failing-hello", lines)


def codes():
    # What a driver error becomes on the wire: one lower-case word.
    for exc in (OSError("NoReader"), OSError("Time out!"), OSError(), OSError(5), OSError("spi bus \u00e9")):
        print("code=" + hubcore._code(exc))


# --- a fake MFRC522 and an ISO 14443-3 card ------------------------------------------------------
class Card:
    def __init__(self, uid):
        self.uid = uid
        self.levels = [uid] if len(uid) == 4 else [b"\x88" + uid[:3], uid[3:]]
        self.state = "IDLE"
        self.level = 0

    def air(self, frame, bits):
        if bits == 7 and (frame == b"\x52" or (frame == b"\x26" and self.state == "IDLE")):
            self.state, self.level = "READY", 0
            return b"\x44\x00"
        if self.state == "READY":
            sel = (0x93, 0x95)[self.level]
            part = self.levels[self.level]
            if frame == bytes((sel, 0x20)):
                return part + bytes((part[0] ^ part[1] ^ part[2] ^ part[3],))
            if len(frame) == 9 and frame[:2] == bytes((sel, 0x70)) and frame[2:6] == part:
                if mfrc522.crc_a(frame[:7]) != frame[7:]:
                    print("card!bad CRC")
                self.level += 1
                done = self.level == len(self.levels)
                self.state = "ACTIVE" if done else "READY"
                sak = b"\x00" if done else b"\x04"
                return sak + mfrc522.crc_a(sak)
        if self.state == "ACTIVE" and frame == b"\x50\x00" + mfrc522.crc_a(b"\x50\x00"):
            self.state = "HALT"
            return None
        self.state = "HALT" if self.state == "HALT" else "IDLE"
        return None


class Chip:
    def __init__(self, card=None, version=0x92):
        self.card = card
        self.version = version
        self.regs = {}
        self.fifo = []
        self.frames = []

    def transfer(self, out):
        reg = (out[0] >> 1) & 0x3F
        if out[0] & 0x80:
            return bytes((0,)) + bytes([self._read(reg) for _ in out[1:]])
        for value in out[1:]:
            self._write(reg, value)
        return bytes(len(out))

    def _read(self, reg):
        if reg == mfrc522.VERSION:
            return self.version
        if reg == mfrc522.FIFO_DATA:
            return self.fifo.pop(0) if self.fifo else 0
        if reg == mfrc522.FIFO_LEVEL:
            return len(self.fifo)
        return self.regs.get(reg, 0)

    def _write(self, reg, value):
        if reg == mfrc522.FIFO_DATA:
            self.fifo.append(value)
        elif reg == mfrc522.FIFO_LEVEL:
            if value & 0x80:
                self.fifo = []
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

    def _transceive(self, bits):
        frame = bytes(self.fifo)
        self.fifo = []
        self.frames.append(frame)
        antenna = self.regs.get(mfrc522.TX_CONTROL, 0) & 0x03 == 0x03
        answer = self.card.air(frame, bits) if self.card and antenna else None
        self.regs[mfrc522.ERROR] = 0
        if answer is None:
            self.regs[mfrc522.COM_IRQ] = self.regs.get(mfrc522.COM_IRQ, 0) | 0x01
        else:
            self.fifo = list(answer)
            self.regs[mfrc522.COM_IRQ] = self.regs.get(mfrc522.COM_IRQ, 0) | 0x30


class Machine:
    """``machine`` with Pin and SPI: the bus talks to the chip whose chip-select is low."""

    def __init__(self, chips):
        pins = {}
        self.pins = pins

        class Pin:
            OUT, IN = 1, 0

            def __init__(self, number, mode=None):
                self.number = number
                self.level = 1
                pins[number] = self

            def value(self, level=None):
                if level is None:
                    return self.level
                self.level = level
                return None

        class SPI:
            def __init__(self, bus, **settings):
                self.settings = settings

            def _selected(self):
                low = [n for n in pins if pins[n].level == 0]
                if len(low) > 1:
                    print("spi!two chips selected at once")
                return chips.get(low[0]) if low else None

            def write(self, data):
                chip = self._selected()
                if chip is not None:
                    chip.transfer(bytes(data))

            def write_readinto(self, data, into):
                chip = self._selected()
                got = chip.transfer(bytes(data)) if chip is not None else bytes(len(data))
                for i in range(len(into)):
                    into[i] = got[i]

        self.Pin = Pin
        self.SPI = SPI


UID7 = bytes.fromhex("04A224B2C35E80")
UID4 = bytes.fromhex("DEADBEEF")


def driver():
    chips = {17: Chip(Card(UID7)), 20: Chip(Card(UID4))}
    machine = Machine(chips)
    spi = machine.SPI(0)
    seven = mfrc522.MFRC522(spi, machine.Pin(17, machine.Pin.OUT))
    four = mfrc522.MFRC522(spi, machine.Pin(20, machine.Pin.OUT))
    print("driver=" + " ".join(str(seven.read_uid()) for _ in range(4)))
    print("driver=" + " ".join(str(four.read_uid()) for _ in range(3)))
    print("driver-frames=" + " ".join(f.hex() for f in chips[17].frames[:2]))
    chips[17].card = None
    print("driver=" + str(seven.read_uid()))


class Clock:
    """``time`` for main.py: ticks_ms and sleep_ms on a clock the test moves."""

    def __init__(self):
        self.now = 0

    def ticks_ms(self):
        return self.now

    def sleep_ms(self, ms):
        self.now += ms

    def sleep(self, seconds):
        self.now += int(seconds * 1000)


def firmware_main():
    chips = {17: Chip(Card(UID7)), 21: Chip(None)}  # seat 2 (GP20) has no reader wired
    sys.modules["machine"] = Machine(chips)
    sys.modules["time"] = Clock()
    import main

    out = []
    requests = [b"", b"?\n"] + [b""] * 200
    main.write = out.append
    main.host_input = lambda: (lambda: requests.pop(0) if requests else b"")
    main.boot_id = lambda: 0x1234
    main.main((17, 20, 21), 10)
    show("main", out)
    del out[:]
    chips[17].card = None
    chips[21].card = Card(UID4)
    main.main((17, 20, 21), 10)
    show("main-after", out)


print("implementation=" + sys.implementation.name)
for scenario in (hello, debounce, heartbeat, wrap, failing, codes, driver, firmware_main):
    scenario()
print("done")
