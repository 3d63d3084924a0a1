"""What every venue test shares (the broker and the waits are in helpers.py).

The tables and hubs run in the test's own process try the broker again sooner than in a room,
and look at the round clock more often: a broker restarted by a test is found in a fraction of a
second instead of up to five, a clock mark is said within a tenth of a second of being reached.
What they do is the same; only the pauses are shorter. Child processes (``python -m companion``)
keep the product's pauses."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from companion.venue import hub, link
from companion.venue.broker import Broker
from tests.venue.helpers import EVENT, EventOn, EventsBroker, module_events


@pytest.fixture(autouse=True)
def quick_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(link, "RETRY", (0.05, 0.5))
    monkeypatch.setattr(hub, "RETRY", (0.05, 0.5))
    monkeypatch.setattr(link, "TICK", 0.1)


@pytest.fixture(scope="module")
def module_broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EventsBroker]:
    """The module's Mosquitto (12 tables' users), an event for each test that asks for ``broker``."""
    b = EventsBroker(tmp_path_factory.mktemp("broker"), module_events(), tables=12)
    b.start()
    try:
        yield b
    finally:
        b.stop()


@pytest.fixture
def broker(module_broker: EventsBroker) -> EventOn:
    """A real Mosquitto and an event of this test's own on it (``broker.event``)."""
    return module_broker.next_event()


@pytest.fixture
def own_broker(tmp_path) -> Iterator[Broker]:
    """A Mosquitto for this test alone, for a test that stops or restarts it (event ``EVENT``)."""
    b = Broker(tmp_path / "broker", EVENT, tables=12)
    b.start()
    try:
        yield b
    finally:
        b.stop()
