"""What every venue test shares (the broker and the waits are in helpers.py).

Their files (journals, outboxes, the event's SQLite, Mosquitto's folder) are in memory, under
/dev/shm when the machine has it: each table, hub and broker commits with fsync (synchronous=FULL),
which on a busy disk costs a simulated event of twelve tables seconds of waiting and a quarter of
its CPU. SQLite, Mosquitto and the child processes do exactly the same on it; a kill -9 leaves the
same files as on a disk (only a power cut could tell them apart, and no test makes one).

The tables and hubs run in the test's own process try the broker again sooner than in a room,
and look at the round clock more often: a broker restarted by a test is found in a fraction of a
second instead of up to five, a clock mark is said within a tenth of a second of being reached.
What they do is the same; only the pauses are shorter. Child processes (``python -m companion``)
keep the product's pauses."""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from companion.venue import hub, link
from companion.venue.broker import Broker
from tests.venue.helpers import EVENT, EventOn, EventsBroker, module_events, running


@pytest.fixture(autouse=True)
def quick_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(link, "RETRY", (0.05, 0.5))
    monkeypatch.setattr(hub, "RETRY", (0.05, 0.5))
    monkeypatch.setattr(link, "TICK", 0.1)


RAM = Path("/dev/shm")


@pytest.fixture(scope="session")
def venue_root(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Where the venue tests' folders go: a folder of this session in /dev/shm (removed at the
    end), or pytest's own temporary folder on a machine without it."""
    if not (RAM.is_dir() and os.access(RAM, os.W_OK)):
        yield tmp_path_factory.getbasetemp()
        return
    root = Path(tempfile.mkdtemp(prefix="companion-venue-tests-", dir=RAM))
    try:
        yield root
    finally:
        shutil.rmtree(root, ignore_errors=True)


def fresh_folder(root: Path, name: str) -> Path:
    return Path(tempfile.mkdtemp(prefix=re.sub(r"[^\w.-]", "_", name)[:40] + "-", dir=root))


@pytest.fixture
def tmp_path(request: pytest.FixtureRequest, venue_root: Path) -> Path:
    """A test's own folder, in memory (see above); pytest's tmp_path everywhere else."""
    return fresh_folder(venue_root, request.node.name)


@pytest.fixture(scope="module")
def module_folder(request: pytest.FixtureRequest, venue_root: Path) -> Path:
    return fresh_folder(venue_root, request.module.__name__.rsplit(".", 1)[-1])


@pytest.fixture(scope="module")
def module_broker(module_folder: Path) -> Iterator[EventsBroker]:
    """The module's Mosquitto (12 tables' users), an event for each test that asks for ``broker``."""
    with running(EventsBroker(module_folder / "broker", module_events(), tables=12)) as b:
        yield b


@pytest.fixture
def broker(module_broker: EventsBroker) -> EventOn:
    """A real Mosquitto and an event of this test's own on it (``broker.event``)."""
    return module_broker.next_event()


@pytest.fixture
def own_broker(tmp_path) -> Iterator[Broker]:
    """A Mosquitto for this test alone, for a test that stops or restarts it (event ``EVENT``)."""
    with running(Broker(tmp_path / "broker", EVENT, tables=12)) as b:
        yield b
