"""One interface for every reader backend: a thread that turns tags into TagEvents.

Backends implement ``_run()`` and call ``_emit()``; this base class owns the thread, the
debounce (a card left on a reader is announced once) and the promise that nothing raised in a
reader thread can take the app down: an exception becomes a ``reader-lost`` event.
"""

from __future__ import annotations

import abc
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass

from companion.readers.events import TagEvent

log = logging.getLogger(__name__)
Sink = Callable[[TagEvent], None]


@dataclass
class BackOff:
    """What a reader's reconnection back-off did since it started: how many waits between
    attempts to open its device, the latest and the longest. "Back in service soon after the
    device returns" rests on the longest never exceeding the back-off's longest step, which is
    what tests check (not a stopwatch) and what a status page can show. Written by the reader's
    thread only; plain numbers, read without a lock."""

    waits: int = 0
    last: float = 0.0  # seconds
    longest: float = 0.0  # seconds


class Reader(abc.ABC):
    def __init__(self, path: str, seat: int | None = None) -> None:
        self.path = path
        self.seat = seat
        self._sink: Sink | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._present: str | None = None  # uid of the card on the reader, for debounce
        self.backoff = BackOff()

    # --- public -----------------------------------------------------------------
    def start(self, sink: Sink) -> None:
        self._sink = sink
        self._stop.clear()
        self._thread = threading.Thread(target=self._guarded_run, name=f"reader {self.path}", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 3.0) -> None:
        self._stop.set()
        self._interrupt()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout)

    @property
    def stopping(self) -> bool:
        return self._stop.is_set()

    # --- for backends ---------------------------------------------------------------
    @abc.abstractmethod
    def _run(self) -> None:
        """Poll the device until ``self.stopping``; report with ``_emit``."""

    def _back_off(self, delay: float) -> None:
        """Wait ``delay`` seconds before the next attempt to open the device (a stop cuts it
        short), and count it in ``self.backoff``."""
        backoff = self.backoff
        backoff.waits += 1
        backoff.last = delay
        backoff.longest = max(backoff.longest, delay)
        self._stop.wait(delay)

    def _interrupt(self) -> None:
        """Wake a blocked ``_run`` so that it sees the stop flag (optional)."""

    def _emit(self, kind: str, uid: str = "", ndef: bytes | None = None, detail: str = "") -> None:
        if kind == "laid":
            if self._present == uid and uid:
                return  # the same card still on the reader: announced once
            self._present = uid
        elif kind == "lifted":
            if self._present is None:
                return
            uid = uid or self._present
            self._present = None
        elif kind == "reader-lost":
            self._present = None
        event = TagEvent(kind=kind, reader=self.path, seat=self.seat, uid=uid, ndef=ndef, detail=detail)  # type: ignore[arg-type]
        sink = self._sink
        if sink is None:
            return
        try:
            sink(event)
        except Exception:  # a faulty consumer must not kill the reader either
            log.exception("reader %s: event consumer failed", self.path)

    def _guarded_run(self) -> None:
        try:
            self._run()
        except Exception as exc:  # the last line of defence for the app
            log.exception("reader %s stopped", self.path)
            self._emit("reader-lost", detail=f"{type(exc).__name__}: {exc}")
