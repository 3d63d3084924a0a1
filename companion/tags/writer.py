"""Read, write and identify one tag on a reader, for ``python -m companion tag``.

Writing goes through nfcpy's own ``tag.ndef`` API, then reads the card back from the tag itself
(not from nfcpy's cache) before calling it done. Every refusal is a ``TagError`` whose message
key (companion/i18n/messages.yaml) tells the user what to do; nothing is half-reported.
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, TypeVar

from companion import registry
from companion.i18n import t
from companion.tags import records

T = TypeVar("T")


class TagError(Exception):
    """A refusal or failure the user can act on; ``str()`` is the translated message."""

    def __init__(self, key: str, **values: Any) -> None:
        self.key = key
        self.values = values
        super().__init__(key)

    def __str__(self) -> str:
        return t(self.key, **self.values)


@dataclass(frozen=True)
class TagInfo:
    uid: str
    product: str  # "NXP NTAG213"
    type: str  # nfcpy's tag type, "Type2Tag"
    formatted: bool  # holds NDEF management data (a capability container)
    capacity: int = 0  # bytes available to an NDEF message
    length: int = 0  # bytes of the current message
    writeable: bool = False
    ndef: bytes | None = None
    decoded: records.Decoded = field(default_factory=lambda: records.Decoded(refs=()))

    def to_json(self) -> dict[str, Any]:
        return {
            "uid": self.uid,
            "product": self.product,
            "type": self.type,
            "formatted": self.formatted,
            "capacity": self.capacity,
            "length": self.length,
            "writeable": self.writeable,
            "ndef_hex": self.ndef.hex() if self.ndef is not None else None,
            "records": list(self.decoded.records),
            "refs": list(self.decoded.refs),
            "ndef_error": self.decoded.error,
        }


READS = 3  # a tag's NDEF read this many times at most before it is called unreadable


def _ndef(tag: Any) -> Any:
    """nfcpy's ``tag.ndef``, told apart from a failed read. nfcpy answers None both for a tag with
    no NDEF management data and for one whose first pages did not answer in time (a card at the
    edge of the field, a busy reader); the second is read again, not called unformatted."""
    import nfc.tag
    import nfc.tag.tt2

    if not isinstance(tag, nfc.tag.tt2.Type2Tag):  # only a Type 2 tag's pages are read here
        ndef_obj = tag.ndef
        if ndef_obj is None and not tag.is_present:
            raise TagError("tag.lifted")
        return ndef_obj
    for _ in range(READS):
        ndef_obj = tag.ndef
        if ndef_obj is not None:
            return ndef_obj
        if not tag.is_present:
            raise TagError("tag.lifted")
        try:
            capability = bytes(tag.read(3))[:4]
        except nfc.tag.TagCommandError:
            continue
        if capability[0] != 0xE1 or capability[1] >> 4 != 1:
            return None  # no NDEF management data (or a mapping nfcpy cannot read): not formatted
    raise TagError("tag.unreadable")


def inspect(tag: Any) -> TagInfo:
    """What is on the tag. A card that left during the read is an error, not an empty tag."""
    uid = bytes(tag.identifier).hex().upper()
    ndef_obj = _ndef(tag)
    if ndef_obj is None:
        return TagInfo(uid=uid, product=str(tag.product), type=str(tag.type), formatted=False)
    data = bytes(ndef_obj.octets)
    return TagInfo(uid=uid, product=str(tag.product), type=str(tag.type), formatted=True,
                   capacity=int(ndef_obj.capacity), length=len(data),
                   writeable=bool(ndef_obj.is_writeable), ndef=data, decoded=records.decode(data))


def write_ref(tag: Any, ref: str, kind: str = "text") -> TagInfo:
    """Write ``ref`` as the tag's only NDEF record, read it back, and return what is there."""
    import nfc.tag
    import nfc.tag.tt2 as tt2

    try:
        data = records.encode_ref(ref, kind)
    except ValueError:
        raise TagError("tag.bad_ref", ref=ref, example=registry.example_ref()) from None
    ndef_obj = _ndef(tag)
    if ndef_obj is None:
        raise TagError("tag.not_formatted")
    if not ndef_obj.is_writeable:
        raise TagError("tag.locked")
    if len(data) > ndef_obj.capacity:
        raise TagError("tag.too_small", size=len(data), capacity=ndef_obj.capacity)
    try:
        ndef_obj.octets = data
    except nfc.tag.TagCommandError as exc:
        # A NAK is a page the lock bits protect although the capability container claims
        # otherwise (after a NAK the chip goes idle: no presence check then); a timeout is a
        # card that left.
        if isinstance(exc, tt2.Type2TagCommandError) and exc.errno == tt2.INVALID_PAGE_ERROR:
            raise TagError("tag.locked") from None
        if not tag.is_present:
            raise TagError("tag.lifted") from None
        raise TagError("tag.write_failed", detail=str(exc)) from None
    except (AttributeError, ValueError) as exc:  # nfcpy's own refusals (read-only, too long)
        raise TagError("tag.write_failed", detail=str(exc)) from None
    # has_changed reads the whole message again from the card.
    try:
        changed = ndef_obj.has_changed
    except nfc.tag.TagCommandError:
        changed = True
    if changed or tag.ndef is None or bytes(tag.ndef.octets) != data:
        if not tag.is_present:
            raise TagError("tag.lifted")
        raise TagError("tag.verify_failed")
    return inspect(tag)


