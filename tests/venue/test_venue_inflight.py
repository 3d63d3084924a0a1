"""A publish left in flight when the broker goes: the hub and the tables come back with the
broker, not when their MQTT client's timeout runs out.

aiomqtt does not end a QoS 1 publish whose connection is lost: it waits the client's timeout
for an acknowledgement that cannot come. Here that timeout is an hour, so a hub or a table that
waited it out would never be back within the test; a proxy swallows what one side sends (its
publish reaches no one, so it is surely in flight) before the broker is restarted."""

from __future__ import annotations

import pytest

from companion.play.session import Session
from companion.venue import hub as hub_module
from companion.venue import link as link_module
from companion.venue.event import EventStore
from companion.venue.hub import Hub
from companion.venue.link import TableLink, VenueAddress
from companion.venue.runner import HubThread
from tests.venue.helpers import HoldingProxy, needs_mosquitto, wait_for

pytestmark = [needs_mosquitto, pytest.mark.timeout(300)]

NAMES = [f"P{i:02d}" for i in range(1, 6)]
HOUR = 3600.0


def _journal_ids(link: TableLink) -> list[int]:
    game = link.session.game
    return [e.id for e in game.journal.iter_events(game.id)]


def _hub_journal_ids(hub: HubThread, n: int) -> list[int]:
    return [e["body"]["event"]["id"] for e in hub.hub.store.entries(n, "journal")]


@pytest.mark.parametrize("held", ["hub", "table"])
def test_a_publish_in_flight_when_the_broker_restarts_does_not_stall(tmp_path, own_broker, monkeypatch, held):
    monkeypatch.setattr(hub_module, "TIMEOUT", HOUR)
    monkeypatch.setattr(link_module, "TIMEOUT", HOUR)
    broker = own_broker
    proxy = HoldingProxy(broker.port).start()
    store = EventStore(tmp_path / "event.sqlite3", broker.event, "vtes")
    for name in NAMES:
        store.register(name)
    hub = HubThread(Hub(store, "127.0.0.1", proxy.port if held == "hub" else broker.port, broker.credentials.hub,
                        seat_iterations=300)).start()
    session = Session(journal_path=tmp_path / "table1" / "games.sqlite3")
    address = VenueAddress("127.0.0.1", proxy.port if held == "table" else broker.port, broker.event, 1,
                           broker.credentials.tables[1])
    link = TableLink(session, address, auto_start=True).start()
    try:
        wait_for(lambda: hub.hub.connected and link.connected, what="hub and table connected")
        hub.call(hub.hub.seat_round)
        wait_for(lambda: session.game is not None and sorted(session.seat_names) == NAMES,
                 what="the table started its seated game")
        wait_for(lambda: link.outbox.pending() == [], what="the first entries acknowledged")
        connections = link.connections

        # what the held side sends now reaches no one: its publish waits for an acknowledgement
        proxy.hold()
        if held == "hub":
            hub.call(hub.hub.start_clock, 40)
        else:
            assert session.apply("pool 1 -1").ok
        wait_for(lambda: proxy.held_publishes > 0, what="a publish swallowed by the proxy")

        proxy.refuse()
        broker.stop()
        wait_for(lambda: not hub.hub.connected and not link.connected,
                 what="both saw the broker go (one stuck on its publish does not)")
        # made while the broker is gone: each arrives once it is back
        assert session.apply("pool 2 -1").ok
        hub.call(hub.hub.start_clock, 45)
        broker.start()
        proxy.release()

        wait_for(lambda: (link.round_clock or {}).get("duration") == 45 * 60, timeout=60,
                 what="the clock started during the outage reached the table")
        wait_for(lambda: _hub_journal_ids(hub, 1) == _journal_ids(link), timeout=60,
                 what="the hub's copy of the journal caught up, each entry once")
        wait_for(lambda: link.outbox.pending() == [], timeout=60, what="every entry acknowledged")
        assert hub.hub.connected and link.connections > connections
        wait_for(lambda: hub.hub.store.tables()[1]["state"]["seq"] == link.outbox.last_seq(), timeout=60,
                 what="the table's latest state reached the hub")
    finally:
        link.stop(drain=0)
        hub.stop()
        proxy.stop()
        store.close()
