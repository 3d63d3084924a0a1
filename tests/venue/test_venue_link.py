"""Tables joined to a venue through a real Mosquitto: the outbox from the table's journal, acks,
retained state, presence, the round clock, results confirmed at the table, a broker restart."""

from __future__ import annotations

import json
import time

import pytest

from companion.play.session import Session
from companion.venue import topics
from companion.venue.event import EventStore
from companion.venue.hub import Hub
from companion.venue.link import TableLink, VenueAddress
from companion.venue.runner import HubThread
from tests.venue.helpers import needs_mosquitto, wait_for

pytestmark = needs_mosquitto

NAMES = [f"P{i:02d}" for i in range(1, 11)]


@pytest.fixture
def hub(tmp_path, request):
    # on the test's own broker when it has one (it stops it), else on its event of the module's broker
    broker = request.getfixturevalue("own_broker" if "own_broker" in request.fixturenames else "broker")
    store = EventStore(tmp_path / "event.sqlite3", broker.event, "vtes")
    h = HubThread(Hub(store, "127.0.0.1", broker.port, broker.credentials.hub, seat_iterations=300)).start()
    wait_for(lambda: h.hub.connected, what="the hub connected")
    try:
        yield h
    finally:
        h.stop()
        store.close()


def _table(tmp_path, broker, n: int, said: list[str] | None = None, **kw) -> TableLink:
    session = Session(journal_path=tmp_path / f"table{n}" / "games.sqlite3")
    address = VenueAddress("127.0.0.1", broker.port, broker.event, n, broker.credentials.tables[n])
    return TableLink(session, address, say=(said.append if said is not None else None), **kw).start()


def _journal_ids(link: TableLink) -> list[int]:
    game = link.session.game
    return [e.id for e in game.journal.iter_events(game.id)]


def _hub_journal_ids(hub: HubThread, n: int) -> list[int]:
    return [e["body"]["event"]["id"] for e in hub.hub.store.entries(n, "journal")]


def test_a_state_sent_between_a_change_and_its_state_does_not_claim_the_change(tmp_path, broker, hub):
    """The link's loop may flush between a change copied to the outbox and that change's state:
    the state it then sends is the one before, and its seq must say so (run 29 of stop 35 had the
    hub hold a state of pool 30 numbered as the entry that made it 28)."""
    link = _table(tmp_path, broker, 1)
    try:
        s = link.session
        assert s.new_game("vtes", NAMES[:5], seed=3).ok
        wait_for(lambda: link.outbox.pending() == [], what="the new game acknowledged")
        copy = link._copy_events

        def copied_then_flushed(game):
            copy(game)
            # The loop's turn, here, before the change's state is made: it is woken and given two
            # seconds (its flush sends the entry; a link that makes it wait for the state sends nothing).
            link._poke()
            deadline = time.monotonic() + 2
            while time.monotonic() < deadline and _hub_journal_ids(hub, 1) != _journal_ids(link):
                time.sleep(0.02)

        link._copy_events = copied_then_flushed
        assert s.apply("pool 1 -2").ok
        link._copy_events = copy
        wait_for(lambda: hub.hub.store.tables()[1]["state"]["seq"] == link.outbox.last_seq(), what="latest state")
        state = hub.hub.store.tables()[1]["state"]
        assert state["state"]["seats"][0]["counters"]["pool"] == 28, state["state"]["seats"][0]
    finally:
        link.stop()


def test_the_address_of_an_enrolment():
    a = VenueAddress.parse("mqtt://table-3:s3cret@10.0.0.2:1884/Spring-League", 3)
    assert (a.host, a.port, a.event, a.table, a.password) == ("10.0.0.2", 1884, "Spring-League", 3, "s3cret")
    assert VenueAddress.parse(a.url()) == a
    for bad in ("http://x/ev", "mqtt://table-2:pw@host:1/ev", "mqtt://host:1/"):
        with pytest.raises(ValueError):
            VenueAddress.parse(bad, 3)


