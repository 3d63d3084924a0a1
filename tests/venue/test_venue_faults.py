"""A round of a venue through faults: the hub killed with kill -9 and started again, a table's
program killed with kill -9 mid-round and started again, the broker restarted, and a flaky
network (delays, connections cut) between a table and the broker. No result is lost or counted
twice, and the hub's copy of every table's journal converges to the table's own."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.request

import pytest

from companion.play.session import Session
from companion.table.journal import Journal
from companion.venue.event import EventStore
from companion.venue.link import TableLink, VenueAddress
from tests.venue.helpers import EVENT, ROOT, FlakyProxy, needs_mosquitto, wait_for

pytestmark = [needs_mosquitto, pytest.mark.slow, pytest.mark.timeout(300)]

ENV = dict(os.environ, PYTHONPATH=str(ROOT), COMPANION_LANG="fr")
HTTP = 0.25  # how often a wait asks the hub's web API (each look costs the hub a full organiser view)


def _hub(folder, b) -> tuple[subprocess.Popen, dict]:
    proc = subprocess.Popen([sys.executable, "-m", "companion", "venue", "--event", EVENT, "--json", "--port", "0",
                             "--folder", str(folder), "--players", str(folder.parent / "players.txt"),
                             "--seat-iterations", "300",
                             "--broker", f"mqtt://hub:{b.credentials.hub}@127.0.0.1:{b.port}"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV)
    line = proc.stdout.readline()
    assert line, proc.stderr.read()
    return proc, json.loads(line)


def _api(info: dict, path: str, data: dict | None = None) -> dict:
    token = info["board"].split("token=")[1]
    base = info["public"].rsplit("/", 1)[0]
    req = urllib.request.Request(f"{base}{path}", data=None if data is None else json.dumps(data).encode(),
                                 headers={"X-Token": token, "Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.loads(r.read())


def _console(b, journal) -> subprocess.Popen:
    url = VenueAddress("127.0.0.1", b.port, EVENT, 3, b.credentials.tables[3]).url()
    return subprocess.Popen([sys.executable, "-m", "companion", "console", "--reader", "sim", "--journal", str(journal),
                             "--venue", url, "--table", "3"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True, env=ENV)


def _type(proc: subprocess.Popen, *lines: str) -> None:
    for line in lines:
        proc.stdin.write(line + "\n")
        proc.stdin.flush()


def test_a_round_survives_kill_9_broker_restart_and_a_flaky_network(tmp_path, own_broker):
    broker = own_broker  # restarted under everyone's feet
    (tmp_path / "players.txt").write_text("\n".join(f"Joueur {i:02d}" for i in range(1, 16)), encoding="utf-8")
    folder = tmp_path / "event"
    hub, info = _hub(folder, broker)
    proxy = FlakyProxy(broker.port).start()
    links: list[TableLink] = []
    table3 = None
    journal3 = tmp_path / "t3" / "games.sqlite3"
    try:
        seated = None
        answer = _api(info, "/api/action", {"action": "seat"})
        round_no = answer["round"]
        seated = _api(info, "/api/organiser")["seating"]
        assert len(seated) == 3
        for n, port in ((1, proxy.port), (2, broker.port)):
            session = Session(journal_path=tmp_path / f"t{n}" / "games.sqlite3")
            address = VenueAddress("127.0.0.1", port, EVENT, n, broker.credentials.tables[n])
            links.append(TableLink(session, address, auto_start=True).start())
        table3 = _console(broker, journal3)
        for link, players in zip(links, seated, strict=False):
            wait_for(lambda link=link, players=players: link.session.game is not None
                     and link.session.seat_names == players, timeout=60, what="tables 1 and 2 seated")

        def hub_sees_table3(since: float = 0.0) -> bool:
            """Table 3 is playing its seated game, as the hub has seen since ``since``."""
            t = next((x for x in _api(info, "/api/organiser")["tables"] if x["table"] == 3), None)
            return bool(t and t["state"] and t["state"]["state"]["seats"][0]["name"] == seated[2][0]
                        and t["state"]["ts"] > since)

        wait_for(hub_sees_table3, timeout=60, what="table 3 seated and seen", every=HTTP)
        t1, t2 = (link.session for link in links)
        for s in (t1, t2):
            assert s.apply("pool 1 -2").ok and s.apply("next").ok
        _type(table3, "pool 1 -1", "oust 2")

        def table3_ousted(seat: int) -> bool:
            t = next((x for x in _api(info, "/api/organiser")["tables"] if x["table"] == 3), None)
            return bool(t and t["state"] and t["state"]["state"]["seats"][seat - 1]["out"])

        wait_for(lambda: table3_ousted(2), timeout=60, what="table 3's oust seen by the hub", every=HTTP)
        # kill -9 the table's program mid-round, then start it again: it goes on with its game
        table3.send_signal(signal.SIGKILL)
        table3.wait(10)
        # kill -9 the hub too; the tables play on
        hub.send_signal(signal.SIGKILL)
        hub.wait(10)
        assert t1.apply("oust 2").ok and t2.apply("oust 2").ok
        restarted = time.time()
        table3 = _console(broker, journal3)
        hub, info = _hub(folder, broker)
        wait_for(lambda: hub_sees_table3(restarted), timeout=60, what="table 3 back with its game", every=HTTP)
        # the broker restarts under everyone's feet
        broker.stop()
        assert t1.apply("oust 3").ok and t2.apply("pool 4 -3").ok
        broker.start()
        _type(table3, "oust 3", "oust 4", "oust 5", "résultat ok")
        assert links[0].confirm_result("test", time_called=True)["vp"] == [2.5, 0, 0, 0.5, 0.5]
        assert links[1].confirm_result("test", time_called=True)["vp"] == [1.5, 0, 0.5, 0.5, 0.5]

        def results() -> dict[int, str]:
            return {r["table"]: r["status"] for r in _api(info, "/api/organiser")["results"]}

        wait_for(lambda: results() == {1: "validated", 2: "validated", 3: "validated"}, timeout=120,
                 what=lambda: f"three results validated: {_api(info, '/api/organiser')['results']}, "
                              f"{_api(info, '/api/organiser')['tables']}", every=HTTP)
        for link in links:
            wait_for(lambda link=link: link.outbox.pending() == [], timeout=90, what="outboxes acknowledged")
        table3.stdin.close()
        assert table3.wait(30) == 0
        table3 = None
        hub.send_signal(signal.SIGTERM)
        assert hub.wait(30) == 0
    finally:
        for link in links:
            link.stop(drain=0)
        proxy.stop()
        for p in (table3, hub):
            if p is not None and p.poll() is None:
                p.kill()
                p.wait()
    store = EventStore(folder / "event.sqlite3")
    try:
        # the hub's copy of each table's journal is the table's journal, each event once
        for n, link in ((1, links[0]), (2, links[1])):
            ids = [e.id for e in link.session.game.journal.iter_events(link.session.game.id)]
            assert [e["body"]["event"]["id"] for e in store.entries(n, "journal")] == ids
        with Journal(journal3) as j:
            game = j.games()[0]
            assert len(j.games()) == 1  # started again, the table went on with the same game
            ids = [e.id for e in j.events(game.id)]
        assert [e["body"]["event"]["id"] for e in store.entries(3, "journal")] == ids
        # one result per table, each counted once
        assert len(store.results(round_no)) == 3
        ranked = store.standings()
        assert sorted(s.games for s in ranked) == [1] * 15
        assert sum(s.vp for s in ranked) == 2.5 + 1 + 1.5 + 1.5 + 5
        assert sum(s.gw for s in ranked) == 2  # table 3's seat 1 (5 VP) and table 1's (2.5)
        assert proxy.cuts > 0 and links[0].connections > 1
    finally:
        store.close()
