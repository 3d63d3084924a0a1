"""Where cards come from: the readers' life and each tag resolved to a card.

``Scans`` opens the readers (one or several, each possibly bound to a seat), starts them, and
turns each of their TagEvents into a ``Scan`` in the reader's own thread, with the collection's
UID map as it is on the disk now (a tag bound a moment ago by enrollment resolves at once).
Tag contents are hostile input: a tag that breaks the resolver is reported as unknown, never as
a crash. The front end says where scans go (``deliver``, ``news``) and hops to its own thread.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from companion.readers.base import Reader
from companion.readers.events import TagEvent
from companion.readers.registry import open_readers
from companion.tags.collection import collection_path, load_uid_map
from companion.tags.resolve import Resolver, Scan

if TYPE_CHECKING:
    from companion.readers.simulator import SimulatedReader

log = logging.getLogger(__name__)


class Scans:
    def __init__(self, library: Any, deliver: Callable[[Scan], None] | None = None,
                 news: Callable[[TagEvent], None] | None = None) -> None:
        self.library = library
        self.deliver = deliver  # (Scan) -> None, called in the reader's thread
        self.news = news  # (TagEvent) -> None: lifted, reader-ready, reader-lost
        self.readers: list[Reader] = []
        self.not_ready_detail = ""  # why cards cannot be named yet (loading, failed)
        self._resolver: Resolver | None = None
        self._map_stamp: tuple[float, int] | None = None
        self._ready = threading.Event()
        self._lock = threading.Lock()

    # -- readers --------------------------------------------------------------------------

    def open(self, paths: str | list[str]) -> None:
        """Open and start readers (``PATH[@SEAT]``, several at once); ValueError names a bad path."""
        readers = open_readers(paths)
        for reader in readers:
            reader.start(self.on_event)
            self.readers.append(reader)

    @property
    def simulator(self) -> SimulatedReader | None:
        if not self.readers:
            return None
        # Imported with the first reader, not at start: it brings ndef, whose import is a tenth
        # of the window's own work before its first frame on a slow machine.
        from companion.readers.simulator import SimulatedReader

        return next((r for r in self.readers if isinstance(r, SimulatedReader)), None)

    def stop(self, timeout: float = 1.0) -> None:
        readers, self.readers = self.readers, []
        for reader in readers:
            reader.stop(timeout=timeout)

    def lay_typed(self, text: str, game: str | None = None, forgiving: bool = False) -> bool:
        """Lay the card a user typed (a reference or a name) on the simulated reader, if any.
        ``forgiving``: a name with typos or words left out is searched as ``play`` searches it
        (the best card whose name answers, in ``game`` when one is on the table)."""
        sim = self.simulator
        if sim is None:
            return False
        text = text.strip()
        card = self.library.get(text) if text else None
        if card is None and text:
            for each in ([game] if game else self.library.games):
                card = self.library.find_by_name(each, text)
                if card:
                    break
        if card is None and forgiving and text and ":" not in text:
            hits = [h for h in self.library.search(text, game=game, limit=3) if getattr(h, "where", "name") == "name"]
            card = hits[0].card if hits else None
        if card is None and ":" not in text:
            return False
        sim.lift()  # typed again, it is laid again (a card left on a reader is read once)
        sim.lay(card.ref if card else text)
        return True

    # -- enrolling a tag ------------------------------------------------------------------

    def write(self, path: str, ref: str, timeout: float = 10.0) -> None:
        """Write a card reference on the tag lying on reader ``path`` (blocking: run it in a
        worker). The reader that watches that radio is stopped meanwhile (one program at a time
        on the radio) and started again after, whatever happened; TagError says what went wrong."""
        from companion.tags import writer

        reader = next((r for r in self.readers if getattr(r, "path", None) == path), None)
        if reader is not None:
            reader.stop(timeout=2.0)
        try:
            writer.on_reader(path, lambda tag: writer.write_ref(tag, ref), timeout=timeout)
        finally:
            if reader is not None:
                reader.start(self.on_event)

    # -- resolving ------------------------------------------------------------------------

    def library_ready(self, detail: str = "") -> None:
        """The card library has loaded (``detail``: why some games did not): scans resolve now."""
        self.not_ready_detail = detail
        self._ready.set()

    def wait_ready(self, timeout: float | None = None) -> bool:
        return self._ready.wait(timeout)

    def on_event(self, event: TagEvent) -> None:
        """A reader's event, in its thread: a card laid becomes a Scan; the rest is news."""
        if event.kind in ("laid", "unreadable"):
            self._ready.wait()
            scan = self.resolve(event)
            if self.deliver is not None:
                self.deliver(scan)
        elif self.news is not None:
            self.news(event)

    def resolve(self, event: TagEvent) -> Scan:
        try:
            return self._current_resolver().resolve(event)
        except Exception as exc:  # tag contents are untrusted: a bad one is an unknown card
            log.exception("resolving a tag from %s failed", event.reader)
            return Scan(event, "unknown", detail=self.not_ready_detail or f"{type(exc).__name__}: {exc}")

    def _current_resolver(self) -> Resolver:
        """The resolver with the collection's UID map as it is now on the disk."""
        path = collection_path()
        try:
            st = path.stat()
            stamp: tuple[float, int] | None = (st.st_mtime, st.st_size)
        except OSError:
            stamp = None
        with self._lock:
            if self._resolver is None or stamp != self._map_stamp:
                self._resolver = Resolver(self.library, load_uid_map())
                self._map_stamp = stamp
            return self._resolver