def test_a_tables_journal_reaches_the_hub_once_and_is_acknowledged(tmp_path, broker, hub):
    link = _table(tmp_path, broker, 1)
    try:
        s = link.session
        assert s.new_game("vtes", NAMES[:5], seed=3).ok
        for line in ["pool 1 -2", "pool 2 +1", "next", "undo"]:
            assert s.apply(line).ok
        wait_for(lambda: _hub_journal_ids(hub, 1) == _journal_ids(link), what="the hub has the journal")
        wait_for(lambda: link.outbox.pending() == [], what="every entry acknowledged")
        state = hub.hub.store.tables()[1]
        wait_for(lambda: hub.hub.store.tables()[1]["state"]["seq"] == link.outbox.last_seq(), what="latest state")
        state = hub.hub.store.tables()[1]
        assert state["online"] is True
        assert state["state"]["state"]["seats"][0]["counters"]["pool"] == 28
        assert hub.hub.duplicates == 0
    finally:
        link.stop()
    wait_for(lambda: hub.hub.store.tables()[1]["online"] is False, what="the table said it left")


def test_a_table_plays_on_without_the_broker_and_catches_up(tmp_path, own_broker, hub):
    broker = own_broker
    link = _table(tmp_path, broker, 2)
    try:
        s = link.session
        assert s.new_game("vtes", NAMES[:5], seed=4).ok
        wait_for(lambda: link.outbox.pending() == [], what="first entries acknowledged")
        broker.stop()
        wait_for(lambda: not link.connected, what="the table saw the broker go")
        for line in ["pool 1 -1", "pool 2 -1", "pool 3 -1", "next"]:
            assert s.apply(line).ok  # the game goes on, durable in the table's journal
        assert len(link.outbox.pending()) == 4
        broker.start()
        wait_for(lambda: _hub_journal_ids(hub, 2) == _journal_ids(link), timeout=60, what="caught up")
        wait_for(lambda: link.outbox.pending() == [], timeout=30, what="acknowledged after the restart")
        assert link.connections >= 2
    finally:
        link.stop()


def test_a_result_confirmed_at_the_table_is_validated_once(tmp_path, broker, hub):
    for name in NAMES:
        hub.hub.store.register(name)
    hub.hub.store.pin("P07", 2)
    round_no, _ = hub.call(hub.hub.seat_round)
    seated = hub.hub.store.seating(round_no)
    assert "P07" in seated[1] and sorted(sum(seated, [])) == NAMES
    said: list[str] = []
    links = [_table(tmp_path, broker, n, said if n == 1 else None, auto_start=True) for n in (1, 2)]
    try:
        for link, players in zip(links, seated, strict=True):
            wait_for(lambda link=link, players=players: link.session.game is not None
                     and link.session.seat_names == players, what="the table started its seated game")
        assert any("Table 1, tour 1" in x for x in said)
        t1 = links[0].session
        for line in ["oust 2", "oust 3", "oust 4", "oust 5"]:
            assert t1.apply(line).ok
        assert t1.game.state["over"]
        assert links[0].confirm_result("test")["vp"] == [5.0, 0.0, 0.0, 0.0, 0.0]
        # the second table records a result no oust order gives: the hub refuses it and says why
        t2 = links[1]
        body = t2.proposal()
        body.update(vp=[1.5, 0, 0, 0, 0], by="test")
        t2.outbox.add("result", body)
        t2._poke()
        wait_for(lambda: {r["table"]: r["status"] for r in hub.hub.store.results(round_no)}
                 == {1: "validated", 2: "refused"}, what="both results judged")
        wait_for(lambda: (t2.hub_result or {}).get("status") == "refused", what="table 2 told")
        assert t2.hub_result["reason"] == "venue.check.order"
        wait_for(lambda: any("Résultat du tour 1 validé" in x for x in said), what="table 1 told")
        # the same result entry sent again (an ack lost on the way) is not counted twice
        sent = hub.hub.store.entries(1, "result")[-1]
        before = hub.hub.duplicates
        hub.call(hub.hub.handle, topics.table_topic(broker.event, 1, "entry"),
                 json.dumps({"table": 1, "seq": sent["seq"], "kind": "result", "body": sent["body"]}))
        assert hub.hub.duplicates == before + 1
        standings = {s.name: s for s in hub.hub.store.standings()}
        winner = seated[0][0]
        assert (standings[winner].gw, standings[winner].vp, standings[winner].tp) == (1, 5.0, 60.0)
        assert sum(s.vp for s in standings.values()) == 5.0  # the refused table counts for nothing yet
        # the organiser overrides table 2 with a reason
        problem = hub.call(hub.hub.override, round_no, 2, {"players": seated[1], "vp": [0, 0, 3, 0, 2]},
                           "scores read from the players' sheets")
        assert problem is None
        assert sum(s.vp for s in hub.hub.store.standings()) == 10.0
    finally:
        for link in links:
            link.stop()


