"""Readers driven by nfcpy: USB (RC-S380, PN533, ACR122U), PN532 on a UART, and nfcpy's udp
radio used by the emulators in tests. One thread per reader; polls ISO 14443-A only (NTAG21x),
which keeps each empty poll short, and names an NTAG21x by its GET_VERSION before anything else
(``activate``), which spares every card nfcpy's 10 ms AUTHENTICATE probe.

What the thread promises (issue 5): a card left on the reader is announced once, and again after
it was lifted; a card lifted in the middle of a read is reported as unreadable, never as an empty
tag; a reader that goes away is reported once, retried with back-off, and in service again within
about a second of coming back; no exception leaves the thread.
"""

from __future__ import annotations

import errno
import logging
import os
import select
import socket
import time
from typing import Any

import ndef

from companion.readers.base import Reader

log = logging.getLogger(__name__)

RETRY_DELAYS = (0.1, 0.2, 0.5, 1.0)  # back-off while a reader is missing; capped well under 2 s
HEALTHY_AFTER = 2.0  # a reader that polled this long without failing starts its back-off afresh
PROBE_EVERY = 0.5  # seconds between liveness probes of a udp peer while no card is on it


def _quiet_nfc_logger() -> None:
    # nfcpy sets its own logger to INFO on import and logs every I/O error it recovers from; the
    # companion reports what matters itself (reader-lost, unreadable). Keep it when debugging.
    if logging.getLogger().level > logging.DEBUG:
        logging.getLogger("nfc").setLevel(logging.CRITICAL)


# nfcpy's tag code waits 5-10 ms for a card's answer (a real card answers in microseconds). On its
# udp radio the card is a thread or a process of the same machine, which answers when the
# scheduler lets it run: tens of milliseconds on a loaded machine, where three tries of 5 ms took a
# fresh card for a blank one. A wait of at least this on that radio only; answers that come are
# taken at once, so only a card that stays silent (gone, or a command it does not know) costs it.
UDP_MIN_WAIT = 0.1


def patient_udp(clf: Any) -> None:
    """Give an opened nfcpy reader on the udp radio the waits of UDP_MIN_WAIT; any other reader
    is left as nfcpy made it."""
    try:
        from nfc.clf.udp import Device as UdpDevice
    except ImportError:
        return
    device = getattr(clf, "device", None)
    if not isinstance(device, UdpDevice):
        return
    exchange = device.send_cmd_recv_rsp

    def send_cmd_recv_rsp(target: Any, data: Any, timeout: float) -> Any:
        # a timeout of 0 means "send, expect nothing" in nfcpy's drivers: kept
        return exchange(target, data, max(timeout, UDP_MIN_WAIT) if timeout else timeout)

    device.send_cmd_recv_rsp = send_cmd_recv_rsp


def _describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


def _wellformed(data: bytes) -> bool:
    try:
        return bool(list(ndef.message_decoder(data, errors="strict")))
    except Exception:
        return False


def activate(clf: Any, target: Any) -> Any:
    """``nfc.tag.activate``, an NTAG21x named at once by its GET_VERSION.

    nfcpy first probes an NXP Type 2 tag with AUTHENTICATE, which only a Mifare Ultralight C
    answers: an NTAG21x (every card of the companion) leaves it unanswered, which costs the probe's
    10 ms timeout on any reader, goes mute, and is selected again (REQA, two SELECTs) before nfcpy
    asks its GET_VERSION. Asked GET_VERSION first, an NTAG21x answers at once, its select still
    valid. Any other tag (no answer, a NAK, a version nfcpy does not know) is selected again and
    goes through nfcpy's own activation unchanged, AUTHENTICATE probe included. Returns the
    nfc.tag.Tag, or None as nfc.tag.activate does."""
    import nfc.clf
    import nfc.tag
    import nfc.tag.tt2_nxp

    nxp_type2 = (target.brty == "106A" and target.sdd_res and target.sdd_res[0] == 0x04
                 and target.sel_res and target.sel_res[0] >> 5 & 3 == 0
                 and target.sens_res[1] & 0x0F != 0x0C)
    if not nxp_type2:
        return nfc.tag.activate(clf, target)
    # Type 2 tags go mute after a command they do not support; a select by this UID wakes this
    # tag only (what nfcpy's tt2.activate does too).
    target.sel_req = target.sdd_res[:]
    try:
        version = bytes(clf.exchange(b"\x60", timeout=0.01))
    except nfc.clf.CommunicationError:
        version = b""
    tag_class = nfc.tag.tt2_nxp.VERSION_MAP.get(version)
    if tag_class is not None:
        return tag_class(clf, target)
    target = clf.sense(target)
    return nfc.tag.activate(clf, target) if target is not None else None


