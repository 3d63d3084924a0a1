"""The reader hub's host side against hubs that misbehave (issue 15, item 9): a hub of another
protocol that only sends BEAT is reported, and ERR lines for seats that do not exist make no
event."""

from __future__ import annotations

import queue
import time

import pytest

from companion.readers import hub as hubmod
from companion.readers.events import TagEvent
from companion.readers.hub import HubReader, format_line

pytestmark = pytest.mark.timeout(30)


class Events:
    def __init__(self) -> None:
        self.q: queue.Queue[TagEvent] = queue.Queue()
        self.all: list[TagEvent] = []

    def __call__(self, event: TagEvent) -> None:
        self.all.append(event)
        self.q.put(event)

    def next(self, kind: str, timeout: float = 3.0) -> TagEvent:
        deadline = time.monotonic() + timeout
        while True:
            event = self.q.get(timeout=max(0.01, deadline - time.monotonic()))
            if event.kind == kind:
                return event


@pytest.fixture
def loop_reader():
    readers: list[HubReader] = []

    def make() -> tuple[HubReader, Events]:
        reader = HubReader("hub:loop://")
        events = Events()
        reader.start(events)
        readers.append(reader)
        deadline = time.monotonic() + 2
        while reader.port is None and time.monotonic() < deadline:
            time.sleep(0.01)
        return reader, events

    yield make
    for reader in readers:
        reader.stop()


def test_a_hub_that_only_beats_is_reported(loop_reader, monkeypatch) -> None:
    monkeypatch.setattr(hubmod, "SILENCE_LIMIT", 0.5)
    reader, events = loop_reader()
    lost = None
    for i in range(40):  # a BEAT every 0.05 s, never a HELLO: alive, but not a hub we speak to
        reader.port.write(format_line(f"BEAT {i}"))
        time.sleep(0.05)
        lost = next((e for e in events.all if e.kind == "reader-lost"), None)
        if lost is not None:
            break
        if reader.port is None:
            time.sleep(0.05)
    assert lost is not None, "a hub sending only BEAT was never reported"
    assert "HELLO" in lost.detail
    assert not any(e.kind == "reader-ready" for e in events.all)


def test_err_for_a_seat_the_hub_does_not_have_makes_no_event(loop_reader) -> None:
    reader, events = loop_reader()
    reader.port.write(format_line("HELLO tchub 1 1.0.0 2 00AB"))
    events.next("reader-ready")
    reader.port.write(format_line("ERR 9 read ghost") + format_line("ERR 2 read real") + format_line("ERR 0 hot"))
    unreadable = events.next("unreadable")
    assert unreadable.seat == 2 and unreadable.detail == "real"
    reader.port.write(format_line("LAID 1 DEADBEEF"))
    events.next("laid")
    assert [e.seat for e in events.all if e.kind == "unreadable"] == [2]
    assert 9 not in reader.stats.last_error and reader.stats.last_error[0] == "hot"
