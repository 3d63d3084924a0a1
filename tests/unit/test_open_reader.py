"""Every reader path a user can give names its backend, and a wrong one is refused clearly."""

import pytest

from companion.readers.registry import open_reader


@pytest.mark.parametrize(("path", "backend"), [
    ("sim", "SimulatedReader"),
    ("sim:vtes:100845", "SimulatedReader"),
    ("usb", "NfcpyReader"),
    ("usb:054c:06c3", "NfcpyReader"),
    ("tty:S0:pn532", "NfcpyReader"),
    ("udp:127.0.0.1:54321", "NfcpyReader"),
    ("pn532:/dev/serial/by-id/usb-FTDI-if00", "Pn532TtyReader"),
    ("hub:/dev/ttyACM0", "HubReader"),
    ("wedge", "WedgeReader"),
    ("wedge:/dev/input/event3", "WedgeReader"),
])
def test_paths(path: str, backend: str) -> None:
    reader = open_reader(path, seat=2)
    assert type(reader).__name__ == backend
    assert reader.seat == 2 and reader.path == path


@pytest.mark.parametrize("path", ["", "bluetooth", "COM3", "ttyUSB0"])
def test_unknown_paths_are_refused(path: str) -> None:
    with pytest.raises(ValueError):
        open_reader(path)
