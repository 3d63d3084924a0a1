"""Reader hub firmware for a Raspberry Pi Pico (MicroPython): up to four MFRC522 readers on one SPI
bus, one chip-select per seat, speaking hardware/protocol.md over the USB serial port.

Copy hubcore.py, mfrc522.py and this file to the Pico (``mpremote cp *.py :``); it starts at
power-up. Pins are those of hardware/wiring.md; change SEAT_CS to match your board.
"""

import sys
import time

import hubcore
import machine
from mfrc522 import MFRC522

SPI_ID = 0
SCK, MOSI, MISO = 18, 19, 16  # SPI0 on GP18/GP19/GP16
RST = 22  # one reset line shared by every reader
SEAT_CS = (17, 20, 21, 26)  # chip-select of the reader at seat 1, 2, 3, 4; drop entries for fewer


def build_readers(seat_cs=SEAT_CS):
    spi = machine.SPI(SPI_ID, baudrate=1_000_000, polarity=0, phase=0,
                      sck=machine.Pin(SCK), mosi=machine.Pin(MOSI), miso=machine.Pin(MISO))
    rst = machine.Pin(RST, machine.Pin.OUT)
    rst.value(0)
    time.sleep_ms(5)
    rst.value(1)  # releases every reader from reset at once
    time.sleep_ms(50)
    readers = []
    for cs in seat_cs:
        reader = MFRC522(spi, machine.Pin(cs, machine.Pin.OUT))
        try:
            reader.init()
        except OSError:
            pass  # reported by the main loop as ERR for that seat, instead of stopping the hub
        readers.append(reader)
    return readers


def host_input():
    """Non-blocking read of what the host sent over USB (the ``?`` request)."""
    import select

    poller = select.poll()
    poller.register(sys.stdin, select.POLLIN)

    def read():
        data = b""
        while poller.poll(0) and len(data) < 64:
            data += sys.stdin.buffer.read(1)
        return data

    return read


def write(text):
    sys.stdout.write(text)


def boot_id():
    import os

    return int.from_bytes(os.urandom(2), "big")


def main(seat_cs=SEAT_CS, rounds=None):
    readers = build_readers(seat_cs)
    hub = hubcore.Hub(len(readers), write, time.ticks_ms(), boot_id())
    hubcore.serve(hub, readers, host_input(), time.ticks_ms, time.sleep_ms, rounds=rounds)


if __name__ == "__main__":
    main()