@contextmanager
def _interruptible() -> Iterator[threading.Event]:
    """nfcpy's connect() swallows KeyboardInterrupt and returns False, as it does for a dead
    reader; remember the Ctrl-C so that it is not reported as a reader failure."""
    flag = threading.Event()
    if threading.current_thread() is not threading.main_thread():
        yield flag
        return
    previous = signal.getsignal(signal.SIGINT)

    def handler(signum: int, frame: Any) -> None:
        flag.set()
        raise KeyboardInterrupt

    signal.signal(signal.SIGINT, handler)
    try:
        yield flag
    finally:
        signal.signal(signal.SIGINT, previous)


def on_reader(path: str, action: Callable[[Any], T], timeout: float | None = None) -> T:
    """Open the reader, wait for a card (up to ``timeout`` seconds), run ``action(tag)`` while
    it is there, and return its result. Raises TagError for every way this can go wrong."""
    import nfc

    from companion.readers.nfcpy_reader import _quiet_nfc_logger, patient_udp, probe_udp

    _quiet_nfc_logger()
    if path.startswith("udp"):
        reason = probe_udp(path)
        if reason:
            raise TagError("reader.failed", path=path, detail=reason)
    clf = nfc.ContactlessFrontend()
    try:
        opened = clf.open(path)
    except Exception as exc:  # OSError without libusb, EACCES, EBUSY...
        raise TagError("reader.failed", path=path, detail=f"{type(exc).__name__}: {exc}") from None
    if not opened:
        raise TagError("reader.failed", path=path, detail=t("tag.no_device"))
    patient_udp(clf)
    outcome: dict[str, Any] = {}

    def on_connect(tag: Any) -> bool:
        try:
            outcome["value"] = action(tag)
        except Exception as exc:  # handed to the caller once nfcpy has let go of the tag
            outcome["error"] = exc
        return False  # do not wait for the card to leave

    deadline = None if timeout is None else time.monotonic() + timeout

    def terminate() -> bool:
        return bool(outcome) or (deadline is not None and time.monotonic() > deadline)

    rdwr = {"targets": ["106A"], "on-connect": on_connect, "beep-on-connect": False,
            "iterations": 1, "interval": 0.0}
    try:
        with _interruptible() as interrupted:
            while not outcome:
                result = clf.connect(rdwr=rdwr, terminate=terminate)
                if interrupted.is_set():
                    raise KeyboardInterrupt
                if outcome:
                    break
                if result is False:
                    raise TagError("tag.reader_failed", path=path)
                if deadline is not None and time.monotonic() > deadline:
                    raise TagError("tag.timeout", seconds=f"{timeout:g}")
    finally:
        try:
            clf.close()
        except Exception:
            pass
    if "error" in outcome:
        error = outcome["error"]
        if isinstance(error, TagError):
            raise error
        raise TagError("card.unreadable", detail=f"{type(error).__name__}: {error}") from error
    return outcome["value"]
