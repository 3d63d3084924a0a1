"""Readers driven by nfcpy: USB (RC-S380, PN533, ACR122U), PN532 on a UART, and nfcpy's udp
radio used by the emulators in tests. One thread per reader; polls ISO 14443-A only (NTAG21x),
which keeps each empty poll short."""

from __future__ import annotations

import logging
import time

from companion.readers.base import Reader

log = logging.getLogger(__name__)

RETRY_DELAYS = (0.2, 0.5, 1.0, 1.0)  # back-off while a reader is missing; stays under 2 s


def _quiet_nfc_logger() -> None:
    # nfcpy sets its own logger to INFO on import; the companion reports what matters itself.
    logging.getLogger("nfc").setLevel(logging.WARNING)


class NfcpyReader(Reader):
    def __init__(self, path: str, seat: int | None = None) -> None:
        super().__init__(path, seat)
        self._clf = None

    def _open(self):  # -> nfc.ContactlessFrontend
        import nfc

        _quiet_nfc_logger()
        clf = nfc.ContactlessFrontend()
        if not clf.open(self.path):
            raise OSError(f"no reader found at {self.path}")
        return clf

    def _run(self) -> None:
        attempt = 0
        announced_lost = False
        while not self.stopping:
            try:
                clf = self._open()
            except Exception as exc:  # OSError, IOError, FileNotFoundError without libusb...
                if not announced_lost:
                    self._emit("reader-lost", detail=f"{type(exc).__name__}: {exc}")
                    announced_lost = True
                self._stop.wait(RETRY_DELAYS[min(attempt, len(RETRY_DELAYS) - 1)])
                attempt += 1
                continue
            attempt = 0
            announced_lost = False
            self._clf = clf
            self._emit("reader-ready")
            try:
                self._poll(clf)
            except Exception as exc:  # device unplugged mid-connect, broken pipe, ...
                self._emit("reader-lost", detail=f"{type(exc).__name__}: {exc}")
                announced_lost = True
                self._stop.wait(RETRY_DELAYS[0])
            finally:
                self._clf = None
                try:
                    clf.close()
                except Exception:
                    log.debug("closing %s failed", self.path, exc_info=True)

    def _poll(self, clf) -> None:
        rdwr = {
            "targets": ["106A"],
            "on-connect": self._on_connect,
            "on-release": self._on_release,
            "beep-on-connect": False,
        }
        while not self.stopping:
            started = time.monotonic()
            result = clf.connect(rdwr=rdwr, terminate=lambda: self.stopping)
            if result is False:  # nfcpy reports a device error this way
                raise OSError("reader stopped answering")
            if result is None and not self.stopping and time.monotonic() - started < 0.01:
                raise OSError("reader closed")

    def _on_connect(self, tag) -> bool:
        uid = bytes(tag.identifier).hex().upper()
        try:
            ndef_obj = tag.ndef
            data = bytes(ndef_obj.octets) if ndef_obj is not None else None
        except Exception as exc:  # lifted in the middle of a read, a NAK, garbage TLVs...
            self._emit("unreadable", uid=uid, detail=f"{type(exc).__name__}: {exc}")
            return True
        self._emit("laid", uid=uid, ndef=data)
        return True  # keep the card until it leaves, so it is announced once

    def _on_release(self, tag) -> bool:
        self._emit("lifted", uid=bytes(tag.identifier).hex().upper())
        return True