def test_the_round_clock_is_counted_down_and_said_at_the_table(tmp_path, own_broker, hub):
    broker = own_broker
    for name in NAMES:
        hub.hub.store.register(name)
    hub.call(hub.hub.seat_round)
    said: list[str] = []
    now = [1_000_000.0]
    link = _table(tmp_path, broker, 1, said, clock=lambda: now[0])
    try:
        hub.hub.clock = lambda: 1_000_000.0
        hub.call(hub.hub.start_clock, 120)
        wait_for(lambda: link.round_clock is not None, what="the clock reached the table")
        assert link.seconds_left() == 7200
        wait_for(lambda: "Le tour 1 commence : 120 minutes." in said, what="the start said")
        # the table's own ticker says each mark once, as the table's clock reaches it
        now[0] += 7200 - 600
        wait_for(lambda: "Plus que 10 minutes." in said, what="ten minutes said")
        now[0] += 300
        wait_for(lambda: "Plus que 5 minutes." in said, what="five minutes said")
        broker.stop()  # the count goes on with the broker gone
        wait_for(lambda: not link.connected, what="the broker gone")
        now[0] += 300
        wait_for(lambda: "Temps écoulé : fin du tour." in said, what="time said")
        assert link.time_called()
        assert link.clock_tick() == []
        marks = [x for x in said if x.startswith(("Plus que", "Temps"))]
        assert marks == ["Plus que 10 minutes.", "Plus que 5 minutes.", "Temps écoulé : fin du tour."]
    finally:
        link.stop()


def test_a_league_night_of_another_game(tmp_path, broker):
    store = EventStore(tmp_path / "league.sqlite3", broker.event, "ascension")
    for name in ["Ann", "Bob", "Cy", "Dee", "Eve", "Fay", "Gus", "Hal", "Ivy"]:
        store.register(name)
    hub = HubThread(Hub(store, "127.0.0.1", broker.port, broker.credentials.hub)).start()
    links = []
    try:
        wait_for(lambda: hub.hub.connected, what="the hub connected")
        round_no, notes = hub.call(hub.hub.seat_round)
        seated = store.seating(round_no)
        assert sorted(len(t) for t in seated) == [4, 5] and notes == []
        links = [_table(tmp_path, broker, n, auto_start=True) for n in (1, 2)]
        for link, players in zip(links, seated, strict=True):
            wait_for(lambda link=link, players=players: link.session.seat_names == players, what="seated")
            assert link.session.game.data.id == "ascension"
            assert link.confirm_result("test")["winners"] == []  # not over: a game played, nobody won
        wait_for(lambda: [r["status"] for r in store.results(round_no)] == ["validated"] * 2, what="results")
        # the organiser records the winner the table told them
        assert hub.call(hub.hub.override, round_no, 1, {"players": seated[0], "winners": [seated[0][2]]},
                        "the table forgot to end its game") is None
        ranked = store.standings()
        assert ranked[0].name == seated[0][2] and (ranked[0].gw, ranked[0].tp) == (1, 3)
        assert sorted(s.tp for s in ranked[1:]) == [1] * 8
    finally:
        for link in links:
            link.stop(drain=0)
        hub.stop()
        store.close()


