"""A reader with no hardware: cards are laid and lifted by code, a script or the keyboard.

``sim`` alone waits for ``lay()``; ``sim:GAME:ID,GAME:ID2`` lays each card of the
list in turn (one every ``interval`` seconds), as a demo table would.
"""

from __future__ import annotations

import hashlib
import queue
import time
from collections import deque

from companion.readers.base import Reader


def text_ndef(ref: str) -> bytes:
    """The NDEF message a phone app such as NFC Tools writes for a plain Text record."""
    # Imported at the first card laid (as tags.records does to read it): the package and the uuid
    # and platform modules it brings cost 15-20 ms of CPU here to a console that lays no card.
    import ndef

    return b"".join(ndef.message_encoder([ndef.TextRecord(ref, "en")]))


def fake_uid(ref: str) -> str:
    # A stable 7-byte NXP-looking UID per reference, so that a re-laid card is the same card.
    return "04" + hashlib.sha1(ref.encode()).hexdigest()[:12].upper()


class SimulatedReader(Reader):
    def __init__(self, path: str = "sim", seat: int | None = None, interval: float = 4.0) -> None:
        super().__init__(path, seat)
        self.interval = interval
        self._actions: queue.Queue[tuple[str, str, bytes | None]] = queue.Queue()
        script = path.split(":", 1)[1] if ":" in path else ""
        refs = [r for r in _split_refs(script)]
        self._script = refs

    def lay(self, ref: str | None = None, uid: str | None = None, ndef_bytes: bytes | None = None) -> None:
        """Lay a card: by reference (written as a Text record), or a bare UID / raw NDEF."""
        if ref is not None and ndef_bytes is None:
            ndef_bytes = text_ndef(ref)
        self._actions.put(("laid", uid or fake_uid(ref or ""), ndef_bytes))

    def lift(self) -> None:
        self._actions.put(("lifted", "", None))

    def _interrupt(self) -> None:
        self._actions.put(("stop", "", None))

    def _run(self) -> None:
        # The demo's cards are laid at their own pace, apart from what is laid by code or typed:
        # a card a player types is read at once, never queued behind the rest of the demo (each
        # left on the reader for ``interval`` seconds), and the demo's next card waits a whole
        # interval after it, so that it is not cut short.
        demo = deque(self._script)
        due = 0.0  # when the demo's next card is laid: the first at once
        while not self.stopping:
            wait = 0.2
            if demo:
                wait = min(wait, max(0.0, due - time.monotonic()))
            try:
                kind, uid, data = self._actions.get(timeout=wait)
            except queue.Empty:
                if not demo or time.monotonic() < due:
                    continue
                ref = demo.popleft()
                kind, uid, data = "laid", fake_uid(ref), text_ndef(ref)
            if kind == "stop":
                break
            if kind == "laid":
                due = max(due, time.monotonic() + self.interval)
                if self._present and self._present != uid:
                    self._emit("lifted")  # a new card replaces the one on the reader
            self._emit(kind, uid=uid, ndef=data)


def _split_refs(script: str) -> list[str]:
    # "game:1,game:2" → ["game:1", "game:2"]
    return [part.strip() for part in script.split(",") if part.strip()]
