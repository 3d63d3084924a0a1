"""Reader paths → readers: which backend a path names, and several readers at once, each
bound to a seat or not. Apart from base.py so that the backends, which build on base.py, are
never imported by it."""

from __future__ import annotations

from companion.readers.base import Reader


def open_reader(path: str, seat: int | None = None) -> Reader:
    """Build the backend named by a reader path: ``sim[:refs]``, any nfcpy path (``usb``,
    ``usb:054c:06c3``, ``tty:S0:pn532``, ``udp:HOST:PORT``), ``pn532:/dev/serial/by-id/…`` (a PN532
    on any serial path), ``hub:/dev/ttyACM0`` (the per-seat reader hub), ``wedge[:/dev/input/…]``
    (a keyboard-wedge reader)."""
    if path == "sim" or path.startswith("sim:"):
        from companion.readers.simulator import SimulatedReader

        return SimulatedReader(path, seat=seat)
    if path.startswith("hub:"):
        from companion.readers.hub import HubReader

        return HubReader(path, seat=seat)
    if path.startswith("pn532:"):
        from companion.readers.pn532_tty import Pn532TtyReader

        return Pn532TtyReader(path, seat=seat)
    if path == "wedge" or path.startswith("wedge:"):
        from companion.readers.wedge import WedgeReader

        return WedgeReader(path, seat=seat)
    if path.split(":", 1)[0] in ("usb", "tty", "udp"):
        from companion.readers.nfcpy_reader import NfcpyReader

        return NfcpyReader(path, seat=seat)
    raise ValueError(path)


def parse_reader_spec(spec: str) -> tuple[str, int | None]:
    """``PATH[@SEAT]`` → (path, seat): ``udp:127.0.0.1:5000@2`` is that reader, bound to seat 2."""
    path, sep, seat = spec.strip().rpartition("@")
    if sep and seat.isdigit() and path:
        return path, int(seat)
    return spec.strip(), None


def open_readers(specs: str | list[str] | tuple[str, ...]) -> list[Reader]:
    """Several readers at once (one per seat, say): a list of ``PATH[@SEAT]``, or one string of
    them separated by spaces. Raises ValueError naming the first path that is not a reader."""
    items = specs.split() if isinstance(specs, str) else [s for spec in specs for s in spec.split()]
    readers = []
    for item in items:
        path, seat = parse_reader_spec(item)
        readers.append(open_reader(path, seat=seat))
    return readers