def test_hostile_entries_do_not_stop_the_hub(tmp_path, broker, hub):
    import asyncio

    import aiomqtt

    async def attack() -> None:
        async with aiomqtt.Client("127.0.0.1", broker.port, username=topics.table_user(5),
                                  password=broker.credentials.tables[5]) as c:
            topic = topics.table_topic(broker.event, 5, "entry")
            for payload in (b"not json", b"[" * 100000 + b"]" * 100000, json.dumps("x"),
                            '{"table": 5, "seq": 1, "kind": "judge", "body": {"why": "\\ud800"}}',
                            json.dumps({"table": 5, "seq": "1", "kind": "result", "body": {}}),
                            json.dumps({"table": 5, "seq": 2, "kind": "result", "body": {"round": 1, "vp": [1e308]}}),
                            b"\xff\xfe"):
                await c.publish(topic, payload, qos=1)
            await c.publish(topics.table_topic(broker.event, 5, "state"), b"{" * 50000, qos=1, retain=True)

    asyncio.run(attack())
    link = _table(tmp_path, broker, 1)
    try:
        assert link.session.new_game("vtes", NAMES[:5], seed=3).ok
        wait_for(lambda: _hub_journal_ids(hub, 1) == _journal_ids(link), what="an honest table still served")
        calls = hub.hub.store.judge_calls()
        assert [c["table"] for c in calls] == [5]  # the lone surrogate was kept, not a crash
        assert hub.hub.store.acked(5) == 2 and hub.hub.store.results()[0]["status"] == "refused"
    finally:
        link.stop()


def test_a_result_waits_for_the_players_word_at_the_end_and_a_contest_calls_the_organiser(
        tmp_path, broker, hub):
    """The game's end proposes its result (said once, with the game win) and keeps it pending for
    the players' word; ``résultat non`` calls the organiser with the proposal, ``résultat`` asks
    for it again and ``résultat ok`` sends it: one core for the console, the keys, the window and
    the phones."""
    for name in NAMES:
        hub.hub.store.register(name)
    round_no, _ = hub.call(hub.hub.seat_round)
    seated = hub.hub.store.seating(round_no)
    said: list[str] = []
    link = _table(tmp_path, broker, 1, said, auto_start=True)
    news: list = []
    link.observers.subscribe("result", news.append)
    try:
        wait_for(lambda: link.session.seat_names == seated[0], what="the table started its seated game")
        s = link.session
        assert s.apply("oust 2").ok and link.pending_result() is None  # the game goes on: nothing to confirm
        # asked before the end (time called, an agreement): it waits, until the game goes on
        assert link.handle_words("résultat") and link.pending_result()["vp"][0] == 1.0 and news[-1] is not None
        assert s.apply("pool 1 -1").ok
        assert link.pending_result() is None and news[-1] is None
        said.clear()
        for line in ["oust 3", "oust 4", "oust 5"]:
            assert s.apply(line).ok
        pending = link.pending_result()
        assert pending is not None and pending["vp"] == [5.0, 0.0, 0.0, 0.0, 0.0] and news[-1] == pending
        winner = seated[0][0]
        proposed = [x for x in said if x.startswith("Résultat proposé")]
        assert proposed == [f"Résultat proposé : {winner} 5, {', '.join(f'{n} 0' for n in seated[0][1:])}. "
                            f"Victoire : {winner}. Pour l'envoyer : « résultat ok » ; "
                            "pour le contester : « résultat non »."]
        view = link.result_view("fr")
        assert view["rows"][0] == f"{winner} : 5 PV" and view["win"] == f"Victoire : {winner}."
        # the players do not agree: the organiser is called with what the table proposed
        assert link.handle_words("résultat non")
        assert said[-1] == "Résultat contesté : l'organisateur est appelé à la table 1."
        assert link.pending_result() is None and news[-1] is None
        wait_for(lambda: len(hub.hub.store.judge_calls()) == 1, what="the contest reached the organiser")
        call = hub.hub.store.judge_calls()[0]
        assert call["why"].startswith(f"résultat contesté : {winner} 5") and call["result"]["vp"][0] == 5.0
        assert hub.hub.store.results(round_no) == []
        # talked over, asked again and confirmed: validated at the hub
        assert link.handle_words("résultat")
        assert link.pending_result() is not None and said[-1].startswith("Résultat proposé")
        assert link.handle_words("résultat ok") and said[-1] == "Résultat envoyé à l'organisateur."
        assert link.pending_result() is None and news[-1] is None
        wait_for(lambda: [r["status"] for r in hub.hub.store.results(round_no)] == ["validated"], what="validated")
    finally:
        link.stop()
