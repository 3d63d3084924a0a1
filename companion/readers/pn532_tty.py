"""A PN532 on any serial device path: ``pn532:/dev/serial/by-id/usb-…``, ``pn532:/dev/ttyUSB0``,
or the pseudo-terminal of the tests' fake PN532.

nfcpy's own ``tty:NAME:pn532`` paths only reach names directly under /dev (and ``tty:USB0``
changes meaning when two adapters swap numbers). Here nfcpy's unmodified PN532 driver is built on
the exact path given; everything else (polling, debounce, retry) is NfcpyReader's.
"""

from __future__ import annotations

from companion.readers.nfcpy_reader import NfcpyReader, _quiet_nfc_logger


class Pn532TtyReader(NfcpyReader):
    def __init__(self, path: str, seat: int | None = None) -> None:
        super().__init__(path, seat)
        self.device_path = path.split(":", 1)[1] if path.startswith("pn532:") else path

    def _open(self):  # -> nfc.ContactlessFrontend
        import nfc
        import nfc.clf.pn532
        import nfc.clf.transport

        _quiet_nfc_logger()
        transport = nfc.clf.transport.TTY(self.device_path)  # raises OSError when the port is gone
        try:
            device = nfc.clf.pn532.init(transport)
        except Exception:
            transport.close()
            raise
        device._path = self.device_path  # what nfcpy's own device.connect() sets; str(device) needs it
        clf = nfc.ContactlessFrontend()
        clf.device = device
        return clf