def probe_udp(path: str, wait: float = 0.05) -> str:
    """One look at a ``udp:HOST:PORT`` reader path: why nothing answers there, or "" when it may."""
    reader = NfcpyReader(path)
    if reader._udp_peer is None:
        return ""
    try:
        return reader._probe_udp(wait=wait)
    finally:
        reader._close_probe()


class NfcpyReader(Reader):
    def __init__(self, path: str, seat: int | None = None) -> None:
        super().__init__(path, seat)
        self._clf = None
        self._announced = ""  # "reader-ready" or "reader-lost": each is said once per change
        self._tag_on = False  # a tag is connected: nfcpy is checking its presence
        self._tag_seen = False
        self._lost_reason = ""
        self._last_probe = 0.0
        self._probe_sock: socket.socket | None = None
        self._last_trouble = ""
        parts = path.split(":")
        self._udp_peer: tuple[str, int] | None = None
        if parts[0] == "udp":
            host = parts[1] if len(parts) > 1 and parts[1] else "localhost"
            port = int(parts[2]) if len(parts) > 2 and parts[2].isdigit() else 54321
            self._udp_peer = (host, port)

    # --- opening and liveness -----------------------------------------------------------------------
    def _open(self):  # -> nfc.ContactlessFrontend
        import nfc

        _quiet_nfc_logger()
        if self._udp_peer is not None:
            # nfcpy's udp driver "opens" whatever is at the address, even nothing at all.
            reason = self._probe_udp(wait=0.05)
            if reason:
                raise OSError(reason)
        clf = nfc.ContactlessFrontend()
        if not clf.open(self.path):
            raise OSError(f"no reader found at {self.path}")
        patient_udp(clf)
        return clf

    def _probe_udp(self, wait: float = 0.0) -> str:
        """Is anything listening at the udp peer? nfcpy's own socket is not connected, so the
        kernel never tells it about ICMP port-unreachable; a connected socket of ours is told.
        The probe frame is RFOFF, what nfcpy itself sends when it drops the field between polls.
        Returns why the peer is gone, or "" (also when no ICMP comes back at all, e.g. filtered)."""
        assert self._udp_peer is not None
        try:
            if self._probe_sock is None:
                sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
                sock.setblocking(False)
                sock.connect((socket.gethostbyname(self._udp_peer[0]), self._udp_peer[1]))
                self._probe_sock = sock
            sock = self._probe_sock
            # An ICMP error earned by the previous probe is reported now.
            error = sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
            if error:
                raise OSError(error, os.strerror(error))
            sock.send(b"RFOFF")
            if wait and select.select([sock], [], [], wait)[0]:
                sock.recv(1024)
        except (BlockingIOError, InterruptedError):
            return ""
        except OSError as exc:
            self._close_probe()
            return f"nothing answers at {self.path} ({exc.strerror or exc})"
        return ""

    def _close_probe(self) -> None:
        if self._probe_sock is not None:
            try:
                self._probe_sock.close()
            finally:
                self._probe_sock = None

    def _terminate(self) -> bool:
        """nfcpy calls this between polls and between presence checks: our chance to stop and to
        notice that a udp peer went away (nothing else would tell us)."""
        if self.stopping:
            return True
        if self._udp_peer is not None and not self._tag_on:
            now = time.monotonic()
            if now - self._last_probe >= PROBE_EVERY:
                self._last_probe = now
                reason = self._probe_udp()
                if reason:
                    self._lost_reason = reason
                    return True
        return False

    def _announce(self, kind: str, detail: str = "") -> None:
        if self._announced == kind:
            return
        self._announced = kind
        self._emit(kind, detail=detail)

    # --- the thread -------------------------------------------------------------------------------
    def _run(self) -> None:
        failures = 0
        try:
            while not self.stopping:
                opened_at = time.monotonic()
                try:
                    clf = self._open()
                except Exception as exc:  # OSError, IOError, FileNotFoundError without libusb...
                    self._announce("reader-lost", _describe(exc))
                    self._back_off(RETRY_DELAYS[min(failures, len(RETRY_DELAYS) - 1)])
                    failures += 1
                    continue
                self._clf = clf
                self._tag_seen = False
                self._announce("reader-ready")
                try:
                    self._poll(clf)
                except Exception as exc:  # device unplugged mid-connect, broken pipe, peer gone...
                    self._tag_on = False
                    self._announce("reader-lost", _describe(exc))
                finally:
                    self._clf = None
                    try:
                        clf.close()
                    except Exception:
                        log.debug("closing %s failed", self.path, exc_info=True)
                if self.stopping:
                    break
                if self._tag_seen or time.monotonic() - opened_at > HEALTHY_AFTER:
                    failures = 0
                self._back_off(RETRY_DELAYS[min(failures, len(RETRY_DELAYS) - 1)])
                failures += 1
        finally:
            self._close_probe()

    def _poll(self, clf) -> None:
        self._lost_reason = ""
        while not self.stopping:
            started = time.monotonic()
            try:
                result = self._connect(clf)
            except OSError:
                raise
            except Exception as exc:  # a tag that breaks nfcpy's activation code
                self._tag_on = False
                self._trouble(_describe(exc))
                self._stop.wait(0.2)
                continue
            if self._lost_reason:
                raise OSError(self._lost_reason)
            if result is False:  # nfcpy reports a device error this way
                raise OSError("reader stopped answering")
            if result is None and not self.stopping and time.monotonic() - started < 0.01:
                raise OSError("reader closed")

    def _connect(self, clf) -> bool | None:
        """nfcpy's ``clf.connect(rdwr=...)`` for ISO 14443-A, one REQA per pass so that
        ``_terminate`` runs between polls (stop, liveness), with the tag activated by
        ``activate()`` instead of ``nfc.tag.activate``. Returns as connect() does: True once
        a tag was read and left, None when told to stop, False when the device failed."""
        import nfc.clf

        if clf.device is None:
            raise OSError(errno.ENODEV, os.strerror(errno.ENODEV))
        try:
            while not self._terminate():
                target = clf.sense(nfc.clf.RemoteTarget("106A"), iterations=1, interval=0.0)
                if target is None or (target.sel_res and target.sel_res[0] & 0x40):  # none, or a phone's P2P
                    continue
                tag = activate(clf, target)
                if tag is None:
                    continue
                self._on_connect(tag)  # keeps the card until it leaves, so it is announced once
                while not self._terminate() and tag.is_present:
                    time.sleep(0.1)
                clf.device.turn_off_led_and_buzzer()
                return self._on_release(tag)
        except OSError as exc:  # what connect() turns into False (a device gone mid-poll)
            log.debug("reader %s: %s", self.path, _describe(exc))
            return False
        except nfc.clf.UnsupportedTargetError as exc:
            log.info("reader %s: %s", self.path, exc)
            return False
        return None

    def _trouble(self, detail: str) -> None:
        log.warning("reader %s: %s", self.path, detail)
        if detail != self._last_trouble:  # the same broken tag is reported once, not every poll
            self._last_trouble = detail
            self._emit("unreadable", detail=detail)

    # --- a tag ----------------------------------------------------------------------------------------
    def _on_connect(self, tag) -> None:
        self._tag_on = True
        self._tag_seen = True
        self._last_trouble = ""
        try:
            uid = bytes(tag.identifier).hex().upper()
        except Exception:
            uid = ""
        try:
            kind, data, detail = self._read(tag)
        except Exception as exc:  # garbage TLVs that trip nfcpy, a NAK, anything
            kind, data, detail = "unreadable", None, _describe(exc)
        self._emit(kind, uid=uid, ndef=data, detail=detail)

    def _read(self, tag) -> tuple[str, bytes | None, str]:
        """Read the NDEF message. nfcpy answers None both for a tag with no NDEF and for a tag
        that left during the read; only a presence check tells them apart. A message that does
        not decode is read once more after a fresh select, which drops answers that arrived late
        to an earlier command (udp) and repairs a read garbled by a card at the edge of the field."""
        data: bytes | None = None
        for attempt in range(2):
            ndef_obj = tag.ndef if attempt == 0 else self._read_again(tag)
            data = bytes(ndef_obj.octets) if ndef_obj is not None else None
            if data is not None and _wellformed(data):
                return "laid", data, ""
            if not tag.is_present:
                return "unreadable", None, "card lifted during read"
        return "laid", data, ""

    def _read_again(self, tag):
        import nfc.tag.tt2

        if isinstance(tag, nfc.tag.tt2.Type2Tag) and getattr(tag.target, "sel_req", None):
            if tag.clf.sense(tag.target) is None:
                return None
        ndef_obj = tag.ndef
        if ndef_obj is not None:
            ndef_obj.has_changed  # noqa: B018 - reading it reads the tag again
        return tag.ndef

    def _on_release(self, tag) -> bool:
        self._tag_on = False
        if self.stopping:
            return True  # nfcpy releases the tag because we stop, not because it left
        try:
            uid = bytes(tag.identifier).hex().upper()
        except Exception:
            uid = ""
        self._emit("lifted", uid=uid)
        return True
